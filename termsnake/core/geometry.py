"""Points on the grid and the four directions of travel."""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from itertools import chain, cycle, repeat
from typing import NamedTuple


class Point(NamedTuple):
    """A cell: x is the column, y the row, both from 0 at the top left."""

    x: int
    y: int

    def __add__(self, other: object) -> Point:
        if not isinstance(other, tuple):
            return NotImplemented
        return Point(self.x + other[0], self.y + other[1])

    def __repr__(self) -> str:
        return f"Point({self.x}, {self.y})"

    def __str__(self) -> str:
        return f"({self.x}, {self.y})"


def row_major(width: int, height: int) -> Iterator[Point]:
    """Every cell of a ``width`` x ``height`` rectangle, row by row (the cell of index
    ``y * width + x`` in its place)."""
    # Made without Point.__new__'s Python-level call: a level file's board may have a million
    # cells, and its board and grid each go over them all.
    rows = chain.from_iterable(repeat(y, width) for y in range(height))
    return map(tuple.__new__, repeat(Point), zip(cycle(range(width)), rows))


_LETTER_DELTAS: dict[str, tuple[int, int]] = {"U": (0, -1), "D": (0, 1), "L": (-1, 0), "R": (1, 0)}


class Direction(Enum):
    """A move of the head; the value is its letter in move histories."""

    UP = "U"
    DOWN = "D"
    LEFT = "L"
    RIGHT = "R"

    def __init__(self, letter: str) -> None:
        # Plain attributes: Board.step reads them on every move of every game and search.
        self.dx, self.dy = _LETTER_DELTAS[letter]

    @property
    def opposite(self) -> Direction:
        """The reverse direction."""
        return _OPPOSITES[self]

    @property
    def letter(self) -> str:
        """The one-letter form used in histories and replays."""
        return self.value

    @classmethod
    def from_letter(cls, letter: str) -> Direction:
        """Parse ``U``, ``D``, ``L`` or ``R``; anything else is a ValueError."""
        try:
            return cls(letter)
        except ValueError:
            raise ValueError(f"not a direction letter: {letter!r}") from None

    @classmethod
    def between(cls, a: tuple[int, int], b: tuple[int, int]) -> Direction | None:
        """The direction from ``a`` to the adjacent (non-wrapping) cell ``b``, else None (so
        also the test of two cells side by side); cells as Points or (x, y) pairs."""
        return _BY_DELTA.get((b[0] - a[0], b[1] - a[1]))


_OPPOSITES: dict[Direction, Direction] = {
    Direction.UP: Direction.DOWN,
    Direction.DOWN: Direction.UP,
    Direction.LEFT: Direction.RIGHT,
    Direction.RIGHT: Direction.LEFT,
}
_BY_DELTA: dict[tuple[int, int], Direction] = {(d.dx, d.dy): d for d in Direction}

DIRECTIONS: tuple[Direction, ...] = (Direction.UP, Direction.DOWN, Direction.LEFT, Direction.RIGHT)
