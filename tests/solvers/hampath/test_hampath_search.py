"""The one Hamiltonian search: how it counts its limit, and what its failures mean."""

from __future__ import annotations

import pytest

from termsnake.core.board import Board
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import Limit, check_cycle, close_body, completion, find_cycle
from termsnake.solvers.hampath.search import search

IRREGULAR = ["......", "..#...", "..#...", "......", "......"]


def fewest_nodes(board: Board, body: list[int]) -> int:
    """The smallest limit with which the search finds a closure of ``body``."""
    grid = grid_of(board)
    n = 0
    while not isinstance(search(grid, body, Limit(n)), list):
        n += 1
        assert n < 100_000
    return n


def test_a_limit_of_n_nodes_allows_n_and_gives_up_on_the_next() -> None:
    board = Board.from_rows(IRREGULAR, name="counting")
    grid = grid_of(board)
    body = [grid.cells - 1]
    n = fewest_nodes(board, body)
    assert n > 10  # the search does real work on this board, so the boundary means something
    assert search(grid, body, Limit(n - 1)) == "limit"
    found = search(grid, body, Limit(n))
    assert isinstance(found, list)
    assert search(grid, body, Limit(10 * n)) == found  # more nodes: the same first answer


def test_exhausted_is_a_proof_and_limit_is_not() -> None:
    # A 4x3 board whose snake walls off the corner cell: no closure exists.
    grid = grid_of(Board.open(4, 3))
    body = [8, 4, 5, 1, 2, 6]
    assert search(grid, body, Limit(1_000_000)) == "exhausted"
    assert close_body(grid, body, Limit(1_000_000)) is None
    assert completion(grid, body, Limit(1_000_000)) is None


def test_a_body_of_one_cell_closes_into_a_cycle_of_the_board() -> None:
    # find_cycle's search is the closure of a one-cell body: the same cycle, cell for cell.
    board = Board.from_rows(IRREGULAR, name="one cell")
    grid = grid_of(board)
    result = find_cycle(board)
    assert result.cycle is not None
    start = grid.index(result.cycle[0])
    closed = close_body(grid, [start], Limit(1_000_000))
    assert closed is not None
    assert tuple(grid.points[c] for c in closed) == result.cycle
    assert check_cycle(board, result.cycle) == []


def test_completion_is_the_closure_after_the_body() -> None:
    grid = grid_of(Board.open(4, 4))
    body = [0, 1, 2, 3]
    cycle = close_body(grid, body, Limit(10_000))
    rest = completion(grid, body, Limit(10_000))
    assert cycle is not None and rest is not None
    assert cycle == [*reversed(body), *rest]
    assert len(set(cycle)) == grid.cells


def test_the_cheap_checks_give_the_searchs_answer_without_nodes() -> None:
    # A tail boxed in by the body has no empty cell to end beside: no node spent.
    grid = grid_of(Board.open(4, 4))
    assert search(grid, [4, 5, 1, 0], Limit(0)) == "exhausted"
    # Five light cells and three dark: a closure alternates colours, so it cannot cover them.
    grid = grid_of(Board.from_rows(["...", "...", ".#."]))
    assert search(grid, [0], Limit(0)) == "exhausted"
    assert search(grid, [0], Limit(1_000_000)) == "exhausted"


def test_a_negative_limit_is_refused() -> None:
    with pytest.raises(ValueError, match="nodes >= 0"):
        Limit(-5)
