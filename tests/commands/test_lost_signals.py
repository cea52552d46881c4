"""A signal whose exception was lost as a command started (raised in a weakref callback, where
Python prints it and drops it, as in the import machinery's own callback while a module loads;
made an error of its own by a library, as numpy makes an ImportError of one; wrapped by Python
3.11 in a RuntimeError): it still ends the command, in one line and 128 + n, once loaded. So
does one lost in a bot's move (that callback, or the bot's own bare ``except:``), as the move
returns."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_folders import (
    A_MINUTE,
    finished,
    plugins_in,
    signalled,
    signals_in_a_callback,
    termsnake_with,
    wait_for_file,
)
from pty_harness import ENTER_ALT, Pty, quiet_env, termsnake_command

# The ``termsnake`` command, with CODE run as the module MODULE is first looked for: after
# termsnake has loaded, as the command imports it (numpy, the game's modules).
TRAPPED = """
import sys

module, code = sys.argv[1], sys.argv[2]


class Trap:
    def find_spec(self, name, path=None, target=None):
        if name == module:
            sys.meta_path.remove(self)
            exec(code, {})
        return None


sys.meta_path.insert(0, Trap())
sys.argv = ["termsnake", *sys.argv[3:]]
from termsnake.__main__ import main

sys.exit(main())
"""


def made_an_import_error(signum: int) -> str:
    """Code that sends ``signum`` to its own process and makes an ImportError of what its
    handler raises, as numpy does of one that comes while its core loads."""
    return (
        "import signal\n"
        "try:\n"
        f"    signal.raise_signal({signum})\n"
        "except BaseException:\n"
        "    raise ImportError('numpy failed to load') from None\n"
    )


def in_set_name(signum: int) -> str:
    """Code that sends ``signum`` to its own process in a ``__set_name__``, where Python 3.11
    wraps what its handler raises in a RuntimeError (a class such as platform's as it loads)."""
    return (
        "import signal\n"
        "class Named:\n"
        "    def __set_name__(self, owner, name):\n"
        f"        signal.raise_signal({signum})\n"
        "class Owner:\n"
        "    named = Named()\n"
    )


def trapped(module: str, code: str, *args: str) -> list[str]:
    """The ``termsnake ARGS`` command line, ``code`` run as ``module`` is first looked for."""
    return [sys.executable, "-c", TRAPPED, module, code, *args]


def said_on(signum: int) -> str:
    if signum == signal.SIGINT:
        return "termsnake: interrupted\n"
    return f"termsnake: stopped by {signal.Signals(signum).name}\n"


def ends_before_its_screen(t: Pty, signum: int, said: str) -> None:
    """``t`` ends by ``signum`` without entering the game's screen, having ``said`` that."""
    try:
        code = t.wait_exit(timeout=15)
    finally:
        t.close()
    assert code == 128 + signum
    assert ENTER_ALT not in t.raw
    assert t.text().strip() == said


def heard_as_from_a_shell() -> None:
    """In the child: the signals as a terminal's shell leaves them, even where the tests were
    started in a shell's background or under nohup."""
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)


def off_a_terminal(
    tmp_path: Path, command: list[str], plugs: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``command`` run off a terminal, with the plugins in ``plugs``; its output."""
    env = quiet_env(tmp_path)
    if plugs is not None:
        env["PYTHONPATH"] = str(plugs)
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        env=env,
        stdin=subprocess.DEVNULL,
        cwd=tmp_path,
        timeout=60,
        preexec_fn=heard_as_from_a_shell,
        check=False,
    )


TRAIN = ["train", "neuro", "--size", "6x6", "--generations", "1", "--population", "2"]
TRAIN += ["--games", "1", "--jobs", "1", "--out", "w.json"]

# A train that numpy's import lost the signal of: it ran the whole training (exit 0), or said
# "needs the learn extra (None is missing)" (exit 2), or ended in the RuntimeError's traceback.
TRAIN_CASES = {
    "dropped": (signals_in_a_callback, signal.SIGHUP),
    "made an ImportError": (made_an_import_error, signal.SIGTERM),
    "wrapped in a RuntimeError": (in_set_name, signal.SIGINT),
}


@pytest.mark.parametrize("case", sorted(TRAIN_CASES))
def test_a_signal_lost_as_numpy_loads_ends_train(case: str, tmp_path: Path) -> None:
    code, signum = TRAIN_CASES[case]
    r = off_a_terminal(tmp_path, trapped("numpy", code(signum), *TRAIN))
    assert (r.returncode, r.stdout, r.stderr) == (128 + signum, "", said_on(signum))
    assert not list(tmp_path.glob("w.json*"))


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("case", sorted(TRAIN_CASES))
def test_each_signal_lost_as_numpy_loads_ends_train(case: str, signum: int, tmp_path: Path) -> None:
    r = off_a_terminal(tmp_path, trapped("numpy", TRAIN_CASES[case][0](signum), *TRAIN))
    assert (r.returncode, r.stdout, r.stderr) == (128 + signum, "", said_on(signum))


BENCH = ["bench", "--ai", "zzlost", "--size", "6x6", "--games", "1"]


def first_move_runs(code: str) -> str:
    """A plugin's code (the rest of ``plugins_in``'s module) whose first move in a process runs
    ``code`` before it moves as greedy does."""
    body = "".join(f"            {line}\n" for line in code.splitlines())
    return (
        "\n\nclass Lost(Bot):\n    moved = False\n\n    def next_direction(self, game):\n"
        "        if not Lost.moved:\n            Lost.moved = True\n"
        f"{body}        return super().next_direction(game)\n\n\nBot = Lost\n"
    )


def drops_what_comes(began: Path) -> str:
    """Code that makes the file ``began``, waits a minute (``A_MINUTE``) and drops whatever is
    raised meanwhile (a bare ``except:``), then goes on."""
    waits = "".join(f"    {line}\n" for line in A_MINUTE.splitlines())
    return (
        f"import pathlib, time\npathlib.Path({str(began)!r}).touch()\n"
        f"try:\n{waits}except:\n    pass\n"
    )


@pytest.mark.parametrize(
    "signum", [signal.SIGINT, pytest.param(signal.SIGHUP, marks=pytest.mark.slow)]
)
def test_a_signal_lost_as_a_bot_loads_ends_bench(signum: int, tmp_path: Path) -> None:
    # bench played its games and printed their table, exit 0.
    plugs = plugins_in(tmp_path, {"lost": signals_in_a_callback(signum)})
    r = off_a_terminal(tmp_path, [termsnake_command(), *BENCH], plugs)
    assert (r.returncode, r.stdout, r.stderr) == (128 + signum, "", said_on(signum))


@pytest.mark.terminal
@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)]
)
def test_a_signal_lost_as_a_bot_loads_ends_the_game_before_it_starts(
    signum: int, tmp_path: Path
) -> None:
    # The bot's game was played, deaf to the signal.
    plugs = plugins_in(tmp_path, {"lost": signals_in_a_callback(signum)})
    t = Pty(["--ai", "zzlost", "--size", "8x8"], tmp_path, env={"PYTHONPATH": str(plugs)})
    ends_before_its_screen(t, signum, "termsnake: interrupted" if signum == signal.SIGINT else "")


@pytest.mark.terminal
@pytest.mark.parametrize(
    "signum", [signal.SIGINT, pytest.param(signal.SIGTERM, marks=pytest.mark.slow)]
)
def test_a_signal_lost_as_the_games_modules_load_ends_it_before_it_starts(
    signum: int, tmp_path: Path
) -> None:
    # A person's game began, deaf to the signal: it waited for keys.
    command = trapped("termsnake.commands.play", signals_in_a_callback(signum), "--size", "8x8")
    t = Pty(command[1:], tmp_path, command=command[0])
    ends_before_its_screen(t, signum, said_on(signum).strip())


@pytest.mark.parametrize(
    "signum",
    [
        signal.SIGTERM,
        pytest.param(signal.SIGINT, marks=pytest.mark.slow),
        pytest.param(signal.SIGHUP, marks=pytest.mark.slow),
    ],
)
def test_a_signal_lost_in_a_bots_move_ends_bench(signum: int, tmp_path: Path) -> None:
    # Python dropped the handler's exception, sent in a weakref callback as the plugin's first
    # move ran: bench --jobs 1 played its games on and printed their table, exit 0.
    plugs = plugins_in(tmp_path, {"lost": first_move_runs(signals_in_a_callback(signum))})
    r = off_a_terminal(tmp_path, [termsnake_command(), *BENCH, "--jobs", "1"], plugs)
    assert (r.returncode, r.stdout, r.stderr) == (128 + signum, "", bench_said_on(signum))


@pytest.mark.terminal
def test_a_signal_lost_in_a_bots_move_ends_a_watched_game(tmp_path: Path) -> None:
    # The game on screen only notes a signal, which its loop looks at after each move: the
    # plugin has none to lose. Scored as any game a signal stopped: not at all.
    plugs = plugins_in(tmp_path, {"lost": first_move_runs(signals_in_a_callback(signal.SIGTERM))})
    t = Pty(["--ai", "zzlost", "--size", "8x8"], tmp_path, env={"PYTHONPATH": str(plugs)})
    try:
        code = t.wait_exit(timeout=15)
    finally:
        t.close()
    assert code == 128 + signal.SIGTERM
    assert t.restored()
    assert "not scored: the bot was stopped before its game ended" in t.text()


@pytest.mark.parametrize(
    ("jobs", "signum"),
    [
        ("1", signal.SIGINT),
        pytest.param("1", signal.SIGTERM, marks=pytest.mark.slow),
        pytest.param("1", signal.SIGHUP, marks=pytest.mark.slow),
        pytest.param("2", signal.SIGTERM, marks=pytest.mark.slow),
    ],
)
def test_a_signal_a_bot_drops_in_its_move_ends_bench(
    jobs: str, signum: int, tmp_path: Path
) -> None:
    # The plugin's bare except took the exception of the signal that came as it waited, and it
    # went on: bench --jobs 1 played its games on and printed their table, exit 0. A worker of
    # --jobs 2 notes the Ctrl-C its parent sends it, and looks at the note as the game goes on.
    began = tmp_path / "began"
    proc = bench_two_games(tmp_path, first_move_runs(drops_what_comes(began)), jobs)
    out, err = signalled(proc, lambda: wait_for_file(began), signum)
    assert (proc.returncode, out, err) == (128 + signum, "", bench_said_on(signum))


def deaf_for_a_minute(began: Path) -> str:
    """Code that makes the file ``began``, then waits a minute in short sleeps, dropping
    whatever is raised in each (a bare ``except:``) and sleeping on."""
    return (
        "import pathlib, time\n"
        f"pathlib.Path({str(began)!r}).touch()\n"
        "for _ in range(600):\n    try:\n        time.sleep(0.1)\n    except:\n        pass\n"
    )


def test_a_workers_move_that_drops_every_signal_holds_bench_only_a_grace(tmp_path: Path) -> None:
    # bench stops its workers by Ctrl-C: a move that took it (its bare except) and went on held
    # the run for the move's whole minute, every signal only noted (the worker leaves one more
    # Ctrl-C to the first's clean-up). The workers now get STOP_GRACE, then are killed.
    began = tmp_path / "began"
    proc = bench_two_games(tmp_path, first_move_runs(deaf_for_a_minute(began)), "2")
    out, err = signalled(proc, lambda: wait_for_file(began), signal.SIGTERM, timeout=15)
    assert (proc.returncode, out, err) == (143, "", bench_said_on(signal.SIGTERM))


def bench_two_games(tmp_path: Path, plugin: str, jobs: str) -> subprocess.Popen[str]:
    """bench of the plugin ``plugin`` (its code), two games (one per worker with --jobs 2),
    its output piped, its signals as a shell's job's."""
    args = (*BENCH[:-1], "2", "--jobs", jobs)
    return termsnake_with(tmp_path, {"lost": plugin}, *args, preexec_fn=heard_as_from_a_shell)


def bench_said_on(signum: int) -> str:
    return said_on(signum).replace("termsnake:", "termsnake bench:")


def lost_in_a_worker_as_it_loads() -> str:
    """A plugin's code: in a worker process, as it is imported, a Ctrl-C as a terminal's, which
    reaches the worker and bench, the worker's own lost in a weakref callback (as in the import
    machinery's, as the game's modules load); its moves take a minute each."""
    lost = "".join(f"    {line}\n" for line in signals_in_a_callback(signal.SIGINT).splitlines())
    waits = "".join(f"        {line}\n" for line in A_MINUTE.splitlines())
    return (
        "import multiprocessing, os, signal, time\n"
        f"if multiprocessing.parent_process() is not None:\n{lost}"
        "    os.kill(os.getppid(), signal.SIGINT)\n"
        f"\n\nclass Slow(Bot):\n    def next_direction(self, game):\n{waits}"
        "        return super().next_direction(game)\n\n\nBot = Slow\n"
    )


def test_a_ctrl_c_a_worker_lost_as_a_bot_loaded_ends_bench(tmp_path: Path) -> None:
    # The one bench sent its workers then was a second one, which a worker leaves to the first's
    # clean-up: the worker played the bot's move on, and bench waited for it.
    proc = bench_two_games(tmp_path, lost_in_a_worker_as_it_loads(), "2")
    out, err = finished(proc, timeout=30)
    assert (proc.returncode, out, err) == (130, "", bench_said_on(signal.SIGINT))
