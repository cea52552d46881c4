"""The re-planning cycle solver and its closure search: always a valid cycle, never a death."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from itertools import pairwise
from types import FrameType
from typing import Any

import pytest
from cycle_checks import invariant_problem
from example_levels import EXAMPLES

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level, with_length
from termsnake.formats import presets
from termsnake.formats.levelfile import load_level_file, parse_level
from termsnake.solvers import SolverUnavailable, create, endgame, lane, play
from termsnake.solvers.best import BestSolver
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import Limit, check_cycle, close_body, find_cycle
from termsnake.solvers.hampath import search as hampath_search
from termsnake.solvers.hampath.holes import successors, switch_at
from termsnake.solvers.replan import ReplanSolver

# Boards with walls that 2x2 blocks cannot tile, and an odd torus: the boards replan is for.
WALLED = Board.from_rows(
    ["..........", "..........", "....#.....", "....#.....", "..........", ".........."],
    name="post",
)
ROOMS = Board.from_rows(
    [
        "....#.....",
        "....#.....",
        "..........",
        "..........",
        "##..####..",
        "..........",
        "....#.....",
        "....#.....",
    ],
    name="little-rooms",
)
TORUS = Board.open(7, 5, wrap=True)


def arc_problem(cycle: list[int], body: list[int]) -> str | None:
    """Why ``cycle`` (cell indexes) does not start with ``body`` (head first) tail first."""
    if cycle[: len(body)] != body[::-1]:
        return f"the cycle starts {cycle[: len(body)]}, not the body tail first {body[::-1]}"
    return None


@pytest.mark.parametrize("board", [Board.open(6, 6), WALLED, ROOMS, TORUS], ids=lambda b: b.name)
@pytest.mark.parametrize("target", [False, True])
def test_a_closure_is_a_hamiltonian_cycle_with_the_body_as_its_first_arc(
    board: Board, target: bool
) -> None:
    grid = grid_of(board)
    found = find_cycle(board).cycle
    assert found is not None
    # Three cells of the board's own cycle, head first: the rest of that cycle closes them.
    body = [grid.index(p) for p in found[len(found) // 2 : len(found) // 2 + 3]][::-1]
    goal = grid.index(found[-1]) if target else -1
    cycle = close_body(grid, body, Limit(100_000), target=goal)
    assert cycle is not None
    assert check_cycle(board, [grid.points[i] for i in cycle]) == []
    assert arc_problem(cycle, body) is None


def test_the_closure_heads_straight_for_its_target_when_it_can() -> None:
    board = Board.open(8, 8)
    grid = grid_of(board)
    body = [grid.index(Point(2, 0)), grid.index(Point(1, 0)), grid.index(Point(0, 0))]
    goal = grid.index(Point(2, 5))
    cycle = close_body(grid, body, Limit(10_000), target=goal)
    assert cycle is not None
    # Five moves straight down from the head at (2, 0).
    assert cycle.index(goal) - cycle.index(body[0]) == 5
    plain = close_body(grid, body, Limit(10_000))
    assert plain is not None
    assert plain.index(goal) - plain.index(body[0]) > 5


def test_no_closure_around_a_pocket_the_body_has_sealed() -> None:
    # The body runs along row 1 and down: (5, 0) has one free neighbour, so no cycle passes it.
    board = Board.open(6, 6)
    grid = grid_of(board)
    cells = [Point(5, 2), Point(5, 1), Point(4, 1), Point(3, 1), Point(2, 1), Point(1, 1)]
    body = [grid.index(p) for p in cells]
    assert close_body(grid, body, Limit(1_000_000)) is None


def test_a_closure_needs_the_head_to_reach_every_free_cell() -> None:
    # A body across the whole width cuts the board in two.
    board = Board.open(4, 4)
    grid = grid_of(board)
    body = [grid.index(Point(x, 1)) for x in range(4)]
    assert close_body(grid, body, Limit(1_000_000)) is None


def test_a_full_board_closes_only_if_head_and_tail_meet() -> None:
    board = Board.open(2, 2)
    grid = grid_of(board)
    ring = [grid.index(p) for p in (Point(0, 0), Point(1, 0), Point(1, 1), Point(0, 1))]
    assert close_body(grid, ring, Limit(10)) == ring[::-1]


@pytest.mark.parametrize(
    ("board", "seed"),
    [
        pytest.param(board, seed, marks=[pytest.mark.slow] if seed or board is ROOMS else [])
        for board in (WALLED, ROOMS, TORUS)
        for seed in range(6)
    ],
    ids=lambda b: b.name if isinstance(b, Board) else str(b),
)
def test_the_body_stays_in_order_on_the_cycle_every_move(board: Board, seed: int) -> None:
    assert find_cycle(board).found
    start = board.free_cells[0]
    game = Game(Level(board, (start,), Direction.RIGHT), seed)
    solver = ReplanSolver()
    solver.setup(game)
    first = solver.cycle
    changed = False
    lanes = 0
    while not game.over:
        # Off the cycle only on a lane: moves safe by the rules, onto a cycle once it has eaten.
        if solver.on_lane:
            lanes += 1
        else:
            assert invariant_problem(game, solver.cycle) is None, f"at step {game.steps}"
        changed = changed or solver.cycle != first
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON
    assert solver.found > 0 and changed
    assert lanes > 0 or board.free_count > ReplanSolver.lane_cells


@pytest.mark.slow
@pytest.mark.parametrize("name", ["rooms", "torus"])
def test_presets_with_walls_are_won_in_fewer_moves_than_hamilton(name: str) -> None:
    level = presets.load_preset(name)
    game = Game(level, 2)
    assert play(game, ReplanSolver()) is Outcome.WON
    fixed = Game(level, 2)
    assert play(fixed, create("hamilton")) is Outcome.WON
    assert game.steps < fixed.steps


def test_the_same_seed_gives_the_same_game() -> None:
    runs = []
    for _ in range(2):
        game = Game(Level(WALLED, (WALLED.free_cells[0],), Direction.RIGHT), 7)
        play(game, create("replan"))
        runs.append(game.moves)
    assert runs[0] == runs[1]


def test_a_board_without_a_cycle_is_refused_by_name() -> None:
    # Two dark cells more than light: no cycle, and none found through all cells but two
    # holes that can both move (the holes beside the walls would leave dead ends).
    rows = [".......", ".#...#.", ".......", "...#...", "......."]
    board = Board.from_rows(rows, name="lopsided")
    game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), 1)
    with pytest.raises(
        SolverUnavailable, match=r"^replan cannot play lopsided: .* 15 light and 17 dark"
    ):
        ReplanSolver().setup(game)


ONE_SHORT = [
    # Open boards with both sides odd, and walled boards with one light cell more than dark.
    "5x5",
    "7x7",
    "3x9",
    "9x5",
    "\n".join(["......#", ".......", "..#....", "....#..", ".......", "......."]),
    "\n".join([".......", ".##....", ".......", "....#..", ".......", "......."]),
]


def _one_short_level(spec: str) -> Level:
    if "x" in spec and "\n" not in spec:
        w, h = (int(n) for n in spec.split("x"))
        return open_level(w, h, 1)
    board = Board.from_rows(spec.split("\n"), name="one short")
    start = next(p for p in board.free_cells if p.x > 0)
    return Level(board, (start,), Direction.RIGHT)


@pytest.mark.parametrize("spec", ONE_SHORT)
@pytest.mark.parametrize("seed", [1, 2, pytest.param(3, marks=pytest.mark.slow)])
def test_one_cell_short_of_a_cycle_it_wins_on_a_cycle_with_a_hole(spec: str, seed: int) -> None:
    # The body lies in order on the cycle at every move, the hole stays switchable, and the
    # game is won: a food in the hole is reached by switching the cycle into it.
    level = _one_short_level(spec)
    game = Game(level, seed)
    solver = ReplanSolver()
    solver.setup(game)
    grid = grid_of(level.board)
    moves = 0
    while not game.over:
        (hole,) = solver.holes
        assert switch_at(grid, successors(grid, [grid.index(p) for p in solver.cycle]), hole)
        assert len(solver.cycle) == level.board.free_count - 1
        if not solver.on_lane:
            assert (problem := invariant_problem(game, solver.cycle)) is None, problem
        game.step(solver.next_direction(game))
        moves += 1
        assert moves < 40 * level.board.free_count
    assert game.outcome is Outcome.WON


TWO_SHORT = [
    # Two light cells more than dark: a wall on a dark cell of an open board, or two.
    ".......\n.......\n.#.....\n.......\n.......",
    "\n".join(["........", "..#.....", "........", "....#...", "........", "........"]),
    pytest.param(
        "\n".join(["..........", ".#........", "..........", ".......#..", *[".........."] * 4]),
        marks=pytest.mark.slow,  # the biggest: the slow step plays it
    ),
]


@pytest.mark.parametrize("spec", TWO_SHORT)
@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_two_cells_short_of_a_cycle_it_fills_all_but_two_round_two_holes(
    spec: str, seed: int
) -> None:
    # The body lies in order on a cycle through all cells but two holes at every move, both
    # holes stay switchable, and the snake grows to all cells but two, then follows the cycle
    # (a snake one cell longer could never move again without dying).
    board = Board.from_rows(spec.split("\n"))
    level = Level(board, (board.free_cells[1],), Direction.RIGHT)
    game = Game(level, seed)
    solver = ReplanSolver()
    solver.setup(game)
    grid = grid_of(board)
    while not game.over:
        holes = solver.holes
        assert len(holes) == 2 and len(solver.cycle) == board.free_count - 2
        succ = successors(grid, [grid.index(p) for p in solver.cycle])
        assert all(switch_at(grid, succ, hole) for hole in holes)
        if not solver.on_lane:
            assert (problem := invariant_problem(game, solver.cycle)) is None, problem
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.STALLED
    assert game.length == board.free_count - 2


@pytest.mark.parametrize("length", [1, pytest.param(3, marks=pytest.mark.slow)])
def test_on_one_long_corridor_it_plays_hamilton_s_game(length: int) -> None:
    # The spiral is one two-lane corridor: no cycle reaches a cell sooner than the one it has,
    # so the set-up probe finds nothing to rebuild and the game is hamilton's, move for move.
    # (A snake of length 1 could take the cycle backwards; the probe must not count that.)
    level = with_length(presets.load_preset("spiral"), length)
    games = []
    for name in ("replan", "hamilton"):
        game = Game(level, 4)
        assert play(game, create(name)) is Outcome.WON
        games.append(game.moves)
    assert games[0] == games[1]


def test_best_plays_replan_where_every_cycle_runs_along_one_corridor() -> None:
    # Every cycle of the spiral runs along its one corridor: replan plays hamilton's game there,
    # which the tree, though it can cut the spiral into blocks, does not beat.
    game = Game(presets.load_preset("spiral"), 1)
    create("tree").setup(game)
    solver = BestSolver()
    solver.setup(game)
    assert solver.played == "replan"
    replan = ReplanSolver()
    replan.setup(game)
    assert not replan.rebuilds


# Boards one light cell short of a cycle whose only hole a cycle can leave out is under the
# snake's head, or under the first food (helper-38's fuzz run): the set-up found no hole
# cycle off the body and the food, and best fell back to greedy, which stalled.
HOLE_UNDER_HEAD = """length: 3
wrap: no

.....>...
.........
......#..
.....#...
.........
"""
HOLE_UNDER_FOOD = """length: 3
wrap: no

#######
#.....#
#....>#
#.##.##
#.....#
#.....#
#....%#
#######
"""


@pytest.mark.parametrize("text", [HOLE_UNDER_HEAD, HOLE_UNDER_FOOD], ids=["head", "food"])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_hole_under_the_head_or_the_food_is_played_round(text: str, seed: int) -> None:
    # Once the head is off the hole the body lies in order on the cycle at every move.
    game = Game(parse_level(text), seed)
    solver = ReplanSolver()
    solver.setup(game)
    settled = False
    while not game.over:
        if not solver.on_lane:
            problem = invariant_problem(game, solver.cycle)
            assert problem is None or not settled, problem
            settled = settled or problem is None
        game.step(solver.next_direction(game))
    assert settled
    assert game.outcome is Outcome.WON, game.cause
    best = BestSolver()
    play(Game(parse_level(text), seed), best)
    assert best.played == "replan"


@pytest.mark.slow  # a whole game on a walled board: CPU-heavy
def test_where_no_closure_is_found_the_cycle_is_changed_at_squares_instead() -> None:
    # On the odd torus the closure search finds no cycle even at the start, so replan once
    # played hamilton's fixed cycle (3,770 moves on this seed); splitting loops off the cycle
    # and joining them back nearer the head rebuilds it all the same.
    level = load_level_file(EXAMPLES / "odd-torus.txt")
    game = Game(level, 1)
    solver = ReplanSolver()
    solver.setup(game)
    assert solver.rebuilds
    while not game.over:
        assert (problem := invariant_problem(game, solver.cycle)) is None, problem
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON
    fixed = Game(level, 1)
    assert play(fixed, create("hamilton")) is Outcome.WON
    assert game.steps < fixed.steps * 3 // 4


def test_a_start_body_in_order_with_gaps_is_not_changed_as_if_it_were_one_arc() -> None:
    # helper-48: the straight start body lies on the first cycle in order but not as one arc;
    # the changes at squares took the cells after its tail for the body, and the food, 5 moves
    # round the cycle, went 39 away.
    game = Game(open_level(5, 8, 3), 0)
    solver = ReplanSolver()
    solver.setup(game)
    grid = grid_of(game.board)
    where = {grid.index(p): i for i, p in enumerate(solver.cycle)}
    places = [where[grid.index(p)] for p in reversed(game.body)]
    assert any((b - a) % len(where) != 1 for a, b in pairwise(places))
    assert game.food is not None
    ahead = (where[grid.index(game.food)] - where[grid.index(game.head)]) % len(where)
    solver.next_direction(game)
    now = [grid.index(p) for p in solver.cycle]
    assert (now.index(grid.index(game.food)) - now.index(grid.index(game.head))) % len(now) <= ahead


# helper-60's fuzz: a torus with dead ends, walled in and played round them. Its one lane search
# finds nothing, and with no cap on its work it took a pause a player sees.
DEAD_ENDS = "\n".join(
    [
        "length: 3",
        "wrap: yes",
        "",
        "...v........",
        "............",
        "............",
        "..#.........",
        "..#.........",
        "..#.........",
        "..#....####.",
        "###.......#.",
        "##........##",
        "##.........#",
    ]
)


def _counter_line(func: Callable[..., Any], counter: str) -> int:
    """The number of the line in ``func``'s source that counts one node (``counter``)."""
    lines, first = inspect.getsourcelines(func)
    (at,) = [i for i, line in enumerate(lines) if line.strip() == counter]
    return first + at


@pytest.mark.slow  # a lane search run to its cap: CPU-heavy
def test_a_lane_search_stops_once_its_work_reaches_the_cap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The work (moves searched plus completion nodes) is counted, never timed: each run of the
    # searches' own counter lines is one node.
    counted = {
        hampath_search._walk.__code__: _counter_line(hampath_search._walk, "nodes += 1"),
        next(
            c for c in endgame.closing_path.__code__.co_consts if getattr(c, "co_name", "") == "dfs"
        ): _counter_line(endgame.closing_path, "nodes[0] -= 1"),
    }
    work = [0]

    def count(frame: FrameType, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno == counted[frame.f_code]:
            work[0] += 1
        return count

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return count if frame.f_code in counted else None

    searches: list[int] = []
    plain = endgame.closing_path

    def counted_search(*args: Any, **kwargs: Any) -> Any:
        before = work[0]
        found = plain(*args, **kwargs)
        searches.append(work[0] - before)
        return found

    monkeypatch.setattr(lane, "closing_path", counted_search)
    game = Game(parse_level(DEAD_ENDS), 76643)
    was = sys.gettrace()
    sys.settrace(calls)
    try:
        play(game, create("best"))
    finally:
        sys.settrace(was)
    assert searches
    # A search gives up on the node after its limit (see hampath.Limit).
    assert max(searches) == ReplanSolver.lane_work + 1
