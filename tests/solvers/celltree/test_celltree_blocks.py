"""The board cut into 2x2 blocks: two moves per cell, shifted blocks for framed boards, boards no
2x2 grid fits cut into other blocks, and the boards no cut fits, which the tree refuses (``best``
plays them)."""

from __future__ import annotations

import pytest

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.solvers.base import SolverUnavailable, play
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import build_grid


def test_grid_has_two_moves_per_cell_and_a_tree_of_blocks() -> None:
    grid = build_grid(Board.open(6, 4), 0)
    assert not isinstance(grid, str)
    assert len(grid.blocks) == 6
    assert len(grid.ends) == 7  # 3x2 blocks: 2x2 horizontal + 3x1 vertical edges
    assert all(d >= 0 for d in grid.dflt)


def test_a_framed_board_is_cut_with_shifted_blocks() -> None:
    rows = ("#" * 10, *("#" + "." * 8 + "#" for _ in range(6)), "#" * 10)
    level = Level(Board.from_rows(rows), (Point(1, 1),), Direction.RIGHT)
    for seed in range(4):
        game = Game(level, seed=seed)
        solver = TreeSolver()
        solver.setup(game)
        assert solver.policy is not None
        assert play(game, solver) is Outcome.WON


NO_BLOCKS = {
    "odd 5x5": open_level(5, 5, length=1),
    "notched": Level(
        Board.from_rows([".#...", ".....", ".....", ".....", "....."]),
        (Point(0, 0),),
        Direction.RIGHT,
    ),
}


@pytest.mark.parametrize("name", NO_BLOCKS)
def test_boards_no_cut_fits_are_refused_with_the_reason(name: str) -> None:
    game = Game(NO_BLOCKS[name], seed=1)
    solver = TreeSolver()
    with pytest.raises(SolverUnavailable) as info:
        solver.setup(game)
    message = str(info.value)
    assert "blocks of floor two cells wide" in message and message.endswith("try --ai best")
    assert ("odd number" if "odd" in name else "half light, half dark") in message
    assert solver.policy is None and solver.overlay(game) == {}


def test_boards_no_2x2_grid_fits_are_cut_into_other_blocks_too() -> None:
    game = Game(Level(Board.open(5, 4), (Point(0, 0),), Direction.RIGHT), seed=1)
    solver = TreeSolver()
    solver.setup(game)
    assert solver.tiled
    assert play(game, solver) is Outcome.WON
    solver.setup(Game(open_level(6, 4, length=1), seed=1))
    assert not solver.tiled


def test_a_start_body_against_the_blocks_way_round_is_the_reason_given() -> None:
    # 4x4 is cut one way only; this body turns one block the one way round (up from (0, 1))
    # and another the other way (down from (2, 0)), so it fits neither turning.
    body = (Point(2, 1), Point(2, 0), Point(1, 0), Point(0, 0), Point(0, 1))
    level = Level(Board.open(4, 4), body, Direction.DOWN)
    with pytest.raises(SolverUnavailable, match="the body"):
        TreeSolver().setup(Game(level, seed=1))
