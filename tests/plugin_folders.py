"""Plugins that misbehave as they load, each a module in a folder for PYTHONPATH: what the
installed termsnake does with them (serve, solvers, bench, play)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from pty_harness import default_signals, quiet_env, termsnake_command

# A plugin that ignores Ctrl-C and hang-ups as it is imported.
DEAF = (
    "import signal\n"
    "for s in (signal.SIGINT, signal.SIGHUP):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
)

# A plugin that starts a thread which never ends as it is imported.
LINGERS = "import threading, time\nthreading.Thread(target=time.sleep, args=(3600,)).start()\n"


def signals_in_a_callback(signum: int) -> str:
    """Code that sends ``signum`` to its own process from a weakref callback, where Python
    prints a signal handler's exception and drops it, as it does in the import machinery's
    own callback while a module loads."""
    return (
        "import os, weakref\n"
        "class _Gone: pass\n"
        "_it = _Gone()\n"
        f"_ref = weakref.ref(_it, lambda _: os.kill(os.getpid(), {signum}))\n"
        "del _it\n"
    )


def plugins_in(tmp_path: Path, modules: dict[str, str]) -> Path:
    """A folder for PYTHONPATH with a distribution whose plugin ``zzNAME`` is the module
    ``NAME`` (its code given), each a greedy bot once its code has run."""
    plugs = tmp_path / "plugs"
    info = plugs / "oddbots-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: oddbots\nVersion: 1.0\n")
    entries = "".join(f"zz{name} = {name}:Bot\n" for name in modules)
    (info / "entry_points.txt").write_text(f"[termsnake.solvers]\n{entries}")
    for name, code in modules.items():
        bot = "from termsnake.solvers.greedy import GreedySolver as Bot\n"
        (plugs / f"{name}.py").write_text(bot + code)
    return plugs


def termsnake_with(
    tmp_path: Path,
    modules: dict[str, str],
    *args: str,
    preexec_fn: Callable[[], None] = default_signals,
) -> subprocess.Popen[str]:
    """`termsnake ARGS` with the plugins ``modules`` installed, its output piped, run in
    ``tmp_path``; ``preexec_fn`` sets its signals in the child (by default Ctrl-C as a
    terminal's, even where the tests run in a shell's background)."""
    plugs = plugins_in(tmp_path, modules)
    return subprocess.Popen(
        [termsnake_command(), *args],
        env={**quiet_env(tmp_path), "PYTHONPATH": str(plugs)},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
        preexec_fn=preexec_fn,
    )


# Sleeps a minute in short sleeps: a signal that comes as a sleep begins (after Python last
# looked for one, before the system call) does not cut it short, and its handler runs only
# once that sleep is over. One long sleep outlived the test's wait for the signal's effect.
A_MINUTE = "for _ in range(600):\n    time.sleep(0.1)\n"


def hanging(began: Path) -> str:
    """Code that makes the file ``began``, then sleeps a minute (``A_MINUTE``)."""
    return f"import pathlib, time\npathlib.Path({str(began)!r}).touch()\n{A_MINUTE}"


def hanging_at_exit(began: Path) -> str:
    """Code that registers an atexit handler which makes the file ``began``, then sleeps a
    minute (``A_MINUTE``)."""
    waits = "".join(f"    {line}\n" for line in A_MINUTE.splitlines())
    return (
        f"import atexit, pathlib, time\n\n\ndef _last():\n"
        f"    pathlib.Path({str(began)!r}).touch()\n{waits}\n\natexit.register(_last)\n"
    )


def wait_for_file(path: Path, timeout: float = 20) -> None:
    """Until ``path`` exists (a plugin's code has got there); AssertionError after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} was not made"
        time.sleep(0.02)


def finished(proc: subprocess.Popen[str], timeout: float = 20) -> tuple[str, str]:
    """``proc``'s output once it has ended; AssertionError saying what it wrote if it is still
    there after ``timeout`` (it is killed)."""
    try:
        return _ended(proc, timeout, "")
    finally:
        proc.kill()
        proc.wait()


def signalled(
    proc: subprocess.Popen[str], when: Callable[[], None], signum: int, timeout: float = 30
) -> tuple[str, str]:
    """``proc``'s output once ``when()`` has returned (it waits for a moment of the run) and
    ``signum`` has been sent; AssertionError saying what the process wrote and how it ended if
    ``when()`` fails or the process is still there after ``timeout`` (it is killed)."""
    try:
        try:
            when()
        except AssertionError as e:
            raise AssertionError(f"{e}; {outcome(proc)}") from None
        proc.send_signal(signum)
        return _ended(proc, timeout, f" after {signal.Signals(signum).name}")
    finally:
        proc.kill()
        proc.wait()


def _ended(proc: subprocess.Popen[str], timeout: float, after: str) -> tuple[str, str]:
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        raise AssertionError(f"still running {timeout} s{after}; {outcome(proc)}") from None


def outcome(proc: subprocess.Popen[str]) -> str:
    """How ``proc`` ended and what it wrote (killed first if it still runs), for the message of
    a test that failed: a failure under load is seldom seen twice."""
    code = proc.poll()
    proc.kill()
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:  # a child of its holds the pipes
        out = err = "(not read: a child of its holds the pipes)"
    ended = "killed as it still ran" if code is None else f"exit code {code}"
    return f"{ended}, stdout {out!r}, stderr {err!r}"
