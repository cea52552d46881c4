"""``best``: the cell tree where its blocks fit, else replan, hole-cycle or greedy, in that
order (replan first on small boards, and where every cycle runs along one corridor); it says
what it played, and plays each board as that solver alone would."""

from __future__ import annotations

import pytest
from example_levels import EXAMPLES

from termsnake.core.board import Board
from termsnake.core.game import STALL_FACTOR, Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.formats.levelfile import load_level_file
from termsnake.solvers import SolverUnavailable, create, play
from termsnake.solvers.base import display_name
from termsnake.solvers.best import SMALL_BOARD, BestSolver
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.tiling import cuts_of
from termsnake.solvers.greedy import GreedySolver
from termsnake.solvers.grid import ARROWS
from termsnake.solvers.lastfood import LAST_FOOD_LAPS


def _moves(level: Level, seed: int, name: str) -> tuple[Outcome | None, list[Direction]]:
    game = Game(level, seed)
    outcome = play(game, create(name))
    return outcome, game.moves


def test_best_plays_the_cell_tree_where_its_blocks_fit() -> None:
    level = open_level(10, 10, length=1)
    game = Game(level, 1)
    best = BestSolver()
    best.setup(game)
    assert best.played == "tree"
    assert best.overlay(game)  # the tree's cycle, drawn
    assert play(game, best) is Outcome.WON
    assert game.moves == _moves(level, 1, "tree")[1]


def test_on_small_boards_best_plays_replan_where_the_tree_would_fit() -> None:
    assert 8 * 8 <= SMALL_BOARD < 10 * 10
    for size, played in ((8, "replan"), (10, "tree")):
        best = BestSolver()
        best.setup(Game(open_level(size, size, length=1), 1))
        assert best.played == played


def test_small_boards_without_whole_2x2_blocks_are_played_with_the_rebuilt_cycle() -> None:
    level = Level(Board.open(5, 4), (Point(0, 0),), Direction.RIGHT)
    for seed in range(4):
        game = Game(level, seed=seed)
        solver = BestSolver()
        solver.setup(game)
        assert solver.played == "replan"
        assert play(game, solver) is Outcome.WON
        assert game.moves == _moves(level, seed, "replan")[1]


def test_walled_boards_no_2x2_grid_fits_are_played_by_the_tree_on_other_blocks() -> None:
    # A post one cell wide, off every grid of 2x2 blocks, on a board above SMALL_BOARD cells.
    rows = ["." * 12] * 7
    rows[2] = rows[3] = "...#........"
    level = Level(Board.from_rows(rows), (Point(0, 0),), Direction.RIGHT)
    assert level.board.free_count > SMALL_BOARD
    game = Game(level, seed=1)
    best = BestSolver()
    best.setup(game)
    assert best.played == "tree"
    tree = TreeSolver()
    tree.setup(Game(level, seed=1))
    assert tree.tiled
    assert play(game, best) is Outcome.WON
    assert game.moves == _moves(level, 1, "tree")[1]


@pytest.mark.parametrize("name", [pytest.param("wide-doors", marks=pytest.mark.slow), "posts"])
def test_boards_only_notched_blocks_cut_are_played_by_the_tree(name: str) -> None:
    # A wall stub (wide-doors) and lone walls (posts): no cut into rectangles fits round them.
    level = load_level_file(EXAMPLES / f"{name}.txt")
    found = cuts_of(level.board)
    assert not isinstance(found, str) and all(any(r.missing for r in cut) for cut in found)
    best = BestSolver()
    best.setup(Game(level, seed=1))
    assert best.played == "tree"


def test_odd_boards_are_won_by_replan_with_a_moving_hole() -> None:
    game = Game(open_level(5, 5, length=1), seed=1)
    solver = BestSolver()
    solver.setup(game)
    assert solver.played == "replan"
    assert play(game, solver) is Outcome.WON


def test_walled_boards_one_cell_short_of_a_cycle_are_played_by_replan_with_a_hole() -> None:
    # Before the 2-factor way found its cycle round a hole, best played odd-walls with greedy.
    # It plays the tree round a hole there now; replan, which it falls back on where that
    # refuses such a board, takes it.
    game = Game(load_level_file(EXAMPLES / "odd-walls.txt"), seed=1)
    create("replan").setup(game)


@pytest.mark.slow
def test_walled_boards_one_cell_short_of_a_cycle_are_won_by_replan_with_a_hole() -> None:
    game = Game(load_level_file(EXAMPLES / "odd-walls.txt"), seed=1)
    assert play(game, create("replan")) is Outcome.WON


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_boards_two_cells_short_of_a_cycle_fill_all_but_two_cells_with_replan(seed: int) -> None:
    # A wall on a cell of the rarer colour: two light cells more than dark. No snake can fill
    # it (a body of n cells holds at most n // 2 + 1 of one colour); replan leaves two holes.
    # The last food, in a hole, it then eats all the same (the game stalled there, a cell short).
    board = Board.from_rows([".......", ".......", ".#.....", ".......", "......."])
    level = Level(board, (Point(0, 0),), Direction.RIGHT)
    game = Game(level, seed=seed)
    solver = BestSolver()
    solver.setup(game)
    assert solver.played == "replan"
    assert play(game, solver) is Outcome.DIED
    assert game.length == board.free_count - 1
    # The same game as replan's, which stalls, until three of the stall's four laps are gone.
    outcome, stalled = _moves(level, seed, "replan")
    assert outcome is Outcome.STALLED
    kept = len(stalled) - (STALL_FACTOR - LAST_FOOD_LAPS) * board.free_count
    assert game.moves[:kept] == stalled[:kept] and len(game.moves) < len(stalled)


ARROW_MOVES = {arrow: move for move, arrow in ARROWS.items()}


def test_while_it_walks_to_a_food_no_safe_way_reaches_the_overlay_shows_that_way() -> None:
    # The two-short board above: after three laps without food best walks the shortest way to
    # the food in a hole; the overlay (c) showed replan's cycle, which never reaches it.
    board = Board.from_rows([".......", ".......", ".#.....", ".......", "......."])
    game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), seed=1)
    solver = BestSolver()
    solver.setup(game)
    shown = 0
    while not game.over:
        if game.since_food > LAST_FOOD_LAPS * board.free_count and game.food is not None:
            arrows, at = solver.overlay(game), game.head
            for _ in range(board.free_count):
                if at == game.food or at not in arrows:
                    break
                nxt = board.step(at, ARROW_MOVES[arrows[at]])
                assert nxt is not None
                at = nxt
            assert at == game.food, f"at step {game.steps}"
            shown += 1
        game.step(solver.next_direction(game))
    assert shown > 0


def test_boards_without_any_cycle_to_use_are_played_by_greedy() -> None:
    # Two walls on cells of the rarer colour: three light cells more than dark, so no cycle
    # even round two holes; nor a dead end to wall in.
    board = Board.from_rows([".....", ".....", ".#.#.", ".....", "....."])
    level = Level(board, (Point(0, 0),), Direction.RIGHT)
    game = Game(level, seed=1)
    solver = BestSolver()
    solver.setup(game)
    assert solver.played == "greedy"
    assert play(game, solver) is not None
    outcome, moves = _moves(level, 1, "greedy")
    if outcome is Outcome.STALLED:  # best goes for the food a lap before greedy would stall
        moves = moves[: len(moves) - (STALL_FACTOR - LAST_FOOD_LAPS) * board.free_count]
    assert game.moves[: len(moves)] == moves


def test_best_refuses_only_when_every_solver_does(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: GreedySolver, game: Game) -> None:
        raise SolverUnavailable("greedy says no")

    monkeypatch.setattr(GreedySolver, "setup", refuse)
    board = Board.from_rows([".#...", ".....", ".....", ".....", "....."])
    solver = BestSolver()
    with pytest.raises(SolverUnavailable) as info:
        solver.setup(Game(Level(board, (Point(0, 0),), Direction.RIGHT), seed=1))
    assert "tree cannot play" in str(info.value) and "greedy says no" in str(info.value)
    assert solver.played == "" and solver.overlay(Game(open_level(4, 4, 1), 1)) == {}


def test_reports_name_best_with_what_it_played() -> None:
    best = BestSolver()
    best.setup(Game(open_level(5, 4, length=1), 1))
    assert display_name("best", best) == "best (replan)"
    tree = create("tree")
    tree.setup(Game(open_level(4, 4, length=1), 1))
    assert display_name("tree", tree) == "tree"
