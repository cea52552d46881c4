"""A command run with a signal sent to it just as its main thread first takes a lock of a
worker pool's future: where a Ctrl-C or a hang-up raised at once lands when it comes just then
(inside ``concurrent.futures``, between the lock's acquire and its ``try``)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence

import pytest
from process_tree import own_group
from pty_harness import default_signals

_RUN_TRAPPED = """
import os, signal, sys, threading
from concurrent.futures import _base

signum = getattr(signal, sys.argv[1])


class Trap:
    fired = False

    def __init__(self):
        self._lock = threading.RLock()

    def acquire(self, *args, **kwargs):
        got = self._lock.acquire(*args, **kwargs)
        if got and not Trap.fired and threading.current_thread() is threading.main_thread():
            Trap.fired = True
            os.kill(os.getpid(), signum)
        return got

    __enter__ = acquire

    def release(self):
        self._lock.release()

    def __exit__(self, *exc):
        self._lock.release()

    def _is_owned(self):
        return self._lock._is_owned()

    def _release_save(self):
        return self._lock._release_save()

    def _acquire_restore(self, state):
        self._lock._acquire_restore(state)


made = _base.Future.__init__


def trapped(self):
    made(self)
    self._condition = threading.Condition(Trap())


_base.Future.__init__ = trapped
os.cpu_count = lambda: 2  # workers, on a machine of one core too
sys.argv = ["termsnake", *sys.argv[2:]]
from termsnake.__main__ import main

sys.exit(main())
"""


def run_trapped(name: str, args: Sequence[str]) -> tuple[int, str, str]:
    """``termsnake ARGS`` with the signal ``name`` (SIGINT...) sent at the first lock its main
    thread takes on a pool's future; its exit code, stdout and stderr. Fails if it hangs."""
    command = [sys.executable, "-c", _RUN_TRAPPED, name, *args]
    with own_group(command, preexec_fn=default_signals) as proc:
        try:
            out, err = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            pytest.fail(f"termsnake {args[0]} did not end on {name}: it hangs")
    return proc.returncode, out, err
