"""Printing a level back as a level file: parse_level(format_level(level)) is the same level."""

from __future__ import annotations

import unicodedata

from termsnake.core.geometry import Point
from termsnake.core.level import Level, straight_body
from termsnake.formats.levelfile import (
    BLANK,
    FOOD,
    HEAD_CHARS,
    KEY_RE,
    META_KEYS,
    USER_KEY_PREFIX,
)


def format_level(level: Level) -> str:
    """The level as file text; ``parse_level`` reads it back equal. ValueError if it cannot be."""
    _check_printable(level)
    lines = [f"name: {level.name}"]
    lines += [f"{key}: {value}".rstrip(" ") for key, value in level.meta]
    lines.append(f"length: {len(level.body)}")
    if level.board.wrap:
        lines.append("wrap: yes")
    lines.append("")
    grid = [list(row) for row in level.board.rows()]
    head = level.body[0]
    grid[head.y][head.x] = HEAD_CHARS[level.direction]
    if level.food is not None:
        grid[level.food.y][level.food.x] = FOOD
    lines += ["".join(row) for row in grid]
    return "\n".join(lines) + "\n"


def _check_printable(level: Level) -> None:
    problems: list[str] = []
    texts = [("name", level.name), *level.meta]
    for key, value in texts:
        if any(unicodedata.category(ch) == "Cc" for ch in value) or value != value.strip(BLANK):
            problems.append(f"{key} {value!r} has control characters or outer spaces")
    if not level.name:
        problems.append("the name is empty")
    for key, _ in level.meta:
        user = key.startswith(USER_KEY_PREFIX) and len(key) > len(USER_KEY_PREFIX)
        if key not in META_KEYS and not (user and KEY_RE.fullmatch(key) and key == key.lower()):
            problems.append(f"{key!r} cannot be a header key of meta")
    if len({key for key, _ in level.meta}) != len(level.meta):
        problems.append("meta repeats a key")
    if level.board.name != level.name:
        problems.append(f"the board's name {level.board.name!r} is not the level's {level.name!r}")
    expected = _straight_or_none(level)
    if expected != level.body:
        problems.append("the body does not lie straight behind the head")
    if len(level.body) >= level.board.free_count:
        problems.append("the snake fills the board")
    if problems:
        raise ValueError("this level cannot be written as a level file: " + "; ".join(problems))


def _straight_or_none(level: Level) -> tuple[Point, ...] | None:
    try:
        return straight_body(level.board, level.body[0], level.direction, len(level.body))
    except ValueError:
        return None
