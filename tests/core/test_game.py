"""The rules of a step, growth, winning, stalling, and determinism."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Direction, Point
from termsnake.core.level import Level, open_level, straight_body
from termsnake.solvers.shortest import BfsSolver

R, L, U, D = Direction.RIGHT, Direction.LEFT, Direction.UP, Direction.DOWN


def game_on(
    rows: list[str],
    body: list[tuple[int, int]],
    direction: Direction = R,
    food: tuple[int, int] | None = None,
    wrap: bool = False,
    seed: int = 0,
) -> Game:
    board = Board.from_rows(rows, wrap=wrap)
    level = Level(board, tuple(Point(*p) for p in body), direction, Point(*food) if food else None)
    return Game(level, seed)


def test_moving_forward_shifts_the_whole_body() -> None:
    g = game_on(["......"], [(2, 0), (1, 0), (0, 0)], food=(5, 0))
    result = g.step(R)
    assert list(g.body) == [Point(3, 0), Point(2, 0), Point(1, 0)]
    assert not result.ate and result.outcome is None and g.steps == 1


def test_wall_kills_and_the_head_stays() -> None:
    g = game_on(["..#..."], [(1, 0), (0, 0)], food=(5, 0))
    result = g.step(R)
    assert result.outcome is Outcome.DIED and g.cause == "hit a wall"
    assert g.head == Point(1, 0) and g.moves == [R] and g.steps == 1


def test_leaving_the_board_kills_unless_it_wraps() -> None:
    g = game_on(["...", "..."], [(2, 0)], food=(0, 1))
    assert g.step(R).outcome is Outcome.DIED
    assert g.cause == "left the board"
    w = game_on(["...", "..."], [(2, 0)], food=(0, 1), wrap=True)
    assert w.step(R).outcome is None and w.head == Point(0, 0)
    assert w.step(U).outcome is None and w.head == Point(0, 1)


def test_entering_the_cell_the_tail_leaves_is_legal() -> None:
    # A 2x2 loop: head (0,1), body (0,0), (1,0), tail (1,1). Moving right enters the tail's cell.
    g = game_on(["..", "..", ".."], [(0, 1), (0, 0), (1, 0), (1, 1)], direction=D, food=(0, 2))
    assert g.step(R).outcome is None
    assert g.head == Point(1, 1) and g.length == 4


def test_entering_a_body_cell_the_tail_does_not_leave_kills() -> None:
    g = game_on(
        ["...", "...", "..."], [(0, 1), (0, 0), (1, 0), (1, 1), (1, 2)], direction=D, food=(2, 2)
    )
    assert g.step(R).outcome is Outcome.DIED
    assert g.cause == "ran into itself"


def test_reversing_into_the_neck_kills_a_solver() -> None:
    g = game_on(["....."], [(2, 0), (1, 0)], food=(4, 0))
    assert g.step(L).outcome is Outcome.DIED
    assert g.cause == "turned back into its neck"


def test_a_snake_of_length_one_may_turn_back() -> None:
    g = game_on(["....."], [(2, 0)], food=(4, 0))
    assert g.step(L).outcome is None and g.step(R).outcome is None


def test_after_eating_the_tail_stays_so_its_cell_is_not_free() -> None:
    # Length 3 in a 2x2 loop eats at (0, 1); the tail at (1, 1) stays, so it still blocks.
    g = game_on(["..", ".."], [(0, 0), (1, 0), (1, 1)], direction=L, food=(0, 1))
    assert g.step(D).ate
    assert g.tail == Point(1, 1) and g.length == 4
    assert g.outcome is Outcome.WON  # 4 of 4 cells: the board is full


def test_eating_grows_by_one_and_spawns_food_on_a_free_cell() -> None:
    g = game_on(["......", "......"], [(1, 0), (0, 0)], food=(2, 0), seed=5)
    result = g.step(R)
    assert result.ate and g.length == 3 and g.eaten == 1
    assert g.food is not None and g.food not in g.body and g.board.is_free(g.food)
    assert g.foods == [(0, Point(2, 0)), (1, g.food)]


def test_the_empty_cells_are_the_board_s_free_cells_less_the_snake() -> None:
    # "Free" is the board's word (not a wall); a game's cells that take food are "empty".
    g = game_on(["..#", "..."], [(1, 0), (0, 0)], food=(2, 1))
    assert g.board.free_cells == (Point(0, 0), Point(1, 0), *(Point(x, 1) for x in range(3)))
    assert g.empty_cells() == [Point(0, 1), Point(1, 1), Point(2, 1)]


def test_filling_every_free_cell_wins() -> None:
    g = game_on(["...", "##."], [(1, 0), (0, 0)], food=(2, 0))
    assert g.step(R).outcome is None
    assert g.length == 3 and g.food == Point(2, 1)
    result = g.step(D)
    assert result.outcome is Outcome.WON and g.length == 4 == g.board.free_count
    assert g.food is None


def test_no_food_for_four_times_the_free_cells_stalls() -> None:
    # Circle a 2x2 loop while the food sits outside it.
    g = game_on(["...", "..."], [(0, 0)], food=(2, 1))
    loop = [R, D, L, U]
    limit = 4 * g.board.free_count
    for i in range(limit - 1):
        assert g.step(loop[i % 4]).outcome is None
    assert g.step(loop[(limit - 1) % 4]).outcome is Outcome.STALLED
    assert g.steps == limit


def test_quit_and_no_steps_after_the_end() -> None:
    g = Game(open_level(6, 6), seed=1)
    g.quit()
    assert g.outcome is Outcome.QUIT
    with pytest.raises(RuntimeError):
        g.step(R)


def test_copy_is_independent() -> None:
    g = Game(open_level(8, 8), seed=3)
    c = g.copy()
    c.step(U)
    assert g.steps == 0 and c.steps == 1 and g.head != c.head
    assert g.rng.random() == c.rng.random()


def test_copy_copy_is_game_copy() -> None:
    # copy.copy shared the body: a step on the copy moved this game's snake, not its steps.
    g = Game(open_level(8, 8), seed=3)
    body, cells = list(g.body), set(g.body)
    c = copy.copy(g)
    c.step(U)
    assert list(g.body) == body and g.steps == 0 and g.moves == [] and len(g.foods) == 1
    assert all(g.occupied(p) == (p in cells) for p in c.body)
    assert c.steps == 1 and c.head != g.head
    assert g.rng.random() == c.rng.random()


def test_food_plan_replaces_the_generator() -> None:
    plan = [Point(0, 0), Point(7, 7)]
    g = Game(open_level(8, 8), seed=3, food_plan=plan)
    assert g.food == Point(0, 0)


def test_a_planned_food_must_fall_on_an_empty_cell() -> None:
    # The snake's cells are not walls (Board.free_cells holds them) yet no food may go there.
    level = open_level(8, 8)
    with pytest.raises(ValueError, match=r"the planned food at .* after step 0 is not empty"):
        Game(level, seed=3, food_plan=[level.body[1]])


def test_straight_body_must_fit() -> None:
    board = Board.open(4, 1)
    assert straight_body(board, Point(3, 0), R, 4) == tuple(Point(x, 0) for x in (3, 2, 1, 0))
    with pytest.raises(ValueError):
        straight_body(board, Point(2, 0), R, 4)


# -- properties --------------------------------------------------------------------------------

moves = st.lists(st.sampled_from(DIRECTIONS), max_size=200)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31), path=moves, size=st.tuples(st.integers(3, 9), st.integers(2, 9)))
def test_invariants_hold_while_alive(
    seed: int, path: list[Direction], size: tuple[int, int]
) -> None:
    w, h = size
    g = Game(open_level(w, h, length=min(3, w)), seed)
    for d in path:
        if g.over:
            break
        g.step(d)
        if g.outcome in (None, Outcome.WON):
            assert len(set(g.body)) == g.length, "the body overlaps itself"
            assert all(g.board.is_free(p) for p in g.body), "the body is on a wall or off board"
        assert g.length == g.start_length + g.eaten
        assert g.food is None or (g.food not in g.body and g.board.is_free(g.food))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), path=moves)
def test_same_seed_and_moves_same_game(seed: int, path: list[Direction]) -> None:
    def run() -> tuple[object, ...]:
        g = Game(open_level(7, 6), seed)
        trace = []
        for d in path:
            if g.over:
                break
            r = g.step(d)
            trace.append((r, tuple(g.body), g.food))
        return tuple(trace), g.outcome, tuple(g.foods)

    assert run() == run()


def test_unseeded_games_record_their_seed_and_replay_from_it() -> None:
    a = Game(open_level(8, 8))
    b = Game(open_level(8, 8), a.seed)
    solver = BfsSolver()
    solver.setup(a)
    while a.eaten < 3 and not a.over:  # the foods after eating come from the seed too
        move = solver.next_direction(a)
        a.step(move)
        b.step(move)
    assert a.eaten == 3 and a.foods == b.foods
    assert len({Game(open_level(8, 8)).seed for _ in range(8)}) > 1  # not one fixed seed


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    moves=st.lists(st.sampled_from(DIRECTIONS), max_size=80),
    wrap=st.booleans(),
)
def test_safe_moves_agree_with_is_safe_everywhere(
    seed: int, moves: list[Direction], wrap: bool
) -> None:
    board = Board.open(5, 4, wrap=wrap)
    game = Game(
        Level(board, straight_body(board, Point(2, 2), Direction.RIGHT, 3), Direction.RIGHT), seed
    )
    for d in moves:
        expected = [not game.over and game.is_safe(e) for e in DIRECTIONS]
        assert game.safe_moves() == expected
        if game.over:
            break
        game.step(d)


def test_a_board_with_more_walls_keeps_its_size_wrap_and_name_and_loses_those_cells() -> None:
    board = Board.from_rows(["#...", "...."], wrap=True, name="small")
    walled = board.with_walls([Point(1, 0), Point(2, 1)])
    assert (walled.width, walled.height, walled.wrap, walled.name) == (4, 2, True, "small")
    assert walled.walls == {Point(0, 0), Point(1, 0), Point(2, 1)}
    assert walled.free_count == board.free_count - 2 and Point(1, 0) not in walled.free_cells
    assert board.free_count == 7  # the board it came from is as it was


@pytest.mark.parametrize("move", ["U", "up", 0, None])
def test_a_move_that_is_not_a_direction_is_refused_and_changes_nothing(move: object) -> None:
    # A bot of a script's own (`register`) that answered "U" raised AttributeError: 'str'
    # object has no attribute 'dx', and left the game one step on with no move made.
    g = game_on(["......"], [(2, 0), (1, 0)], food=(5, 0))
    with pytest.raises(TypeError, match=r"a move is a Direction \(Direction.UP"):
        g.step(move)  # type: ignore[arg-type]
    assert g.steps == 0 and g.moves == [] and g.direction is R and g.outcome is None
