"""The solver's mirror of the snake's body on the block grid, and the edge constraints it fixes.

Each body cell has a serial number (the head's is the highest), and each block edge remembers
the youngest body cell whose move crossed it (1) or turned inside the block beside it (0): that
constraint holds while the cell is body. ``fixed`` holds that cell's serial, ``fixed_as`` the 1
or 0. A cell's *rank* is its serial less the tail's (the tail's is 0), so "the cells of rank >
keep" (``edge_now``, ``spanning``) are the body that is left after ``keep`` + 1 more moves that
do not eat: keep -1 is the whole body, keep 0 the body once the tail has moved on. The mirror
moves with the game one step at a time and is rebuilt from the game when it cannot; play-outs
move a ``copy()`` of it instead of the game.
"""

from __future__ import annotations

from collections import deque
from typing import Final

from termsnake.core.game import Game
from termsnake.solvers.celltree.blocks import BlockGrid

_LONG_AGO: Final = -(1 << 30)  # a serial older than any body cell's


class Marks:
    """Scratch marks for searches: cell or block -> the number of the search that saw it last.

    A mirror and its copies share one, so no search needs to clear it: each takes a new number.
    """

    __slots__ = ("gen", "seen")

    def __init__(self, size: int) -> None:
        self.seen = [0] * size
        self.gen = 0

    def new(self) -> int:
        """The number of a new search (higher than any mark made so far)."""
        self.gen += 1
        return self.gen


class BodyMirror:
    """The body as cell indexes with serial numbers, each block's latest visit, each edge's
    constraint; ``sync`` keeps it in step with the game."""

    __slots__ = ("body", "fixed", "fixed_as", "grid", "last", "marks", "occ", "serial")

    def __init__(self, grid: BlockGrid, marks: Marks) -> None:
        self.grid = grid
        self.marks = marks
        self.occ: list[int] = []  # cell -> serial number while in the body, else -1
        self.body: deque[int] = deque()  # the body as cell indexes, head first
        self.serial = 0  # serial number of the head
        self.last: list[int] = []  # block -> serial of the body cell that last entered it
        # Edge -> the serial of the youngest body cell whose move fixed it (``fixed``), and as
        # what (``fixed_as``: 1 across, 0 not); the constraint holds while that cell is body.
        self.fixed: list[int] = []
        self.fixed_as: list[int] = []

    @classmethod
    def of(cls, grid: BlockGrid, game: Game) -> BodyMirror:
        """A mirror of ``game``'s body on ``grid``, with marks of its own."""
        mirror = cls(grid, Marks(len(grid.points)))
        mirror.rebuild(game)
        return mirror

    def copy(self) -> BodyMirror:
        """A mirror that moves apart from this one (the grid and the marks are shared)."""
        twin = BodyMirror(self.grid, self.marks)
        twin.occ = list(self.occ)
        twin.body = deque(self.body)
        twin.serial = self.serial
        twin.last = list(self.last)
        twin.fixed = list(self.fixed)
        twin.fixed_as = list(self.fixed_as)
        return twin

    @property
    def head(self) -> int:
        """The head's cell."""
        return self.body[0]

    @property
    def tail_serial(self) -> int:
        """The serial number of the tail cell."""
        return self.serial - len(self.body) + 1

    def sync(self, game: Game) -> None:
        """Bring the mirror up to date: one step of incremental work, or a rebuild."""
        g = self.grid
        body = self.body
        head = g.index(game.head)
        if body and head != body[0] and head in (g.dflt[body[0]], g.cross[body[0]]):
            self.advance(head, grow=len(body) < game.length)
        if body and head == body[0] and len(body) == game.length:
            return
        self.rebuild(game)

    def rebuild(self, game: Game) -> None:
        """Read the whole body from the game again."""
        g = self.grid
        self.occ = [-1] * len(g.points)
        self.last = [_LONG_AGO] * len(g.adj)
        self.fixed = [_LONG_AGO] * len(g.ends)
        self.fixed_as = [-1] * len(g.ends)
        cells = [g.index(p) for p in game.body]
        self.body = deque(cells)
        length = len(cells)
        self.serial = length
        for i, c in enumerate(cells):
            serial = length - i
            self.occ[c] = serial
            self.last[g.block[c]] = max(self.last[g.block[c]], serial)
            if i:
                e = g.cedge[c]
                if e >= 0 and self.fixed[e] < serial:
                    self.fixed[e] = serial
                    self.fixed_as[e] = 1 if cells[i - 1] == g.cross[c] else 0

    def advance(self, head: int, *, grow: bool) -> None:
        """Move the head to ``head`` (a move along the blocks' ways); the tail stays if the snake
        grows."""
        g = self.grid
        last = self.body[0]
        self.serial += 1
        self.occ[head] = self.serial
        self.last[g.block[head]] = self.serial
        e = g.cedge[last]
        if e >= 0:
            self.fixed[e] = self.occ[last]
            self.fixed_as[e] = 1 if head == g.cross[last] else 0
        self.body.appendleft(head)
        if not grow:
            self.occ[self.body.pop()] = -1

    def edge_states(self) -> list[int]:
        """Edge -> 1 in the tree, 0 not, -1 free, as the body's cells fix them."""
        tail = self.tail_serial
        return [v if s >= tail else -1 for s, v in zip(self.fixed, self.fixed_as, strict=True)]

    def edge_now(self, e: int, keep: int) -> int:
        """The body's constraint on edge ``e`` from cells of rank > keep: 1, 0 or -1 (none)."""
        return self.fixed_as[e] if self.fixed[e] - self.tail_serial > keep else -1
