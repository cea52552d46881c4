"""The 2-factor cycle finder: checked cycles, certain refusals, limits, the same answer anywhere."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.formats import presets
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import DEFAULT_LIMIT, Limit, check_cycle, find_cycle
from termsnake.solvers.hampath.search import search
from termsnake.solvers.hampath.twofactor import find_two_factor_cycle


def assert_found(board: Board, limit: int = 200_000) -> tuple[Point, ...]:
    cycle = find_two_factor_cycle(board, Limit(limit))
    assert cycle is not None
    assert check_cycle(board, cycle) == []
    return cycle


def has_cycle(board: Board) -> bool:
    """Exactly whether a non-wrapping board has a Hamiltonian cycle: a dynamic programme over
    the row-by-row frontier, each state the loose ends crossing it as brackets (1 opens a path
    that 2 closes), as in the classic "Formula 1" counting problem."""
    free = [[board.is_free(Point(x, y)) for x in range(board.width)] for y in range(board.height)]
    if board.width > board.height:
        free = [list(col) for col in zip(*free, strict=True)]
    h, w = len(free), len(free[0])
    cells = [(y, x) for y in range(h) for x in range(w) if free[y][x]]
    if len(cells) < 4:
        return False
    states = {(0,) * (w + 1)}
    for y in range(h):
        states = {(0, *s[:w]) for s in states if s[w] == 0}
        for x in range(w):
            down = y + 1 < h and free[y + 1][x]
            right = x + 1 < w and free[y][x + 1]
            nxt: set[tuple[int, ...]] = set()
            for s in states:
                if not free[y][x]:
                    if s[x] == s[x + 1] == 0:
                        nxt.add(s)
                    continue
                if s[x] == 1 and s[x + 1] == 2:
                    # Two ends of one path meet: the loop closes, allowed only at the end.
                    if (y, x) == cells[-1] and not any(s[:x] + s[x + 2 :]):
                        return True
                    continue
                nxt.update(_plug_moves(s, x, down, right))
            states = nxt
    return False


def _plug_moves(s: tuple[int, ...], x: int, down: bool, right: bool) -> list[tuple[int, ...]]:
    p, q = s[x], s[x + 1]
    t = list(s)
    out = []
    if p == q == 0:
        if down and right:
            t[x], t[x + 1] = 1, 2
            out.append(tuple(t))
    elif p == 0 or q == 0:
        for dx, ok in ((0, down), (1, right)):
            if ok:
                t[x], t[x + 1] = 0, 0
                t[x + dx] = p or q
                out.append(tuple(t))
    else:
        t[x] = t[x + 1] = 0
        if p == q:
            # Two openers (or two closers) join: the far end of the inner path changes role.
            ks = range(x + 2, len(t)) if p == 1 else range(x - 1, -1, -1)
            depth = 0
            for k in ks:
                depth += 1 if t[k] == p else -1 if t[k] else 0
                if depth < 0:
                    t[k] = p
                    break
        out.append(tuple(t))
    return out


def scattered(width: int, height: int, pairs: int, seed: int) -> Board:
    """Random single walls, as many light as dark, that leave no cell a dead end."""
    rng = random.Random(seed)
    while True:
        walls: set[Point] = set()
        need = [pairs, pairs]
        while need[0] or need[1]:
            p = Point(rng.randrange(width), rng.randrange(height))
            colour = (p.x + p.y) % 2
            if need[colour] and p not in walls:
                walls.add(p)
                need[colour] -= 1
        board = Board(width, height, frozenset(walls))
        if all(len(list(board.neighbours(p))) >= 2 for p in board.free_cells):
            return board


def ringed(width: int, height: int, seed: int, *, wrap: bool = False) -> Board:
    """A board with a cycle for sure: rows and columns cut into bands two or three wide, and
    the centre of each 3x3 piece walled. Every piece has a cycle round its edge, and pieces
    side by side join by a switch, so the whole board has one."""
    rng = random.Random(seed)

    def bands(n: int) -> list[tuple[int, int]]:
        out, pos = [], 0
        while pos < n:
            left = n - pos
            size = left if left in (2, 3) else 2 if left == 4 else rng.choice((2, 3))
            out.append((pos, size))
            pos += size
        return out

    walls = {
        Point(x + 1, y + 1)
        for x, sw in bands(width)
        for y, sh in bands(height)
        if sw == 3 and sh == 3
    }
    return Board(width, height, frozenset(walls), wrap)


@pytest.mark.parametrize("width", range(2, 8))
@pytest.mark.parametrize("height", range(2, 8))
def test_open_boards(width: int, height: int) -> None:
    board = Board.open(width, height)
    if width * height % 2:
        assert find_two_factor_cycle(board, Limit(0)) is None
    else:
        assert_found(board, 0)


def test_the_exact_count_knows_its_boards() -> None:
    assert has_cycle(Board.open(4, 3))
    assert not has_cycle(Board.open(3, 3))
    assert not has_cycle(Board.from_rows(["..##", "....", "##.."]))
    assert has_cycle(Board.from_rows(["......", "..#...", "..#...", "......", "......"]))


@pytest.mark.parametrize(("width", "height", "pairs"), [(6, 6, 2), (8, 8, 3), (7, 10, 4)])
def test_finds_a_cycle_exactly_when_one_exists(width: int, height: int, pairs: int) -> None:
    for seed in range(25):
        board = scattered(width, height, pairs, seed)
        cycle = find_two_factor_cycle(board, Limit(2000))
        assert (cycle is not None) == has_cycle(board), board.rows()
        if cycle is not None:
            assert check_cycle(board, cycle) == []


@pytest.mark.parametrize(("width", "height"), [(24, 16), (30, 30), (31, 18)])
@pytest.mark.parametrize("seed", range(4))
def test_boards_of_walled_rings(width: int, height: int, seed: int) -> None:
    board = ringed(width, height, seed)
    assert board.walls
    assert_found(board)


@pytest.mark.parametrize("seed", range(3))
def test_wrapping_boards_with_even_sides(seed: int) -> None:
    assert_found(ringed(24, 16, seed, wrap=True))


# A 24x16 board of walled rings with scattered single walls: it has a cycle, and the bounded
# backtracking search gives up on it.
HARD_24X16 = (
    "........................",
    ".............#........#.",
    "........................",
    ".#.................#....",
    ".............#..........",
    "..........#.............",
    "...................#..#.",
    "................#.......",
    ".#........#.............",
    "...................#..#.",
    "........................",
    ".#........#.............",
    "................#..#..#.",
    "........................",
    ".#........#.............",
    "........................",
)


def test_finds_the_cycle_the_bounded_search_gives_up_on() -> None:
    board = Board.from_rows(HARD_24X16, name="hard 24x16")
    grid = grid_of(board)
    # The backtracking search alone gives up within find_cycle's whole limit...
    assert search(grid, [grid.index(board.free_cells[0])], DEFAULT_LIMIT) == "limit"
    # ...and find_cycle, which turns to the 2-factor when the search does not find one soon,
    # answers with the 2-factor's cycle.
    cycle = assert_found(board)
    assert find_cycle(board).cycle == cycle


def test_a_repair_needs_its_limit() -> None:
    # Switches alone leave two cycles here; one split-and-join joins them.
    rows = ["...#......", "...#..#...", "..........", ".#........", ".........#"]
    rows += ["..........", "..........", ".........#", "....#.....", "......#..."]
    board = Board.from_rows(rows)
    assert find_two_factor_cycle(board, Limit(0)) is None
    assert_found(board, 100)


def test_a_second_two_factor_when_the_first_will_not_join() -> None:
    rows = ["....#.....", ".#........", "..........", "..........", "...#..#..#"]
    rows += ["..........", "#..#......", "..........", "..........", "..#......."]
    board = Board.from_rows(rows)
    assert find_two_factor_cycle(board, Limit(200)) is None
    assert_found(board, 1000)


@pytest.mark.parametrize(
    "rows",
    [
        ["....", "....", ".###"],  # a dead end
        [".....", ".....", "....."],  # odd, does not wrap
        ["....", ".#..", "..#.", "...."],  # six light cells, eight dark
        ["..#..", "..#.."],  # two pieces
        ["..##", "....", "##.."],  # a 2-factor of two squares that no switch can join
    ],
)
def test_boards_without_a_cycle(rows: list[str]) -> None:
    assert find_two_factor_cycle(Board.from_rows(rows), Limit(1000)) is None


@pytest.mark.parametrize(("width", "height"), [(5, 5), (4, 5), (7, 3), (9, 6)])
def test_open_boards_that_wrap_with_an_odd_side(width: int, height: int) -> None:
    # These are not coloured like a checkerboard: their 2-factor is twofactor_odd's.
    assert_found(Board.open(width, height, wrap=True))


@pytest.mark.parametrize("height", [3, 4, 7])
def test_a_one_wide_wrapping_board_is_its_own_loop(height: int) -> None:
    cycle = assert_found(Board.open(1, height, wrap=True))
    assert sorted(cycle) == [Point(0, y) for y in range(height)]


def test_tiny_boards() -> None:
    assert find_two_factor_cycle(Board.open(1, 1)) == (Point(0, 0),)
    assert find_two_factor_cycle(Board.open(2, 1)) == (Point(0, 0), Point(1, 0))
    assert find_two_factor_cycle(Board.from_rows([".#."])) is None
    assert find_two_factor_cycle(Board.from_rows(["#"])) is None


@pytest.mark.parametrize("name", presets.preset_names())
def test_presets(name: str) -> None:
    board = presets.load_preset(name).board
    if find_cycle(board).found:
        assert_found(board)
    else:
        assert find_two_factor_cycle(board) is None


def test_same_board_same_cycle(request: pytest.FixtureRequest) -> None:
    board = ringed(30, 30, 7)
    first = assert_found(board)
    # A clock that leaps an hour at every look changes nothing: work is counted, not timed.
    request.getfixturevalue("leaping_clock")
    assert find_two_factor_cycle(Board(30, 30, board.walls)) == first


def test_same_cycle_in_another_process() -> None:
    # Another hash seed, another interpreter: the cycle must not depend on either.
    board = ringed(30, 30, 3)
    code = (
        "from termsnake.core.board import Board\n"
        "from termsnake.core.geometry import Point\n"
        "from termsnake.solvers.hampath.twofactor import find_two_factor_cycle\n"
        f"walls = frozenset(Point(x, y) for x, y in {sorted(board.walls)!r})\n"
        "print(find_two_factor_cycle(Board(30, 30, walls)))\n"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == str(assert_found(board))


@pytest.mark.slow
@pytest.mark.parametrize(("width", "height", "pairs"), [(8, 8, 2), (10, 10, 4), (9, 16, 6)])
def test_sweep_against_the_exact_count(width: int, height: int, pairs: int) -> None:
    for seed in range(150):
        board = scattered(width, height, pairs, seed)
        cycle = find_two_factor_cycle(board, Limit(20_000))
        assert (cycle is not None) == has_cycle(board), board.rows()
        if cycle is not None:
            assert check_cycle(board, cycle) == []


@pytest.mark.slow
def test_big_boards() -> None:
    assert_found(Board.open(200, 200))
    assert_found(ringed(200, 200, 1))
    assert_found(ringed(200, 200, 2, wrap=True))
