"""A line redrawn in place at the bottom of a terminal (bench's progress line, train's bar):
within the terminal's width at each redraw, erased whole even after the terminal was narrowed
under it, and not written over by the keys typed meanwhile."""

from __future__ import annotations

import contextlib
import functools
import os
import re
import shutil
import termios
from collections.abc import Iterator
from typing import Final, TextIO

from termsnake.formats.text import clip, pad
from termsnake.ttymodes import LOCAL_MODES, flags_off

ERASE_BELOW: Final = "\x1b[J"  # ECMA-48 ED: from the cursor to the end of the screen
# ED as a terminfo entry spells it: CSI in 7 bits or 8, J or 0J, and maybe padding (vt100's).
_ECMA_ERASE: Final = re.compile(rb"(?:\x1b\[|\x9b)0?J(?:\$<[0-9.*/]*>)?")


def columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to, asked at each call: the window may have
    been resized since the start, which COLUMNS does not follow. Not a terminal, or one that
    says 0 (a pty no one sized): COLUMNS, or stdout's terminal's, else 80."""
    try:
        found = os.get_terminal_size(stream.fileno()).columns
    except (OSError, ValueError, AttributeError):
        found = 0
    return found or shutil.get_terminal_size().columns


def can_erase() -> bool:
    """Whether the terminal takes ECMA-48's erase below (ERASE_BELOW): not a dumb one (Emacs's
    shell prints it), nor one whose entry in this system's terminfo has another erase (vt52's
    ``ESC J``) or none (a glass tty). A TERM terminfo does not know is taken to, as most do."""
    kind = os.environ.get("TERM", "")
    if not kind:
        return False
    env = tuple(os.environ.get(name) for name in ("TERMINFO", "TERMINFO_DIRS", "HOME"))
    return _erases(kind, env)


@functools.lru_cache(maxsize=8)
def _erases(kind: str, env: tuple[str | None, ...]) -> bool:
    """``can_erase`` for the terminal type ``kind``, its entry looked up where ``env`` (the
    variables that say where terminfo is) points: once, not at each redraw. The compiled file
    is read, not curses asked: curses sets up one TERM a process, and only the first."""
    from termsnake import terminfo  # only once a line is drawn: a command's start is not

    if terminfo.dumb(kind):
        return False
    entry = terminfo.look_up(kind)
    return entry is None or _ECMA_ERASE.fullmatch(entry.erase_below) is not None


def redraw(text: str, width: int) -> str:
    """What replaces the line drawn before, its cursor at its start, by ``text`` on a terminal
    ``width`` columns wide, the cursor left at its start again (``text`` empty: the erase).

    The cursor waits at the line's start, not its end: a terminal narrowed under the line may
    wrap it onto more rows (tmux, VTE and kitty do; xterm cuts it), and from its start every
    row below is the line's to erase, while from its end nothing tells how many rows above are
    its own and how many are earlier output. Keys typed would be echoed there, over its first
    letters: ``unechoed`` keeps them off it."""
    room = max(0, width - 1)  # never the last column: some terminals wrap as soon as it is written
    text = clip(text, room)
    if can_erase():
        # Erased after the text, never from the screen's top left corner: tmux takes an erase
        # from there for a clear and keeps the screen in its history, a line at each redraw.
        return "\r" + (text or " ") + ERASE_BELOW + "\r"
    return "\r" + pad(text, room) + "\r"  # spaces over the old line, which had this room at most


@contextlib.contextmanager
def unechoed(stream: TextIO | None) -> Iterator[None]:
    """Keys typed on the terminal ``stream`` writes to are not echoed for the block: the line's
    cursor waits at its start (see ``redraw``), where they would write over its first letters
    until the next redraw. They wait, unread, for what reads the terminal next (a shell shows
    them at its prompt). Only while this process is in the terminal's foreground: the modes of
    a terminal a job runs in the background of are the shell's, and setting them would stop
    the job (SIGTTOU)."""
    # Put back only if still in the foreground: sent to the background since (Ctrl-Z, bg), the
    # shell has put its own modes back.
    with flags_off(_terminal_fd(stream), LOCAL_MODES, termios.ECHO, ours=_in_foreground):
        yield


def _terminal_fd(stream: TextIO | None) -> int | None:
    try:
        fd = stream.fileno() if stream is not None else -1
    except (OSError, ValueError, AttributeError):  # in memory, or closed
        return None
    return fd if fd >= 0 and os.isatty(fd) else None


def _in_foreground(fd: int) -> bool:
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:  # not this process's controlling terminal: its modes are not ours to set
        return False
