"""Whole games of the cell-tree solver: its cycle stays Hamiltonian and holds the snake; it wins;
it leaves the live game alone; a solver used again plays as a fresh one."""

from __future__ import annotations

from typing import Final

import pytest
from celltree_checks import RING, ROOMS, assert_body_on_cycle, level_of, play_checked

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.solvers.base import play
from termsnake.solvers.celltree import TreeConfig, TreeSolver

# Half of each sweep runs in the default step, the rest in the slow one.
SEEDS_12: Final = [*range(6), *(pytest.param(s, marks=pytest.mark.slow) for s in range(6, 12))]
SEEDS_8: Final = [*range(4), *(pytest.param(s, marks=pytest.mark.slow) for s in range(4, 8))]


@pytest.mark.parametrize("size", [4, 6])
@pytest.mark.parametrize("seed", SEEDS_12)
def test_small_open_boards_hold_the_cycle_every_move(size: int, seed: int) -> None:
    game = play_checked(open_level(size, size, length=1), seed)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", range(4))
def test_8x8_holds_the_cycle(seed: int) -> None:
    game = play_checked(open_level(8, 8, length=1), seed, check_every=7)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize(
    ("size", "games"),
    [
        (4, 150),
        pytest.param(6, 100, marks=pytest.mark.slow),
        pytest.param(8, 60, marks=pytest.mark.slow),
    ],
)
def test_open_boards_are_always_won(size: int, games: int) -> None:
    for seed in range(1000, 1000 + games):
        game = Game(open_level(size, size, length=1), seed=seed)
        assert play(game, TreeSolver()) is Outcome.WON, seed


@pytest.mark.parametrize(
    "length", [2, pytest.param(3, marks=pytest.mark.slow), pytest.param(4, marks=pytest.mark.slow)]
)
def test_longer_start_snakes_are_won(length: int) -> None:
    for seed in range(10):
        game = Game(open_level(8, 6, length=length), seed=seed)
        assert play(game, TreeSolver()) is Outcome.WON


@pytest.mark.parametrize("rows", [ROOMS, RING], ids=["rooms", "ring"])
@pytest.mark.parametrize("seed", SEEDS_8)
def test_boards_with_block_walls_are_won(rows: tuple[str, ...], seed: int) -> None:
    game = play_checked(level_of(rows), seed, check_every=3)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", SEEDS_8)
def test_wrapping_board_is_won(seed: int) -> None:
    game = play_checked(level_of(("." * 8,) * 6, wrap=True), seed, check_every=3)
    assert game.outcome is Outcome.WON


def test_look_ahead_leaves_the_live_game_alone() -> None:
    game = Game(open_level(8, 8, length=1), seed=3)
    solver = TreeSolver()
    solver.setup(game)
    while not game.over:
        before = (list(game.body), game.food, game.steps, game.rng.getstate(), len(game.moves))
        direction = solver.next_direction(game)
        after = (list(game.body), game.food, game.steps, game.rng.getstate(), len(game.moves))
        assert before == after
        game.step(direction)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", range(3))
def test_without_look_ahead_the_plain_policy_still_wins(seed: int) -> None:
    solver = TreeSolver(TreeConfig(lookahead=False))
    game = Game(open_level(8, 8, length=1), seed=seed)
    assert play(game, solver) is Outcome.WON


def test_a_stale_route_is_dropped_not_followed() -> None:
    # A kept route is checked step by step against the live body; one that no longer fits
    # (here: cells that are not even next to the head) must be dropped, never followed.
    game = Game(open_level(8, 8, length=1), seed=5)
    solver = TreeSolver()
    solver.setup(game)
    for _ in range(40):
        game.step(solver.next_direction(game))
    assert solver.policy is not None
    solver.policy.route.extend([63, 0, 7])
    while not game.over:
        assert_body_on_cycle(game, solver)
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON


def test_a_solver_used_again_plays_as_a_fresh_one() -> None:
    # Nothing cached for one game (such as the A* bounds, per food cell) may leak into the
    # next, on another board whose blocks are cut another way.
    boards = [open_level(8, 8, length=1), open_level(10, 8, length=1), level_of(ROOMS)]
    reused = TreeSolver()
    for level in boards:
        game_a, game_b = Game(level, seed=1), Game(level, seed=1)
        fresh = TreeSolver()
        cached = reused.policy.planner.maps.food if reused.policy is not None else -1
        reused.setup(game_a)
        fresh.setup(game_b)
        assert reused.policy is not None and fresh.policy is not None
        if cached >= 0:  # the last food cell of the game before
            assert reused.policy.planner.maps.bound(cached) == fresh.policy.planner.maps.bound(
                cached
            )
        while not game_a.over:
            move = reused.next_direction(game_a)
            assert move == fresh.next_direction(game_b)
            game_a.step(move)
            game_b.step(move)
        assert game_a.outcome is Outcome.WON


@pytest.mark.slow  # the A* planner test compares its paths with Dijkstra's by default
def test_without_a_star_the_games_are_the_same() -> None:
    # A* only finds the planner's paths sooner: switched off, a whole game is move for move the
    # same (the play-outs then bound their length by the distance, walls aside).
    def moves(seed: int, config: TreeConfig) -> list[Direction]:
        game = Game(open_level(8, 8, length=1), seed=seed)
        assert play(game, TreeSolver(config)) is Outcome.WON
        return game.moves

    with_a_star = [moves(seed, TreeConfig()) for seed in range(2)]
    assert [moves(seed, TreeConfig(astar=False)) for seed in range(2)] == with_a_star
