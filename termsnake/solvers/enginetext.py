"""What a cause says of an engine: why it could not start, why its answer never came as a line,
and what it wrote instead of an answer."""

from __future__ import annotations

import errno
import json
import os
import shutil

from termsnake.formats.text import shorten


def why_not_started(program: str, error: OSError) -> str:
    """Why ``program`` (the command's first word) could not be started."""
    if error.errno != errno.ENOENT:
        return error.strerror or str(error)
    # A name without a slash is looked for on PATH only, never in the current folder.
    if "/" not in program and shutil.which(program) is None:
        if not (os.path.isfile(program) and os.access(program, os.X_OK)):
            return "not found on PATH"
        return f"not found on PATH (the one in this folder is {shorten(repr('./' + program))})"
    if os.path.isfile(program) or "/" not in program:
        return "the interpreter its first line (#!) names was not found"
    return error.strerror or str(error)


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
