"""Child processes that end with termsnake: on Linux the kernel kills them when termsnake
dies, even by SIGKILL (an engine; bench's and train's worker processes); worker processes
started so that a Ctrl-C meant for termsnake does not catch them loading; the resource tracker
of their semaphores started so that a hang-up sent to the terminal's group spares it; and
``WorkerDied``, with ``dead_worker`` saying how one died, for the pools of bench and train."""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from termsnake.exits import ENDING_SIGNALS

if TYPE_CHECKING:
    from multiprocessing.process import BaseProcess

_PR_SET_PDEATHSIG = 1


@functools.cache
def die_with_parent() -> Callable[[], None] | None:
    """What a child runs to be killed when its parent dies (Linux; None elsewhere), resolved
    here: a child between fork and exec must not load libraries."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes  # here: bench imports this module for WorkerDied, without engine or pool

    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def set_it() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return set_it


def die_with(parent: int) -> None:
    """In a worker process started by ``parent``: be killed when it dies (Linux), and end now if
    it died before that took hold."""
    set_it = die_with_parent()
    if set_it is not None:
        set_it()
        if os.getppid() != parent:
            os._exit(1)


@contextlib.contextmanager
def spawning(spawns: bool = True) -> Iterator[None]:
    """While ``spawns`` (starting worker processes), SIGINT is blocked: a new worker inherits
    the mask and gets a Ctrl-C only once its initializer has set what it does with one (one
    caught while it loads prints a traceback); here the signal waits, and comes when unblocked."""
    if not spawns or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # The resource tracker unblocks SIGINT when it starts: start it before, not inside.
    start_resource_tracker()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def start_resource_tracker() -> None:
    """Start multiprocessing's resource tracker, if not running, before any worker process: it
    is started with the ending signals held, and keeps them so (it lets go of SIGINT and
    SIGTERM only, which it ignores). A hang-up or a Ctrl-\\ reaches the terminal's whole
    group: it killed the tracker, and the pool's clean-up started another, which printed a
    KeyError traceback for each semaphore it had never seen."""
    from multiprocessing import resource_tracker  # only where a pool starts, as die_with_parent

    if not hasattr(signal, "pthread_sigmask"):
        resource_tracker.ensure_running()
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, ENDING_SIGNALS)
    try:
        resource_tracker.ensure_running()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class WorkerDied(Exception):
    """A worker process died (killed, out of memory, a plugin's ``os._exit``): its games are
    lost, and the run stops. The message says how (``dead_worker``)."""


def dead_worker(workers: Iterable[BaseProcess]) -> str:
    """That a worker process died, and how (``killed by SIGKILL``, ``exit code 3``) if the exit
    codes of ``workers`` tell, once the pool that one broke has shut down."""
    codes = [w.exitcode for w in workers if w.exitcode]
    # Once one has died the pool ends the others by SIGTERM: the odd one out is the first.
    first = next((c for c in codes if c != -signal.SIGTERM), codes[0] if codes else None)
    if first is None:
        return "a worker process died"
    if first > 0:
        return f"a worker process died (exit code {first})"
    try:
        return f"a worker process died (killed by {signal.Signals(-first).name})"
    except ValueError:
        return f"a worker process died (killed by signal {-first})"
