"""What a cause says of an engine: why it could not start, why its answer never came as a line,
and what it wrote instead of an answer."""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import shutil
import stat
from typing import Final

from termsnake.formats.text import shorten

# An engine's solver name: exec:COMMAND. Here, not in engine: bench needs only this of it, and
# engine loads subprocess and more.
PREFIX: Final = "exec:"
EXAMPLE_SHOWN: Final = 160  # characters of a quoted path shown in a hint, escaped
BOM: Final = "\ufeff".encode()  # a byte-order mark in UTF-8: EF BB BF
# Said of a script whose #! line ends in a carriage return.
WINDOWS_LINE_ENDS: Final = "(the file has Windows line ends, CRLF: convert them, as dos2unix does)"


def engine_words(command: str) -> list[str]:
    """The words of an engine's ``command``, split as a shell splits them (no shell runs it);
    ValueError if it cannot be split or names no program (``exec:''``, which exec would only
    refuse with a bare "Permission denied")."""
    try:
        argv = shlex.split(command)
    except ValueError as e:
        raise ValueError(f"cannot split the engine command {command!r}: {e}") from None
    if not argv:
        raise ValueError("the engine command is empty: --ai exec:COMMAND")
    if not argv[0]:
        shown = shorten(repr(command), EXAMPLE_SHOWN)
        raise ValueError(
            f"the engine command {shown} names no program: its first word is empty "
            "(exec:COMMAND, as in exec:./mybot)"
        )
    return argv


def why_not_started(argv: list[str], error: OSError) -> str:
    """Why the command ``argv`` could not be started (``error``, of its first word), with what
    to do where a beginner's mistake is plain."""
    why = _why_not_started(argv[0], error)
    # A path with spaces, unquoted, is split into words: the first names nothing, or a folder.
    for n in range(len(argv), 1, -1):
        path = " ".join(argv[:n])
        if os.path.isfile(path):
            example = shorten(f"exec:{shlex.quote(path)}", EXAMPLE_SHOWN)
            quote = f"the command is split at spaces: quote a path that has them, as in {example}"
            return f"{why} ({quote})"
    return why


def _why_not_started(program: str, error: OSError) -> str:
    said = error.strerror or str(error)
    if "/" in program:  # the file that was tried (a name without one was looked for on PATH)
        if error.errno == errno.EACCES and (kind := _kind(program)) is not None:
            return f"{said} (it is {kind}, not a program)"
        if error.errno == errno.EACCES and os.path.isfile(program):
            return f"{said} (it is not executable: chmod +x it, or put its interpreter before it)"
        if error.errno == errno.ENOEXEC and not _starts_with(program, b"\x7fELF"):
            return f"{said} (a script needs a first line naming its interpreter, such as #!/bin/sh)"
    elif error.errno == errno.EACCES and (blamed := _blamed_on_path(program)) is not None:
        return f"{said} ({blamed})"
    if error.errno != errno.ENOENT:
        return said
    # A name without a slash is looked for on PATH only, never in the current folder.
    if "/" not in program and shutil.which(program) is None:
        if not os.path.isfile(program):
            return "not found on PATH"
        here = shorten(repr("./" + program))
        if not os.access(program, os.X_OK):  # both steps at once, not one error after the other
            example = shorten(f"exec:{shlex.quote('./' + program)}", EXAMPLE_SHOWN)
            return (
                f"not found on PATH (the one in this folder, {here}, is not executable: "
                f"chmod +x it, then use {example})"
            )
        return f"not found on PATH (the one in this folder is {here})"
    if os.path.isfile(program) or "/" not in program:
        return _no_interpreter(program if "/" in program else shutil.which(program))
    return said


def _no_interpreter(path: str | None) -> str:
    """Why the script at ``path`` could not start, its file being there: the interpreter its
    ``#!`` line names is not. A line ending in a carriage return names one whose name ends in
    it (a file saved with Windows line ends), which no machine has."""
    said = "the interpreter its first line (#!) names"
    line = _first_line(path) if path is not None else None
    if line is None or not line.startswith(b"#!"):
        return f"{said} was not found"
    # The system ends the interpreter's name at a space or a tab only, not at a "\r".
    interpreter = re.split(rb"[ \t]", line[2:].lstrip(b" \t"), maxsplit=1)[0]
    if interpreter.endswith(b"\r"):
        return (
            f"{said}, {show_bytes(interpreter)}, was not found: the line ends in a carriage "
            f"return {WINDOWS_LINE_ENDS}"
        )
    return f"{said}, {show_bytes(interpreter)}, was not found"


def windows_line_ends(program: str) -> bool:
    """Whether ``program`` (a path, or a name looked for on PATH) is a script whose ``#!``
    line ends in a carriage return: its interpreter, or the program that ``env`` is to find
    (``#!/usr/bin/env python3``, which then exits 127), has a name no machine has."""
    path = program if "/" in program else shutil.which(program)
    line = _first_line(path) if path is not None else None
    return line is not None and line.startswith(b"#!") and line.endswith(b"\r")


def _first_line(path: str) -> bytes | None:
    """The first line of the file at ``path`` (as much as the system reads of a ``#!`` line),
    without its newline; None if it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read(256).split(b"\n", 1)[0]
    except OSError:
        return None


def _blamed_on_path(program: str) -> str | None:
    """What a name without a slash that exec refused with "Permission denied" found on PATH: it
    tries every folder, and refuses only if none has a program of that name."""
    if program in (".", ".."):  # on PATH, every folder itself
        return "it is a folder, not a program"
    for folder in os.get_exec_path():
        path = os.path.join(folder or ".", program)
        shown = shorten(repr(path), EXAMPLE_SHOWN)
        if (kind := _kind(path)) is not None:
            return f"PATH's {shown} is {kind}, not a program"
        if os.path.isfile(path) and not os.access(path, os.X_OK):
            return f"PATH's {shown} is not executable"
    return None


def _kind(path: str) -> str | None:
    """What ``path`` is where it is not a regular file, which exec refuses with "Permission
    denied" as it does a file that is not executable; None for a file, or no path at all."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return None


def _starts_with(path: str, magic: bytes) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read(len(magic)) == magic
    except OSError:
        return False


def silence(what: str, timeout: float, unended: bytes, heard: bool) -> str:
    """Why no answer came within ``timeout``: ``unended`` is what came of a line with no
    newline yet; ``heard`` says whether the engine has written anything at all."""
    if unended:
        return f"did not end its line within {timeout:g} s: it wrote {show_bytes(unended)}"
    said = f"did not answer with {what} within {timeout:g} s"
    if heard:
        return said
    # Output to a pipe is buffered by most languages' libraries until it is flushed.
    return f"{said} and wrote nothing on its stdout (does it flush each line it writes?)"


def byte_order_mark(e: Exception) -> str:
    """What to add to the cause for a line that is not JSON because of a byte-order mark
    (U+FEFF), which only the start of the engine's output may have (``BOM``): shown as bytes
    alone, it is three a reader cannot place."""
    if isinstance(e, json.JSONDecodeError) and e.doc[e.pos : e.pos + 1] == "\ufeff":
        return (
            " (it holds a byte-order mark, U+FEFF, accepted only where the engine's output starts)"
        )
    return ""


def cut_off(e: Exception) -> str:
    """What to add to the cause for a line that is not JSON: where it begins an object (or an
    array) and stops short at its end, as a lone ``{`` does, the engine likely spread one over
    several lines (pretty-printed): it is told each goes on one."""
    if not isinstance(e, json.JSONDecodeError):  # not UTF-8, say: no text to look at
        return ""
    text = e.doc.rstrip()
    if text.lstrip().startswith(("{", "[")) and e.pos >= len(text):
        return " (unfinished at the line's end: each object must be on one line)"
    return ""


def show_bytes(data: bytes) -> str:
    """The first bytes of a line an engine wrote, quoted, with every byte a terminal would
    not show as it is escaped (an ESC as \\x1b, a backslash as \\\\: no two lines look alike)."""
    return repr(data[:60])[1:] + ("..." if len(data) > 60 else "")


def show_value(obj: object) -> str:
    """A short, printable rendering of what an engine sent (as JSON: printable ASCII)."""
    try:
        text = json.dumps(obj, ensure_ascii=True)
    except RecursionError:  # the decoder took it, but this deeper call cannot encode it
        return "a value nested too deep to show"
    return f"'{text[:60]}'" + ("..." if len(text) > 60 else "")
