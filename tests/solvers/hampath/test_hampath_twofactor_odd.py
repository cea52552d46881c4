"""Boards that wrap with an odd side: cycles found where the search gave up, and certain
refusals, from a 2-factor that needs no checkerboard colouring and an exact test for one."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.grid import checkerboard, grid_of
from termsnake.solvers.hampath import Limit, check_cycle, find_cycle
from termsnake.solvers.hampath.blossom import complete
from termsnake.solvers.hampath.cycles import NO_TWO_FACTOR
from termsnake.solvers.hampath.twofactor import find_two_factor_cycle
from termsnake.solvers.hampath.twofactor_odd import odd_two_factor

# Boards of helper-40's fuzz run where find_cycle gave up ("unknown"); whether each has a cycle
# was settled by two exact solvers (OR-Tools' circuit constraint, and SAT with subtour cuts).
SCATTERED = [  # 13x10, four single walls: a cycle
    ".............", ".............", ".............", ".............", "....#...#....",
    ".............", ".............", ".............", "....#...#....", ".............",
]  # fmt: skip
CORRIDOR = [".............", "....#v#......", "....#.#......", "............."]  # a cycle
NO_FACTOR = [  # 11x10: no 2-factor, so no cycle
    "..........#", "..........#", "..........#", "......#...#", "......#....",
    ".#.####..##", ".#.#.....#.", ".#.#.....#.", ".........#.", ".........#.",
]  # fmt: skip
FRAMED = [  # 11x7, wrapping, but the frame leaves no move across the edge: 39 cells, odd
    "###########", "#.......###", "#...<.....#", "#.........#", "#.......###",
    "#.......###", "###########",
]  # fmt: skip


def board(rows: list[str]) -> Board:
    return Board.from_rows([r.replace("v", ".").replace("<", ".") for r in rows], wrap=True)


@pytest.mark.parametrize("rows", [SCATTERED, CORRIDOR], ids=["scattered", "corridor"])
def test_a_cycle_the_search_gave_up_on_is_found(rows: list[str]) -> None:
    result = find_cycle(board(rows))
    assert result.status == "found" and result.cycle is not None
    assert check_cycle(board(rows), result.cycle) == []


def test_cells_that_cannot_all_have_two_neighbours_have_no_cycle() -> None:
    result = find_cycle(board(NO_FACTOR), Limit(0))
    assert result.status == "none" and result.reason == NO_TWO_FACTOR


def test_a_framed_board_that_wraps_is_coloured_like_a_checkerboard() -> None:
    framed = board(FRAMED)
    assert checkerboard(grid_of(framed)) and not checkerboard(grid_of(board(SCATTERED)))
    result = find_cycle(framed, Limit(0))
    assert result.status == "none" and "odd number of free cells (39)" in result.reason


def exact_two_factor(b: Board) -> bool:
    """Whether two neighbours can be chosen for every free cell at once, by trying all ways
    (small boards only): each edge in or out, in order, no cell over two, every cell at two."""
    grid = grid_of(b)
    cells = [grid.index(p) for p in b.free_cells]
    edges = sorted({(min(c, v), max(c, v)) for c in cells for v in grid.adj[c]})
    deg = dict.fromkeys(cells, 0)
    left = {c: len(grid.adj[c]) for c in cells}  # edges of c not yet decided

    def place(i: int) -> bool:
        if i == len(edges):
            return all(d == 2 for d in deg.values())
        a, b_ = edges[i]
        left[a] -= 1
        left[b_] -= 1
        found = False
        if deg[a] < 2 and deg[b_] < 2:
            deg[a] += 1
            deg[b_] += 1
            found = place(i + 1)
            deg[a] -= 1
            deg[b_] -= 1
        if not found and deg[a] + left[a] >= 2 and deg[b_] + left[b_] >= 2:
            found = place(i + 1)
        left[a] += 1
        left[b_] += 1
        return found

    return place(0)


def random_odd_board(rng: random.Random) -> Board:
    width, height = rng.choice([(3, 4), (5, 3), (5, 4), (3, 5), (5, 5)])
    walls = {Point(rng.randrange(width), rng.randrange(height)) for _ in range(rng.randrange(8))}
    return Board(width, height, frozenset(walls), wrap=True)


def test_the_2_factor_test_is_exact_on_small_boards() -> None:
    rng = random.Random(7)
    seen = {True: 0, False: 0}
    for _ in range(400):
        b = random_odd_board(rng)
        grid = grid_of(b)
        cells = [grid.index(p) for p in b.free_cells]
        if len(cells) < 3 or any(len(grid.adj[c]) < 2 for c in cells):
            continue
        exists = exact_two_factor(b)
        seen[exists] += 1
        assert (odd_two_factor(grid, cells) is not None) == exists, b.rows()
        # The exact part alone, from nothing: the heuristic must not be what decides.
        empty = [-1] * (2 * grid.cells)
        assert complete(grid, cells, empty) == exists, b.rows()
        if exists:
            assert all(empty[2 * c] >= 0 and empty[2 * c + 1] >= 0 for c in cells)
    assert seen[True] > 20 and seen[False] > 20  # both answers were put to the test


def test_same_cycle_in_another_process() -> None:
    # Another hash seed, another interpreter: the cycle must not depend on either.
    b = board(SCATTERED)
    code = (
        "from termsnake.core.board import Board\n"
        "from termsnake.solvers.hampath.twofactor import find_two_factor_cycle\n"
        f"print(find_two_factor_cycle(Board.from_rows({b.rows()!r}, wrap=True)))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    here = find_two_factor_cycle(b)
    assert here is not None and out.stdout.strip() == str(here)
