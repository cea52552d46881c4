"""Level files: parse the text format (README, "Level files") into a Level.

A file is optional ``key: value`` header lines, then the map. Lines are split on LF, CRLF or a
lone CR; a leading UTF-8 BOM, trailing spaces, blank lines and ``;`` comment lines are ignored
(a line begun with ``#`` that reads as a comment is said to be one, once).
Every problem found is reported, each located as ``path:line:col: error: message``.

Header keys (case-insensitive, each at most once): ``name`` (the level's name; default: the file's
stem), ``length`` (the snake's starting length, default 3), ``wrap`` (``yes``/``no``: the edges
wrap around), ``author`` and ``description`` (free text), and any ``x-...`` key of your own; those
last three are kept in ``Level.meta`` in file order. Files over 1 MiB are refused.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Final, NamedTuple

from termsnake.core.board import FLOOR, WALL, Board
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import DEFAULT_LENGTH, Level, straight_body
from termsnake.formats.decoding import decode_utf8, split_lines
from termsnake.formats.diagnostics import Collector, Diagnostic, LevelError
from termsnake.formats.fileio import TooLarge, read_capped
from termsnake.formats.text import describe_char, first_hidden, printable, shorten

MAX_FILE_BYTES: Final = 1024 * 1024
"""A level file larger than this (1 MiB) is refused unread: no playable board comes close."""

MAX_NAME: Final = 100
"""The longest level name, in characters: it goes on status lines and in score tables."""

FOOD: Final = "%"
COMMENT: Final = ";"
HEADS: Final[dict[str, Direction]] = {
    ">": Direction.RIGHT,
    "<": Direction.LEFT,
    "^": Direction.UP,
    "v": Direction.DOWN,
}
HEAD_CHARS: Final[dict[Direction, str]] = {d: ch for ch, d in HEADS.items()}
_MAP_CHARS: Final = frozenset({WALL, FLOOR, FOOD, *HEADS})

# What the game's screen draws that a map does not hold: a board copied from it.
_AS_DRAWN: Final = {
    "@": " (the game draws the head as @; a map draws it as > < ^ v, the way it faces)",
    "o": " (the game draws the body as o; a map has only the head, the body lies behind it)",
}

FIELD_KEYS: Final = ("name", "length", "wrap")
"""Header keys that become fields of the Level (its name, the snake's length, the board's wrap)."""
META_KEYS: Final = ("author", "description")
"""Header keys kept as free text in ``Level.meta``; keys starting ``x-`` are kept there too."""
KNOWN_KEYS: Final = (*FIELD_KEYS, *META_KEYS)
USER_KEY_PREFIX: Final = "x-"

KEY_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
_WORD: Final = re.compile(r"[^\W\d_]{2,}")  # two letters or more
_TRUE: Final = frozenset({"yes", "true", "on", "1"})
_FALSE: Final = frozenset({"no", "false", "off", "0"})
BLANK: Final = " \t"


@dataclass(frozen=True, slots=True)
class _Header:
    key: str
    value: str
    line: int
    value_col: int


def parse_level(source: str | bytes, path: str = "<string>", *, length: int | None = None) -> Level:
    """Parse a level file's text (or raw bytes), the snake ``length`` long if given (``--length``
    wins over the file's); raises LevelError listing every problem."""
    errors = Collector(path)
    if isinstance(source, bytes):
        decoded = decode_utf8(source, errors)
        if decoded is None:
            errors.raise_if_any()
            raise AssertionError("unreachable: undecodable bytes reported no error")
        text = decoded
    else:
        text = source.removeprefix("\ufeff")
    lines = split_lines(text)
    if not any(line.strip(BLANK) for line in lines):
        errors.add(1, 1, "empty file: a level needs a map of # . and a head > < ^ v")
        errors.raise_if_any()

    headers: list[_Header] = []
    rows: list[tuple[int, str]] = []  # (line number, row text without trailing spaces)
    map_ended_at: int | None = None  # the blank line after the map, if any
    for number, raw in enumerate(lines, start=1):
        line = raw.rstrip(" ")
        stripped = line.strip(BLANK)
        if not stripped:
            if rows and map_ended_at is None:
                map_ended_at = number
            continue
        if stripped.startswith(COMMENT):
            continue
        if ":" in line and not _is_map_row(line):
            if rows:
                errors.add(number, 1, "a header line after the map; header lines go before it")
            else:
                header = _parse_header_line(line, number, errors)
                if header is not None:
                    headers.append(header)
            continue
        if not rows and _looks_like_header(line):
            key = line.split()[0]
            errors.add(number, 1, f"a header line needs a colon: '{printable(key)}: ...'")
            continue
        if _looks_like_a_comment(stripped):
            # Said once, and read as the comment it was meant to be: as a map row it was an
            # error a character, and the map's other rows misread around it.
            said = shorten(stripped.lstrip(WALL).strip(BLANK), 40)
            where = len(raw) - len(raw.lstrip(BLANK)) + 1
            errors.add(number, where, f"a line starting with # is a row of the map; a comment "
                       f"starts with ; ('; {said}')")  # fmt: skip
            continue
        if map_ended_at is not None:
            errors.add(
                number,
                1,
                f"the map's rows must be contiguous, but line {map_ended_at} is blank",
            )
            map_ended_at = None  # report a split map once per gap
        rows.append((number, line))

    fields = _read_headers(headers, errors)
    if length is not None:
        fields = dataclasses.replace(
            fields, length=length, length_from="--length", length_given=True, length_ok=True
        )
    if not rows:
        last = len(lines)
        errors.add(last, 1, "no map: after the header comes the map of # . and a head > < ^ v")
        errors.raise_if_any()
    name = fields.name if fields.name is not None else _default_name(path)
    level = _read_map(rows, fields, name, errors)
    errors.raise_if_any()
    assert level is not None
    return level


def _is_map_row(line: str) -> bool:
    """Whether a line with a colon is a map row all the same: map characters, no header key,
    before its first colon (so that the colon is said to be an unknown map character)."""
    before = line.partition(":")[0]
    return bool(before) and set(before) <= _MAP_CHARS and not KEY_RE.fullmatch(before)


def _looks_like_a_comment(stripped: str) -> bool:
    """Whether a line is a comment begun with ``#``, as in many other files (``# by Ada``): a
    space or a tab inside it, which no map row has, and a word (a row drawn with spaces for
    floor has none, nor one copied from the game's screen, ``#o o @ . %``)."""
    return (
        stripped.startswith(WALL)
        and any(c in BLANK for c in stripped)
        and any(set(word) - set(HEADS) for word in _WORD.findall(stripped))
    )


def _looks_like_header(line: str) -> bool:
    words = line.split()
    return len(words) > 1 and words[0].lower() in KNOWN_KEYS


def _parse_header_line(line: str, number: int, errors: Collector) -> _Header | None:
    key_part, _, value_part = line.partition(":")
    key = key_part.strip(BLANK)
    key_col = len(key_part) - len(key_part.lstrip(BLANK)) + 1
    if not KEY_RE.fullmatch(key):
        shown = shorten(key)
        errors.add(
            number,
            key_col,
            f"'{shown}' is not a header key; header lines are 'key: value' "
            "(letters, digits, - and _ in the key)",
        )
        return None
    value = value_part.strip(BLANK)
    value_col = len(key_part) + 2 + (len(value_part) - len(value_part.lstrip(BLANK)))
    return _Header(key.lower(), value, number, value_col)


@dataclass(frozen=True, slots=True)
class _Fields:
    name: str | None
    length: int
    wrap: bool
    meta: tuple[tuple[str, str], ...]
    length_from: str  # where the length comes from, for the message when it does not fit
    length_ok: bool
    length_given: bool = False  # the caller's (--length), not the file's


def _read_headers(headers: list[_Header], errors: Collector) -> _Fields:
    """Check each header line's key and value; return the values (defaults where bad)."""
    seen: dict[str, int] = {}
    name: str | None = None
    length, wrap, length_from, length_ok = DEFAULT_LENGTH, False, "the default", True
    meta: list[tuple[str, str]] = []
    for h in headers:
        if h.key in seen:
            errors.add(
                h.line, 1, f"'{shorten(h.key)}' is given twice (first on line {seen[h.key]})"
            )
            continue
        seen[h.key] = h.line
        bad = next((i for i, ch in enumerate(h.value) if unicodedata.category(ch) == "Cc"), None)
        if bad is not None:
            errors.add(
                h.line,
                h.value_col + bad,
                f"{h.key} holds a control character {describe_char(h.value[bad])}: "
                f"'{shorten(h.value)}'",
            )
            continue
        if h.key == "name":
            # Shown on screens and kept in replays, which refuse it too: U+202E would turn
            # the rest of a line around.
            hidden = first_hidden(h.value)
            if not h.value:
                errors.add(h.line, h.value_col, "the name is empty; write 'name: My level'")
            elif hidden is not None:
                shown = f"{describe_char(h.value[hidden])}, which is not a printable character"
                errors.add(h.line, h.value_col + hidden, f"the name holds {shown}")
            elif len(h.value) > MAX_NAME:
                errors.add(
                    h.line,
                    h.value_col + MAX_NAME,
                    f"the name is {len(h.value)} characters long; at most {MAX_NAME}",
                )
            else:
                name = h.value
        elif h.key == "length":
            # Nine digits are more than any board's cells; more would only strain int().
            if h.value.isascii() and h.value.isdigit() and len(h.value) <= 9 and int(h.value) >= 1:
                length, length_from = int(h.value), f"line {h.line}"
            else:
                length_ok = False
                errors.add(
                    h.line,
                    h.value_col,
                    f"length must be a whole number from 1 to 999999999, not '{shorten(h.value)}'",
                )
        elif h.key == "wrap":
            word = h.value.lower()
            if word in _TRUE or word in _FALSE:
                wrap = word in _TRUE
            else:
                errors.add(h.line, h.value_col, f"wrap must be yes or no, not '{shorten(h.value)}'")
        elif h.key in META_KEYS or (
            h.key.startswith(USER_KEY_PREFIX) and len(h.key) > len(USER_KEY_PREFIX)
        ):
            meta.append((h.key, h.value))
        else:
            errors.add(h.line, 1, _unknown_key_message(h.key))
    return _Fields(name, length, wrap, tuple(meta), length_from, length_ok)


def _unknown_key_message(key: str) -> str:
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'?" if close else f"known keys: {', '.join(KNOWN_KEYS)}"
    return f"unknown header key '{shorten(key)}'; {hint} (or start your own keys with 'x-')"


def _default_name(path: str) -> str:
    if path.startswith("<"):
        return "level"
    stem = Path(path).stem
    return stem if stem and printable(stem) == stem else "level"


class _Food(NamedTuple):
    """A food on the map: its line and column in the file, its cell on the board."""

    line: int
    col: int
    cell: Point


class _Head(NamedTuple):
    """A head on the map: its line and column in the file, its cell, the way it faces."""

    line: int
    col: int
    cell: Point
    facing: Direction


def _read_map(
    rows: list[tuple[int, str]], fields: _Fields, name: str, errors: Collector
) -> Level | None:
    """Check the map's rows and build the Level; None (with errors reported) if it is broken."""
    counts = Counter(len(text) for _, text in rows)
    width = max(counts, key=lambda w: counts[w])  # ties: the first width seen (dict order)
    reference = next(number for (number, text) in rows if len(text) == width)
    ok = True
    heads: list[_Head] = []
    foods: list[_Food] = []
    walls: set[Point] = set()
    for y, (number, text) in enumerate(rows):
        if len(text) != width:
            ok = False
        # a row long only by characters said to be unknown below (a trailing tab) is not ragged
        if len(text) < width or not _MAP_CHARS.isdisjoint(text[width:]):
            errors.add(
                number,
                min(len(text), width) + 1,
                f"ragged map: this row is {len(text)} {'cell' if len(text) == 1 else 'cells'} "
                f"wide, but line {reference} and most rows are {width}; "
                "every row must be the same width",
            )
        for x, ch in enumerate(text):
            col = x + 1
            if ch == WALL:
                walls.add(Point(x, y))
            elif ch == FOOD:
                foods.append(_Food(number, col, Point(x, y)))
            elif ch in HEADS:
                heads.append(_Head(number, col, Point(x, y), HEADS[ch]))
            elif ch != FLOOR:
                ok = False
                errors.add(
                    number,
                    col,
                    f"unknown map character {describe_char(ch)}; "
                    f"the map uses # wall, . floor, > < ^ v head, % food{_AS_DRAWN.get(ch, '')}",
                )
    if not (_one_of_each(rows, heads, foods, errors) and ok):
        return None
    board = Board(
        width=width,
        height=len(rows),
        walls=frozenset(walls),
        wrap=fields.wrap,
        name=name,
        file_lines=tuple(number for number, _ in rows),
    )
    head = heads[0]
    # with a bad length line (already reported) check nothing more of the body
    length = fields.length if fields.length_ok else 1
    try:
        body = straight_body(board, head.cell, head.facing, length)
    except ValueError:
        errors.add(head.line, head.col, _misfit_message(board, head, fields, rows))
        return None
    food = foods[0].cell if foods else None
    if food in body and fields.length_given:
        food = None  # the file's food was clear of its own snake; a longer one eats it up
    if food is not None and food in body:
        errors.add(
            foods[0].line, foods[0].col, "the food lies under the snake's body behind the head"
        )
        return None
    if len(body) >= board.free_count:
        filled = f"the snake of length {len(body)} fills all {board.free_count} free cells"
        errors.add(head.line, head.col, f"{filled}; leave room for food")
        return None
    try:
        return Level(board, body, head.facing, food=food, name=name, meta=fields.meta)
    except ValueError as exc:  # the checks above should make this unreachable
        errors.add(head.line, head.col, str(exc))
        return None


def _one_of_each(
    rows: list[tuple[int, str]],
    heads: list[_Head],
    foods: list[_Food],
    errors: Collector,
) -> bool:
    """Whether the map has one head and at most one food (each extra one is reported)."""
    if not heads:
        errors.add(rows[0][0], 1, "no head: put one of > < ^ v on the map where the snake starts")
    for head in heads[1:]:
        errors.add(
            head.line,
            head.col,
            f"a second head; the first is at line {heads[0].line} col {heads[0].col}, "
            "and a level has one snake",
        )
    for food in foods[1:]:
        errors.add(
            food.line,
            food.col,
            f"a second food; the first is at line {foods[0].line} col {foods[0].col}",
        )
    return len(heads) == 1 and len(foods) <= 1


def _misfit_message(board: Board, head: _Head, fields: _Fields, rows: list[tuple[int, str]]) -> str:
    """Why a straight body of ``fields.length`` cells does not fit behind ``head``."""
    back = head.facing.opposite
    p, seen, fit = head.cell, {head.cell}, 1
    why = "the edge of the board"
    while True:
        q = board.step(p, back)
        if q is None:
            break
        if q in board.walls:
            why = f"a wall at line {rows[q.y][0]} col {q.x + 1}"
            break
        if q in seen:
            why = "itself (the row wraps around)"
            break
        seen.add(q)
        fit += 1
        p = q
    cells = "1 cell" if fit == 1 else f"{fit} cells"
    return (
        f"a snake of length {fields.length} ({fields.length_from}) does not fit straight behind "
        f"the head (facing {head.facing.name.lower()}): there is room for {cells} before {why}"
    )


# -- files ---------------------------------------------------------------------------------------


def read_level_bytes(path: str | os.PathLike[str]) -> bytes:
    """A level file's bytes; LevelError for a missing path, a directory or a file over 1 MiB."""
    shown = os.fspath(path)
    try:
        return read_capped(path, MAX_FILE_BYTES)
    except TooLarge as exc:
        raise LevelError([Diagnostic(shown, 1, 1, exc.describe("a level"))]) from None
    except IsADirectoryError:
        raise LevelError([Diagnostic(shown, 1, 1, "is a directory, not a level file")]) from None
    except FileNotFoundError:
        raise LevelError([Diagnostic(shown, 1, 1, "no such file")]) from None
    except OSError as exc:
        reason = exc.strerror or type(exc).__name__
        raise LevelError([Diagnostic(shown, 1, 1, f"cannot read the file: {reason}")]) from None


def load_level_file(path: str | os.PathLike[str], *, length: int | None = None) -> Level:
    """Read and parse the level file at ``path`` (``length`` as parse_level takes it)."""
    return parse_level(read_level_bytes(path), os.fspath(path), length=length)
