"""A level: a board plus where the snake starts and, optionally, the first food; and the open
boards of ``--size`` (``open_level``, ``parse_size``), with the size and length bots play on
when none is asked for (``BOT_SIZE``, ``BOT_LENGTH``)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Final

from termsnake.core.board import Board
from termsnake.core.geometry import Direction, Point

DEFAULT_LENGTH = 3


@dataclass(frozen=True, slots=True)
class Level:
    """Everything a game needs to start: the board, the snake (head first), the first food."""

    board: Board
    body: tuple[Point, ...]
    direction: Direction
    food: Point | None = None
    name: str = "level"
    meta: tuple[tuple[str, str], ...] = field(default=())

    def __post_init__(self) -> None:
        if not self.body:
            raise ValueError("a level needs a snake of at least one cell")
        if len(set(self.body)) != len(self.body):
            raise ValueError("the snake's body overlaps itself")
        where = self.board.where
        for p in self.body:
            if not self.board.is_free(p):
                raise ValueError(f"the snake's body lies on a wall or off the board at {where(p)}")
        if self.food is not None and (not self.board.is_free(self.food) or self.food in self.body):
            raise ValueError(f"the first food at {where(self.food)} is not on a free cell")


def straight_body(
    board: Board, head: Point, direction: Direction, length: int
) -> tuple[Point, ...]:
    """The cells of a snake of ``length`` behind ``head``; ValueError if they do not fit."""
    body = [head]
    taken = {head}  # a set: a level file's snake may be a million cells long
    back = direction.opposite
    p = head
    for _ in range(length - 1):
        q = board.step(p, back)
        if q is None or q in board.walls or q in taken:
            raise ValueError(
                f"a body of length {length} does not fit behind the head at {board.where(head)}"
            )
        body.append(q)
        taken.add(q)
        p = q
    return tuple(body)


def with_length(level: Level, length: int) -> Level:
    """``level`` with a straight snake of ``length`` behind the same head (a first food the new
    body covers is dropped); ValueError if it does not fit or would leave no free cell."""
    if length == len(level.body):
        return level
    if length >= level.board.free_count:
        raise ValueError(f"a snake of length {length} leaves no free cell on {level.name}")
    body = straight_body(level.board, level.body[0], level.direction, length)
    food = level.food if level.food not in body else None
    return replace(level, body=body, food=food)


MAX_SIDE: Final = 200  # the longest side of an open board (--size)
# What the game, bench and train say of --wrap without --size: a level file wraps or not itself.
WRAP_NEEDS_SIZE: Final = "--wrap goes with --size (a level file says `wrap: yes`)"
# The open board bots are measured on (bench), trained on (train) and stepped on (the
# Gymnasium environment) when none is named.
BOT_SIZE: Final = (8, 8)
# The snake's start length there, and on any board bots are compared on (README, "Benchmark"):
# bench's --length default, train's boards, the environment's default and the lobby's bots, so
# that a game of any of them plays again with --length 1 and its seed.
BOT_LENGTH: Final = 1
_SIZE: Final = re.compile(r"([0-9]+)[xX×]([0-9]+)")


def parse_size(text: str) -> tuple[int, int]:
    """``WxH`` -> (W, H): an open board of at least 2 cells, at most MAX_SIDE a side;
    ValueError saying what is wrong if not."""
    m = _SIZE.fullmatch(text)
    if not m:
        raise ValueError(f"size must look like 20x15, not {text!r}")
    return check_size(int(m.group(1)), int(m.group(2)))


def check_size(w: int, h: int) -> tuple[int, int]:
    """(w, h) if an open board may be ``w`` x ``h`` (``parse_size``'s range); ValueError if not."""
    if not (1 <= w <= MAX_SIDE and 1 <= h <= MAX_SIDE) or w * h < 2:
        raise ValueError(
            f"size {w}x{h} is out of range (at least 2 cells, at most {MAX_SIDE} a side)"
        )
    return w, h


def open_level(
    width: int, height: int, length: int = DEFAULT_LENGTH, *, wrap: bool = False
) -> Level:
    """An open ``width`` x ``height`` board (edges wrapping around with ``wrap``), the snake in
    the middle heading right."""
    if length < 1:
        raise ValueError("the length must be at least 1")
    if length > width:
        raise ValueError(f"a snake of length {length} does not fit across a board {width} wide")
    if length >= width * height:
        raise ValueError(
            f"a snake of length {length} leaves no free cell on a {width}x{height} board"
        )
    board = Board.open(width, height, wrap=wrap, name=f"torus-{width}x{height}" if wrap else None)
    head = Point(max(width // 2, length - 1), height // 2)
    body = straight_body(board, head, Direction.RIGHT, length)
    return Level(board, body, Direction.RIGHT, None, board.name)
