"""The terminal the game runs in: is it one, its modes (fullscreen, cbreak, no flow control, a
hidden cursor) and the signals that must leave it restored; and how keys are read, here and
over SSH: an escape sequence as one key, a paste dropped (``TypedAhead``, ``QuietTerminal``)."""

from __future__ import annotations

import codecs
import errno
import os
import signal
import sys
import termios
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from types import FrameType
from typing import Any, Final

import blessed
from blessed._capabilities import TermcapResponse
from blessed.keyboard import DEFAULT_ESCDELAY, Keystroke, get_leading_prefixes, resolve_sequence
from blessed.terminal import WINSZ

from termsnake import terminfo
from termsnake.exits import (
    ENDING_SIGNALS,
    Handler,
    Signalled,
    ignore_more_hangups,
    raise_terminated,
    signal_handlers,
)
from termsnake.formats.text import printable
from termsnake.ttymodes import INPUT_MODES, flags_off
from termsnake.tui.escapes import CSI8, ESC, SS3_ARROWS, sequence_end

MAX_TYPED_AHEAD: Final = 64  # characters of keys: more than a person types in a frame (a paste)
# The name of a key whose escape sequence blessed does not know: no key table holds it.
UNKNOWN_KEY: Final = "KEY_UNKNOWN_SEQUENCE"


class TypedAhead(blessed.Terminal):
    """A blessed Terminal that drops what waits to be read once it holds more than
    MAX_TYPED_AHEAD characters, and the key they followed: blessed parses all that waits at
    every key it reads, so a long paste froze the game for seconds (the time grows with the
    square of its length), and the snake then made its moves unseen.

    This caps what is left waiting between key reads, however it came. The server's
    ``ChannelTerminal`` needs no more: the server caps a client's unread keys as they arrive
    (MAX_PENDING_INPUT), which bounds one read, and what that read leaves is dropped here.
    ``QuietTerminal``, on the local tty, caps each read too."""

    _flooded = False  # whether the waiting keys were dropped since the last key was read

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """blessed's Terminal, whose key table reads the arrows' SS3 sequences on every TERM."""
        super().__init__(*args, **kwargs)
        missing = {seq: getattr(self, name) for seq, name in SS3_ARROWS.items()}
        missing = {seq: code for seq, code in missing.items() if seq not in self._keymap}
        if missing:
            # Longest first, as blessed orders it: a key is the longest sequence it matches.
            keys = {**self._keymap, **missing}
            self._keymap = OrderedDict(sorted(keys.items(), key=lambda k: len(k[0]), reverse=True))
            self._keymap_prefixes.update(get_leading_prefixes(missing))

    def ungetch(self, text: str) -> None:
        """Put ``text`` back to be read next (blessed does so with what follows a key)."""
        super().ungetch(text)
        if len(self._keyboard_buf) > MAX_TYPED_AHEAD:
            self._keyboard_buf.clear()
            self._flooded = True

    def inkey(
        self,
        timeout: float | None = None,
        esc_delay: float = DEFAULT_ESCDELAY,
        capture_cpr: bool = False,
    ) -> Keystroke:
        """The next key, or none if it began a flood of keys (a paste), dropped with the rest.
        An escape sequence is one key, whole, even where blessed does not know it."""
        # Where the key is already waiting, blessed's wait for the rest of a sequence starts now.
        began = time.monotonic() if self._keyboard_buf or self.kbhit(timeout=0) else None
        key = super().inkey(timeout, esc_delay, capture_cpr)
        # A lone ESC is left be: blessed waited esc_delay for what might follow it. An 8-bit
        # CSI is one character to blessed, and the rest of its sequence typed letters.
        sequence = (len(key) > 1 and key.startswith(ESC)) or key == CSI8
        if sequence and not self._flooded:
            key = self._whole(key, began, esc_delay)
        if self._flooded:
            self._flooded = False
            return Keystroke("")
        return key

    def _whole(self, key: Keystroke, began: float | None, esc_delay: float) -> Keystroke:
        """``key``, or, where blessed cut an escape sequence short (one it has no name for:
        ``ESC [ d``, ``ESC O 5 A``), that sequence read to its end as ``sequence_end`` finds it,
        one key: the one blessed's key table names it, else UNKNOWN_KEY. blessed hands back the
        rest of such a sequence as typed characters, and its letters steered (``d``: right).
        Its rest may come later (an SSH packet, a slow pty): it is waited for up to
        ``esc_delay`` after the key ``began`` to be read, blessed's own wait counted (a second
        one made a lone ``ESC [``, Alt+[, slow); what came of it by then is the key. Where
        nothing came, ``key`` is."""
        text = str(key) + self.flushinp()
        end = sequence_end(text)
        if end is None and began is None:
            # It came during blessed's read: blessed's wait after the ESC, if it made one, ran
            # out just now.
            began = time.monotonic() - (esc_delay if self._escape_waited(text) else 0.0)
        while (
            end is None
            and began is not None
            and len(text) <= MAX_TYPED_AHEAD
            and self.kbhit(timeout=max(0.0, began + esc_delay - time.monotonic()))
        ):
            text += self.getch()
            end = sequence_end(text)
        end = len(text) if end is None else end
        if end <= len(key):
            # It ends where blessed's key does (Alt+Escape, then a letter), or nothing came
            # after it (ESC O: Alt+Shift+O): what blessed made of it is the key.
            self.ungetch(text[len(key) :])
            return key
        self.ungetch(text[end:])
        return self._named(text[:end]) or Keystroke(text[:end], name=UNKNOWN_KEY)

    def _escape_waited(self, text: str) -> bool:
        """Whether blessed, reading ``text``, waited esc_delay after its ESC for more: it does
        until what it has is a key it knows or an Alt and a key (``ESC ESC`` is one)."""
        key = self._resolve(text, final=False)
        return key.name == "KEY_ESCAPE" and len(key) == 1

    def _named(self, sequence: str) -> Keystroke | None:
        """The key ``sequence`` is in blessed's key table (``ESC [ A``, read in two pieces, is
        KEY_UP), or None. Two forms it lacks are read as the key they stand for: an 8-bit CSI
        (``CSI8 A``, KEY_UP) and rxvt's Alt, an ESC before the key (``ESC ESC [ A``, KEY_ALT_UP,
        as xterm's ``ESC [ 1 ; 3 A`` is)."""
        if sequence.startswith(CSI8):
            key = self._named(f"{ESC}[{sequence[1:]}")
            return Keystroke(sequence, key.code, key.name) if key is not None else None
        key = self._resolve(sequence, final=True)
        if len(key) == len(sequence) and key.code is not None:
            return key
        inner = self._named(sequence[1:]) if sequence.startswith(ESC + ESC) else None
        if inner is None or not inner.name or not inner.name.startswith("KEY_"):
            return None
        return Keystroke(sequence, inner.code, f"KEY_ALT_{inner.name.removeprefix('KEY_')}")

    def _resolve(self, text: str, final: bool) -> Keystroke:
        """The first key in ``text``, as blessed's ``inkey`` finds it."""
        return resolve_sequence(
            text,
            self._keymap,
            self._keycodes,
            self._keymap_prefixes,
            final=final,
            dec_mode_cache=self._dec_mode_cache,
        )


class QuietTerminal(TypedAhead):
    """A blessed Terminal that asks the terminal nothing at start-up.

    blessed would ask for capabilities (XTGETTCAP) and the terminal's name (XTVERSION) and wait
    for each answer: a terminal that answers neither delays the first frame by two timeouts, and
    an answer that comes after the wait is echoed onto the screen or read as keys. TERM tells
    blessed all the game needs (only the colour count and cursor addressing come from the
    system's terminfo: ``terminfo_colours``, ``check_terminal``).

    It caps a paste twice: here the bytes one key read takes from the tty (blessed reads for as
    long as bytes come, so a paste still arriving held the read; past the cap the tty's queue is
    flushed too), and in TypedAhead what is left waiting between reads (keys coming in pieces,
    each under this cap, would pile up there).
    """

    _read = 0  # bytes read from the keyboard by the key read under way

    def __init__(self) -> None:
        super().__init__(_xtgettcap_data=TermcapResponse(supported=False))

    def inkey(
        self,
        timeout: float | None = None,
        esc_delay: float = DEFAULT_ESCDELAY,
        capture_cpr: bool = False,
    ) -> Keystroke:
        """The next key; none if more than MAX_TYPED_AHEAD bytes came for it (a paste), which
        are dropped with all that waits to be read."""
        self._read = 0
        key = super().inkey(timeout, esc_delay, capture_cpr)
        if self._read > MAX_TYPED_AHEAD:
            self._keyboard_buf.clear()
            self._keyboard_decoder.reset()  # it may hold the start of a character cut off
            drop_typed_ahead()
            return Keystroke("")
        return key

    def kbhit(self, timeout: float | None = None) -> bool:
        """Whether a byte waits; no, once a key read has read MAX_TYPED_AHEAD of them. blessed
        reads all that waits, a byte at a time, in one key read, so a paste that the terminal
        goes on sending as fast as it is read held the game for as long as it lasted."""
        return self._read <= MAX_TYPED_AHEAD and super().kbhit(timeout)

    def getch(self, decode_latin1: bool = False) -> str:
        """The next byte from the keyboard (counted), decoded."""
        self._read += 1
        return super().getch(decode_latin1)

    def detect_term_program(self, timeout: float = 0.0, force: bool = False) -> bool | str:
        """Never ask: wcwidth reads TERM_PROGRAM and TERM itself."""
        self.term_program = True
        self._term_program_probed = True
        return True

    def _height_and_width(self) -> WINSZ:
        """The window's size; where the terminal says 0 rows or columns (a serial line, a pty
        nobody sized), LINES and COLUMNS, else 24 by 80, as for a terminal that says nothing."""
        size = super()._height_and_width()
        if size.ws_row > 0 and size.ws_col > 0:
            return size
        return WINSZ(
            ws_row=size.ws_row or _env_size("LINES", 24),
            ws_col=size.ws_col or _env_size("COLUMNS", 80),
            ws_xpixel=size.ws_xpixel,
            ws_ypixel=size.ws_ypixel,
        )


def _env_size(name: str, default: int) -> int:
    value = os.environ.get(name, "")
    return int(value) if value.isdigit() and 0 < int(value) < 100_000 else default


def make_terminal() -> blessed.Terminal:
    """The terminal on stdin/stdout, with cursor movement even under NO_COLOR.

    blessed treats NO_COLOR as "no styling at all", cursor movement included, which would
    scramble the board; termsnake honours NO_COLOR itself by drawing without colours.
    """
    no_color = os.environ.pop("NO_COLOR", None)
    try:
        term = QuietTerminal()
    finally:
        if no_color is not None:
            os.environ["NO_COLOR"] = no_color
    if hasattr(term, "_keyboard_decoder"):
        # blessed decodes keys strictly: one byte that is not UTF-8 (a Latin-1 terminal) would
        # raise; replaced, it becomes U+FFFD, which no key means.
        term._keyboard_decoder = codecs.getincrementaldecoder(term._encoding)(errors="replace")
    return term


def colours_wanted() -> bool:
    """False when the user asked for no colour (NO_COLOR set and non-empty)."""
    return not os.environ.get("NO_COLOR")


def terminfo_colours(kind: str) -> int | None:
    """How many colours this system's terminfo gives the terminal ``kind`` (-1: none), or None
    where it has no entry for it. blessed reads no terminfo files, only a list of its own, and
    takes a TERM not on it (xterm-mono) for xterm-256color, colours and all."""
    entry = terminfo.look_up(kind)
    return None if entry is None else entry.colours


def check_terminal() -> str | None:
    """Why the game cannot run here (stdin or stdout not a terminal, or one that cannot move
    the cursor, or not by ANSI's escapes), or None if it can."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            return (
                f"termsnake: {name} is not a terminal; play in one (over SSH: ssh -t HOST "
                "termsnake), or measure bots without one: termsnake bench"
            )
    kind = os.environ.get("TERM", "")
    entry = terminfo.look_up(kind)  # as the server reads a client's (ChannelTerminal.suit)
    if terminfo.dumb(kind) or (entry is not None and not entry.addressing):
        return (
            f"termsnake: this terminal (TERM={printable(kind)}) cannot move the cursor; set TERM "
            "to its real type (such as xterm-256color or linux), or measure bots: termsnake bench"
        )
    if entry is not None and not entry.ansi:  # as vt52's ESC Y: xterm's moves show as text
        return (
            f"termsnake: this terminal (TERM={printable(kind)}) does not take the ANSI escapes "
            "termsnake draws with; set TERM to its real type (such as xterm-256color or linux), "
            "or measure bots: termsnake bench"
        )
    return None


@contextmanager
def terminal_mode(
    term: blessed.Terminal,
    on_signal: Callable[[int], None] | None = None,
    on_suspend: Callable[[], None] | None = None,
) -> Iterator[None]:
    """Fullscreen, cbreak without flow control and a hidden cursor, undone however the block
    ends (signals too).

    ENDING_SIGNALS call ``on_signal(signum)`` (the caller stops at a safe point
    and raises Terminated), or raise Terminated at once when it is None. ``on_suspend`` is
    called on Ctrl-Z (SIGTSTP) instead of stopping: the caller leaves the block (restoring the
    terminal) and then stops the process itself. A terminal gone before its modes are set
    is an OSError, as a failed write; after a hang-up, failures to restore it are ignored.
    In the background (`bg` after Ctrl-Z, or `&`) the block waits, stopped, until `fg`,
    having drawn nothing; an ending signal meanwhile (`kill %1`) raises Terminated.
    """
    came: list[int] = []

    def defer(signum: int, frame: FrameType | None) -> None:
        assert on_signal is not None
        ignore_more_hangups(signum)
        came.append(signum)
        on_signal(signum)

    handlers: dict[int, Handler] = {
        s: raise_terminated if on_signal is None else defer for s in ENDING_SIGNALS
    }
    if on_suspend is not None:
        handlers[signal.SIGTSTP] = lambda signum, frame: on_suspend()
    modes = ExitStack()
    modes.enter_context(signal_handlers(handlers))  # closed last: after the terminal is restored
    taken = False  # whether the terminal is ours: its modes set, so the process is in front
    try:
        try:
            # The modes before the screen: setting them stops a process in the background
            # until it is brought to the front, where the alternate screen and the board,
            # drawn first, were left over the shell's prompt.
            _set_modes_in_front(modes, term, came)
            taken = True
            modes.enter_context(term.fullscreen())
            modes.enter_context(term.hidden_cursor())
        except termios.error as e:  # the window closed as the game began: as a failed write
            raise OSError(*e.args) from None
        yield
    finally:
        # After a hang-up the terminal is gone: what cannot be restored is let be. Nor is one
        # never taken touched: a flush from the background would stop the process again.
        with suppress(OSError, termios.error):
            if taken:
                drop_typed_ahead()
            if taken and not term.enter_fullscreen:
                # No alternate screen (linux, vt100): the board stays, so clear it, or what is
                # printed next would run on from the status line.
                term.stream.write(term.home + term.clear)
        with suppress(OSError, termios.error):
            modes.close()  # each mode, even where one fails; the signal handlers last
            sys.stdout.flush()


def _set_modes_in_front(modes: ExitStack, term: blessed.Terminal, came: list[int]) -> None:
    """cbreak without flow control, into ``modes``. The system stops a process that sets
    them from the background (SIGTTOU) and, at `fg`, sets them; a signal with a handler
    interrupts the wait instead: an ending one that ``came`` (`kill %1`: SIGTERM, then
    SIGCONT) is raised, as any other (a window change) has the modes tried again."""
    while True:
        try:
            modes.enter_context(term.cbreak())
            modes.enter_context(no_flow_control())
            return
        except termios.error as e:
            if e.args[0] != errno.EINTR:
                raise
            if came:
                raise Signalled(came[0]) from None


def drop_typed_ahead() -> None:
    """Drop the keys typed and not yet read: they would land in the shell once we are gone
    (nothing to do if the terminal went away first)."""
    with suppress(OSError, termios.error):
        if sys.stdin is not None and sys.stdin.isatty():
            termios.tcflush(sys.stdin, termios.TCIFLUSH)


@contextmanager
def no_flow_control() -> Iterator[None]:
    """XON/XOFF off on the terminal: cbreak leaves it on, so Ctrl-S would stop the output, and
    the game with it (even a SIGTERM's restore would wait on the stopped terminal). Unlike the
    status line's ``unechoed``, set without asking if the game is in the foreground: the game
    takes the terminal as its own, and blessed's cbreak stops one in the background first."""
    fd = sys.stdin.fileno() if sys.stdin is not None and sys.stdin.isatty() else None
    with flags_off(fd, INPUT_MODES, termios.IXON):
        yield


def stop_process() -> None:
    """Stop like Ctrl-Z would (the shell's `fg` continues us); the terminal is already restored."""
    os.kill(os.getpid(), signal.SIGSTOP)
