"""What this machine's terminfo says of a terminal type: its colours, whether it can move the
cursor (``cup``) and how it erases below the cursor (``ed``), read from the compiled entry's
file (term(5)). The server asks it of each client's TERM; the game (``tui.terminal``) and the
status line (``statusline``) of this process's own.

curses cannot be asked: ``setupterm`` sets up one terminal a process, and the server has one
process for every client. Reading the file ourselves needs no child process (nothing a client
could make the server spawn, wait for or pile up) and no program on the machine; an entry is a
few kilobytes, read in the visit's own thread, so no lookup holds the event loop or another
visit, and none is cached (a cache would need a bound and would miss an entry installed later).
A type that is not found or not read (a hashed database, a damaged file) is unknown: the caller
then does what it does without terminfo.
"""

from __future__ import annotations

import os
import re
import stat
import struct
from dataclasses import dataclass
from typing import Final

from termsnake.tui.escapes import ANSI_MOVES

# A TERM comes from the client: only a name a terminfo file could have (no '/', no leading '.',
# nothing a terminal would act on) is looked up, and no longer than any real one.
NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,63}")
# Where ncurses looks after $TERMINFO, ~/.terminfo and $TERMINFO_DIRS (Debian's three first).
SYSTEM_DIRS: Final = ("/etc/terminfo", "/lib/terminfo", "/usr/share/terminfo",
                      "/usr/lib/terminfo", "/usr/share/lib/terminfo",
                      "/usr/local/share/terminfo")  # fmt: skip
MAX_ENTRY: Final = 32768  # ncurses' own limit on a compiled entry
LEGACY, WIDE = 0o432, 0o1036  # the magic numbers of 16-bit and of 32-bit numbers
COLORS = 13  # the index of max_colors among numbers
CUP, ED = 10, 7  # the indexes of cursor_address and of clr_eos among strings


@dataclass(frozen=True, slots=True)
class Entry:
    """A terminal type as terminfo describes it."""

    colours: int  # -1: none said
    addressing: bool  # it has cursor addressing (cup)
    ansi: bool = True  # its cup is ANSI's (CSI), as termsnake draws; vt52's is not
    erase_below: bytes = b""  # its clr_eos (ed), padding and all; b"" where it has none


def dumb(kind: str) -> bool:
    """Whether the terminal type ``kind`` is a dumb one (``dumb``, ``dumb-emacs-ansi``...),
    which cannot move the cursor even where terminfo has no entry for it."""
    return kind == "dumb" or kind.startswith("dumb-")


def look_up(kind: str) -> Entry | None:
    """terminfo's entry for the terminal type ``kind``; None if it is no name a terminfo file
    could have, or has no entry here that can be read."""
    if not NAME.fullmatch(kind):
        return None
    for folder in directories():
        # Linux files a type under its first letter; macOS (case-insensitive) under its hex.
        for sub in (kind[0], f"{ord(kind[0]):02x}"):
            data = read_entry(os.path.join(folder, sub, kind))
            entry = None if data is None else parse(data)
            if entry is not None:  # a damaged one is passed over, as ncurses does
                return entry
    return None


def directories() -> list[str]:
    """Where ncurses looks for an entry, in its order."""
    found = [os.environ.get("TERMINFO", "")]
    home = os.environ.get("HOME", "")
    found.append(os.path.join(home, ".terminfo") if home else "")
    listed = os.environ.get("TERMINFO_DIRS")
    if listed is not None:  # an empty part stands for the system's folders, which come last
        found.extend(listed.split(":"))
    return [d for d in dict.fromkeys([*found, *SYSTEM_DIRS]) if d]


def read_entry(path: str) -> bytes | None:
    """The bytes of the file at ``path`` if it is a regular file of an entry's size, else None
    (a FIFO is not waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except (OSError, ValueError):
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, MAX_ENTRY + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    return data if len(data) <= MAX_ENTRY else None


def parse(data: bytes) -> Entry | None:
    """The colours, cursor addressing and erase of a compiled entry (term(5)); None if it is
    not one."""
    if len(data) < 12:
        return None
    magic, names, bools, numbers, strings, table = struct.unpack_from("<6h", data)
    if magic not in (LEGACY, WIDE) or min(names, bools, numbers, strings, table) < 0:
        return None
    width = 2 if magic == LEGACY else 4
    at = 12 + names + bools
    at += at % 2  # numbers start on an even byte
    if at + numbers * width + strings * 2 + table > len(data):
        return None
    colours = -1
    if numbers > COLORS:
        (colours,) = struct.unpack_from("<h" if width == 2 else "<i", data, at + COLORS * width)
    at += numbers * width
    offsets = data[at : at + strings * 2]
    texts = data[at + strings * 2 : at + strings * 2 + table]  # the table follows the offsets
    cup = _string(offsets, texts, CUP)
    return Entry(
        max(-1, colours),
        cup is not None,
        ansi=cup is None or cup.startswith(ANSI_MOVES),
        erase_below=_string(offsets, texts, ED) or b"",
    )


def _string(offsets: bytes, texts: bytes, index: int) -> bytes | None:
    """The string capability ``index`` of an entry, None where it has none."""
    if len(offsets) < (index + 1) * 2:
        return None
    (at,) = struct.unpack_from("<h", offsets, index * 2)
    # -1 is absent, -2 cancelled; an offset past the table is a damaged entry, so none.
    if not 0 <= at < len(texts):
        return None
    return texts[at:].partition(b"\0")[0]
