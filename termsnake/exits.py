"""The exit codes the commands share (the README's "Exit codes and errors"), and the exception
that carries an ending signal to the code that exits with 128 + its number."""

import contextlib
import signal
from collections.abc import Iterator
from typing import Final

EXIT_OUTPUT: Final = 1  # the output could not be written (a full disk, a closed pipe)
EXIT_USAGE: Final = 2  # a bad argument, file or board, said in one line
EXIT_TERMINAL_GONE: Final = 1  # the terminal's input ended without a hang-up signal
EXIT_INTERRUPTED: Final = 130  # Ctrl-C, as a shell reports a process that SIGINT ended


class Terminated(Exception):
    """An ending signal arrived (SIGTERM, SIGHUP, ...): unwind, restore the terminal, exit
    128 + signal. Here, not in the terminal code, so that solvers' guards can let it pass."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


@contextlib.contextmanager
def interrupt_after() -> Iterator[None]:
    """A Ctrl-C while the body runs (modules loading) is raised once it is done. Raised at
    once, it could land in a callback of the import machinery, which prints "Exception
    ignored" and drops it: the command then ran on as if no Ctrl-C had come."""
    came: list[int] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    except ValueError:  # not the main thread: nothing to defer
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if came:
        raise KeyboardInterrupt
