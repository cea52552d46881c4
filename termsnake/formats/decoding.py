"""A text file's bytes as text: UTF-8 (a BOM dropped), or each bad byte reported where it is."""

from __future__ import annotations

import re
from typing import Final

from termsnake.formats.diagnostics import Collector

# surrogateescape turns each byte that is not UTF-8 into one lone surrogate, so positions hold
_BAD_BYTES: Final = re.compile("[\udc80-\udcff]+")


def split_lines(text: str) -> list[str]:
    """Lines split on CRLF, LF or a lone CR, like universal newlines (no other separators)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def decode_utf8(data: bytes, errors: Collector) -> str | None:
    """UTF-8 text of ``data`` (BOM dropped); None after reporting each invalid byte sequence."""
    utf16 = _utf16_message(data)
    if utf16 is not None:
        # one line, not one per NUL byte or per character of every row
        errors.add(1, 1, utf16)
        return None
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8", "surrogateescape")
    if not _BAD_BYTES.search(text):
        return text
    for number, line in enumerate(split_lines(text), start=1):
        for match in _BAD_BYTES.finditer(line):
            shown = " ".join(f"0x{ord(ch) - 0xDC00:02x}" for ch in match.group())
            errors.add(
                number, match.start() + 1, f"invalid UTF-8 (bytes {shown}); save the file as UTF-8"
            )
    return None


def _utf16_message(data: bytes) -> str | None:
    """Why ``data`` is UTF-16 rather than UTF-8 (Windows editors' "Unicode"), or no text file
    at all, or None: a UTF-16 byte-order mark, or a NUL byte beside most ASCII characters (on
    one side of each pair of bytes only), which UTF-8 text never has; or NULs throughout."""
    body = data.removeprefix(b"\xef\xbb\xbf")
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        why = f"it starts with the UTF-16 byte-order mark 0x{body[0]:02x} 0x{body[1]:02x}"
    elif len(body) < 2 or body.count(0) * 4 < len(body):
        return None  # a NUL or a few: each is said where it is
    elif _alternate(body):
        why = "every other byte is a NUL"
    else:  # NULs on both sides of the pairs: UTF-32, or no text at all
        return f"the file holds {body.count(0)} NUL bytes: it is no UTF-8 text file"
    return f"the file is UTF-16, not UTF-8 ({why}); save it as UTF-8"


def _alternate(data: bytes) -> bool:
    """Whether nearly every byte on one side of each pair is a NUL and nearly none on the other,
    as in UTF-16 text that is mostly ASCII (UTF-32 has NULs on both sides)."""
    low, high = sorted(part.count(0) / max(1, len(part)) for part in (data[0::2], data[1::2]))
    return low <= 0.1 and high >= 0.9
