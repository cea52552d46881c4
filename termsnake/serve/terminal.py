"""A blessed Terminal whose keys come from an SSH channel and whose frames go back to it.

blessed lets an alternate input replace ``kbhit``/``getch``; the game's Session then reads keys
with ``inkey`` exactly as on a local tty. Output is written through a callback (the server
hands it to the event loop) and counted, so a client that stops reading is noticed.
"""

from __future__ import annotations

import codecs
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import IO, Final, cast

from blessed.keyboard import DEFAULT_ESCDELAY, Keystroke

from termsnake import terminfo
from termsnake.formats.text import shorten
from termsnake.serve.limits import MAX_COLUMNS, MAX_PENDING_INPUT, MAX_ROWS
from termsnake.tui.terminal import TypedAhead

# Every session draws with one terminal kind's sequences: curses reads one capability database
# per process. What the client's own type cannot do (colours, moving the cursor) is read from
# terminfo for each (``ChannelTerminal.suit``).
KIND: Final = "xterm-256color"


def window(width: int, height: int) -> tuple[int, int]:
    """A client's window size as the server takes it: at least 1x1, at most the maxima
    (limits.MAX_COLUMNS, MAX_ROWS). The screen is drawn (and padded) to the claimed size, so
    a claim of billions of rows would fill the memory."""
    return (min(MAX_COLUMNS, max(1, width)), min(MAX_ROWS, max(1, height)))


class Closed(Exception):
    """The client went away or the server closes the session: unwind the game loop."""


class CannotMoveCursor(Exception):
    """The client's terminal type cannot move the cursor (or not by ANSI's escapes): no screen
    can be drawn on it. Its text is the client's farewell; ``why``, the log's."""

    def __init__(self, said: str, why: str) -> None:
        super().__init__(said)
        self.why = why


class ChannelOutput:
    """A text stream for the Session's Screen: writes go to ``send``. While the client is
    behind by more than ``limit`` unsent bytes, a write waits (the game stands still and
    nothing more is buffered); after ``stall`` seconds of that, or at once when the server is
    going down (``ending``), the session is closed."""

    def __init__(
        self,
        send: Callable[[str], None],
        unsent: Callable[[], int],
        limit: int,
        stall: float = 30.0,
    ) -> None:
        self._send = send
        self._unsent = unsent
        self.limit = limit
        self.stall = stall
        self.encoding = "utf-8"
        # Set when the server goes down: a client behind is then waited for no more, or its
        # game would not be scored before the server exits.
        self.ending = False

    def behind(self) -> bool:
        """Whether the client has more than ``limit`` bytes it has not read."""
        return self._unsent() > self.limit

    def write(self, text: str) -> int:
        """Send ``text`` once the client has room for it; Closed if it never makes room."""
        if self.behind():
            deadline = time.monotonic() + self.stall
            while self._unsent() > self.limit:
                # Going down, a game waits for no client, however it reads: it is scored
                # now, and the farewell goes after what the client has not read (_farewells).
                if self.ending:
                    raise Closed("the server is shutting down")
                if time.monotonic() > deadline:
                    raise Closed(f"the client read nothing for {self.stall:g} s")
                time.sleep(0.05)
        self._send(text)
        return len(text)

    def flush(self) -> None:
        """Writes are sent as they come."""

    def isatty(self) -> bool:
        """A pty was requested: the client is a terminal."""
        return True

    def fileno(self) -> int:
        """There is no file descriptor behind an SSH channel (blessed asks, and copes)."""
        raise ValueError("an SSH channel has no file descriptor")


class ChannelTerminal(TypedAhead):
    """A Terminal on an SSH channel: keys fed by the server, size from the pty and window
    changes, output through a ChannelOutput."""

    def __init__(self, output: ChannelOutput, size: tuple[int, int]) -> None:
        super().__init__(kind=KIND, stream=cast(IO[str], output), force_styling=True)
        self._size = window(*size)
        self._input: deque[str] = deque()
        self._pending = 0
        self._ready = threading.Condition()
        self._closed = False
        self._woken = False  # a wake that came while nobody waited ends the next wait at once
        # Within blessed's read of a key, which looks for more after it: the end of the input
        # then ends that key, and the next read raises Closed.
        self._reading = False
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.last_key = time.monotonic()
        # Called at every look for a key (``kbhit``), where the game loop and the menus wait: the
        # visit sets it to a check of its limits, whose exception (idle, time up, shutdown) ends
        # the session from inside that key read and unwinds through ``Session.run``.
        self.check: Callable[[], None] = lambda: None

    def suit(self, kind: str) -> None:
        """Fit the terminal to the client's type ``kind`` (its TERM) as this machine's terminfo
        describes it: no colours where it has fewer than 8, no bright ones where fewer than 16
        (as the local game); CannotMoveCursor, saying so, where it cannot move the cursor (or not
        by ANSI's escapes, as vt52), as ``tui.terminal.check_terminal`` refuses a local one. A
        type not found changes nothing: it is drawn on as xterm-256color."""
        entry = terminfo.look_up(kind)  # None for a name no entry could have
        if terminfo.dumb(kind) or (entry is not None and not entry.addressing):
            raise CannotMoveCursor(
                f"termsnake: your terminal (TERM={shorten(kind, 64)}) cannot move the cursor; "
                "connect from one that can, with TERM set to its real type (such as "
                "xterm-256color or linux)",
                f"its terminal (TERM={kind}) cannot move the cursor",
            )
        if entry is not None and not entry.ansi:  # as vt52: xterm's moves would show as text
            raise CannotMoveCursor(
                f"termsnake: your terminal (TERM={shorten(kind, 64)}) does not take the ANSI "
                "escapes termsnake draws with; connect from one that does, with TERM set to its "
                "real type (such as xterm-256color or linux)",
                f"its terminal (TERM={kind}) does not take ANSI escapes",
            )
        if entry is not None and entry.colours < 16:
            self.number_of_colors = 8 if entry.colours >= 8 else 0

    def leaving(self) -> str:
        """What undoes the screen a visit set (the alternate screen, a hidden cursor), the
        screen cleared first: a terminal with none (vt100, the Linux console) kept what was
        drawn, and the farewell ran on from its last line."""
        return self.home + self.clear + self.normal_cursor + self.exit_fullscreen

    # -- fed by the server (event loop thread) -------------------------------------------------

    def feed(self, data: bytes) -> bool:
        """Keys from the client; bytes that are not UTF-8 become U+FFFD, which no key means.
        False if some were dropped, over MAX_PENDING_INPUT unread."""
        with self._ready:
            # blessed moves every waiting key into its own buffer as it reads one, and parses
            # that buffer whole each read: what waits there counts against the cap as well.
            room = MAX_PENDING_INPUT - self._pending - len(self._keyboard_buf)
            if room <= 0:
                return False
            kept = len(data) <= room
            data = data[:room]
            text = self._decoder.decode(data)
            self._input.extend(text)
            self._pending += len(data)
            self.last_key = time.monotonic()
            self._ready.notify_all()
            return kept

    def resize(self, width: int, height: int) -> None:
        """The client's window changed: the screen is drawn again at once."""
        self._size = window(width, height)
        self.wake()

    def wake(self) -> None:
        """Cut short a wait for a key (or the next one, if none is under way): ``check`` runs
        and the caller looks again at what it shows."""
        with self._ready:
            self._woken = True
            self._ready.notify_all()

    def close(self) -> None:
        """The channel closed (or the client sent EOF): once the keys that came before are
        read, the next wait for a key raises Closed."""
        with self._ready:
            self._closed = True
            self._ready.notify_all()

    # -- read by the game (its own thread) ------------------------------------------------------

    @property
    def width(self) -> int:
        return self._size[0]

    @property
    def height(self) -> int:
        return self._size[1]

    def kbhit(self, timeout: float | None = None) -> bool:
        """Whether a key is waiting; waits up to ``timeout`` seconds for one."""
        self.check()
        with self._ready:
            if timeout != 0:  # a look without a wait (blessed makes many) leaves a wake be
                if not self._input and not self._closed and not self._woken:
                    self._ready.wait(timeout)
                self._woken = False
            if self._input:
                return True  # keys typed before an EOF are read first (``printf q | ssh``)
            if self._closed and not self._reading:
                raise Closed
            return False

    def inkey(
        self,
        timeout: float | None = None,
        esc_delay: float = DEFAULT_ESCDELAY,
        capture_cpr: bool = False,
    ) -> Keystroke:
        """The next key, as blessed reads it. When nothing comes within ``timeout`` (or a wake
        ends the wait), the empty key is returned at once: blessed's parse of an empty buffer
        is most of what a look for a key costs, and each session looks many times a second."""
        if not self._keyboard_buf:
            start = time.monotonic()
            if not self.kbhit(timeout):
                return Keystroke("")
            if timeout is not None:
                timeout = max(0.0, timeout - (time.monotonic() - start))
        self._reading = True
        try:
            return super().inkey(timeout, esc_delay, capture_cpr)
        finally:
            self._reading = False

    def _apply_errant_response(self, ks: Keystroke) -> bool:
        """A late reply to a query blessed made of a local terminal (XTVERSION, XTGETTCAP) is
        a key like any other here, which no screen takes: blessed's own handling reads on by
        calling ``inkey`` again, one level deeper for each reply, and logs each one for ever,
        so a client sending thousands of them broke the session."""
        return False

    def getch(self, decode_latin1: bool = False) -> str:
        """The next character the client typed ('' if none)."""
        with self._ready:
            if not self._input:
                return ""
            ch = self._input.popleft()
            self._pending = max(0, self._pending - len(ch.encode("utf-8", "replace")))
            return ch
