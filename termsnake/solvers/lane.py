"""A short way to the food off the cycle, and the cycle to follow once it has eaten.

``replan`` follows a Hamiltonian cycle rebuilt around the body. A *lane* is better when one is
found: the fewest moves to the food after which the grown body closes into a cycle through the
free cells (``endgame.closing_path``). The snake walks the lane, which is safe by the game's
rules, eats at its end, and from there follows the new cycle, on which its body lies in order.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.endgame import closing_path
from termsnake.solvers.grid import Grid
from termsnake.solvers.hampath import Limit
from termsnake.solvers.hampath.holes import switchable


class Lane:
    """The lane being walked (cells ahead), and the cycle and holes it leads onto."""

    __slots__ = ("after", "expect", "holes", "moves")

    def __init__(self) -> None:
        self.moves: deque[int] = deque()
        self.after: tuple[Point, ...] = ()  # the cycle to follow once the lane is walked
        self.holes: tuple[int, ...] = ()  # the cells that cycle leaves out
        # (the game itself, its step) the next call should see: anything else drops the lane
        self.expect: tuple[Game | None, int] = (None, -1)

    def plan(
        self,
        grid: Grid,
        game: Game,
        goal: int,
        max_len: int,
        tries: Sequence[tuple[int, ...]],
        limits: tuple[Limit, Limit, Limit],
    ) -> bool:
        """Look for a lane to ``goal`` of at most ``max_len`` moves, leaving out the holes of
        one of ``tries`` (each may be empty), which must stay switchable; whether one was
        found. ``limits``: the moves searched, each completion's nodes, and both together
        (``endgame.closing_path``'s ``limit``, ``completion_limit`` and ``total``)."""
        moves_limit, each, total = limits
        body = [grid.index(p) for p in game.body]
        for holes in tries:

            def keeps(cycle: list[int], holes: tuple[int, ...] = holes) -> bool:
                return switchable(grid, cycle, holes)

            found = closing_path(grid, body, goal, max_len, moves_limit, each, holes, keeps, total)
            if found is not None:
                moves, cycle = found
                self.moves = deque(moves)
                self.after = tuple(grid.points[c] for c in cycle)
                self.holes = holes
                self.expect = (game, game.steps)
                return True
        return False

    def step(self, game: Game, grid: Grid) -> Direction | None:
        """The next move along the lane, or None if there is no lane being walked."""
        if not self.moves:
            return None
        if self.expect != (game, game.steps):
            self.moves.clear()
            self.after = ()
            return None
        self.expect = (game, game.steps + 1)
        return grid.direction(grid.index(game.head), self.moves.popleft())

    def landed(self, game: Game) -> tuple[tuple[Point, ...], tuple[int, ...]] | None:
        """The cycle and holes to take up now that the lane has been walked (once), else None."""
        if self.moves or not self.after or self.expect != (game, game.steps):
            return None
        after, self.after = self.after, ()
        return after, self.holes
