"""Ctrl-C, SIGTERM or SIGHUP in the first moments of the ``termsnake`` command, before its
commands set their handlers: one line and 128 + the signal's number, as at any later moment,
never a traceback nor a death without a word."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pty_harness import default_signals, quiet_env, termsnake_command

from termsnake import __main__ as entry
from termsnake.exits import ENDING_SIGNALS
from termsnake.serve.limits import ALWAYS_STOP

# A frame of termsnake's own code in a traceback.
_OURS = re.compile(r'File "[^"]*/termsnake/[^"]*\.py"')
# The line PYTHONPROFILEIMPORTTIME writes as the first module the entry point's main() loads
# has loaded: from there on, termsnake answers every ending signal. (Before main() runs, the
# signal is Python's to take: it kills the process, or Python's start-up or import machinery
# fails on the KeyboardInterrupt, or takes it and goes on.)
_MAIN_RUNS = re.compile(r"^import time:.*\|\s+termsnake\.commands$", re.MULTILINE)

# termsnake's first module but the package and the entry point's own: a signal sent to itself
# then, before any handler of termsnake's was known, when it comes just then.
RUN_SIGNALLED_WHILE_LOADING = """
import os, signal, sys

signum = getattr(signal, sys.argv[1])


class Trap:
    def find_spec(self, name, path=None, target=None):
        if name.startswith("termsnake.") and name != "termsnake.__main__":
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signum)
        return None


sys.meta_path.insert(0, Trap())
sys.argv = ["termsnake", *sys.argv[2:]]
from termsnake.__main__ import main

sys.exit(main())
"""


SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def said_on(signum: int) -> str:
    """The line the command ends with on ``signum``, if it has not begun a command of its own."""
    if signum == signal.SIGINT:
        return "termsnake: interrupted"
    return f"termsnake: stopped by {signal.Signals(signum).name}"


def test_the_entry_point_notes_the_signals_the_commands_end_on() -> None:
    assert list(entry._ENDING) == list(ENDING_SIGNALS)
    assert list(entry._SERVE_STOPS) == list(ALWAYS_STOP)


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: s.name)
def test_a_signal_as_the_first_modules_load_ends_in_one_line(
    signum: signal.Signals, tmp_path: Path
) -> None:
    # Ctrl-C printed a KeyboardInterrupt traceback; SIGTERM and SIGHUP killed it silently.
    r = subprocess.run(
        [sys.executable, "-c", RUN_SIGNALLED_WHILE_LOADING, signum.name, "levels"],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        timeout=30,
        preexec_fn=default_signals,
        check=False,
    )
    assert (r.returncode, r.stdout, r.stderr) == (128 + signum, "", said_on(signum) + "\n")


def test_ctrl_c_as_the_first_modules_load_stops_a_server_started_in_a_shells_background(
    tmp_path: Path,
) -> None:
    # `termsnake serve &` inherits Ctrl-C ignored, which stops the server all the same: until
    # serve's own module had loaded, one was lost, and the server listened on.
    key = str(tmp_path / "key")
    r = subprocess.run(
        [sys.executable, "-c", RUN_SIGNALLED_WHILE_LOADING, "SIGINT", "serve", "--port", "0",
         "--host-key", key],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        timeout=30,
        preexec_fn=lambda: default_signals((signal.SIGINT,)),
        check=False,
    )  # fmt: skip
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "termsnake: interrupted\n")


def test_a_hang_up_as_the_first_modules_load_with_the_terminal_gone_is_129(tmp_path: Path) -> None:
    # Its line could not be written (stderr gone with the terminal): that error ended it, 1.
    read, write = os.pipe()
    os.close(read)
    try:
        r = subprocess.run(
            [sys.executable, "-c", RUN_SIGNALLED_WHILE_LOADING, "SIGHUP", "levels"],
            stdout=subprocess.DEVNULL,
            stderr=write,
            env=quiet_env(tmp_path),
            timeout=30,
            check=False,
        )
    finally:
        os.close(write)
    assert r.returncode == 128 + signal.SIGHUP


def signalled(args: list[str], signum: int, after: float, home: Path) -> tuple[int | None, str]:
    """``termsnake ARGS`` sent ``signum`` ``after`` seconds after it was started: its exit code
    (None if it ran on) and stderr, where the modules Python loaded are said as they load."""
    env = {**quiet_env(home), "PYTHONPROFILEIMPORTTIME": "1"}
    command = subprocess.Popen(
        [termsnake_command(), *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=default_signals,
    )
    try:
        time.sleep(after)
        command.send_signal(signum)
        _, err = command.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        command.kill()
        return None, command.communicate()[1]
    finally:
        if command.poll() is None:
            command.kill()
            command.communicate()
    return command.returncode, err


# A hang-up goes SIGTERM's way (Terminated) at every moment of the sweep: in the slow step only.
@pytest.mark.parametrize(
    "signum",
    [pytest.param(s, marks=pytest.mark.slow) if s == signal.SIGHUP else s for s in SIGNALS],
    ids=lambda s: s.name,
)
def test_a_signal_early_in_a_bench_ends_in_one_line(signum: signal.Signals, tmp_path: Path) -> None:
    # Until bench set its handlers, SIGTERM and SIGHUP killed it silently (and Ctrl-C, while
    # termsnake's first modules loaded, printed a traceback).
    args = ["bench", "--ai", "bfs", "--size", "30x30", "--games", "1000"]
    for after in (0, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2):
        code, err = signalled(args, signum, after, tmp_path)
        said = [line for line in err.splitlines() if not line.startswith("import time:")]
        if code == 128 + signum:
            assert len(said) == 1 and re.fullmatch(
                rf"termsnake( bench)?: {said_on(signum).split(': ')[1]}", said[0]
            ), (after, said)
        elif code is None:  # it ran on: Python took the Ctrl-C, said so, and went on
            assert "KeyboardInterrupt" in _MAIN_RUNS.split(err)[0], (after, said)
        else:  # Python had not run termsnake's main() yet
            assert not _OURS.search(err), (after, said)
            assert not _MAIN_RUNS.search(err), (after, code, said)
