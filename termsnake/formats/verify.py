"""Checking a replay: its moves, replayed under the rules, must give its foods and its result,
and its foods must be the ones its seed gives; PlaybackGame plays it back."""

from __future__ import annotations

from dataclasses import replace

from termsnake.core.game import Game, Outcome, StepResult
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.formats.replay import Replay, ReplayError


class PlaybackGame(Game):
    """A game fed by a replay's foods that ends as ``quit`` once its recorded moves run out
    (a game the person quit, or one cut short, has no fatal last move to end it)."""

    __slots__ = ("stop_after",)

    def __init__(self, replay: Replay) -> None:
        """Start the recorded game: its board, start, seed and food list."""
        try:
            super().__init__(replay.level(), replay.seed, food_plan=[p for _, p in replay.foods])
        except ValueError as e:
            raise ReplayError(f"the first food: {e}") from None
        self.stop_after = len(replay.moves)
        if replay.result.outcome is Outcome.QUIT and self.steps >= self.stop_after:
            self.quit()

    def step(self, direction: Direction) -> StepResult:
        """One move, then ``quit`` if it was the last recorded move and the game goes on."""
        result = super().step(direction)
        if self.outcome is None and self.steps >= self.stop_after:
            self.quit()
            return StepResult(result.direction, result.ate, self.outcome)
        return result


def verify(replay: Replay) -> Game:
    """Replay the moves under the rules; ReplayError naming the first thing that differs from
    the file's foods (when they appear, and where ``seed`` puts them) or result. Returns the
    finished game."""
    level = replay.level()
    try:
        game = Game(level, replay.seed, food_plan=[p for _, p in replay.foods])
    except ValueError as e:
        raise ReplayError(f"at the start: {e}") from None
    expected = replay.foods
    seeded = _SeedCheck(replay, level)
    _check_foods(game, expected)
    seeded.check(game)
    for i, direction in enumerate(replay.moves, start=1):
        if game.over:
            assert game.outcome is not None
            raise ReplayError(
                f"the game ended ({game.outcome.value}) after move {game.steps}, "
                f"but the file has {len(replay.moves)} moves"
            )
        try:
            game.step(direction)
        except ValueError as e:
            raise ReplayError(f"after move {i}: {e}") from None
        _check_foods(game, expected)
        seeded.step(direction)
        seeded.check(game)
    if len(game.foods) < len(expected):
        step, p = expected[len(game.foods)]
        raise ReplayError(
            f"food {len(game.foods)} at ({p.x}, {p.y}) after move {step} never appeared: "
            f"the food before it was not eaten"
        )
    if game.outcome is None and replay.result.outcome is Outcome.QUIT:
        game.quit()
    res = replay.result
    outcome = game.outcome.value if game.outcome else "still running"
    if outcome != res.outcome.value:
        raise ReplayError(f"the moves end the game {outcome}, the file says {res.outcome.value}")
    if game.length != res.length:
        raise ReplayError(f"the moves end at length {game.length}, the file says {res.length}")
    if game.steps != res.steps:
        raise ReplayError(f"the game took {game.steps} steps, the file says {res.steps}")
    return game


def _check_foods(game: Game, expected: tuple[tuple[int, Point], ...]) -> None:
    # Only the newest food can be new: the game places at most one food a step.
    if not game.foods:
        return
    i = len(game.foods) - 1
    step, p = game.foods[i]
    want_step, want_p = expected[i]
    if step != want_step or p != want_p:
        raise ReplayError(
            f"food {i} at ({p.x}, {p.y}) appeared after move {step}, "
            f"the file says after move {want_step}"
        )


class _SeedCheck:
    """Ties the file's foods to its seed: games drawing their foods from the seeded generator,
    played in step with the file's game, must put every food where the file does.

    A level's first food (``%``) is not drawn, and the file does not say whether there was
    one; so two games are played: one drawing every food, one with the file's first food
    fixed and the rest drawn. The file passes if either reproduces all of its foods.
    """

    def __init__(self, replay: Replay, level: Level) -> None:
        """Start both seeded games from the file's start."""
        self.seed = replay.seed
        self.games = [Game(level, replay.seed)]
        if replay.foods:
            try:
                fixed = replace(level, food=replay.foods[0][1])
            except ValueError:
                pass  # the first food is not on a free cell: the plain replay says so
            else:
                self.games.append(Game(fixed, replay.seed))
        # Per game, the first food it disagrees on: (index, the file's food, the seed's food).
        self.mismatch: list[tuple[int, Point, Point | None] | None] = [None] * len(self.games)
        self.checked = 0

    def step(self, direction: Direction) -> None:
        """Play the move in every seeded game that still agrees with the file."""
        for game, mismatch in zip(self.games, self.mismatch, strict=True):
            if mismatch is None and not game.over:
                game.step(direction)

    def check(self, game: Game) -> None:
        """Compare the file game's newest food; ReplayError once no seeded game agrees."""
        i = len(game.foods) - 1
        if i < self.checked:
            return
        self.checked = i + 1
        want = game.foods[i][1]
        for k, seeded in enumerate(self.games):
            if self.mismatch[k] is None:
                got = seeded.foods[i][1] if len(seeded.foods) > i else None
                if got != want:
                    self.mismatch[k] = (i, want, got)
        if all(m is not None for m in self.mismatch):
            # Report the game that agreed the longest: the likelier reading of the file.
            index, want, got = max((m for m in self.mismatch if m is not None), key=lambda m: m[0])
            gives = f"({got.x}, {got.y})" if got is not None else "no food"
            raise ReplayError(
                f"food {index} at ({want.x}, {want.y}) is not what seed {self.seed} gives ({gives})"
            )
