"""The Habr article's bot: straight to the food when the cycle, either way round, takes it on.

The bot keeps a Hamiltonian cycle of the board. When a food appears it tries the straight way
to it: an L-shaped path (along the row first, or along the column first). It takes that way
only if, once the snake has eaten, following the cycle from the food in one direction or the
other ("the inverted Hamiltonian path") for a whole body length runs into nothing; the snake
then follows the cycle that way. Otherwise it keeps following the cycle. The check looks one
body length ahead and no further, so the snake can still die: a food eaten on that stretch makes
the body longer than the stretch the check walked.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping, Sequence

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.hampath import DEFAULT_LIMIT, Limit, find_cycle


def l_paths(board: Board, start: Point, goal: Point) -> list[list[Point]]:
    """The two L-shaped ways from ``start`` to ``goal`` (row first, column first), as the cells
    entered, without wrapping; the same way once if they coincide."""
    paths: list[list[Point]] = []
    for row_first in (True, False):
        cells: list[Point] = []
        x, y = start
        for axis in ("x", "y") if row_first else ("y", "x"):
            while (x if axis == "x" else y) != (goal.x if axis == "x" else goal.y):
                if axis == "x":
                    x += 1 if goal.x > x else -1
                else:
                    y += 1 if goal.y > y else -1
                cells.append(Point(x, y))
        if cells not in paths and all(board.is_free(p) for p in cells):
            paths.append(cells)
    return paths


def walk(body: Iterable[Point], cells: Sequence[Point], food: Point) -> bool:
    """Whether the snake survives entering ``cells`` in turn by the rules of the game, growing
    when it enters ``food``."""
    snake = deque(body)
    taken = set(snake)
    for p in cells:
        eats = p == food
        if (len(snake) > 1 and p == snake[1]) or (p in taken and (p != snake[-1] or eats)):
            return False
        if not eats:
            taken.discard(snake.pop())
        snake.appendleft(p)
        taken.add(p)
    return True


class StraightSolver:
    """Straight to the food when the Hamiltonian cycle, forward or inverted, stays safe."""

    name = "straight"

    def __init__(self, limit: Limit = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.cycle: tuple[Point, ...] = ()
        self._place: dict[Point, int] = {}
        self._forward = True
        self._route: deque[Point] = deque()

    def setup(self, game: Game) -> None:
        """Find the board's cycle; SolverUnavailable if it has none."""
        result = find_cycle(game.board, self.limit)
        if result.cycle is None:
            # As hamilton says it: the game's line names neither the bot nor the board, and a
            # search that gave up proves no board has none.
            found = "" if result.status == "none" else " that could be found"
            raise SolverUnavailable(
                f"straight cannot play {game.board.name}: the board has no Hamiltonian cycle"
                f"{found} to follow ({result.reason}); try --ai best"
            )
        self.cycle = result.cycle
        self._place = {p: i for i, p in enumerate(self.cycle)}
        self._route.clear()
        neck = game.body[1] if game.length > 1 else None
        self._forward = self._along(game.head, True) != neck

    def _along(self, p: Point, forward: bool, k: int = 1) -> Point:
        n = len(self.cycle)
        return self.cycle[(self._place[p] + (k if forward else -k)) % n]

    def next_direction(self, game: Game) -> Direction:
        """The next cell of the straight way if one is planned, else of the cycle."""
        if not self._route and game.food is not None:
            self._plan(game, game.food)
        target = self._route.popleft() if self._route else self._along(game.head, self._forward)
        for direction, cell in game.board.neighbours(game.head):
            if cell == target:
                return direction
        raise AssertionError(f"{target} is not next to the head {game.head}")

    def _plan(self, game: Game, food: Point) -> None:
        """Take an L-shaped way to ``food`` if the cycle from there, one way round, is clear."""
        board = game.board
        for cells in l_paths(board, game.head, food):
            for forward in (self._forward, not self._forward):
                after = [self._along(food, forward, k) for k in range(1, game.length + 2)]
                if walk(game.body, [*cells, *after], food):
                    self._route = deque(cells)
                    self._forward = forward
                    return

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The straight way ahead, if any."""
        return {p: "*" for p in self._route}
