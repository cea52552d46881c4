"""verify replays the rules on flat arrays: it must agree with core.game.Game, error for error."""

from __future__ import annotations

import contextlib
import dataclasses
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Direction, Point
from termsnake.core.level import Level, open_level, straight_body
from termsnake.formats.replay import Replay, ReplayError, Result, replay_from_game
from termsnake.formats.verify import CheckedGame, PlaybackGame, verify


def oracle(replay: Replay) -> Game:
    """The check as it was written on Game itself: slow, plain, and the meaning of verify."""
    level = replay.level()
    try:
        game = Game(level, replay.seed, food_plan=[p for _, p in replay.foods])
    except ValueError as e:
        raise ReplayError(f"at the start: {e}") from None
    readings = [Game(level, replay.seed)]
    if replay.foods:
        with contextlib.suppress(ValueError):
            readings.append(Game(dataclasses.replace(level, food=replay.foods[0][1]), replay.seed))
    wrong: list[tuple[int, Point, Point | None] | None] = [None] * len(readings)
    checked = 0

    def check_foods() -> None:
        nonlocal checked
        if not game.foods:
            return
        i = len(game.foods) - 1
        (step, p), (want_step, _) = game.foods[i], replay.foods[i]
        if step != want_step:
            raise ReplayError(
                f"food {i} at ({p.x}, {p.y}) appeared after move {step}, "
                f"the file says after move {want_step}"
            )
        if i < checked:
            return
        checked = i + 1
        for k, seeded in enumerate(readings):
            got = seeded.foods[i][1] if len(seeded.foods) > i else None
            if wrong[k] is None and got != p:
                wrong[k] = (i, p, got)
        if all(w is not None for w in wrong):
            index, want, got = max((w for w in wrong if w is not None), key=lambda w: w[0])
            assert got is not None
            raise ReplayError(
                f"food {index} at ({want.x}, {want.y}) is not what seed {replay.seed} gives "
                f"(({got.x}, {got.y}))"
            )

    check_foods()
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
        for seeded, w in zip(readings, wrong, strict=True):
            if w is None and not seeded.over:
                seeded.step(direction)
        check_foods()
    if len(game.foods) < len(replay.foods):
        step, p = replay.foods[len(game.foods)]
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


@st.composite
def levels(draw: st.DrawFn) -> Level:
    """Small boards, walls and wrap included, a snake of 1 to 3 cells, maybe a first food."""
    width, height = draw(st.integers(1, 6)), draw(st.integers(2, 6))
    walls = draw(st.sets(st.tuples(st.integers(0, width - 1), st.integers(0, height - 1))))
    board = Board(width, height, frozenset(Point(x, y) for x, y in walls), draw(st.booleans()))
    free = board.free_cells
    if len(free) < 2:
        return open_level(2, height, 1)
    head = draw(st.sampled_from(free))
    direction = draw(st.sampled_from(DIRECTIONS))
    try:
        body = straight_body(board, head, direction, draw(st.integers(1, 3)))
    except ValueError:
        body = (head,)
    food = draw(st.none() | st.sampled_from(free))
    if food in body or len(body) >= len(free):
        food = None
    return Level(board, body, direction, food, "fuzz")


@st.composite
def replays(draw: st.DrawFn) -> Replay:
    """A game played mostly by safe moves, then maybe one thing in its file changed."""
    game = Game(draw(levels()), draw(st.integers(0, 50)))
    for pick in draw(st.lists(st.integers(0, 11), max_size=80)):
        if game.over:
            break
        safe = [d for d in DIRECTIONS if game.is_safe(d)]
        game.step(safe[pick % len(safe)] if safe and pick < 10 else DIRECTIONS[pick % 4])
    replay = replay_from_game(game, None)
    change = draw(st.sampled_from(["none", "move", "food", "step", "seed", "result", "more"]))
    if change == "move" and replay.moves:
        i = draw(st.integers(0, len(replay.moves) - 1))
        moves = list(replay.moves)
        moves[i] = draw(st.sampled_from(DIRECTIONS))
        replay = dataclasses.replace(replay, moves=tuple(moves))
    elif change in ("food", "step") and replay.foods:
        i = draw(st.integers(0, len(replay.foods) - 1))
        foods = list(replay.foods)
        step, p = foods[i]
        if change == "food":
            foods[i] = (step, Point(draw(st.integers(-1, 6)), draw(st.integers(-1, 6))))
        else:
            foods[i] = (step + draw(st.sampled_from([-1, 1])), p)
        replay = dataclasses.replace(replay, foods=tuple(foods))
    elif change == "seed":
        replay = dataclasses.replace(replay, seed=replay.seed + 1)
    elif change == "result":
        outcome = draw(st.sampled_from(list(Outcome)))
        length = replay.result.length + draw(st.integers(-1, 1))
        replay = dataclasses.replace(
            replay, result=Result(outcome, max(1, length), replay.result.steps)
        )
    elif change == "more":
        replay = dataclasses.replace(replay, moves=(*replay.moves, Direction.UP))
    return replay


def outcome_of(check: object, replay: Replay) -> tuple[object, ...]:
    try:
        game = check(replay)  # type: ignore[operator]
    except ReplayError as e:
        return ("error", str(e))
    return ("ok", game.outcome, game.cause, game.length, game.steps, list(game.foods), game.moves)


@settings(max_examples=100, deadline=None)
@given(replays())
def test_verify_agrees_with_the_game(replay: Replay) -> None:
    assert outcome_of(verify, replay) == outcome_of(oracle, replay)


def stalled_replay(width: int, height: int) -> Replay:
    """A snake of one cell circling a 2x2 square until the game stalls: STALL_FACTOR x free
    cells moves, with one food, far away, that the seed put there."""
    level = open_level(width, height, 1)
    game = Game(level, 3)
    assert game.food is not None and abs(game.food.x - level.body[0].x) > 2
    loop = (Direction.RIGHT, Direction.DOWN, Direction.LEFT, Direction.UP)
    steps = game.stall_limit
    replay = replay_from_game(game, "circle")
    return dataclasses.replace(
        replay,
        moves=loop * (steps // 4),
        result=Result(Outcome.STALLED, 1, steps),
    )


def test_a_stalled_circle_is_checked_to_its_end() -> None:
    replay = stalled_replay(20, 10)
    game = verify(replay)
    assert isinstance(game, CheckedGame)
    assert outcome_of(verify, replay) == outcome_of(oracle, replay)
    assert (game.outcome, game.steps, game.cause) == (
        Outcome.STALLED,
        800,
        "no food eaten in 800 steps",
    )


@pytest.mark.slow
def test_four_million_moves_on_a_million_cells_check_in_seconds(tmp_path: Path) -> None:
    replay = stalled_replay(1000, 1000)
    assert len(replay.moves) == 4_000_000
    started = time.process_time()
    verify(replay)
    assert time.process_time() - started < 20


def forfeited_game(moves: int) -> Game:
    """A game on 6x6 whose bot made ``moves`` moves round a square, then broke down."""
    game = Game(open_level(6, 6, 1), 1)
    for d in (Direction.UP, Direction.RIGHT, Direction.DOWN, Direction.LEFT)[:moves]:
        game.step(d)
    game.forfeit("engine bad answered 'X' at step 2\x1b[2J")
    return game


@pytest.mark.parametrize("moves", [0, 3])
def test_a_game_its_bot_lost_by_breaking_down_replays(moves: int) -> None:
    # No move ends such a game: the file says why it ended, and verify and playback end it so.
    game = forfeited_game(moves)
    replay = Replay.from_json(replay_from_game(game, "exec:bad").to_json())
    assert replay.result.forfeit == "engine bad answered 'X' at step 2\\x1b[2J"  # escaped
    checked = verify(replay)
    assert (checked.outcome, checked.steps, checked.cause) == (
        Outcome.DIED,
        moves,
        replay.result.forfeit,
    )
    playback = PlaybackGame(replay)
    for d in replay.moves:
        playback.step(d)
    assert (playback.outcome, playback.cause) == (Outcome.DIED, replay.result.forfeit)


def test_a_forfeit_is_only_the_cause_of_a_game_that_died() -> None:
    text = replay_from_game(forfeited_game(3), "exec:bad").to_json()
    # Without the forfeit, no move ends the game: it is refused as before.
    without = text.replace(', "forfeit": "engine bad answered \'X\' at step 2\\\\x1b[2J"', "")
    assert without != text
    with pytest.raises(ReplayError, match="still running, the file says died"):
        verify(Replay.from_json(without))
    for bad in ('"won"', '"quit"'):
        with pytest.raises(ReplayError, match="forfeit must be the cause of a game that died"):
            Replay.from_json(text.replace('"died"', bad))
    with pytest.raises(ReplayError, match="not a printable character"):
        Replay.from_json(text.replace("\\\\x1b", "\\u001b"))
    # A game a move ended is recorded as before, without a forfeit.
    dead = Game(open_level(6, 6, 3), 1)
    dead.step(Direction.LEFT)  # back into the neck
    assert dead.outcome is Outcome.DIED and not dead.forfeited
    assert replay_from_game(dead, "x").result.forfeit is None


def test_a_file_whose_food_falls_on_the_snake_says_the_cell_is_not_empty() -> None:
    game = Game(open_level(8, 8), 3)
    replay = replay_from_game(game, None)
    on_the_snake = ((0, game.body[1]),)
    for check in (verify, oracle):  # verify says what the game says
        with pytest.raises(ReplayError, match=r"at the start: .* after step 0 is not empty"):
            check(dataclasses.replace(replay, foods=on_the_snake))
