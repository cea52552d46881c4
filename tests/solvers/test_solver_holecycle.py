"""The hole-cycle solver: odd open boards, which have no Hamiltonian cycle, are always won."""

from __future__ import annotations

import pytest
from cycle_checks import invariant_problem

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.solvers.base import SolverUnavailable, play
from termsnake.solvers.hampath import check_cycle
from termsnake.solvers.hampath.holes import hole_cycles
from termsnake.solvers.holecycle import HoleCycleSolver


@pytest.mark.parametrize(("width", "height"), [(3, 3), (5, 5), (7, 7), (9, 7), (5, 11)])
def test_the_two_cycles_each_leave_out_one_cell_next_to_the_other(width: int, height: int) -> None:
    board = Board.open(width, height)
    found = hole_cycles(board.free_cells)
    assert found is not None
    a, b = found
    corner, mid = Point(0, 0), Point(1, 1)
    assert corner not in a and mid not in b
    # Each is a Hamiltonian cycle of the board without its hole, and they differ at one place.
    for cycle, hole in ((a, corner), (b, mid)):
        rows = [
            "".join("#" if Point(x, y) == hole else "." for x in range(width))
            for y in range(height)
        ]
        assert check_cycle(Board.from_rows(rows), cycle) == []
    assert [i for i, (p, q) in enumerate(zip(a, b, strict=True)) if p != q] == [a.index(mid)]


def test_other_shapes_have_no_hole_cycles() -> None:
    assert hole_cycles(Board.open(6, 5).free_cells) is None  # even: it has a real cycle
    assert hole_cycles(Board.open(7, 1).free_cells) is None
    holed = Board.from_rows([".....", ".....", "..#..", ".....", "....."])
    assert hole_cycles(holed.free_cells) is None


@pytest.mark.parametrize(("width", "height"), [(5, 5), (7, 7), (9, 9), (7, 5)])
@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("seed", range(5))
def test_odd_boards_are_always_won(width: int, height: int, length: int, seed: int) -> None:
    game = Game(open_level(width, height, length), seed)
    assert play(game, HoleCycleSolver()) is Outcome.WON
    assert game.length == width * height


@pytest.mark.parametrize("seed", range(8))
def test_the_body_stays_in_order_on_the_current_cycle(seed: int) -> None:
    game = Game(open_level(7, 7, 1), seed)
    solver = HoleCycleSolver()
    solver.setup(game)
    swaps = 0
    while not game.over:
        before = solver.cycle
        assert invariant_problem(game, before) is None, f"at step {game.steps}"
        direction = solver.next_direction(game)
        swaps += solver.cycle != before
        game.step(direction)
    assert game.outcome is Outcome.WON
    assert swaps > 0  # food fell in the hole and the snake changed cycles to eat it


def test_a_wrapping_or_walled_board_is_refused() -> None:
    for board in (Board.open(5, 5, wrap=True), Board.from_rows([".....", "..#..", "....."])):
        game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), 1)
        with pytest.raises(SolverUnavailable, match="--ai best"):
            HoleCycleSolver().setup(game)


@pytest.mark.parametrize(("width", "height"), [(5, 5), (3, 5), (7, 5)])
@pytest.mark.parametrize("seed", range(3))
def test_a_start_standing_up_is_taken_up_and_won(width: int, height: int, seed: int) -> None:
    # Found in review: a vertical body fitted neither way round the zig-zag by rows.
    body = tuple(Point(1, y) for y in range(height - 1))
    game = Game(Level(Board.open(width, height), body, Direction.UP), seed)
    assert play(game, HoleCycleSolver()) is Outcome.WON


def test_a_solver_reused_for_a_second_game_starts_afresh() -> None:
    solver = HoleCycleSolver()
    board = Board.open(5, 5)
    starts = [
        (Point(2, 2),),
        (Point(3, 4), Point(2, 4), Point(1, 4)),
        (Point(1, 4), Point(2, 4), Point(3, 4)),
        (Point(1, 0), Point(1, 1), Point(1, 2), Point(1, 3)),
        (Point(4, 2), Point(4, 3)),
    ]
    for seed in range(40):
        start = starts[seed % len(starts)]
        game = Game(Level(board, start, Direction.RIGHT), seed)
        if seed == 0:
            solver.setup(game)
        while not game.over:
            game.step(solver.next_direction(game))
        assert game.outcome is Outcome.WON, seed
