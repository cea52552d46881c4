"""The cell tree round a hole: boards one cell short of a cycle (odd open boards) cut into blocks.

Such a board has no Hamiltonian cycle, but the board less one cell of the spare colour may be
cut into blocks. The hole is a corner cell (two free neighbours, each with one more besides
the cell on the hole's diagonal): where the cut has a notched block round it (a 3x3 box less
that corner), the same cut with that box less its middle fits the board less the middle.
The tree plays through a shadow of the game whose board walls the hole in (as ``deadends``
does).

When food falls in the hole, the tree heads for the cell ``a`` before the switch round the hole
(the cycle runs a, m, b round a 2x2 square with the hole: ``hampath.holes``); there the snake
steps into the hole instead of ``m``, which becomes the hole. In those boxes the cycle always
runs that way, whatever the tree, so the switch is always there, and the cycle after it is one
of the other board's blocks: the tree goes on round ``m``. Where the body fits no cut of that
board, ``replan`` takes over on the switched cycle, which it keeps safe to the end.
"""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import BlockGrid, build_tiled_grid, tiled_grids
from termsnake.solvers.celltree.lookahead import food_index
from termsnake.solvers.celltree.spanning import witness_cycle
from termsnake.solvers.celltree.tiling import Rect
from termsnake.solvers.deadends import sync_shadow
from termsnake.solvers.grid import Grid, grid_of
from termsnake.solvers.hampath.holes import hole_candidates, spare
from termsnake.solvers.replan import ReplanSolver

# Holes the set-up tries (each costs a cut of the board): the corners first.
TRIES = 2


class HoleTreeSolver:
    """The cell tree on the board less a hole, the hole moved by a switch when food falls in it."""

    name = "hole-tree"

    def __init__(self) -> None:
        self._tree: TreeSolver | None = None
        self._replan: ReplanSolver | None = None
        self._shadow: Game | None = None
        self._grid: Grid | None = None
        self.hole = -1  # the cell the tree's board walls in
        self._cells = 0
        self._cut: tuple[tuple[Rect, ...], int] = ((), 0)  # the blocks and turning of the cut
        self._grids: dict[int, BlockGrid] = {}  # hole -> the tree's grid round it
        self.switches = 0  # foods taken in the hole
        # At a switch: the cycle through the hole (from the head on) and the cell left out.
        self._switched: tuple[list[int], int] = ([], -1)

    played = "tree round a hole"  # replan, if it takes over, does so late in the game

    @property
    def replanned(self) -> bool:
        """Whether ``replan`` has taken over (the body fitted no cut of the board after a
        switch, as in the late game, which leaves the blocks)."""
        return self._replan is not None

    def setup(self, game: Game) -> None:
        """The tree on the board less a corner-like hole; SolverUnavailable if the board is
        not one cell short of a cycle or no such hole lets the tree cut the rest."""
        self._tree = self._replan = None
        self.switches = 0
        grid = grid_of(game.board)
        short = spare(grid)
        if short is None or short[1] != 1:
            raise SolverUnavailable(_refusal(game, "it is not one cell short of a cycle"))
        taken = {grid.index(p) for p in game.body}
        if game.food is not None:
            taken.add(grid.index(game.food))
        holes = [
            h
            for h in hole_candidates(grid, short[0], taken, far_from=grid.index(game.head))
            if _inner(grid, h) >= 0
        ]
        self._grid = grid
        self._cells = len(game.board.free_cells) - 1  # on the cycle round a hole
        for hole in holes[:TRIES]:
            found = tiled_grids(game.board.with_walls([grid.points[hole]]))
            if isinstance(found, str) or not self._tree_round(game, hole, [g for g, _, _ in found]):
                continue
            assert self._tree is not None and self._tree.policy is not None
            played = self._tree.policy.mirror.grid
            _, rects, turning = next(f for f in found if f[0] is played)
            self._cut, self._grids = (rects, turning), {hole: played}
            # The hole must go back and forth within one box of the cut.
            partner = grid.points[_inner(grid, hole)]
            if self._grid_round(game.board, grid.points[hole], partner) is not None:
                return
        raise SolverUnavailable(_refusal(game, "no hole at a corner lets the tree cut the rest"))

    def _tree_round(self, game: Game, hole: int, grids: list[BlockGrid]) -> bool:
        """Whether the tree takes the board less ``hole`` on one of ``grids``, with the body
        as it is."""
        assert self._grid is not None
        shadow = game.copy()
        shadow.board = game.board.with_walls([self._grid.points[hole]])
        tree = TreeSolver()
        try:
            tree.setup(shadow, grids)
        except SolverUnavailable:
            return False
        self._tree, self._shadow, self.hole = tree, shadow, hole
        return True

    def _grid_round(self, board: Board, old: Point, hole: Point) -> BlockGrid | None:
        """The cut the tree plays round ``old``, with its box less ``hole`` instead, on the
        board less ``hole``; None if no box of the cut holds both."""
        rects, turning = self._cut
        moved = {
            r: Rect(r.x, r.y, r.width, r.height, ((hole.x - r.x, hole.y - r.y),))
            for r in rects
            if r.missing == ((old.x - r.x, old.y - r.y),)
            and 0 <= hole.x - r.x < r.width
            and 0 <= hole.y - r.y < r.height
        }
        if len(moved) != 1:
            return None
        blocks = [moved.get(r, r) for r in rects]
        return build_tiled_grid(board.with_walls([hole]), turning, blocks)

    def next_direction(self, game: Game) -> Direction:
        """The tree's move; toward the switch and into the hole while food is in it."""
        if self._replan is not None:
            return self._replan.next_direction(game)
        grid, tree, shadow = self._grid, self._tree, self._shadow
        assert grid is not None and tree is not None and shadow is not None, "setup first"
        head = grid.index(game.head)
        if head == self.hole:  # it has just eaten in the hole: the tree goes on round m
            return self._after_switch(game)
        sync_shadow(shadow, game)
        if game.food is None or grid.index(game.food) != self.hole:
            return tree.next_direction(shadow)
        if game.length >= self._cells:  # the last food: the body is the cycle, head to tail
            end = self.hole if self.hole in grid.adj[head] else grid.index(game.body[-1])
            return _step(grid, head, end)
        succ = self._cycle(shadow)
        switch = _switch(grid, succ, self.hole)
        if switch is None:  # a cycle of the late game may run otherwise: replan moves the hole
            return self._hand_over(game, _in_order(succ, head), self.hole)
        a, m = switch
        if head == a and not game.occupied(grid.points[m]):
            self._switched = (_in_order(succ, a, skip=m, then=self.hole), m)
            return _step(grid, head, self.hole)
        if head == a or tree.late is not None or game.occupied(grid.points[a]):
            # Round the cycle until the head reaches a (the late game's cycle runs through
            # the box as the blocks' does: its corner cells have two ways each).
            return _step(grid, head, succ[head])
        shadow.food = grid.points[a]  # the tree heads for a as if it were food
        return tree.next_direction(shadow)

    def _cycle(self, shadow: Game) -> list[int]:
        """The cycle the tree follows now: cell -> next cell (-1 off it)."""
        tree = self._tree
        assert tree is not None and tree.policy is not None
        if tree.late is not None:
            return tree.late.ring
        mirror = tree.policy.mirror
        mirror.sync(shadow)
        return witness_cycle(mirror)

    def _after_switch(self, game: Game) -> Direction:
        """Set the tree up round the cell the switch left out, else hand over to replan."""
        assert self._grid is not None
        cycle, m = self._switched
        self.switches += 1
        points = self._grid.points
        grid = self._grids.get(m) or self._grid_round(game.board, points[self.hole], points[m])
        if grid is None or not self._tree_round(game, m, [grid]):
            return self._hand_over(game, cycle, m)
        self._grids[m] = grid
        return self.next_direction(game)  # the next food may be in the new hole already

    def _hand_over(self, game: Game, cycle: list[int], hole: int) -> Direction:
        """``replan`` from now on, on ``cycle`` round ``hole``."""
        grid = self._grid
        assert grid is not None
        replan = ReplanSolver()
        replan.take_over(game, tuple(grid.points[c] for c in cycle), (grid.points[hole],))
        self._replan = replan
        return replan.next_direction(game)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The plan of the tree (or of replan, once it has taken over); none while the snake
        heads for the switch into the hole, where the tree's plan is not what it follows."""
        if self._replan is not None:
            return self._replan.overlay(game)
        if self._tree is None or self._shadow is None:
            return {}
        grid = self._grid
        if grid is None or self.hole in (grid.index(game.head), food_index(game)):
            return {}
        sync_shadow(self._shadow, game)
        return self._tree.overlay(self._shadow)


def _refusal(game: Game, why: str) -> str:
    return f"hole-tree cannot play {game.board.name}: {why}; try --ai best"


def _inner(grid: Grid, hole: int) -> int:
    """The cell diagonal to a corner ``hole`` next to both its neighbours, if free, else -1.
    A corner: two free neighbours at right angles, each with one other free neighbour besides
    the hole and that cell, so that every cycle without the hole runs round that cell to them,
    and every cycle without that cell round the hole: the switch is there both ways."""
    adj = grid.adj[hole]
    if len(adj) != 2 or any(len(grid.adj[c]) != 3 for c in adj):
        return -1
    common = [c for c in grid.adj[adj[0]] if c in grid.adj[adj[1]] and c != hole]
    return common[0] if len(common) == 1 and grid.free[common[0]] else -1


def _switch(grid: Grid, succ: list[int], hole: int) -> tuple[int, int] | None:
    """The cells a and m of a switch into ``hole`` on the cycle ``succ`` (a, m, b round a 2x2
    square with the hole), m corner-like with the hole its diagonal if one is, so that the
    hole goes back and forth in one box; None if the hole is not switchable."""
    found = [(a, m) for a in grid.adj[hole] if (m := succ[a]) >= 0 and succ[m] in grid.adj[hole]]
    paired = [(a, m) for a, m in found if _inner(grid, m) == hole]
    return (paired or found)[0] if found else None


def _in_order(succ: list[int], start: int, skip: int = -1, then: int = -1) -> list[int]:
    """The cycle ``succ`` from ``start`` on; with ``skip``, that cell replaced by ``then``."""
    out, c = [start], start
    while True:
        c = succ[c]
        if c == start:
            return out
        out.append(then if c == skip else c)


def _step(grid: Grid, a: int, b: int) -> Direction:
    move = grid.direction(a, b)
    assert move is not None
    return move
