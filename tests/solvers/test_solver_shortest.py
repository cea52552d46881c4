"""The shortest-path baselines: straight to the food, and never a crash."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.solvers.grid import Grid, astar_path, grid_of, shortest_path
from termsnake.solvers.shortest import AStarSolver, BfsSolver

SOLVERS = [BfsSolver, AStarSolver]
Search = Callable[[Grid, int, int, Sequence[int]], "list[int] | None"]


@pytest.mark.parametrize("solver_type", SOLVERS)
@pytest.mark.parametrize("wrap", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_first_food_by_a_shortest_path(solver_type: type[BfsSolver], wrap: bool, seed: int) -> None:
    board = Board.open(9, 7, wrap=wrap)
    game = Game(Level(board, (Point(1, 1),), Direction.RIGHT), seed)
    food = game.food
    assert food is not None
    expected = board.distance_map(Point(1, 1))[food]
    solver = solver_type()
    solver.setup(game)
    while game.food == food and not game.over:
        game.step(solver.next_direction(game))
    assert game.eaten == 1
    assert game.steps == expected


@pytest.mark.parametrize("search", [shortest_path, astar_path])
def test_paths_go_through_cells_once_the_body_has_left(search: Search) -> None:
    grid = grid_of(Board.open(5, 1))
    free_at = [0, 0, 2, 0, 0]  # cell 2 is under the body for two more steps
    assert search(grid, 0, 4, free_at) == [1, 2, 3, 4]  # reached at step 2: just in time
    free_at[2] = 3
    assert search(grid, 0, 4, free_at) is None  # a snake cannot wait in place


@pytest.mark.parametrize("solver_type", SOLVERS)
def test_no_safe_move_returns_a_direction(solver_type: type[BfsSolver]) -> None:
    board = Board.from_rows(["#.#.", "#.##"])
    game = Game(Level(board, (Point(1, 0), Point(1, 1)), Direction.UP, food=Point(3, 0)), 1)
    solver = solver_type()
    solver.setup(game)
    assert isinstance(solver.next_direction(game), Direction)
    assert solver.overlay(game) == {}
