"""A terminal's mode flags (termios) cleared for a block and put back after it, as far as the
terminal lets them be: the game's flow control off (``tui.terminal``), the status line's echo
off (``statusline``)."""

from __future__ import annotations

import termios
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Final

# The fields of termios's attribute list that the flags are cleared in.
INPUT_MODES: Final = 0
LOCAL_MODES: Final = 3


def _always(fd: int) -> bool:
    return True


@contextmanager
def flags_off(
    fd: int | None, field: int, flags: int, ours: Callable[[int], bool] = _always
) -> Iterator[None]:
    """``flags`` cleared in the termios ``field`` of the terminal ``fd`` for the block, and put
    back after it. Nothing is set where ``fd`` is None or ``ours(fd)`` is false as the block
    begins, nor put back where it is false as it ends; a terminal gone meanwhile is let be."""
    saved = None
    if fd is not None and ours(fd):
        # The window closed since its modes were read: nothing was set, none to put back.
        with suppress(termios.error, OSError):
            modes = termios.tcgetattr(fd)
            changed = list(modes)
            changed[field] &= ~flags
            termios.tcsetattr(fd, termios.TCSANOW, changed)
            saved = modes
    try:
        yield
    finally:
        if fd is not None and saved is not None and ours(fd):
            with suppress(termios.error, OSError):
                termios.tcsetattr(fd, termios.TCSANOW, saved)
