"""Where a key's escape sequence ends, by ECMA-48's grammar, whether or not anyone knows it.

blessed cuts a sequence it has no name for after its introducer (``ESC [`` or ``ESC O``) and
hands back the rest as typed characters: rxvt's Ctrl+Left, ``ESC O d``, was a ``d`` (right).
Knowing where any sequence ends lets the terminal read it whole, as one key that means nothing.
"""

from __future__ import annotations

from typing import Final

ESC: Final = "\x1b"
# CSI as one character, a C1 control: what a terminal sends for ESC [ in its 8-bit mode, read
# as U+009B under a latin-1 locale (its byte) or a UTF-8 one (encoded, C2 9B).
CSI8: Final = "\x9b"
# How an ANSI (ECMA-48) terminal's cursor moves begin, in terminfo: CSI, in 7 bits or in 8.
ANSI_MOVES: Final = (b"\x1b[", b"\x9b")
# The arrows in the application cursor mode (DECCKM), SS3 and a letter, as a terminal sends
# them whatever TERM says: blessed's key table has them only where TERM's entry does (xterm's
# kcuu1 is ESC O A; linux's, ansi's and rxvt's are ESC [ A), and read them as nothing there.
SS3_ARROWS: Final = {
    "\x1bOA": "KEY_UP",
    "\x1bOB": "KEY_DOWN",
    "\x1bOC": "KEY_RIGHT",
    "\x1bOD": "KEY_LEFT",
}


def sequence_end(text: str) -> int | None:
    """The length of the escape sequence ``text`` starts with (``text[0]`` is ESC or CSI8), or
    None if ``text`` ends inside it.

    - CSI, ``ESC [`` (or CSI8): parameter bytes (0x30-0x3F), then intermediate bytes
      (0x20-0x2F), then one final byte (0x40-0x7E). The Linux console's F1-F5 are ``ESC [ [``
      and a letter.
    - SS3, ``ESC O``: one final byte, after parameter bytes as some terminals send them
      (``ESC O 5 A``, an old xterm's Ctrl+Up).
    - ESC and any other character: that pair (Alt and a key).
    - ESC ESC and a sequence: that sequence with Alt (rxvt's Alt+Up is ``ESC ESC [ A``);
      ESC ESC and anything else: that pair (Alt+Escape), then the rest as itself.

    A character the grammar does not allow where it comes ends the sequence before it, so that
    it is read next, as itself (an ESC there begins the next sequence)."""
    if text[:1] == CSI8:
        return _control(text, 1)
    at = 2 if text[1:2] == ESC else 1
    if at == 2 and len(text) > 2 and text[2] not in "[O":
        return 2  # Alt+Escape, then a key of its own (a third ESC begins a sequence)
    if len(text) <= at:
        return None
    kind = text[at]
    if kind == "[" and text[at + 1 : at + 2] == "[":
        return _final(text, at + 2)
    if kind in "[O":
        return _control(text, at + 1)
    return at + 1


def _control(text: str, at: int) -> int | None:
    """The end of a control sequence whose parameters start at ``at``."""
    while at < len(text) and "\x30" <= text[at] <= "\x3f":
        at += 1
    while at < len(text) and "\x20" <= text[at] <= "\x2f":
        at += 1
    return _final(text, at)


def _final(text: str, at: int) -> int | None:
    """The end of a sequence whose final byte is due at ``at``."""
    if at >= len(text):
        return None
    return at + 1 if "\x40" <= text[at] <= "\x7e" else at
