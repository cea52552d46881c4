"""Checking a replay: its moves, replayed under the rules, must give its foods and its result,
and its foods must be the ones its seed gives; PlaybackGame plays it back.

The check replays the rules of core.game on cell numbers and flat arrays rather than stepping a
Game: a replay may hold ten million moves, and Game.step, with its Points and sets, would take
minutes over them. tests/formats/test_verify.py holds the two to the same games.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from termsnake.core.game import STALL_FACTOR, Game, Outcome, StepResult
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.formats.replay import Replay, ReplayError
from termsnake.formats.text import shorten

EMPTY: Final = 0
BODY: Final = 1
WALL: Final = 2
# How many moves between two calls of the progress callback.
PROGRESS_EVERY: Final = 1 << 16
_CELLS: Final = bytes.maketrans(b".#", bytes([EMPTY, WALL]))


class PlaybackGame(Game):
    """A game fed by a replay's foods that ends as ``quit`` once its recorded moves run out
    (a game the person quit, or one cut short, has no fatal last move to end it), or as a
    forfeit if its bot lost it by breaking down."""

    __slots__ = ("_forfeit", "stop_after")

    def __init__(self, replay: Replay, level: Level | None = None) -> None:
        """Start the recorded game: its board, start (``level``, if the caller has made
        ``replay.level()`` already), seed and food list."""
        try:
            super().__init__(
                level or replay.level(), replay.seed, food_plan=[p for _, p in replay.foods]
            )
        except ValueError as e:
            raise ReplayError(f"the first food: {e}") from None
        self.stop_after = len(replay.moves)
        self._forfeit = replay.result.forfeit
        ends = replay.result.outcome is Outcome.QUIT or self._forfeit is not None
        if ends and self.steps >= self.stop_after:
            self._ran_out()

    def step(self, direction: Direction) -> StepResult:
        """One move, then the end if it was the last recorded move and the game goes on."""
        result = super().step(direction)
        if self.outcome is None and self.steps >= self.stop_after:
            self._ran_out()
            return StepResult(result.direction, result.ate, self.outcome)
        return result

    def _ran_out(self) -> None:
        if self._forfeit is not None:
            self.forfeit(self._forfeit)
        else:
            self.quit()


@dataclass(frozen=True, slots=True)
class CheckedGame:
    """The game a replay's moves play, as far as they go: what ``verify`` found."""

    seed: int
    outcome: Outcome | None
    cause: str | None
    length: int
    steps: int
    moves: list[Direction] = field(repr=False)
    foods: list[tuple[int, Point]]


def verify(
    replay: Replay,
    level: Level | None = None,
    progress: Callable[[int], None] | None = None,
) -> CheckedGame:
    """Replay the moves under the rules; ReplayError naming the first thing that differs from
    the file's foods (when they appear, and where ``seed`` puts them) or result. Returns the
    finished game. ``level``: ``replay.level()`` if the caller has it already; ``progress``,
    if given, is called now and then with the number of moves checked so far."""
    sim = _Rules(replay, level or replay.level())
    sim.run(progress)
    expected = replay.foods
    if len(sim.foods) < len(expected):
        step, p = expected[len(sim.foods)]
        raise ReplayError(
            f"food {len(sim.foods)} at ({p.x}, {p.y}) after move {step} never appeared: "
            f"the food before it was not eaten"
        )
    if sim.outcome is None and replay.result.outcome is Outcome.QUIT:
        sim.outcome = Outcome.QUIT
    elif sim.outcome is None and replay.result.forfeit is not None:
        sim.outcome, sim.cause = Outcome.DIED, replay.result.forfeit  # its bot broke down
    res = replay.result
    outcome = sim.outcome.value if sim.outcome else "still running"
    if outcome != res.outcome.value:
        raise ReplayError(f"the moves end the game {outcome}, the file says {res.outcome.value}")
    if len(sim.body) != res.length:
        raise ReplayError(f"the moves end at length {len(sim.body)}, the file says {res.length}")
    if sim.steps != res.steps:
        raise ReplayError(f"the game took {sim.steps} steps, the file says {res.steps}")
    return CheckedGame(
        replay.seed, sim.outcome, sim.cause, len(sim.body), sim.steps,
        list(replay.moves[: sim.steps]), sim.foods,
    )  # fmt: skip


class _Rules:
    """The rules of core.game.Game on cell numbers (``y * width + x``), fed the file's foods.

    ``cells`` says what each cell holds (EMPTY, BODY or WALL); the body is a deque of cell
    numbers, head first; ``food`` is the food's cell number, or -1.
    """

    def __init__(self, replay: Replay, level: Level) -> None:
        board = level.board
        self.replay = replay
        self.width, self.height, self.wrap = board.width, board.height, board.wrap
        self.free = board.free_count
        self.cells = bytearray("".join(replay.rows).encode("ascii").translate(_CELLS))
        self.body: deque[int] = deque(self._cell(p) for p in level.body)
        for c in self.body:
            self.cells[c] = BODY
        self.outcome: Outcome | None = None
        self.cause: str | None = None
        self.steps = 0
        self.food = -1
        self.foods: list[tuple[int, Point]] = []
        self.seeded = _SeedCheck(self, replay, level)
        if len(self.body) >= self.free:
            self.outcome = Outcome.WON
        else:
            try:
                self._spawn()
            except ValueError as e:
                raise ReplayError(f"at the start: {e}") from None

    def _cell(self, p: Point) -> int:
        return p.y * self.width + p.x

    def holds(self, p: Point) -> int:
        """What the cell at ``p`` holds; WALL off the board."""
        if 0 <= p.x < self.width and 0 <= p.y < self.height:
            return self.cells[self._cell(p)]
        return WALL

    def nth_empty(self, n: int) -> Point:
        """The ``n``-th cell (from 0, row-major) neither wall nor body: Game.empty_cells()[n]."""
        cells, w = self.cells, self.width
        start = 0
        while True:
            here = cells.count(EMPTY, start, start + w)
            if n < here:
                break
            n -= here
            start += w
        c = cells.find(EMPTY, start)
        for _ in range(n):
            c = cells.find(EMPTY, c + 1)
        return Point(c % w, c // w)

    def _spawn(self) -> None:
        """Place the file's next food, as Game._spawn_food does from a food plan."""
        i = len(self.foods)
        if i >= len(self.replay.foods):
            raise ValueError(f"the food plan has no food for step {self.steps}")
        p = self.replay.foods[i][1]
        if self.holds(p) != EMPTY:
            raise ValueError(f"the planned food at {p} after step {self.steps} is not empty")
        self.food = self._cell(p)
        self.foods.append((self.steps, p))
        want_step = self.replay.foods[i][0]
        if want_step != self.steps:
            raise ReplayError(
                f"food {i} at ({p.x}, {p.y}) appeared after move {self.steps}, "
                f"the file says after move {want_step}"
            )
        self.seeded.check(i, p)

    def run(self, progress: Callable[[int], None] | None) -> None:
        """Play every move of the file; ReplayError at the first that breaks the rules."""
        moves = self.replay.moves
        if self.outcome is None:
            self._play(moves, progress)
        if self.steps < len(moves):
            assert self.outcome is not None
            raise ReplayError(
                f"the game ended ({self.outcome.value}) after move {self.steps}, "
                f"but the file has {len(moves)} moves"
            )

    def _play(self, moves: Sequence[Direction], progress: Callable[[int], None] | None) -> None:
        # One pass with everything in locals: this loop is the whole cost of a long replay.
        w, h, wrap, cells, body = self.width, self.height, self.wrap, self.cells, self.body
        deltas = {d: (d.dx, d.dy) for d in Direction}
        hx, hy = body[0] % w, body[0] // w
        since, stall_limit, food, mask = 0, STALL_FACTOR * self.free, self.food, PROGRESS_EVERY - 1
        for i, d in enumerate(moves, start=1):
            if progress is not None and not i & mask:
                progress(i)
            self.steps = i
            dx, dy = deltas[d]
            x, y = hx + dx, hy + dy
            if wrap:
                x, y = x % w, y % h
            elif not (0 <= x < w and 0 <= y < h):
                return self._end(Outcome.DIED, "left the board")
            t = y * w + x
            held = cells[t]
            if held == WALL:
                return self._end(Outcome.DIED, "hit a wall")
            if held == BODY:
                # Game._fatal's order: the neck first, then any body cell but a leaving tail.
                if len(body) > 1 and t == body[1]:
                    return self._end(Outcome.DIED, "turned back into its neck")
                if t != body[-1] or t == food:
                    return self._end(Outcome.DIED, "ran into itself")
            hx, hy = x, y
            if t != food:
                cells[body.pop()] = EMPTY
                body.appendleft(t)
                cells[t] = BODY
                since += 1
                if since >= stall_limit:
                    return self._end(Outcome.STALLED, f"no food eaten in {stall_limit} steps")
                continue
            body.appendleft(t)
            cells[t] = BODY
            since, self.food = 0, -1
            if len(body) >= self.free:
                return self._end(Outcome.WON, None)
            try:
                self._spawn()
            except ValueError as e:
                raise ReplayError(f"after move {i}: {e}") from None
            food = self.food
        return None

    def _end(self, outcome: Outcome, cause: str | None) -> None:
        self.outcome, self.cause = outcome, cause


class _SeedCheck:
    """Ties the file's foods to its seed: every food must be where the seeded generator puts it.

    A level's first food (``%``) is not drawn, and the file does not say whether there was
    one; so there are two readings: every food drawn, or the file's first food fixed and the
    rest drawn. The file passes if either gives all of its foods. While a reading agrees, its
    game is the file's game (the same moves, the same foods), so each draw is made, as
    Game._spawn_food makes it, from the file game's empty cells at that moment.
    """

    def __init__(self, rules: _Rules, replay: Replay, level: Level) -> None:
        self.rules = rules
        self.seed = replay.seed
        self.rngs = [random.Random(replay.seed)]
        self.first: list[Point | None] = [None]
        if replay.foods:
            first = replay.foods[0][1]
            if level.board.is_free(first) and first not in level.body:
                self.rngs.append(random.Random(replay.seed))
                self.first.append(first)
        # Per reading, the first food it disagrees on: (index, the file's food, the seed's food).
        self.mismatch: list[tuple[int, Point, Point] | None] = [None] * len(self.rngs)

    def check(self, i: int, want: Point) -> None:
        """Compare the file's food ``i`` (just placed); ReplayError once no reading agrees."""
        for k, rng in enumerate(self.rngs):
            if self.mismatch[k] is not None:
                continue
            fixed = self.first[k]
            if i == 0 and fixed is not None:
                got = fixed
            else:
                empty = self.rules.free - len(self.rules.body)
                got = self.rules.nth_empty(rng.choice(range(empty)))
            if got != want:
                self.mismatch[k] = (i, want, got)
        if all(m is not None for m in self.mismatch):
            # Report the reading that agreed the longest: the likelier reading of the file.
            index, want, got = max((m for m in self.mismatch if m is not None), key=lambda m: m[0])
            raise ReplayError(
                f"food {index} at ({want.x}, {want.y}) is not what seed {shorten(str(self.seed))} "
                f"gives (({got.x}, {got.y}))"
            )
