"""Cycles through all free cells but one or two holes, for boards a cell or two short of a cycle."""

from __future__ import annotations

import pytest
from example_levels import EXAMPLES

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.formats.levelfile import load_level_file
from termsnake.solvers.grid import Grid, grid_of
from termsnake.solvers.hampath import Limit, check_cycle
from termsnake.solvers.hampath.holes import (
    apart,
    find_hole_cycle,
    hole_candidates,
    spare,
    successors,
    switch_at,
)


def _check_hole_cycle(board: Board, cycle: list[int], holes: tuple[int, ...]) -> None:
    grid = grid_of(board)
    walled = Board.from_rows(
        [
            "".join(
                "#" if not board.is_free(p) or grid.index(p) in holes else "."
                for p in grid.points[y * board.width : (y + 1) * board.width]
            )
            for y in range(board.height)
        ]
    )
    assert check_cycle(walled, [grid.points[c] for c in cycle]) == []
    for hole in holes:
        assert switch_at(grid, successors(grid, cycle), hole) is not None


@pytest.mark.parametrize(("width", "height"), [(3, 3), (5, 5), (7, 7), (3, 9), (9, 5)])
def test_open_odd_boards_get_a_switchable_cycle_round_a_corner(width: int, height: int) -> None:
    board = Board.open(width, height)
    grid = grid_of(board)
    assert spare_colour(grid) == 0  # the corners' colour
    found = find_hole_cycle(board, set(), Limit(10_000))
    assert found is not None
    cycle, holes = found
    assert holes == (0,)
    _check_hole_cycle(board, cycle, holes)


def spare_colour(grid: Grid) -> int | None:
    """The colour with one free cell more than the other, else None."""
    found = spare(grid)
    return found[0] if found is not None and found[1] == 1 else None


def test_a_taken_corner_moves_the_hole_elsewhere() -> None:
    board = Board.open(5, 5)
    found = find_hole_cycle(board, {0}, Limit(100_000))
    assert found is not None
    cycle, holes = found
    (hole,) = holes
    assert hole != 0 and len(grid_of(board).adj[hole]) == 2  # another corner
    _check_hole_cycle(board, cycle, holes)


def test_a_walled_board_one_cell_short_gets_one_by_search() -> None:
    board = Board.from_rows([".......", ".##....", ".......", "....#..", ".......", "......."])
    grid = grid_of(board)
    assert spare_colour(grid) == 0
    found = find_hole_cycle(board, set(), Limit(100_000))
    assert found is not None
    _check_hole_cycle(board, *found)


# A walled board one cell short of a cycle (187 free cells) on which the plain search gives up
# within 100,000 nodes for each of its first holes; the 2-factor way finds a cycle at once.
ODD_WALLS = EXAMPLES / "odd-walls.txt"


def test_a_walled_board_the_plain_search_gives_up_on_gets_one_from_two_factors() -> None:
    board = load_level_file(ODD_WALLS).board
    found = find_hole_cycle(board, {0}, Limit(100_000))
    assert found is not None
    cycle, holes = found
    assert len(holes) == 1 and 0 not in holes  # taken
    _check_hole_cycle(board, cycle, holes)


@pytest.mark.parametrize(
    "rows",
    [
        ["....", "....", "....", "...."],  # balanced: a real cycle
        [".....", ".....", "..#..", ".....", "....."],  # balanced: the spare cell walled
    ],
)
def test_balanced_boards_have_no_spare_colour(rows: list[str]) -> None:
    board = Board.from_rows(rows)
    assert spare(grid_of(board)) is None
    assert find_hole_cycle(board, set(), Limit(10_000)) is None


def test_an_odd_wrapping_board_has_no_colours() -> None:
    assert spare_colour(grid_of(Board.open(5, 5, wrap=True))) is None


def test_candidates_are_corners_first_then_far_away() -> None:
    grid = grid_of(Board.open(5, 5))
    cells = hole_candidates(grid, 0, {0}, far_from=0)
    assert cells[:3] == [24, 4, 20]  # the other corners, the furthest first, then by index
    assert all((c % 5 + c // 5) % 2 == 0 for c in cells)
    assert 0 not in cells


@pytest.mark.parametrize(
    "rows",
    [
        ["......", ".#....", "......", "......", "....#.", "......"],  # two light cells walled
        ["#.......", "........", "........", "........", "........", ".......#"],
        ["........", "..#.....", "........", "....#...", "........", "........"],
        [".....", "..#..", ".....", ".....", "....."],  # 5x5: the corners are the holes
    ],
)
def test_a_board_two_cells_short_gets_a_cycle_round_two_switchable_holes_far_apart(
    rows: list[str],
) -> None:
    board = Board.from_rows(rows)
    grid = grid_of(board)
    colour, more = spare(grid) or (-1, 0)
    assert more == 2 and spare_colour(grid) is None
    found = find_hole_cycle(board, set(), Limit(100_000))
    assert found is not None
    cycle, holes = found
    assert len(holes) == 2 and len(cycle) == board.free_count - 2
    assert all((h % grid.width + h // grid.width) % 2 == colour for h in holes)
    a, b = (grid.points[h] for h in holes)
    assert max(abs(a.x - b.x), abs(a.y - b.y)) > 2  # no cell of one's switch is the other's
    _check_hole_cycle(board, cycle, holes)


def test_three_cells_short_has_no_spare() -> None:
    board = Board.from_rows(["......", ".#....", "......", "...#..", "....#.", "......"])
    assert spare(grid_of(board)) is None
    assert find_hole_cycle(board, set(), Limit(10_000)) is None


def test_a_walled_board_two_short_gets_switchable_holes_from_pairs_past_the_first() -> None:
    # From scripts/cut_coverage.py (seed 1), the start (0, 0) and the first food (4, 2) taken:
    # the first pairs of hole candidates give no cycle or one that leaves a hole no switch
    # reaches; a pair of later candidates, with the 2-factor way, gives one.
    rows = [
        "..........",
        "..........",
        "..........",
        ".##.###...",
        ".##.......",
        "..........",
        "..........",
        "..........",
        ".###......",
        ".###......",
        "..........",
        "..........",
        "##.......#",
    ]
    board = Board.from_rows(rows)
    found = find_hole_cycle(board, {0, 24}, Limit(100_000))
    assert found is not None
    cycle, holes = found
    assert len(holes) == 2 and not {0, 24} & set(holes)
    _check_hole_cycle(board, cycle, holes)


# From a fuzz run of ``best``: boards whose only switchable hole cycles the 2-factor way finds
# at 11,000-13,500 nodes, more than an even share of the limit gives each hole (or pair); the
# holes that cannot work are proved so at once, and the ones whose search ran out get more.
DEEP_ONE_SHORT = [
    ".........",
    "......#..",
    "#........",
    "........#",
    "..###....",
    "..###....",
    "..###....",
    "..###....",
    ".........",
    ".........",
    ".....##..",
    ".....##..",
]
DEEP_TWO_SHORT = [
    "...........",
    "...........",
    "...........",
    "...........",
    "...........",
    "...........",
    "...####....",
    "......#.#..",
    "..#...#..#.",
    "...#..#....",
    "...........",
    "...........",
    "...........",
]


# From scripts/cut_coverage.py (seed 1): the only switchable hole is the 22nd candidate; the
# other candidates but four have no cycle round them, which the 2-factor test says at once.
LATE_HOLE = [
    ".............",
    ".............",
    ".............",
    ".............",
    ".............",
    ".........###.",
    ".........###.",
    ".###.........",
    ".###.........",
    "..........#..",
]


@pytest.mark.parametrize(
    ("rows", "short"), [(DEEP_ONE_SHORT, 1), (DEEP_TWO_SHORT, 2), (LATE_HOLE, 1)]
)
def test_a_hole_cycle_past_the_first_holes_or_an_even_share_of_the_limit_is_found(
    rows: list[str], short: int
) -> None:
    board = Board.from_rows(rows)
    found = find_hole_cycle(board, set(), Limit(100_000))
    assert found is not None
    cycle, holes = found
    assert len(holes) == short
    _check_hole_cycle(board, cycle, holes)


def test_holes_apart_count_the_way_round_the_edge_of_a_board_that_wraps() -> None:
    flat, torus = grid_of(Board.open(8, 6)), grid_of(Board.open(8, 6, wrap=True))
    left, right = flat.index(Point(0, 2)), flat.index(Point(7, 2))
    assert apart(flat, left, right) and not apart(torus, left, right)
    assert apart(torus, left, torus.index(Point(4, 2)))
