"""The Hamiltonian-cycle solver: it wins on boards with a cycle and keeps its invariant."""

from __future__ import annotations

import pytest
from cycle_checks import invariant_problem

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.formats import presets
from termsnake.formats.levelfile import parse_level
from termsnake.solvers import grid as graph
from termsnake.solvers import hamilton as hamilton_mod
from termsnake.solvers.base import SolverUnavailable, play
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hamilton import HamiltonSolver
from termsnake.solvers.hampath import DEFAULT_LIMIT, Limit, check_cycle, find_cycle
from termsnake.solvers.registry import create


@pytest.mark.parametrize("size", [4, 6, 8, 10, 12])
@pytest.mark.parametrize("length", [1, 3])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_wins_every_game_on_open_even_boards(size: int, length: int, seed: int) -> None:
    game = Game(open_level(size, size, length), seed)
    assert play(game, HamiltonSolver()) is Outcome.WON
    assert game.length == game.board.free_count


@pytest.mark.parametrize(("width", "height", "wrap"), [(6, 6, False), (8, 5, False), (5, 5, True)])
@pytest.mark.parametrize("seed", [4, 5])
def test_invariant_holds_before_every_move(width: int, height: int, wrap: bool, seed: int) -> None:
    board = Board.open(width, height, wrap=wrap)
    level = Level(board, (Point(0, 0),), Direction.RIGHT)
    game = Game(level, seed)
    solver = HamiltonSolver()
    solver.setup(game)
    shortcuts = 0
    while not game.over:
        assert invariant_problem(game, solver.cycle) is None, f"at step {game.steps}"
        direction = solver.next_direction(game)
        follow = Direction.between(
            game.head, solver.cycle[(solver.cycle.index(game.head) + 1) % len(solver.cycle)]
        )
        shortcuts += direction is not follow
        game.step(direction)
    assert game.outcome is Outcome.WON
    assert shortcuts > 0  # the invariant was tested on more than plain cycle-following


def test_longer_snake_that_starts_against_the_cycle_still_wins() -> None:
    # Length 3 heading left: on the zig-zag's first row (travelled rightward) the body is
    # reversed, so the solver must pick the other orientation or enter the cycle first.
    board = Board.open(6, 6)
    body = (Point(1, 0), Point(2, 0), Point(3, 0))
    game = Game(Level(board, body, Direction.LEFT), 9)
    solver = HamiltonSolver()
    assert play(game, solver) is Outcome.WON


def test_wins_on_walled_and_wrapping_boards() -> None:
    walled = Board.from_rows(["......", "......", "..##..", "..##..", "......", "......"])
    torus = Board.open(7, 5, wrap=True)
    for board in (walled, torus):
        start = board.free_cells[0]
        game = Game(Level(board, (start,), Direction.RIGHT), 11)
        assert play(game, HamiltonSolver()) is Outcome.WON, board.name


def test_unavailable_on_an_odd_board_says_why() -> None:
    game = Game(open_level(5, 5, 1), 1)
    with pytest.raises(SolverUnavailable) as info:
        HamiltonSolver().setup(game)
    message = str(info.value)
    assert "odd number of free cells (25)" in message
    assert "--ai best" in message


def test_unavailable_with_a_dead_end() -> None:
    board = Board.from_rows(["....", "....", ".###"])
    game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), 1)
    with pytest.raises(SolverUnavailable, match=r"dead-end cell at \(0, 2\).*--ai best"):
        HamiltonSolver().setup(game)


def test_unavailable_when_the_search_gives_up() -> None:
    rows = ["......", "..#...", "..#...", "......", "......"]
    board = Board.from_rows(rows, name="impatient")
    game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), 1)
    with pytest.raises(SolverUnavailable, match="gave up"):
        HamiltonSolver(Limit(0)).setup(game)


def test_overlay_draws_the_cycle_as_arrows() -> None:
    game = Game(open_level(6, 4, 1), 1)
    solver = HamiltonSolver()
    solver.setup(game)
    overlay = solver.overlay(game)
    cycle = solver.cycle
    assert set(overlay) == set(game.board.free_cells)
    glyph = {Direction.UP: "^", Direction.DOWN: "v", Direction.LEFT: "<", Direction.RIGHT: ">"}
    for i, p in enumerate(cycle):
        direction = Direction.between(p, cycle[(i + 1) % len(cycle)])
        assert direction is not None
        assert overlay[p] == glyph[direction]


@pytest.mark.slow
def test_every_preset_with_a_cycle_is_won() -> None:
    names = presets.preset_names()
    assert len(names) >= 10
    played = 0
    for name in names:
        level = presets.load_preset(name)
        if find_cycle(level.board).status != "found":
            continue
        game = Game(level, 3)
        assert play(game, HamiltonSolver()) is Outcome.WON, name
        played += 1
    assert played > 0


BENT = tuple(Point(x, y) for x, y in [(2, 3), (2, 2), (1, 2), (1, 3), (0, 3), (0, 2), (0, 1)])


def test_an_odd_start_gets_a_cycle_built_around_its_body() -> None:
    # A bent snake the board's cycle cannot take up, either way round: the start cycle is a
    # closure of the body instead, so the invariant holds from the first move.
    game = Game(Level(Board.open(4, 4), BENT, Direction.DOWN), 1)
    solver = HamiltonSolver()
    solver.setup(game)
    assert solver.holds_invariant(game)
    assert check_cycle(game.board, solver.cycle) == []
    assert play(game, solver) is Outcome.WON


@pytest.mark.parametrize(
    ("rows", "seed"),
    [(("...<.", ".....", "....."), 4), ((".v", "..", "..", "..", ".."), 2)],
)
def test_a_start_across_a_whole_torus_row_is_won(rows: tuple[str, ...], seed: int) -> None:
    # Found in review: following the cycle into the invariant failed when food fell on the way.
    text = "wrap: yes\nlength: 5\n\n" + "\n".join(rows) + "\n"
    for s in range(seed, seed + 10):
        game = Game(parse_level(text), s)
        assert play(game, HamiltonSolver()) is Outcome.WON, s


def test_without_a_closure_an_odd_start_falls_back_to_the_shared_roomiest_move(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(hamilton_mod, "close_body", lambda *args, **kwargs: None)
    game = Game(Level(Board.open(4, 4), BENT, Direction.DOWN), 1)
    calls: list[Direction] = []

    def spy(game: Game, grid: graph.Grid) -> Direction:
        calls.append(graph.roomiest_move(game, grid))
        return calls[-1]

    monkeypatch.setattr(hamilton_mod, "roomiest_move", spy)
    solver = HamiltonSolver()
    solver.setup(game)
    assert not solver.holds_invariant(game)
    move = solver.next_direction(game)
    assert calls == [graph.roomiest_move(game, grid_of(game.board))]
    assert move == calls[0] and game.is_safe(move)


def test_uses_the_shared_direction_numbers_and_budget() -> None:
    assert not hasattr(hamilton_mod, "_NUMBER")
    assert vars(hamilton_mod)["direction_number"] is graph.direction_number
    assert HamiltonSolver().limit == DEFAULT_LIMIT


# A wrapping board with a Hamiltonian cycle, the snake laid down column 2, which wraps into a
# loop of 13 cells: no cycle holds that body (helper-38's fuzz run).
LOOPED = """length: 12
wrap: yes

....
..^#
...#
...#
....
....
....
....
....
##..
##..
....
....
"""


@pytest.mark.parametrize("solver", ["hamilton", "replan", "best"])
def test_a_start_body_no_cycle_holds_gets_onto_one_and_wins(solver: str) -> None:
    # Off its cycle, hamilton took the roomiest move, which went straight on round the loop
    # for ever: every game stalled at its start length.
    for seed in (1, 2):
        game = Game(parse_level(LOOPED), seed)
        play(game, create(solver))
        assert game.outcome is Outcome.WON, (solver, seed, game.cause)
