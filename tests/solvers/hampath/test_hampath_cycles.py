"""The cycle finder: constructions, the bounded search, reasons for no cycle, the checker."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.formats.levelfile import parse_level
from termsnake.solvers.hampath import NODES_PER_SECOND, Limit, check_cycle, find_cycle


def assert_cycle(board: Board, budget: float = 1.0) -> tuple[Point, ...]:
    result = find_cycle(board, Limit.of_budget(budget))
    assert result.status == "found", result.reason
    assert result.cycle is not None
    assert check_cycle(board, result.cycle) == []
    assert len(result.cycle) == board.free_count
    return result.cycle


@pytest.mark.parametrize("width", range(2, 10))
@pytest.mark.parametrize("height", range(2, 10))
def test_open_boards(width: int, height: int) -> None:
    board = Board.open(width, height)
    if width * height % 2:
        result = find_cycle(board)
        assert result.status == "none"
        assert result.cycle is None
        assert f"odd number of free cells ({width * height})" in result.reason
        assert "does not wrap" in result.reason
    else:
        assert_cycle(board)


@pytest.mark.parametrize(
    ("width", "height"), [(3, 3), (5, 5), (5, 7), (7, 5), (3, 9), (4, 4), (6, 3)]
)
def test_wrapping_boards_have_cycles_even_with_odd_sides(width: int, height: int) -> None:
    assert_cycle(Board.open(width, height, wrap=True))


def test_walled_room_with_odd_side() -> None:
    rows = ["#######", "#.....#", "#.....#", "#.....#", "#.....#", "#######"]
    assert_cycle(Board.from_rows(rows))


def block_board(rng: random.Random, blocks_w: int, blocks_h: int, ox: int, oy: int) -> Board:
    """A board whose free cells are a connected random set of 2x2 blocks at offset (ox, oy)."""
    start = (rng.randrange(blocks_w), rng.randrange(blocks_h))
    chosen = {start}
    frontier = [start]
    target = rng.randint(1, blocks_w * blocks_h)
    while frontier and len(chosen) < target:
        i, j = frontier.pop(rng.randrange(len(frontier)))
        for di, dj in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nb = (i + di, j + dj)
            if 0 <= nb[0] < blocks_w and 0 <= nb[1] < blocks_h and nb not in chosen:
                chosen.add(nb)
                frontier.append(nb)
    width, height = 2 * blocks_w + ox + 1, 2 * blocks_h + oy + 1
    free = {
        Point(ox + 2 * i + dx, oy + 2 * j + dy) for i, j in chosen for dx in (0, 1) for dy in (0, 1)
    }
    walls = frozenset(
        Point(x, y) for x in range(width) for y in range(height) if Point(x, y) not in free
    )
    return Board(width, height, walls, name="blocks")


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    blocks_w=st.integers(1, 8),
    blocks_h=st.integers(1, 8),
    ox=st.integers(0, 1),
    oy=st.integers(0, 1),
)
def test_block_aligned_boards_with_walls(
    seed: int, blocks_w: int, blocks_h: int, ox: int, oy: int
) -> None:
    board = block_board(random.Random(seed), blocks_w, blocks_h, ox, oy)
    assert_cycle(board)


def test_block_aligned_wrapping_board() -> None:
    # Blocks that only join across the wrapped edge.
    rows = ["..##..", "..##..", "######", "######"]
    board = Board.from_rows(rows, wrap=True)
    assert_cycle(board)
    assert find_cycle(Board.from_rows(rows)).status == "none"


def test_search_finds_cycles_on_irregular_boards() -> None:
    # Neither a rectangle nor whole 2x2 blocks: the backtracking search has to do it.
    rows = ["......", "..#...", "..#...", "......", "......"]
    board = Board.from_rows(rows)
    assert_cycle(board)


@pytest.mark.parametrize("seed", range(8))
def test_search_on_random_boards_agrees_with_the_checker(seed: int) -> None:
    rng = random.Random(seed)
    width, height = rng.randint(4, 7), rng.randint(4, 7)
    walls = set()
    for _ in range(2):
        x, y = rng.randrange(width - 1), rng.randrange(height)
        walls |= {Point(x, y), Point(x + 1, y)}  # one cell of each colour
    board = Board(width, height, frozenset(walls))
    result = find_cycle(board, Limit.of_budget(2.0))
    assert result.status in ("found", "none")
    if result.cycle is not None:
        assert check_cycle(board, result.cycle) == []
    else:
        assert result.reason


def test_exhaustive_search_proves_there_is_none() -> None:
    # Two 2x2 rooms joined by one edge: balanced colours, no dead end, yet a cycle would have
    # to cross that edge twice.
    board = Board.from_rows(["..##", "....", "##.."])
    result = find_cycle(board)
    assert result.status == "none"
    assert "exhaustive" in result.reason


def test_a_board_whose_cells_cannot_all_have_two_neighbours_has_none_without_a_search() -> None:
    # No dead end and balanced colours, but (3, 4) must join the corridor above it and (4, 4),
    # so (2, 4) has one neighbour left to spare: no 2-factor, so no cycle (helper-38's boards
    # like this were "unknown"). No positions at all are needed to say so.
    rows = ["......", "......", "..#.#.", "..#.#.", "......"]
    result = find_cycle(Board.from_rows(rows, name="short of two"), Limit(0))
    assert result.status == "none"
    assert "two neighbours" in result.reason


def test_dead_end_reason_names_the_cell() -> None:
    board = Board.from_rows(["....", "....", ".###"])
    result = find_cycle(board)
    assert result.status == "none"
    assert result.reason == "a dead-end cell at (0, 2)"


# A dead end at row 3, column 6 of the map, whose rows are on lines 3, 4, 6 and 7 of the file.
DEAD_END_FILE = """name: dead
; a comment line before the map
########
#......#
; one inside it
#...>#.#
#....#.#
########
"""


def test_a_board_files_cells_are_named_by_line_and_column_as_its_errors_name_them() -> None:
    # It said "a dead-end cell at (6, 3)" where `termsnake check` says path:7:7 for that cell.
    level = parse_level(DEAD_END_FILE, "dead.txt")
    assert find_cycle(level.board).reason == "a dead-end cell at line 7 col 7"
    # The same board further down its file is the same board, but its cells are on other lines.
    moved = parse_level("author: someone\n" + DEAD_END_FILE, "dead.txt")
    assert moved.board == level.board
    assert find_cycle(moved.board).reason == "a dead-end cell at line 8 col 7"
    apart = parse_level("#####\n#.>.#\n#####\n#...#\n#####\n", "apart.txt", length=1)
    assert find_cycle(apart.board).reason == (
        "the free cells are not all connected: the cell at line 4 col 2 cannot be reached from "
        "the one at line 2 col 2"
    )
    board = Board.from_rows(["....", "....", ".###"])  # no file: x and y, as in replays
    assert board.where(Point(0, 2)) == "(0, 2)"


def test_disconnected_board() -> None:
    board = Board.from_rows(["..#..", "..#.."])
    result = find_cycle(board)
    assert result.status == "none"
    assert "not all connected" in result.reason


def test_unbalanced_colours() -> None:
    # 14 cells, but both walls are light squares (x + y even): 6 light cells and 8 dark ones.
    board = Board.from_rows(["....", ".#..", "..#.", "...."])
    result = find_cycle(board)
    assert result.status == "none"
    assert "6 light and 8 dark" in result.reason


IRREGULAR = ["......", "..#...", "..#...", "......", "......"]


def test_search_gives_up_within_budget() -> None:
    # A board only the search can answer, given no time at all; a fresh name avoids the cache.
    board = Board.from_rows(IRREGULAR, name="no time")
    result = find_cycle(board, Limit.of_budget(0.0))
    assert result.status == "unknown"
    assert result.cycle is None
    assert result.reason == "the search gave up after 0 positions"
    # With a budget, the same board has an answer; the "unknown" is not cached for good.
    assert find_cycle(board, Limit.of_budget(1.0)).status == "found"


def test_the_budget_counts_positions() -> None:
    assert Limit.of_budget(1.0) == Limit(NODES_PER_SECOND)
    assert Limit.of_budget(10 / NODES_PER_SECOND) == Limit(10)
    assert Limit.of_budget(-1.0) == Limit(0)
    with pytest.raises(ValueError, match="nodes >= 0"):
        Limit(-1)
    board = Board.from_rows(IRREGULAR, name="ten positions")
    result = find_cycle(board, Limit.of_budget(10 / NODES_PER_SECOND))
    assert (result.status, result.reason) == ("unknown", "the search gave up after 10 positions")


def test_the_search_ignores_the_clock(request: pytest.FixtureRequest) -> None:
    # A loaded machine (here a clock that leaps an hour at every look) gets the same answer as an
    # idle one: the search is bounded by positions, never by time.
    board = Board.from_rows(IRREGULAR, name="idle")
    idle = find_cycle(board, Limit.of_budget(0.1))
    assert idle.found
    request.getfixturevalue("leaping_clock")
    loaded = find_cycle(Board.from_rows(IRREGULAR, name="loaded"), Limit.of_budget(0.1))
    assert loaded.status == "found"
    assert loaded.cycle == idle.cycle


def test_results_are_cached_per_board() -> None:
    board = Board.open(6, 4)
    assert find_cycle(board) is find_cycle(Board.open(6, 4))


def test_the_answer_does_not_depend_on_what_was_asked_before() -> None:
    # A cycle found with a bigger limit was the answer at any smaller one afterwards, so
    # whether best could play a board depended on the games played before (helper-41).
    board = Board.from_rows(IRREGULAR, name="asked before")
    assert find_cycle(board).found
    assert find_cycle(board, Limit.of_budget(0.0)).status == "unknown"


def test_checker_reports_each_kind_of_problem() -> None:
    board = Board.from_rows(["...", "..#"])
    good = (Point(0, 0), Point(1, 0), Point(2, 0))
    assert check_cycle(board, ()) == ["the cycle is empty"]
    problems = check_cycle(board, good)
    assert any("not visited" in p for p in problems)
    assert any("(2, 0) -> (0, 0)" in p for p in problems)
    wall = check_cycle(board, (*good, Point(2, 1)))
    assert any("(2, 1) is a wall" in p for p in wall)
    twice = check_cycle(Board.open(2, 2), (Point(0, 0), Point(1, 0), Point(0, 0), Point(0, 1)))
    assert any("visited 2 times" in p for p in twice)
    square = (Point(0, 0), Point(1, 0), Point(1, 1), Point(0, 1))
    assert check_cycle(Board.open(2, 2), square) == []
