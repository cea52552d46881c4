"""Boards with dead ends: ``best`` walls them in and fills the rest with a safe solver until
food falls in one, where no snake could eat it and live."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.formats.presets import load_preset
from termsnake.solvers import SolverUnavailable
from termsnake.solvers.best import BestSolver
from termsnake.solvers.deadends import DeadEndSolver, alleys, dead_ends

# 48 open cells with a Hamiltonian cycle, and a trap: (3, 0), whose one way out is its way in.
TRAP = ("###.####", *["........"] * 6)
START = Point(0, 6)


def _level(rows: tuple[str, ...], start: Point = START) -> Level:
    return Level(Board.from_rows(rows), (start,), Direction.RIGHT)


def _first_trapped_food(game: Game, ends: frozenset[Point]) -> int | None:
    """How many foods the game served before the first one in a dead end (None: no such one)."""
    return next((i for i, (_, p) in enumerate(game.foods) if p in ends), None)


def test_dead_ends_are_the_cells_a_snake_that_goes_in_cannot_leave() -> None:
    assert dead_ends(load_preset("dead-end").board) == {Point(11, 1), Point(11, 2), Point(11, 3)}
    assert dead_ends(Board.from_rows(TRAP)) == {Point(3, 0)}
    assert dead_ends(Board.open(6, 6)) == frozenset()
    # A corridor with a room at one end: the corridor's cells go one by one, the room stays.
    rows = ("#####.", "#####.", "....#.", "......", "....##")
    corridor = {Point(5, 0), Point(5, 1), Point(5, 2), Point(5, 3), Point(4, 3)}
    assert dead_ends(Board.from_rows(rows)) == corridor
    # A board that is all corridor has nothing left to live on.
    line = Board.from_rows(["....."])
    assert dead_ends(line) == set(line.free_cells)


def test_a_pocket_behind_one_cell_is_a_dead_end_too() -> None:
    # Two rooms joined by one cell: a snake longer than the small room cannot come back out.
    rows = ("......#....", "......#....", "...........", "......#....")
    pocket = {Point(x, y) for x in range(7, 11) for y in range(4)} | {Point(6, 2)}
    assert dead_ends(Board.from_rows(rows)) == pocket


def test_alleys_are_the_dead_ends_one_cell_wide_and_pockets_are_not() -> None:
    # Where no snake that eats gets out (``best`` goes for such a food at once).
    board = Board.from_rows(TRAP)
    assert alleys(board, dead_ends(board)) == {Point(3, 0)}
    rows = ("......#....", "......#....", "...........", "......#....")
    pocket = Board.from_rows(rows)
    assert alleys(pocket, dead_ends(pocket)) == set()
    line = Board.from_rows(["....."])  # all dead ends, and all one wide
    assert alleys(line, dead_ends(line)) == set(line.free_cells)
    # A one-wide loop hanging off one cell (helper-45): a snake that eats in it goes round and
    # out again.
    loop = Board.from_rows(["......##"] * 5 + ["........", "#####.#.", "#####..."])
    ends = dead_ends(loop)
    assert Point(5, 7) in ends and not alleys(loop, ends)


def test_of_two_equal_rooms_the_snake_keeps_the_one_it_is_in() -> None:
    board = Board.from_rows(("....#....", "....#....", ".........", "....#...."))
    left = {Point(x, y) for x in range(5) for y in range(4)} & set(board.free_cells)
    right = {Point(x, y) for x in range(4, 9) for y in range(4)} & set(board.free_cells)
    assert dead_ends(board, Point(8, 0)) == left
    assert dead_ends(board, Point(0, 0)) == right  # the door (4, 2) in both
    for start, food in ((Point(0, 0), Point(1, 1)), (Point(8, 3), Point(7, 1))):
        best = BestSolver()
        best.setup(Game(Level(board, (start,), Direction.RIGHT, food), 2))
        assert best.played.endswith(" round dead ends")


def _connected(cells: set[Point], board: Board) -> bool:
    if not cells:
        return True
    seen, todo = set(), [next(iter(cells))]
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.add(p)
            todo.extend(q for _, q in board.neighbours(p) if q in cells)
    return seen == cells


def _two_connected(cells: set[Point], board: Board) -> bool:
    return len(cells) >= 3 and all(_connected(cells - {p}, board) for p in cells)


@settings(max_examples=60, deadline=None)
@given(
    walls=st.sets(st.tuples(st.integers(0, 6), st.integers(0, 5)), max_size=14),
    wrap=st.booleans(),
)
def test_what_is_left_no_one_cell_cuts_and_no_dead_end_could_join(
    walls: set[tuple[int, int]], wrap: bool
) -> None:
    rows = ["".join("#" if (x, y) in walls else "." for x in range(7)) for y in range(6)]
    board = Board.from_rows(rows, wrap=wrap)
    ends = dead_ends(board)
    part = set(board.free_cells) - ends
    if not part:
        return
    assert _two_connected(part, board)
    for p in ends:
        if any(q in part for _, q in board.neighbours(p)):
            assert not _two_connected(part | {p}, board)


def test_on_a_narrow_board_that_wraps_a_cell_reached_two_ways_is_still_one_neighbour() -> None:
    # 2 wide, wrapping: left and right of a cell are the same cell, up and down two others.
    assert dead_ends(Board.open(2, 4, wrap=True)) == frozenset()
    # 1 wide and 2 high, wrapping: each cell's only neighbour is the other, by two ways.
    column = Board.open(1, 2, wrap=True)
    assert dead_ends(column) == set(column.free_cells)


@pytest.mark.parametrize(
    "seed", [*range(1, 5), *(pytest.param(s, marks=pytest.mark.slow) for s in range(5, 9))]
)
def test_best_eats_every_food_until_one_falls_in_a_dead_end(seed: int) -> None:
    level = _level(TRAP)
    game = Game(level, seed)
    best = BestSolver()
    best.setup(game)
    assert best.played.endswith(" round dead ends")
    ends = dead_ends(level.board)
    entered_at = None
    while not game.over:
        if entered_at is None and any(p in ends for p in game.body):
            entered_at = len(game.foods)
        game.step(best.next_direction(game))
    trapped = _first_trapped_food(game, ends)
    assert trapped is not None  # 49 cells, one of them the trap: food lands there in the end
    # Every food before the trapped one was eaten, and the snake stayed out of the dead end.
    assert game.length >= len(level.body) + trapped
    assert entered_at is None or entered_at > trapped
    assert game.outcome is not Outcome.DIED or game.length > len(level.body) + trapped


@pytest.mark.parametrize("seed", range(1, 5))
def test_a_food_in_an_alley_is_eaten_rather_than_left_to_stall(seed: int) -> None:
    # No food comes after it until it is eaten: the game stalled at the trapped food's length
    # after four laps of the board, where eating it scores one more.
    level = _level(TRAP)
    game = Game(level, seed)
    best = BestSolver()
    best.setup(game)
    while not game.over:
        game.step(best.next_direction(game))
    trapped = _first_trapped_food(game, dead_ends(level.board))
    assert trapped is not None
    assert game.outcome is not Outcome.STALLED
    assert game.length > len(level.body) + trapped  # it ate the trapped food
    served = game.foods[trapped][0]
    assert len(game.moves) - served < level.board.free_count  # at once, not after laps of waiting


@pytest.mark.slow  # a game of 600 moves on the preset
def test_on_the_dead_end_preset_best_fills_the_room_less_the_alcove_with_the_tree() -> None:
    level = load_preset("dead-end")
    game = Game(level, 3)
    best = BestSolver()
    best.setup(game)
    assert best.played == "tree round dead ends"
    assert best.overlay(game)  # the tree's cycle, drawn on the room
    ends = dead_ends(level.board)
    while not game.over and game.food not in ends:
        game.step(best.next_direction(game))
    # It ate every food until one fell in the alcove (the length that caps the game).
    assert not game.over and game.length == len(level.body) + len(game.foods) - 1


def test_dead_ends_are_not_walled_in_on_boards_with_none_or_under_the_first_food() -> None:
    inner = DeadEndSolver(lambda: BestSolver(safe_only=True))
    with pytest.raises(SolverUnavailable, match="no dead ends"):
        inner.setup(Game(_level(TRAP[1:], Point(0, 5)), 1))
    with pytest.raises(SolverUnavailable, match="whole board is dead ends"):
        inner.setup(Game(_level(("......",), Point(0, 0)), 1))
    level = _level(TRAP)
    food_first = Level(level.board, level.body, level.direction, Point(3, 0))
    with pytest.raises(SolverUnavailable, match="first food"):
        inner.setup(Game(food_first, 1))


# A tunnel two cells long into the top of a 6x6 room, the snake inside it, heading in.
TUNNEL = ("##.###", "##.###", *["......"] * 6)


@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_short_snake_that_starts_in_a_tunnel_is_walked_out_then_played_safely(
    length: int, seed: int
) -> None:
    board = Board.from_rows(TUNNEL)
    body = tuple(Point(2, y) for y in range(length - 1, -1, -1))  # head first, lowest
    level = Level(board, body, Direction.DOWN, Point(2, 5))
    ends = dead_ends(board)
    assert ends == {Point(2, 0), Point(2, 1)}
    game = Game(level, seed)
    best = BestSolver()
    best.setup(game)
    assert best.played == "greedy"  # until the snake is out
    while not game.over and game.food not in ends:
        if best.played != "greedy":
            assert not any(p in ends for p in game.body)
        game.step(best.next_direction(game))
    assert best.played == "replan round dead ends"
    assert game.outcome is not Outcome.DIED


def test_a_long_snake_that_starts_in_a_tunnel_stays_with_greedy() -> None:
    rows = ("##.###", "##.###", "##.###", "##.###", *["......"] * 6)
    body = tuple(Point(2, y) for y in range(3, -1, -1))
    game = Game(Level(Board.from_rows(rows), body, Direction.DOWN, Point(0, 9)), 1)
    best = BestSolver()
    best.setup(game)
    for _ in range(40):
        game.step(best.next_direction(game))
    assert best.played == "greedy"


def test_safe_only_best_refuses_a_board_no_safe_solver_takes() -> None:
    with pytest.raises(SolverUnavailable, match="no solver can play"):
        BestSolver(safe_only=True).setup(Game(_level(TRAP), 1))


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(
    width=st.integers(6, 12),
    height=st.integers(6, 10),
    alley=st.integers(1, 3),
    at=st.integers(0, 99),
    seed=st.integers(0, 2**16),
)
def test_round_dead_ends_best_never_dies_before_food_falls_in_one(
    width: int, height: int, alley: int, at: int, seed: int
) -> None:
    # An open room under a wall row with a one-wide alley of 1-3 cells going up from it.
    x = at % width
    rows = [
        "".join("." if (c == x and y >= 3 - alley) else "#" for c in range(width)) for y in range(3)
    ] + ["." * width] * height
    level = Level(Board.from_rows(rows), (Point(0, len(rows) - 1),), Direction.RIGHT)
    ends = dead_ends(level.board)
    assert len(ends) == alley
    game = Game(level, seed)
    best = BestSolver()
    best.setup(game)
    if best.played == "greedy":  # the first food fell in the alley
        assert game.food in ends
        return
    while not game.over and game.food not in ends:
        game.step(best.next_direction(game))
    assert game.outcome in (None, Outcome.WON)
