"""The opening: a short snake goes straight to the food off the blocks' ways, always keeping an
escape onto a cycle of the blocks, and hands the game back to the tree with its body on one."""

from __future__ import annotations

import dataclasses

import pytest
from celltree_checks import assert_body_on_cycle, assert_opening_escapes, play_checked
from example_levels import EXAMPLES

from termsnake.bench.games import food_bound
from termsnake.core.game import Game, Outcome
from termsnake.core.level import Level, open_level, with_length
from termsnake.formats.levelfile import load_level_file
from termsnake.formats.presets import load_preset
from termsnake.solvers.celltree import TreeConfig, TreeSolver


def _opening(game: Game, solver: TreeSolver, every: int = 1) -> int:
    """Play the opening out, its plan checked at every ``every``-th move; the moves it took."""
    solver.setup(game)
    assert solver.opening is not None
    while solver.opening is not None and not game.over:
        direction = solver.next_direction(game)
        if solver.opening is not None and game.steps % every == 0:
            assert_opening_escapes(game, solver, direction)
        game.step(direction)
    return game.steps


# The README's hand-drawn boards with dead ends (the comb: 6 of its 47 blocks).


def _opened(config: TreeConfig | None = None) -> TreeConfig:
    """A config that opens on every board (the tests' boards are small)."""
    return dataclasses.replace(config or TreeConfig(), opening_dead_ends=0, opening_blocks=0)


@pytest.mark.parametrize("seed", [0, *(pytest.param(s, marks=pytest.mark.slow) for s in (1, 2))])
def test_the_opening_keeps_an_escape_at_every_move_and_hands_over_on_a_cycle(seed: int) -> None:
    game = Game(open_level(12, 12, length=1), seed=seed)
    solver = TreeSolver(_opened())
    _opening(game, solver)
    assert game.length > 144 * solver.config.opening_percent // 100 or game.since_food > 144
    for _ in range(200):  # the tree has taken over: its invariant holds again
        assert_body_on_cycle(game, solver)
        game.step(solver.next_direction(game))
    assert not game.over


@pytest.mark.slow
@pytest.mark.parametrize(("seed", "every"), [(0, 9), (1, 1)])
def test_the_opening_is_played_on_boards_cut_into_blocks_of_other_shapes(
    seed: int, every: int
) -> None:
    game = Game(with_length(load_preset("maze"), 1), seed=seed)
    solver = TreeSolver()
    _opening(game, solver, every)  # the maze opens with the default config
    assert solver.tiled and not game.over
    assert_body_on_cycle(game, solver)


def test_the_opening_goes_straighter_to_the_food_than_the_tree() -> None:
    # The comb's first foods: moves against the walls-only bound, with and without it. (The
    # maze shows the same, at ten times the time of cutting it.)
    ratios = []
    for config in (TreeConfig(), dataclasses.replace(TreeConfig(), opening_percent=0)):
        steps = bound = 0
        for seed in (1, 2):
            game = Game(load_level_file(EXAMPLES / "comb.txt"), seed=seed)
            solver = TreeSolver(config)
            solver.setup(game)
            while game.length <= 20:
                game.step(solver.next_direction(game))
            steps += game.steps
            bound += food_bound(game)
        ratios.append(steps / bound)
    opened, tree = ratios
    assert opened < 1.4 and tree > 2 * opened


@pytest.mark.parametrize(
    ("level", "opens"),
    [
        (open_level(20, 20, length=1), False),
        (with_length(load_preset("rooms"), 1), False),
        # The maze is cut with notched blocks, which takes seconds: the comb and halls suffice.
        pytest.param(with_length(load_preset("maze"), 1), True, marks=pytest.mark.slow),
        (load_level_file(EXAMPLES / "comb.txt"), True),
        (load_level_file(EXAMPLES / "halls.txt"), True),
    ],
    ids=["open", "rooms", "maze", "comb", "halls"],
)
def test_only_boards_with_dead_ends_open(level: Level, opens: bool) -> None:
    solver = TreeSolver()
    solver.setup(Game(level, seed=1))
    assert (solver.opening is not None) == opens


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(6))
def test_games_with_an_opening_hold_the_cycle_and_are_won(seed: int) -> None:
    game = play_checked(open_level(14, 14, length=1), seed, config=_opened())
    assert game.outcome is Outcome.WON


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_the_comb_is_won_with_an_opening(seed: int) -> None:
    game = play_checked(load_level_file(EXAMPLES / "comb.txt"), seed)
    assert game.outcome is Outcome.WON


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(2))
def test_the_maze_is_won_with_an_opening(seed: int) -> None:
    game = play_checked(with_length(load_preset("maze"), 1), seed, check_every=5)
    assert game.outcome is Outcome.WON


def test_an_escape_never_turns_back_into_the_neck() -> None:
    # A snake of two whose cycle runs straight back into the cell just left: that walk is no
    # escape even with nothing held back (found in review: it was taken for one).
    game = Game(open_level(8, 8, length=1), seed=7)
    solver = TreeSolver(_opened(TreeConfig(opening_margin=0)))
    solver.setup(game)
    opening = solver.opening
    assert opening is not None
    grid = solver.policy.mirror.grid if solver.policy else None
    assert grid is not None
    for head in grid.open_cells:
        back = opening.cycle[head]
        body = [head, back]  # the cycle's next cell is the neck
        left = [0] * len(grid.points)
        left[head], left[back] = 2, 2
        assert not opening._holds(left, [], body, 0, -1)


@pytest.mark.parametrize("seed", [7, 11, 20, 28])
def test_without_a_margin_the_plan_still_holds(seed: int) -> None:
    game = Game(open_level(8, 8, length=1), seed=seed)
    solver = TreeSolver(_opened(TreeConfig(opening_margin=0)))
    _opening(game, solver)
