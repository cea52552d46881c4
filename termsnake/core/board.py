"""The board: its size, its walls and whether its edges wrap around (``solvers.grid`` is the
same board as the solvers index it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from itertools import filterfalse

from termsnake.core.geometry import DIRECTIONS, Direction, Point, row_major

WALL = "#"
FLOOR = "."


@dataclass(frozen=True, slots=True)
class Board:
    """A rectangle of cells, some of them walls; outside it is deadly unless ``wrap``."""

    width: int
    height: int
    walls: frozenset[Point] = frozenset()
    wrap: bool = False
    name: str = "open"
    # The level file's line of each row, so that messages name a cell as the file's errors do
    # (empty: an open board, a replay's). Not the board itself: a level printed and read back,
    # or moved down its file, is the same board.
    file_lines: tuple[int, ...] = field(default=(), repr=False, compare=False)
    # The cells that are not walls, row-major; the snake may cover some (Game.empty_cells: not).
    free_cells: tuple[Point, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.width < 1 or self.height < 1:
            raise ValueError(f"a board needs at least one cell, not {self.width}x{self.height}")
        cells = row_major(self.width, self.height)
        free = tuple(filterfalse(self.walls.__contains__, cells))
        object.__setattr__(self, "free_cells", free)

    @classmethod
    def open(cls, width: int, height: int, *, wrap: bool = False, name: str | None = None) -> Board:
        """A board of ``width`` x ``height`` free cells and no walls."""
        return cls(width, height, frozenset(), wrap, name or f"open-{width}x{height}")

    @classmethod
    def from_rows(cls, rows: Iterable[str], *, wrap: bool = False, name: str = "board") -> Board:
        """Build a board from rows of ``#`` (wall) and ``.`` (floor), as in replay files."""
        lines = list(rows)
        if not lines or len({len(r) for r in lines}) != 1:
            raise ValueError("board rows must be non-empty and all of one length")
        walls = set()
        for y, row in enumerate(lines):
            for x, ch in enumerate(row):
                if ch == WALL:
                    walls.add(Point(x, y))
                elif ch != FLOOR:
                    raise ValueError(f"board rows hold only '#' and '.', not {ch!r}")
        return cls(len(lines[0]), len(lines), frozenset(walls), wrap, name)

    def with_walls(self, cells: Iterable[Point]) -> Board:
        """This board with ``cells`` made walls too (its size, wrap and name kept)."""
        return replace(self, walls=self.walls | frozenset(cells))

    def where(self, p: Point) -> str:
        """Cell ``p`` as a message names it: ``line 4 col 7`` of the level file the board was
        read from, as the file's own errors do; else ``(x, y)``, as replays and the rules do."""
        if 0 <= p.y < len(self.file_lines):
            return f"line {self.file_lines[p.y]} col {p.x + 1}"
        return f"({p.x}, {p.y})"

    def rows(self) -> tuple[str, ...]:
        """The board as rows of ``#`` and ``.``; ``Board.from_rows`` reads them back."""
        return tuple(
            "".join(WALL if Point(x, y) in self.walls else FLOOR for x in range(self.width))
            for y in range(self.height)
        )

    @property
    def free_count(self) -> int:
        """How many free cells the board has (the length that wins). Not called ``size``: a
        board's size is everywhere width x height (``--size WxH``), walls included."""
        return len(self.free_cells)

    def contains(self, p: Point) -> bool:
        """Whether ``p`` lies inside the rectangle."""
        return 0 <= p.x < self.width and 0 <= p.y < self.height

    def is_free(self, p: Point) -> bool:
        """Whether ``p`` is inside the board and not a wall."""
        return self.contains(p) and p not in self.walls

    def step(self, p: Point, direction: Direction) -> Point | None:
        """The cell one move from ``p``, wrapped if the board wraps; None if off the board."""
        x, y = p[0] + direction.dx, p[1] + direction.dy
        if self.wrap:
            return Point(x % self.width, y % self.height)
        if 0 <= x < self.width and 0 <= y < self.height:
            return Point(x, y)
        return None

    def neighbours(self, p: Point) -> Iterator[tuple[Direction, Point]]:
        """Each direction from ``p`` that leads to a free cell, with that cell."""
        for d in DIRECTIONS:
            q = self.step(p, d)
            if q is not None and q not in self.walls:
                yield d, q

    def distance_map(self, source: Point) -> dict[Point, int]:
        """Shortest move counts from ``source`` to every reachable free cell, walls only."""
        dist = {source: 0}
        frontier = [source]
        while frontier:
            nxt = []
            for p in frontier:
                dp = dist[p] + 1
                for _, q in self.neighbours(p):
                    if q not in dist:
                        dist[q] = dp
                        nxt.append(q)
            frontier = nxt
        return dist
