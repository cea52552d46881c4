"""The game itself: snake, food and the rules of a step. Pure and seeded; no terminal here."""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum

from termsnake.core.board import Board
from termsnake.core.geometry import DIRECTIONS, Direction, Point
from termsnake.core.level import Level

# No food for STALL_FACTOR x free cells steps ends a game as stalled (README, "Rules"): a sound
# solver never needs more than one lap of the board a food.
STALL_FACTOR = 4


class Outcome(Enum):
    """How a game ended."""

    WON = "won"
    DIED = "died"
    STALLED = "stalled"
    QUIT = "quit"


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one step did: the move made, whether it ate, and the outcome if the game ended."""

    direction: Direction
    ate: bool
    outcome: Outcome | None


def new_seed() -> int:
    """A fresh random seed, so that even an unseeded game can be recorded and replayed."""
    return random.SystemRandom().randrange(2**31)


class Game:
    """One game of snake on a level: call ``step`` once a tick until ``outcome`` is set.

    ``body`` holds the snake head first. ``moves`` is every move made (the fatal one included),
    ``foods`` every food as ``(step, point)``: the food that appeared after ``step`` moves.
    """

    __slots__ = (
        "_cells",
        "board",
        "body",
        "cause",
        "direction",
        "eaten",
        "food",
        "food_plan",
        "foods",
        "forfeited",
        "level",
        "moves",
        "outcome",
        "rng",
        "seed",
        "since_food",
        "stall_limit",
        "start_length",
        "steps",
    )

    def __init__(
        self, level: Level, seed: int | None = None, *, food_plan: Iterable[Point] | None = None
    ) -> None:
        """Start a game; ``food_plan``, if given, supplies the foods in order instead of the
        seeded generator (replays use it; an exhausted plan or a food on a covered cell is a
        ValueError)."""
        self.level = level
        self.food_plan: Iterator[Point] | None = None if food_plan is None else iter(food_plan)
        self.board: Board = level.board
        self.seed = new_seed() if seed is None else seed
        self.rng = random.Random(self.seed)
        self.body: deque[Point] = deque(level.body)
        # The body's cells again, as a set: every step and every look-ahead asks whether a cell
        # is covered. Only step() and copy() change the body, and they keep the two alike.
        self._cells: set[Point] = set(level.body)
        self.direction: Direction = level.direction
        self.start_length = len(level.body)
        self.steps = 0
        self.eaten = 0
        self.since_food = 0
        self.stall_limit = STALL_FACTOR * self.board.free_count
        self.outcome: Outcome | None = None
        self.cause: str | None = None
        self.forfeited = False  # lost by ``forfeit``, not by a move
        self.moves: list[Direction] = []
        self.foods: list[tuple[int, Point]] = []
        self.food: Point | None = None
        if self.length >= self.board.free_count:
            self.outcome = Outcome.WON
        elif level.food is not None:
            self._place_food(level.food)
        else:
            self._spawn_food()

    # -- reading the state -------------------------------------------------------------------

    @property
    def head(self) -> Point:
        """The head's cell."""
        return self.body[0]

    @property
    def tail(self) -> Point:
        """The tail's cell (the head's, for a snake of length 1)."""
        return self.body[-1]

    @property
    def length(self) -> int:
        """How many cells the snake fills."""
        return len(self.body)

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome is not None

    def occupied(self, p: Point) -> bool:
        """Whether the snake's body covers ``p``."""
        return p in self._cells

    def empty_cells(self) -> list[Point]:
        """The board's free cells (``Board.free_cells``: not walls) that the snake does not
        cover either, in row-major order: where food may appear."""
        cells = self._cells
        return [p for p in self.board.free_cells if p not in cells]

    def is_safe(self, direction: Direction) -> bool:
        """Whether moving ``direction`` now keeps the snake alive for this step."""
        return self._fatal(direction) is None

    def safe_moves(self) -> list[bool]:
        """``is_safe`` for each of DIRECTIONS in order, in one pass (learning bots ask every
        step); all False once the game is over."""
        if self.outcome is not None:
            return [False] * len(DIRECTIONS)
        body, cells, board = self.body, self._cells, self.board
        neck = body[1] if len(body) > 1 else None
        tail, food, walls, head = body[-1], self.food, board.walls, body[0]
        safe = []
        for d in DIRECTIONS:
            t = board.step(head, d)
            safe.append(
                t is not None
                and t not in walls
                and t != neck
                and (t not in cells or (t == tail and t != food))
            )
        return safe

    def _fatal(self, direction: Direction) -> str | None:
        """Why a move would kill, or None if it is legal."""
        target = self.board.step(self.head, direction)
        if target is None:
            return "left the board"
        if target in self.board.walls:
            return "hit a wall"
        if len(self.body) > 1 and target == self.body[1]:
            return "turned back into its neck"
        if target in self._cells and (target != self.body[-1] or target == self.food):
            return "ran into itself"
        return None

    # -- changing the state ------------------------------------------------------------------

    def step(self, direction: Direction) -> StepResult:
        """Move the head one cell ``direction`` and apply the rules (README, "Rules")."""
        if self.outcome is not None:
            raise RuntimeError(f"the game is over ({self.outcome.value})")
        if type(direction) is not Direction:  # a bot's "U" would fail half-way through the step
            raise TypeError(f"a move is a Direction (Direction.UP, ...), not {direction!r:.60}")
        self.moves.append(direction)
        self.steps += 1
        self.direction = direction
        cause = self._fatal(direction)
        if cause is not None:
            self.cause = cause
            self.outcome = Outcome.DIED
            return StepResult(direction, False, self.outcome)
        target = self.board.step(self.head, direction)
        assert target is not None
        ate = target == self.food
        if not ate:
            self._cells.discard(self.body.pop())
        self.body.appendleft(target)
        self._cells.add(target)
        if ate:
            self.eaten += 1
            self.since_food = 0
            self.food = None
            if self.length >= self.board.free_count:
                self.outcome = Outcome.WON
            else:
                self._spawn_food()
        else:
            self.since_food += 1
            if self.since_food >= self.stall_limit:
                self.cause = f"no food eaten in {self.stall_limit} steps"
                self.outcome = Outcome.STALLED
        return StepResult(direction, ate, self.outcome)

    def forfeit(self, cause: str) -> None:
        """End the game as lost for the player, who could not move (a bot that broke down)."""
        if self.outcome is None:
            self.cause = cause
            self.outcome = Outcome.DIED
            self.forfeited = True

    def quit(self) -> None:
        """End the game by the player's wish."""
        if self.outcome is None:
            self.outcome = Outcome.QUIT

    def _spawn_food(self) -> None:
        if self.food_plan is None:
            self._place_food(self.rng.choice(self.empty_cells()))
            return
        p = next(self.food_plan, None)
        if p is None:
            raise ValueError(f"the food plan has no food for step {self.steps}")
        if not self.board.is_free(p) or p in self._cells:
            raise ValueError(f"the planned food at {p} after step {self.steps} is not empty")
        self._place_food(p)

    def _place_food(self, p: Point) -> None:
        self.food = p
        self.foods.append((self.steps, p))

    def copy(self, *, history: bool = True) -> Game:
        """An independent copy (generator state included), for look-ahead without side effects;
        without ``history``, its ``moves`` and ``foods`` start empty (a copy to draw, made at
        every move, then costs the body's length, not the game's)."""
        other = Game.__new__(Game)
        for name in Game.__slots__:
            setattr(other, name, getattr(self, name))
        other.body = deque(self.body)
        other._cells = set(self._cells)
        other.moves = list(self.moves) if history else []
        other.foods = list(self.foods) if history else []
        # An iterator cannot be copied; a look-ahead copy draws from the generator instead.
        other.food_plan = None
        # Made by __new__, not Random(), which seeds itself from the system first, to no end.
        other.rng = random.Random.__new__(random.Random)
        other.rng.setstate(self.rng.getstate())
        return other

    def __copy__(self) -> Game:
        """``copy.copy(game)`` is ``game.copy()``: a shallow copy would share the body, and a
        step on it would move this game's snake but not its step count."""
        return self.copy()

    def __repr__(self) -> str:
        return (
            f"<Game {self.board.name} length={self.length}/{self.board.free_count} "
            f"steps={self.steps} outcome={self.outcome and self.outcome.value}>"
        )
