"""The cell tree round a hole, on boards one or two cells short of a cycle."""

from __future__ import annotations

import random

import pytest
from example_levels import EXAMPLES

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level, straight_body
from termsnake.formats.levelfile import load_level_file
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.best import BestSolver
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath.holes import spare
from termsnake.solvers.holetree import HoleTreeSolver


def play_checked(game: Game, solver: HoleTreeSolver) -> None:
    """Play to the end; the body enters the hole only by the switch, for food in it."""
    solver.setup(game)
    width = game.board.width
    while not game.over:
        holes = {Point(h % width, h // width) for h in solver.holes}
        tree = not solver.replanned  # replan, once it takes over, moves holes of its own
        if tree:
            assert all(not game.occupied(h) or game.head == h for h in holes), game.steps
        move = solver.next_direction(game)
        if tree and game.board.step(game.head, move) in holes:  # a switch: for its food only
            assert game.food == game.board.step(game.head, move)
        game.step(move)


@pytest.mark.parametrize(("size", "seed"), [(11, 1), pytest.param(13, 2, marks=pytest.mark.slow)])
def test_an_odd_board_is_won_round_a_hole_that_moves_by_switches(size: int, seed: int) -> None:
    game = Game(open_level(size, size, length=1), seed)
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON
    assert solver.switches >= 1


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_on_15x15_the_tree_goes_on_round_each_new_hole(seed: int) -> None:
    game = Game(open_level(15, 15, length=1), seed)
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON
    assert solver.switches >= 2 and not solver.replanned


@pytest.mark.slow
@pytest.mark.parametrize(
    ("size", "seed", "length"), [(11, 3, 3), (13, 4, 5), (17, 5, 3), (19, 6, 1)]
)
def test_odd_boards_of_other_sizes_and_start_lengths_are_won(
    size: int, seed: int, length: int
) -> None:
    game = Game(open_level(size, size, length=length), seed)
    play_checked(game, HoleTreeSolver())
    assert game.outcome is Outcome.WON


PILLAR = Board.from_rows(
    [
        "...........",
        "...........",
        "...........",
        "...........",
        "....##.....",
        "....##.....",
        "...........",
        "...........",
        "...........",
        "...........",
        "...........",
    ]
)


def test_a_walled_odd_board_is_won_round_a_hole_too() -> None:
    game = Game(Level(PILLAR, (Point(1, 9),), Direction.RIGHT), 2)
    best = BestSolver()
    best.setup(game)
    assert best.played == "tree round a hole"
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON and solver.switches >= 1


@pytest.mark.parametrize(
    ("name", "hole", "seed"),
    [
        ("top-bar", Point(7, 0), 1),
        pytest.param("top-bar", Point(7, 0), 2, marks=pytest.mark.slow),
        pytest.param("blocks-and-nub", Point(0, 5), 1, marks=pytest.mark.slow),
        pytest.param("blocks-and-nub", Point(0, 5), 3, marks=pytest.mark.slow),
    ],
)
def test_a_walls_corner_is_a_hole_in_a_box_of_its_own(name: str, hole: Point, seed: int) -> None:
    # Odd boards whose corners give the tree no box: a wall's corner does (beside the bar on the
    # top edge; below the lone wall on the left edge). The hole's neighbours have more ways than
    # at a board's corner; the 3x3 box round the hole and its diagonal, placed before the rest
    # is cut, forces the switch both ways.
    level = load_level_file(EXAMPLES / f"{name}.txt")
    best = BestSolver()
    best.setup(Game(level, seed))
    assert best.played == "tree round a hole"
    game, solver = Game(level, seed), HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON and solver.switches >= 1
    first = HoleTreeSolver()
    first.setup(Game(level, seed))
    assert first.holes == (hole.y * level.board.width + hole.x,)


# 20x10, one short: a wall's corner at (17, 9), left of the bar on the bottom edge.
LOW_BAR = Board.from_rows(
    [
        "#..................#",
        "#...................",
        "#...................",
        "....................",
        "....................",
        "....................",
        "....................",
        "....................",
        ".......#............",
        "..................##",
    ]
)


@pytest.mark.slow  # a whole late game on a walled board: CPU-heavy
@pytest.mark.parametrize("seed", [13, 20])
def test_food_in_a_walls_corner_finds_its_switch_in_the_late_game(seed: int) -> None:
    # The late game's cycles need not go round a wall's corner's box: food in that hole found
    # no switch, replan was handed a cycle it could not switch, and best died.
    level = Level(LOW_BAR, (Point(1, 1),), Direction.RIGHT)
    best = BestSolver()
    game = Game(level, seed)
    best.setup(game)
    assert best.played == "tree round a hole"
    while not game.over:
        game.step(best.next_direction(game))
    assert game.outcome is Outcome.WON
    first = HoleTreeSolver()
    first.setup(Game(level, seed))
    assert first.holes == (9 * LOW_BAR.width + 17,)
    game = Game(level, seed)
    play_checked(game, HoleTreeSolver())
    assert game.outcome is Outcome.WON


# 15x14, two short (helper-125's fuzz): the holes are the board's corner (14, 0) and the
# wall's corner (4, 4), under the bent bar at the top.
BENT_BAR = Board.from_rows(
    [
        "....#..........",
        "....#..........",
        "....#..........",
        "...##..........",
        "...#...........",
        *["..............."] * 6,
        "....#..........",
        "...............",
        "####..........#",
    ]
)


@pytest.mark.slow  # two whole games on 198 cells
def test_two_short_round_a_walls_corner_it_fills_all_but_two() -> None:
    # best died at 172 of 198 here: food fell in the wall's corner in the late game, whose
    # cycle ran past its box, and replan was handed a cycle it could not switch.
    level = Level(BENT_BAR, (Point(13, 12),), Direction.UP, food=Point(12, 13))
    best = BestSolver()
    game = Game(level, 7)
    best.setup(game)
    assert best.played == "tree round a hole"
    while not game.over:
        game.step(best.next_direction(game))
    # All but two, then (three laps on) the food in a hole all the same: one cell longer.
    assert game.length >= len(BENT_BAR.free_cells) - 2
    first = HoleTreeSolver()
    first.setup(Game(level, 7))
    assert 4 * BENT_BAR.width + 4 in first.holes
    game = Game(level, 7)
    play_checked(game, HoleTreeSolver())
    assert game.outcome is Outcome.STALLED and game.length == len(BENT_BAR.free_cells) - 2


TWO_SHORT = Board.from_rows(
    [
        "............",
        "............",
        "............",
        "............",
        ".....#......",
        "............",
        "............",
        "......#.....",
        "............",
        "............",
        "............",
        "............",
    ]
)


@pytest.mark.parametrize("seed", [1, pytest.param(2, marks=pytest.mark.slow)])
def test_two_cells_short_it_fills_all_but_two_round_two_holes(seed: int) -> None:
    # Two lone walls of one colour: two light cells more than dark, which no snake can fill.
    game = Game(Level(TWO_SHORT, (Point(2, 9),), Direction.RIGHT), seed)
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert len(solver.holes) == 2 and solver.switches >= 1
    assert game.outcome is Outcome.STALLED and game.length == len(TWO_SHORT.free_cells) - 2


# A framed room with two stubs: dead ends the tree's opening would leave the blocks for.
STUBS = Board.from_rows(
    [
        "##################",
        "#..#.............#",
        "#..#.............#",
        "#..#.............#",
        "#..#.............#",
        *["#................#"] * 8,
        "#........#.......#",
        "#........#.......#",
        "#........#.......#",
        "##################",
    ]
)


@pytest.mark.slow  # a whole game on 233 cells
def test_without_an_opening_the_switch_always_finds_the_body_on_the_blocks() -> None:
    # With the opening, food fell in the hole while the body was off the blocks: the switch
    # was made on a cycle the body was not on, and replan, handed it, stalled at 45 of 233.
    body = straight_body(STUBS, Point(9, 6), Direction.DOWN, 3)
    game = Game(Level(STUBS, body, Direction.DOWN), 1599377728)
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON and solver.switches >= 1 and not solver.replanned


def test_a_board_the_tree_cannot_cut_round_any_hole_is_refused() -> None:
    # 79 cells, one more of one colour: the corners are of the other, no wall has a corner, and
    # no box round a lone wall has a cell more of the spare colour.
    rows = [".........", ".........", ".........", ".......#.", ".........", "........."]
    rows += ["....#....", ".........", "........."]
    game = Game(level_of(rows, Point(0, 0), Direction.RIGHT, 1), 1)
    with pytest.raises(SolverUnavailable, match="no holes at corners"):
        HoleTreeSolver().setup(game)


def test_odd_walls_hole_is_in_the_box_round_its_walls() -> None:
    # No corner of odd-walls leaves a cut: the walls at the lower right need a notched block
    # in a 6x6 box with a cell more of the spare colour, so the hole must be in it; it goes
    # back and forth between (13, 7) and (14, 8), where every cycle of the blocks switches.
    level = load_level_file(EXAMPLES / "odd-walls.txt")
    solver = HoleTreeSolver()
    solver.setup(Game(level, 1))
    width = level.board.width
    assert [Point(h % width, h // width) for h in solver.holes] == [Point(13, 7)]
    # So best plays it with the tree round that hole. Here, not in a test of its own: best's
    # set-up reuses the board's cuts (cached) that the one above made, most of the work.
    best = BestSolver()
    best.setup(Game(level, 1))
    assert best.played == "tree round a hole"


@pytest.mark.slow  # a whole game on 187 cells
def test_odd_walls_is_won_round_a_hole_in_the_box_round_its_walls() -> None:
    game, solver = Game(load_level_file(EXAMPLES / "odd-walls.txt"), 1), HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON and solver.switches >= 1 and not solver.replanned


def test_the_first_hole_is_a_corner_and_the_tree_cuts_the_rest() -> None:
    game = Game(open_level(11, 11, length=1), 1)
    solver = HoleTreeSolver()
    solver.setup(game)
    assert len(solver.holes) == 1 and solver.holes[0] in (0, 10, 110, 120)
    assert solver.played == "tree round a hole"


@pytest.mark.parametrize(
    "board",
    [
        Board.open(8, 8),  # a cycle of its own
        Board.open(5, 5, wrap=True),  # odd and wrapping: not two-coloured
    ],
)
def test_boards_not_one_cell_short_are_refused(board: Board) -> None:
    game = Game(Level(board, (board.free_cells[0],), Direction.RIGHT), 1)
    with pytest.raises(SolverUnavailable, match="not one or two cells short"):
        HoleTreeSolver().setup(game)


@pytest.mark.parametrize(("size", "played"), [(9, "replan"), (11, "tree round a hole")])
def test_best_plays_the_tree_round_a_hole_on_odd_boards_above_100_cells(
    size: int, played: str
) -> None:
    best = BestSolver()
    best.setup(Game(open_level(size, size, length=1), 1))
    assert best.played == played


def level_of(rows: list[str], head: Point, direction: Direction, length: int) -> Level:
    board = Board.from_rows(rows)
    return Level(board, straight_body(board, head, direction, length), direction)


def test_food_in_the_new_hole_in_the_late_game_is_reached_along_the_late_way() -> None:
    # The late game began on the way to the switch, and had planned a way there: its ring was
    # the cycle after that way, and the snake, sent round it, turned back into its neck.
    rows = ["......", "..#...", "......", "......", "...##.", "......"]
    game = Game(level_of(rows, Point(1, 4), Direction.DOWN, 3), 209)
    solver = HoleTreeSolver()
    play_checked(game, solver)
    assert game.outcome is Outcome.WON and solver.switches >= 2


def test_holes_whose_moves_meet_another_box_are_refused_not_a_crash() -> None:
    # Two holes on a small board: moving one onto its diagonal cell put it in another box
    # (an AssertionError at set-up, for every seed).
    rows = ["......", "..#...", "...#..", "......"]
    game = Game(level_of(rows, Point(5, 0), Direction.RIGHT, 1), 314)
    with pytest.raises(SolverUnavailable, match="hole-tree cannot play"):
        HoleTreeSolver().setup(game)


def small_boards(count: int, seed: int) -> list[Level]:
    """Boards of 5-9 by 4-8 with 1-4 lone walls, one or two cells short of a cycle."""
    rng, out = random.Random(seed), list[Level]()
    while len(out) < count:
        w, h = rng.randint(5, 9), rng.randint(4, 8)
        walls = {Point(rng.randrange(w), rng.randrange(h)) for _ in range(rng.randint(1, 4))}
        rows = ["".join("#" if Point(x, y) in walls else "." for x in range(w)) for y in range(h)]
        head, direction = Point(rng.randrange(w), rng.randrange(h)), rng.choice(list(Direction))
        try:
            level = level_of(rows, head, direction, rng.choice([1, 3]))
        except ValueError:
            continue  # the head on a wall, or no room behind it
        if spare(grid_of(level.board)) is not None:
            out.append(level)
    return out


@pytest.mark.slow
def test_small_walled_boards_short_of_a_cycle_are_never_lost() -> None:
    played = 0
    for i, level in enumerate(small_boards(400, 17)):
        game, solver = Game(level, i), HoleTreeSolver()
        try:
            solver.setup(game)
        except SolverUnavailable:
            continue
        played += 1
        while not game.over:
            game.step(solver.next_direction(game))
        assert game.outcome in (Outcome.WON, Outcome.STALLED), (level.board.rows(), i)
    assert played >= 50
