"""The re-planning cycle solver: a Hamiltonian cycle that is rebuilt around each shortcut.

It plays like ``hamilton`` (follow a Hamiltonian cycle, cutting ahead along it when that is
safe) but the cycle is not fixed. When a new food appears, it finds the shortest path to it and
plays the snake along that path in its head, to the moment it eats. If the body it would have
then can be closed into a Hamiltonian cycle (``closure.close_body``: a path from the head
through every free cell back to the tail), it walks the path and then follows that new cycle.
If not, it keeps to the old cycle and asks again a little later.

Safety: the path is free of the body at every step (the BFS knows when each body cell is
left), and at its end the snake is an arc of a Hamiltonian cycle, the state ``hamilton`` never
dies from. Between paths it plays ``hamilton``'s own safe moves. So, like ``hamilton``, it never
dies on a board with a Hamiltonian cycle. It works on any such board, walls and wrap included,
where the cell-tree solver needs the board to be cut into 2x2 blocks.
"""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.geometry import Direction, Point
from termsnake.model import Game
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.closure import close_body
from termsnake.solvers.graph import (
    Grid,
    body_free_at,
    grid_of,
    shortest_path,
)
from termsnake.solvers.hamilton import SEARCH_BUDGET, HamiltonSolver


class ReplanSolver:
    """Follow a Hamiltonian cycle, rebuilt at each food so that it reaches the food soon."""

    name = "replan"
    # Positions the closure search may try: this many per free cell, plus a floor.
    nodes_per_cell = 3
    min_nodes = 500
    # After a failed search for a food, wait this many moves before the next, doubling each time.
    first_wait = 1
    wait_growth = 4  # in halves: 4 doubles the wait, 2 keeps it

    def __init__(self, budget: float = SEARCH_BUDGET) -> None:
        self._ham = HamiltonSolver(budget)
        # Shortcuts leave pockets behind the body that no cycle can close around; the cycle is
        # rebuilt instead, which takes the shortcut too when it is safe.
        self._ham.shortcuts = False
        self._grid: Grid | None = None
        self._board: object = None
        self._food: Point | None = None  # the food the waiting below is about
        self._retry = 0  # no search before this step
        self._wait = 1
        self.searches = 0  # closure searches made, and how many found a cycle
        self.found = 0

    @property
    def cycle(self) -> tuple[Point, ...]:
        """The cycle followed now."""
        return self._ham.cycle

    def setup(self, game: Game) -> None:
        """Find the board's first cycle; SolverUnavailable (saying why) if it has none."""
        try:
            self._ham.setup(game)
        except SolverUnavailable as exc:
            raise SolverUnavailable(str(exc).replace("hamilton", self.name, 1)) from None
        self._grid = grid_of(game.board)
        self._board = game.board
        self._food = None

    def next_direction(self, game: Game) -> Direction:
        """``hamilton``'s move on a cycle rebuilt, when it can be, to reach the food sooner."""
        grid = self._grid
        if grid is None or self._board is not game.board:
            self.setup(game)
            grid = self._grid
            assert grid is not None
        if self._should_search(game):
            self._search(game, grid)
        return self._ham.next_direction(game)

    def _should_search(self, game: Game) -> bool:
        food = game.food
        if food is None:
            return False
        if food != self._food:
            self._food = food
            self._retry = game.steps
            self._wait = self.first_wait
        return game.steps >= self._retry and self._ham.holds_invariant(game)

    def _search(self, game: Game, grid: Grid) -> None:
        """Rebuild the cycle around the body so that it heads for the food first."""
        food = game.food
        assert food is not None
        goal = grid.index(food)
        head = grid.index(game.head)
        now = self._ham.cycle_distance(head, goal)
        path = shortest_path(grid, head, goal, body_free_at(grid, game.body))
        # Worth a search only if going round the cycle is longer than the way there.
        if path is None or len(path) >= now:
            self._later(game)
            return
        body = [grid.index(p) for p in game.body]
        free = len(self._ham.cycle) - len(body)
        limit = max(self.min_nodes, self.nodes_per_cell * free)
        self.searches += 1
        closed = close_body(grid, body, limit, self._ham.successors, goal)
        if closed is not None:
            cycle = tuple(grid.points[c] for c in closed)
            # The new cycle reaches the food at its place after the head (the body comes first).
            if closed.index(goal) - (len(body) - 1) < now and self._ham.use_cycle(game, cycle):
                self.found += 1
                self._retry = 1 << 62  # nothing to gain for this food any more
                return
        self._later(game)

    def _later(self, game: Game) -> None:
        self._retry = game.steps + self._wait
        self._wait = self._wait * self.wait_growth // 2 or 1

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The cycle the snake follows, one arrow per cell."""
        return self._ham.overlay(game)
