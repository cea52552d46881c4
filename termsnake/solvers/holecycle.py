"""A safe bot for odd boards: a Hamiltonian cycle through all cells but one, the hole moving.

An open board with both sides odd has an odd number of cells, so no Hamiltonian cycle: every
move changes the checkerboard colour, and a cycle needs as many cells of each. Leave one corner
out, though, and a cycle exists; two, in fact, that differ in one place only:

    A: ... -> (0, 1) -> (1, 1) -> (1, 0) -> ...    the hole is the corner (0, 0)
    B: ... -> (0, 1) -> (0, 0) -> (1, 0) -> ...    the hole is (1, 1)

The snake follows one of them with ``hamilton``'s safe shortcuts. When the food lies in the
hole, it keeps to the cycle until its head reaches (0, 1) (or (1, 0), going the other way round),
and there changes to the other cycle, whose next cell is the food. The cell it leaves out was the
next cell ahead of the head, so it was empty: the body lies on both cycles at the same places and
stays in order, and the game goes on as safely as ``hamilton``'s. The last food always lies in
the hole, next to the cycle, so every game is won.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.grid import ARROWS, Grid, grid_of
from termsnake.solvers.hamilton import furthest_shortcut, in_order
from termsnake.solvers.hampath.holes import hole_cycles, successors


class HoleCycleSolver:
    """Follow a cycle through every cell but a hole; move the hole when the food is in it."""

    name = "hole-cycle"

    def __init__(self) -> None:
        self._grid: Grid | None = None
        self._board: object = None
        self._cycles: list[list[int]] = []  # variant -> the cycle as cell indexes
        self._holes: list[int] = []  # variant -> the cell it leaves out
        self._variant = 0
        self._place = 0  # where on the cycles the two differ
        self._pos: list[list[int]] = []  # variant -> cell -> place on the cycle (-1: the hole)
        self._succ: list[list[int]] = []  # variant -> cell -> next cell on the cycle (-1: the hole)
        self._overlays: list[Mapping[Point, str]] = []
        # (the game itself, not its id, and its step) after our own last move
        self._expect: tuple[Game | None, int] = (None, -1)

    @property
    def cycle(self) -> tuple[Point, ...]:
        """The cycle followed now."""
        grid = self._grid
        assert grid is not None
        return tuple(grid.points[c] for c in self._cycles[self._variant])

    def setup(self, game: Game) -> None:
        """Build both cycles and orient them so the body lies in order on one of them."""
        board = game.board
        found = None if board.wrap else hole_cycles(board.free_cells)
        if found is None:
            raise SolverUnavailable(
                f"{self.name} plays open boards with both sides odd only; try --ai best"
            )
        grid = grid_of(board)
        # The zig-zag by rows, and by columns (a start standing up may only fit that one).
        swapped = hole_cycles([Point(p.y, p.x) for p in board.free_cells])
        candidates = [found]
        if swapped is not None:
            candidates.append(
                ([Point(p.y, p.x) for p in swapped[0]], [Point(p.y, p.x) for p in swapped[1]])
            )
        for cycles in candidates:
            a, b = ([grid.index(p) for p in cyc] for cyc in cycles)
            # Both ways round; either cycle first.
            for pair in ((a, b), (a[::-1], b[::-1])):
                self._load(grid, pair)
                for variant in (0, 1):
                    self._variant = variant
                    if self._in_order(game, grid):
                        self._grid = grid
                        self._board = board
                        self._expect = (game, game.steps)
                        return
        raise SolverUnavailable(f"{self.name} cannot take up this start position; try --ai best")

    def _load(self, grid: Grid, cycles: tuple[list[int], list[int]]) -> None:
        a, b = cycles
        self._cycles = [a, b]
        # Cycle A leaves out the corner (B's cell where A has another), B the cell A has there.
        k = next(i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y)
        self._holes = [b[k], a[k]]
        self._place = k
        self._pos = []
        self._succ = []
        self._overlays = []
        for cyc in self._cycles:
            self._succ.append(successors(grid, cyc))
            pos = [-1] * grid.cells
            arrows: dict[Point, str] = {}
            for i, c in enumerate(cyc):
                pos[c] = i
                d = grid.direction(c, cyc[(i + 1) % len(cyc)])
                if d is not None:
                    arrows[grid.points[c]] = ARROWS[d]
            self._pos.append(pos)
            self._overlays.append(MappingProxyType(arrows))

    def _in_order(self, game: Game, grid: Grid) -> bool:
        """hamilton's invariant on the current cycle: the body in order, not on the hole."""
        v = self._variant
        cells = [grid.index(p) for p in game.body]
        return in_order(self._pos[v], self._succ[v], len(self._cycles[v]), cells)

    def next_direction(self, game: Game) -> Direction:
        """``hamilton``'s move on the current cycle, or the switch into the hole for its food."""
        grid = self._grid
        # Anything but our own last move (a new game, say) is checked afresh.
        if (
            grid is None
            or self._board is not game.board
            or self._expect[0] is not game
            or self._expect[1] != game.steps
        ):
            self.setup(game)
            grid = self._grid
            assert grid is not None
        self._expect = (game, game.steps + 1)
        v = self._variant
        cyc, pos = self._cycles[v], self._pos[v]
        n = len(cyc)
        head = grid.index(game.head)
        ph = pos[head]
        succ = cyc[(ph + 1) % n]
        food = -1 if game.food is None else grid.index(game.food)
        hole = self._holes[v]
        target = food
        if food >= 0 and food == hole:
            # The cycles differ only at one place: the cell before it is where to change.
            entry = cyc[(self._place - 1) % n]
            if head == entry and not game.occupied(grid.points[succ]):
                # The other cycle's next cell is the food; the cell it leaves out is empty.
                self._variant = 1 - v
                return grid.move(head, hole)
            if game.length >= n and hole in grid.adj[head]:
                return grid.move(head, hole)  # the last food: eating it wins
            target = entry
        return grid.move(head, self._shortcut(game, grid, head, target))

    def _shortcut(self, game: Game, grid: Grid, head: int, target: int) -> int:
        """hamilton's rule: the free neighbour furthest along the cycle that passes neither the
        tail nor ``target``; the next cell of the cycle if there is none."""
        v = self._variant
        cyc, pos = self._cycles[v], self._pos[v]
        follow = self._succ[v][head]
        if target < 0 or pos[target] < 0:
            return follow
        best = furthest_shortcut(grid, pos, len(cyc), game, head, target)
        return follow if best < 0 else best

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The cycle followed now, one arrow per cell (the hole has none)."""
        return self._overlays[self._variant] if self._overlays else {}
