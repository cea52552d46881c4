"""A plugin that ignores Ctrl-C as it is imported or made leaves it as it was: `solvers`, bench
and play still end at Ctrl-C, in the next plugin's import or the plugin's own set-up that hangs."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_folders import (
    A_MINUTE,
    DEAF,
    LINGERS,
    finished,
    hanging,
    plugins_in,
    signalled,
    termsnake_with,
    wait_for_file,
)
from pty_harness import Pty

from termsnake.exits import Terminated
from termsnake.solvers import registry


@pytest.mark.parametrize(
    "args", [["solvers"], ["bench", "--ai", "zzdeaf,zzhang", "--size", "6x6", "--games", "1"]]
)
def test_ctrl_c_ends_a_hanging_import_after_a_plugin_ignored_it(
    args: list[str], tmp_path: Path
) -> None:
    began = tmp_path / "began"
    proc = termsnake_with(tmp_path, {"deaf": DEAF, "hang": hanging(began)}, *args)
    out, err = signalled(proc, lambda: wait_for_file(began), signal.SIGINT)
    assert proc.returncode == 130
    assert out == "" and err == "termsnake: interrupted\n"


# The plugin ignores Ctrl-C as it is imported, or as it is made.
DEAF_WHEN = {
    "import": DEAF,
    "made": "import signal\n\n\nclass Deaf(Bot):\n    def __init__(self):\n"
    "        super().__init__()\n        signal.signal(signal.SIGINT, signal.SIG_IGN)\n\n\n"
    "Bot = Deaf\n",
}


@pytest.mark.terminal
@pytest.mark.parametrize("when", sorted(DEAF_WHEN))
def test_ctrl_c_ends_the_set_up_of_a_plugin_that_ignored_it_as_it_loaded(
    when: str, tmp_path: Path
) -> None:
    began = tmp_path / "began"
    sets_up = "".join(f"        {line}\n" for line in hanging(began).splitlines())
    slow = "\n\nclass Slow(Bot):\n    def setup(self, game):\n" + sets_up + "\n\nBot = Slow\n"
    plugs = plugins_in(tmp_path, {"slow": DEAF_WHEN[when] + slow})
    t = Pty(["--ai", "zzslow", "--size", "6x6"], tmp_path, env={"PYTHONPATH": str(plugs)})
    try:
        wait_for_file(began)
        t.send("\x03")
        code = t.wait_exit(timeout=10)
    finally:
        t.close()
    assert code == 130
    assert t.text().strip() == "termsnake: interrupted"


def test_a_hang_up_that_ends_a_plugins_import_leaves_more_ignored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As after any first hang-up: a closing window sends more, which must not interrupt
    # termsnake's way out. What else the plugin set is undone.
    hung_up = (
        "from termsnake.exits import raise_terminated\nraise_terminated(signal.SIGHUP, None)\n"
    )
    monkeypatch.syspath_prepend(str(plugins_in(tmp_path, {"hup": DEAF + hung_up})))
    monkeypatch.delitem(sys.modules, "hup", raising=False)
    registry.plugins.cache_clear()
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGHUP)}
    try:
        with pytest.raises(Terminated):
            registry.create("zzhup")
        assert signal.getsignal(signal.SIGINT) is before[signal.SIGINT]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        for signum, handler in before.items():
            signal.signal(signum, handler)
        registry.plugins.cache_clear()
        sys.modules.pop("hup", None)


def solvers_with(tmp_path: Path, modules: dict[str, str]) -> subprocess.Popen[str]:
    """`termsnake solvers` with the plugins ``modules`` installed, its output piped."""
    return termsnake_with(tmp_path, modules, "solvers")


def test_an_idle_thread_pool_a_plugin_keeps_lets_python_exit_as_ever(tmp_path: Path) -> None:
    # Joining the threads left ahead of Python's exit held a pool's idle thread (Python ends
    # it as it exits) for the whole grace, then ended the process skipping the atexit handlers.
    done = tmp_path / "atexit ran"
    code = (
        "import atexit, pathlib\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "POOL = ThreadPoolExecutor(2)\n"
        "POOL.submit(lambda: None).result()\n"
        f"atexit.register(pathlib.Path({str(done)!r}).touch)\n"
    )
    proc = solvers_with(tmp_path, {"pool": code})
    out, err = finished(proc)
    assert proc.returncode == 0 and "zzpool" in out and err == ""
    assert done.exists()


def test_a_signal_as_python_exits_ends_it_in_one_line(tmp_path: Path) -> None:
    # The handlers that raise a signal were still in place: "Exception ignored in atexit
    # callback" and its traceback, and exit 0.
    began = tmp_path / "exiting"
    slow = "".join(f"    {line}\n" for line in A_MINUTE.splitlines())
    code = (
        f"import atexit, pathlib, time\n\n\ndef slow():\n{slow}\n\natexit.register(slow)\n"
        f"atexit.register(pathlib.Path({str(began)!r}).touch)\n"
    )
    proc = solvers_with(tmp_path, {"slowexit": code})
    out, err = signalled(proc, lambda: wait_for_file(began), signal.SIGTERM)
    assert proc.returncode == 128 + signal.SIGTERM and "zzslowexit" in out
    assert err == "termsnake: stopped by SIGTERM\n"


def test_solvers_ends_when_a_plugins_thread_never_does(tmp_path: Path) -> None:
    # Python's exit waited for such a thread for ever.
    proc = solvers_with(tmp_path, {"lingers": LINGERS})
    out, _ = finished(proc)
    assert proc.returncode == 0 and "zzlingers" in out


def bench_with(tmp_path: Path, modules: dict[str, str], *args: str) -> subprocess.Popen[str]:
    """`termsnake bench --size 6x6 --jobs 2 ARGS` with the plugins ``modules`` installed."""
    return termsnake_with(tmp_path, modules, "bench", "--size", "6x6", "--jobs", "2", *args)


def test_bench_jobs_ends_when_a_plugins_thread_never_does(tmp_path: Path) -> None:
    # The workers import the plugin too, and such a thread held each one's exit, and the pool's
    # shutdown with them: no table, and no end.
    proc = bench_with(tmp_path, {"lingers": LINGERS}, "--ai", "zzlingers", "--games", "4")
    out, err = finished(proc)
    assert proc.returncode == 0 and err == ""
    assert re.search(r"\nzzlingers +open-6x6 +36 +4 +4 ", out), out


def test_bench_jobs_ends_when_a_plugins_atexit_handler_never_returns_in_a_worker(
    tmp_path: Path,
) -> None:
    # The worker's grace was only for threads left running: the handler held its exit, and
    # the pool's shutdown with it, deaf to Ctrl-C and SIGTERM (the parent only noted them).
    code = (
        "import atexit, multiprocessing\n"
        "if multiprocessing.parent_process() is not None:\n"
        "    atexit.register(time.sleep, 3600)\n"
    )
    proc = bench_with(
        tmp_path, {"stuck": "import time\n" + code}, "--ai", "zzstuck", "--games", "4"
    )
    out, err = finished(proc)
    assert proc.returncode == 0 and err == ""
    assert re.search(r"\nzzstuck +open-6x6 +36 +4 +4 ", out), out


@pytest.mark.parametrize(
    ("signum", "said"),
    [
        (signal.SIGINT, "interrupted"),
        pytest.param(signal.SIGTERM, "stopped by SIGTERM", marks=pytest.mark.slow),
    ],
    ids=["SIGINT", "SIGTERM"],
)
def test_a_signal_ends_bench_jobs_when_a_plugins_thread_never_does(
    signum: int, said: str, tmp_path: Path
) -> None:
    # The workers stopped their games, then the pool's shutdown waited for them for ever.
    began = tmp_path / "began"
    slow = (
        "import pathlib\n\n\nclass Slow(Bot):\n    def setup(self, game):\n"
        f"        pathlib.Path({str(began)!r}).touch()\n        super().setup(game)\n\n"
        "    def next_direction(self, game):\n        time.sleep(0.01)\n"
        "        return super().next_direction(game)\n\n\nBot = Slow\n"
    )
    proc = bench_with(tmp_path, {"slow": LINGERS + slow}, "--ai", "zzslow", "--games", "40")
    out, err = signalled(proc, lambda: wait_for_file(began), signum)
    assert proc.returncode == (130 if signum == signal.SIGINT else 128 + signum)
    assert out == "" and err == f"termsnake bench: {said}\n"


ENDS: dict[int, str] = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "stopped by SIGTERM",
    signal.SIGHUP: "stopped by SIGHUP",
}


# A hang-up with workers goes SIGTERM's way (Terminated, in the parent and in the workers): in
# the slow step only.
@pytest.mark.parametrize(
    ("signum", "jobs", "mine"),
    [
        pytest.param(signum, jobs, mine, id=f"{name}-{how}", marks=marks)
        for signum, name in zip(ENDS, ["INT", "TERM", "HUP"], strict=True)
        for jobs, mine, how in [
            ("1", False, "jobs1"),
            ("2", False, "jobs2"),
            ("1", True, "jobs1-its-own-error"),
        ]
        for marks in [pytest.mark.slow if (name, how) == ("HUP", "jobs2") else ()]
    ],
)
def test_a_signal_during_a_plugins_move_still_ends_bench(
    jobs: str, mine: bool, signum: int, tmp_path: Path
) -> None:
    # A KeyboardInterrupt or Terminated the plugin raises itself is its failure; one Ctrl-C or
    # an ending signal raises in its move is not, nor an error the plugin makes of it: the run
    # ends as at any other moment.
    began = tmp_path / "began"
    code = hanging(began)
    if mine:
        code = "try:\n" + "".join(f"    {line}\n" for line in code.splitlines())
        code += "except BaseException:\n    raise RuntimeError('mine now')\n"
    moves = "".join(f"        {line}\n" for line in code.splitlines())
    stuck = (
        "\n\nclass Stuck(Bot):\n    def next_direction(self, game):\n" + moves + "\n\nBot = Stuck\n"
    )
    proc = termsnake_with(tmp_path, {"stuck": stuck}, "bench", "--ai", "zzstuck", "--size", "6x6",
                          "--games", "2", "--jobs", jobs)  # fmt: skip
    out, err = signalled(proc, lambda: wait_for_file(began), signum)
    exit_code = 130 if signum == signal.SIGINT else 128 + signum
    assert (proc.returncode, out, err) == (exit_code, "", f"termsnake bench: {ENDS[signum]}\n")
