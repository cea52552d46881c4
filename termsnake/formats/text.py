"""Text that reaches a terminal: escaped when it came from a file or a client, and aligned."""

from __future__ import annotations

import codecs
import os
import sys
import unicodedata
from collections.abc import Collection, Sequence
from typing import Any, Final

from termsnake.exits import signals_held

_CHAR_NAMES: Final = {" ": "a space", "\t": "a tab", "\x00": "a NUL byte", "\ufeff": "a BOM"}

# The codec error handler for text a stream's encoding cannot hold (a latin-1 or ASCII locale's
# stdout, stderr and screen): see ``shown``.
SHOWN_ERRORS: Final = "termsnake-shown"


def printable(text: str) -> str:
    """``text`` with control and other invisible format characters escaped, safe for a terminal."""
    if all(_is_safe(ch) for ch in text):
        return text
    return "".join(ch if _is_safe(ch) else _escape(ch) for ch in text)


def first_hidden(text: str) -> int | None:
    """Where ``text`` first holds a character a terminal would not show as it is (a control or
    format character such as ESC or U+202E, a line separator), or None; spaces of any width
    are shown and pass."""
    return next(
        (
            i
            for i, ch in enumerate(text)
            if unicodedata.category(ch)[0] == "C" or ch in "\u2028\u2029"
        ),
        None,
    )


def shorten(text: str, limit: int = 60) -> str:
    """``text`` made printable, cut to about ``limit`` characters with its length said: a name
    of thousands of characters in a message would bury the message."""
    if len(text) <= limit:
        return printable(text)
    return f"{printable(text[:limit])}… ({len(text)} characters)"


def json_kind(value: object) -> str:
    """The kind of a value decoded from JSON, as a message names it: "an array", "a number"."""
    names = {
        dict: "an object", list: "an array", str: "a string", bool: "a boolean",
        int: "a number", float: "a number", type(None): "null",
    }  # fmt: skip
    return names.get(type(value), type(value).__name__)


def json_shown(value: object) -> str:
    """A value from a JSON file as a message quotes it: escaped and cut if long, and an array
    or an object by its kind (it may be megabytes, and its repr would be built whole)."""
    return json_kind(value) if isinstance(value, list | dict) else shorten(repr(value))


def _is_safe(ch: str) -> bool:
    return ch == " " or not unicodedata.category(ch).startswith(("C", "Z"))


def _escape(ch: str) -> str:
    code = ord(ch)
    if ch in "\t\n\r":
        return repr(ch)[1:-1]
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def _shown_error(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    bad = error.object[error.start : error.end]
    return "".join("..." if ch == "\u2026" else _escape(ch) for ch in bad), error.end


codecs.register_error(SHOWN_ERRORS, _shown_error)


def shown(text: str, encoding: str) -> str:
    """``text`` as a stream in ``encoding`` can show it: each character the encoding cannot
    hold escaped as stderr escapes it (``\\u540d``), and the ellipsis as ``...``."""
    if text.isascii():
        return text
    return text.encode(encoding, SHOWN_ERRORS).decode(encoding)


def encodes(text: str, encoding: str) -> bool:
    """Whether a stream in ``encoding`` can hold every character of ``text``."""
    try:
        text.encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def shown_printable(text: str, encoding: str) -> str:
    """``text`` from outside (a name) as a stream in ``encoding`` shows it: ``printable``, then
    ``shown``."""
    return shown(printable(text), encoding)


def encoding_of(stream: object) -> str:
    """The encoding text written to ``stream`` takes (UTF-8 for one that does not say)."""
    return getattr(stream, "encoding", None) or "utf-8"


def describe_char(ch: str) -> str:
    """A character as an error message shows it: quoted, escaped if unprintable, with U+XXXX."""
    shown = f"'{printable(ch)}'"
    extra = _CHAR_NAMES.get(ch)
    return f"{shown} (U+{ord(ch):04X}, {extra})" if extra else f"{shown} (U+{ord(ch):04X})"


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes (wide characters two, combining marks none)."""
    if _plain(text):
        return len(text)
    return int(_wcwidth().width(text))


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns (half a wide character becomes a space)."""
    if _plain(text) and width >= 0:
        return text[:width]
    return text if columns(text) <= width else str(_wcwidth().clip(text, 0, width))


def _plain(text: str) -> bool:
    """Whether every character of ``text`` is printable ASCII, a column each."""
    return text.isascii() and text.isprintable()


_loaded: list[Any] = []  # wcwidth, once ``_wcwidth`` has loaded it


def _wcwidth() -> Any:
    """The wcwidth module, loaded at its first use. A signal as it loads is raised once it
    has, not lost in the import machinery (``signals_held``)."""
    if not _loaded:
        with signals_held():
            import wcwidth  # lazy: a large import that text in printable ASCII never needs

        _loaded.append(wcwidth)
    return _loaded[0]


def pad(text: str, width: int, *, right: bool = False) -> str:
    """``text`` padded with spaces to ``width`` terminal columns (on the left if ``right``)."""
    fill = " " * max(width - columns(text), 0)
    return fill + text if right else text + fill


def align(
    rows: Sequence[Sequence[str]], right: Collection[int] = (), encoding: str | None = None
) -> list[str]:
    """Rows of cells as lines of aligned columns two spaces apart (columns in ``right`` to the
    right), every cell made printable first, and ``shown`` in ``encoding`` (stdout's when None);
    a wide character counts as the two columns a terminal gives it."""
    encoding = encoding or encoding_of(sys.stdout)
    cells = [[shown_printable(c, encoding) for c in row] for row in rows]
    if not cells:
        return []
    widths = [max(columns(row[i]) for row in cells) for i in range(len(cells[0]))]
    lines = []
    for row in cells:
        parts = [
            pad(c, w, right=i in right) for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return lines


def locale_name() -> str:
    """The locale the user's environment names for characters, as ``VAR=value``.

    Python turns a C or POSIX locale into C.UTF-8 by setting LC_CTYPE itself (PEP 538), which
    says nothing about the terminal, so that value is skipped."""
    coerced = sys.flags.utf8_mode and os.environ.get("LC_CTYPE") == "C.UTF-8"
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(var, "")
        if value and not (var == "LC_CTYPE" and coerced):
            return f"{var}={value}"
    return "LANG unset"


def utf8_terminal() -> bool:
    """Whether the terminal takes UTF-8, as the locale says (else unicode tiles fall back)."""
    value = locale_name().partition("=")[2].lower().replace("-", "").replace("_", "")
    return "utf8" in value


def terminal_encoding(encoding: str) -> str:
    """The encoding to write a stream in ``encoding`` in: ASCII where Python writes UTF-8 but
    the locale is not UTF-8 (Python's UTF-8 mode is on under the C locale, PEP 540), as the
    unicode tiles fall back there; else ``encoding``. A terminal under C shows an ellipsis
    written as UTF-8 as three characters of garbage."""
    try:
        utf8 = codecs.lookup(encoding).name == "utf-8"
    except LookupError:
        return encoding
    return "ascii" if utf8 and not utf8_terminal() else encoding
