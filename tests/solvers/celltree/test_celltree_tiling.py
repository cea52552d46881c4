"""Boards no 2x2 grid fits, cut into 2x2, 2x3 and 3x2 blocks (and notched ones round walls that
stick out): every free cell in one block, the blocks all joined, the rim moves, the cycle held
at every move, and the boards still refused."""

from __future__ import annotations

import pytest
from celltree_checks import assert_body_on_cycle, cycle_of, level_of, play_checked
from example_levels import EXAMPLES
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.formats import presets
from termsnake.formats.levelfile import load_level_file
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import build_tiled_grid, tiled_grids
from termsnake.solvers.celltree.notched import notched_moves
from termsnake.solvers.celltree.spanning import span
from termsnake.solvers.celltree.tiling import SHAPES, Rect, cuts_of, tile
from termsnake.solvers.celltree.walls import small_islands

# A framed board of two rooms with a doorway two wide, each room an odd number of rows high.
DOORWAY = (
    "###########",
    "#....#....#",
    "#....#....#",
    "#.........#",
    "#.........#",
    "#....#....#",
    "#....#....#",
    "#....#....#",
    "###########",
)
# A post one cell wide, off any grid of 2x2 blocks.
POST = (
    "..........",
    "..........",
    "...#......",
    "...#......",
    "..........",
    "..........",
    "..........",
)
# Two rooms with a doorway six wide, and a wall sticking out one cell from the frame at the top:
# no cut into rectangles covers the cells round it.
STUB = (
    "###########",
    "#....#....#",
    "#.........#",
    "#.........#",
    "###..######",
    "#.........#",
    "#.........#",
    "###########",
)
# A lone wall in the open: the ring round it is one block.
LONE = (
    "......",
    "......",
    "...#..",
    "......",
    "......",
    ".....#",
)


def _boards() -> dict[str, Board]:
    names = ("rooms", "pillars", "torus", "maze")
    boards = {name: presets.load_preset(name).board for name in names}
    boards["doorway"] = Board.from_rows(DOORWAY)
    boards["post"] = Board.from_rows(POST)
    boards["stub"] = Board.from_rows(STUB)
    boards["lone wall"] = Board.from_rows(LONE)
    boards["open 5x4"] = Board.open(5, 4)
    boards["wrapping 6x5"] = Board.open(6, 5, wrap=True)
    return boards


SLOW_CUTS = ("maze", "pillars", "torus")  # a second or more each to cut


@pytest.mark.parametrize(
    ("name", "board"),
    [
        pytest.param(name, board, marks=[pytest.mark.slow] if name in SLOW_CUTS else [])
        for name, board in _boards().items()
    ],
    ids=list(_boards()),
)
def test_a_cut_covers_every_free_cell_once_with_blocks_that_all_join(
    name: str, board: Board
) -> None:
    found = cuts_of(board)
    assert not isinstance(found, str), name
    for rects in found:
        cells = [p for r in rects for p in r.cells(board) or ()]
        assert sorted(cells) == sorted(board.free_cells)
        for r in rects:  # a rectangle two cells wide, or a box less walls round a cycle
            assert (r.width, r.height) in SHAPES or notched_moves(r.width, r.height, r.missing, 0)
        for turning in (0, 1):
            grid = build_tiled_grid(board, turning, list(rects))
            spanned = span(grid.ends, len(grid.adj), [-1] * len(grid.ends))
            assert spanned is not None and spanned[2] == len(rects) - 1  # one tree of blocks
            # The walk around that tree visits every free cell once.
            tree = spanned[1]
            nxt = [
                grid.cross[c] if grid.cedge[c] >= 0 and tree[grid.cedge[c]] else grid.dflt[c]
                for c in range(len(grid.points))
            ]
            start = grid.open_cells[0]
            walk, c = [start], nxt[start]
            while c != start:
                walk.append(c)
                c = nxt[c]
            assert sorted(walk) == sorted(grid.open_cells)


@pytest.mark.slow  # three cuts of rooms
def test_the_same_board_is_cut_the_same_way_every_time() -> None:
    board = presets.load_preset("rooms").board
    first = cuts_of.__wrapped__(board)
    assert first == cuts_of.__wrapped__(board) == cuts_of(board)
    assert not isinstance(first, str) and tile(board, (1, 1), joined_first=False) in first


def test_inside_a_block_the_snake_goes_round_its_rim() -> None:
    board = Board.open(2, 3)
    grid = build_tiled_grid(board, 0, [Rect(0, 0, 2, 3)])
    c, seen = 0, []
    for _ in range(6):
        seen.append(grid.points[c])
        c = grid.dflt[c]
    assert c == 0
    assert seen == [Point(0, 0), Point(0, 1), Point(0, 2), Point(1, 2), Point(1, 1), Point(1, 0)]
    assert all(x < 0 for x in grid.cross)  # one block: nowhere to cross to


# Cuts with dominoes: two 2x2 blocks joined only through a domino between them, the same
# lying, and a row of dominoes between two rows of 2x2 blocks, each domino joining one above
# and one below. The tiler cuts no dominoes (docs/tuning.md, "Dominoes in the cut"), but the rim
# moves, the mirror and the tree's checks take them as they are.
_SQUARES = [Rect(x, y, 2, 2) for y in (0, 3) for x in (0, 2, 4)]
DOMINO_CUTS = {
    "upright": (5, 2, [Rect(0, 0, 2, 2), Rect(2, 0, 1, 2), Rect(3, 0, 2, 2)]),
    "lying": (2, 5, [Rect(0, 0, 2, 2), Rect(0, 2, 2, 1), Rect(0, 3, 2, 2)]),
    "row": (6, 5, [*_SQUARES, *(Rect(x, 2, 2, 1) for x in (0, 2, 4))]),
}


@pytest.mark.parametrize("turning", [0, 1])
@pytest.mark.parametrize("name", ["upright", "lying"])
def test_a_domino_goes_a_b_a_and_joins_the_blocks_on_its_long_sides(
    turning: int, name: str
) -> None:
    width, height, rects = DOMINO_CUTS[name]
    board = Board.open(width, height)
    grid = build_tiled_grid(board, turning, rects)
    domino = [grid.index(p) for p in rects[1].cells(board) or ()]
    assert [grid.dflt[c] for c in domino] == domino[::-1]
    # Each of its cells crosses to one side: the domino joins both squares.
    assert sorted(grid.block[grid.cross[c]] for c in domino) == [0, 2]


@pytest.mark.parametrize("turning", [0, 1])
@pytest.mark.parametrize("name", list(DOMINO_CUTS))
def test_the_cycle_holds_the_snake_at_every_move_on_a_cut_with_dominoes(
    turning: int, name: str
) -> None:
    width, height, rects = DOMINO_CUTS[name]
    board = Board.open(width, height)
    grid = build_tiled_grid(board, turning, rects)
    for seed in range(3):
        game = Game(Level(board, (Point(0, 0),), Direction.DOWN), seed=seed)
        solver = TreeSolver()
        solver.setup(game, [grid])
        while not game.over:
            assert_body_on_cycle(game, solver)
            game.step(solver.next_direction(game))
        assert game.outcome is Outcome.WON


@pytest.mark.parametrize("turning", [0, 1])
def test_inside_a_notched_block_the_snake_goes_round_all_its_cells_and_crosses_out_of_it(
    turning: int,
) -> None:
    board = Board.from_rows(("..#..", ".....", "....."))
    grid = build_tiled_grid(board, turning, [Rect(0, 0, 5, 3, ((2, 0),))])
    c, seen = grid.index(Point(0, 0)), set()
    for _ in range(14):
        seen.add(c)
        c = grid.dflt[c]
    assert c == grid.index(Point(0, 0)) and len(seen) == 14 == board.free_count
    # It goes round the way that leaves the block across the most sides: the cross move of
    # every cell but the two at the notch's inner corners leads off the board or into the wall
    # (the other way round, nearly all would lead back into the block).
    outward = 0
    for c in grid.open_cells:
        turns, p = grid.turns[c], grid.points[c]
        assert turns is not None and board.step(p, turns[0]) == grid.points[grid.dflt[c]]
        q = board.step(p, turns[1])
        outward += q is None or not board.is_free(q)
    assert outward == 12


@pytest.mark.parametrize("turning", [0, 1])
def test_a_ring_block_winds_the_cycle_round_a_pillar_and_holds_the_snake(turning: int) -> None:
    # An 8x8 board with a 2x2 pillar in the middle: the ring of 12 cells round it is one block,
    # the frame two cells wide round that is cut into 2x2 blocks.
    rows = ["........"] * 3 + ["...##..."] * 2 + ["........"] * 3
    board = Board.from_rows(rows)
    ring = [Point(2, y) for y in range(2, 6)] + [Point(x, 5) for x in range(3, 6)]
    ring += [Point(5, y) for y in range(4, 1, -1)] + [Point(x, 2) for x in range(4, 2, -1)]
    frame = [Rect(x, y, 2, 2) for y in (0, 2, 4, 6) for x in (0, 2, 4, 6)]
    rects = [r for r in frame if r.x in (0, 6) or r.y in (0, 6)]
    grid = build_tiled_grid(board, turning, rects, [ring])
    assert len(grid.blocks) == 13 and {grid.block[grid.index(p)] for p in ring} == {12}
    game = Game(Level(board, (Point(0, 0),), Direction.DOWN), seed=3)
    solver = TreeSolver()
    solver.setup(game, [grid])
    winds = 0
    while not game.over:
        assert_body_on_cycle(game, solver)
        # Until the late game leaves the blocks, the cycle goes round the pillar once: it
        # crosses the ray from the pillar's middle to the right edge down once more than up, or
        # the other way (round blocks alone, as often each way).
        cycle = cycle_of(game, solver)
        crossings = [q.y - p.y for p, q in cycle.items() if p.x > 4 and {p.y, q.y} == {3, 4}]
        winds += solver.late is None
        assert solver.late is not None or abs(sum(crossings)) == 1
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON and winds > 100


@pytest.mark.parametrize(
    ("rows", "wrap"),
    [
        (DOORWAY, False),
        (POST, False),
        (STUB, False),
        (LONE, False),
        (("." * 6,) * 5, True),
        (("." * 5,) * 4, False),
    ],
    ids=["doorway", "post", "stub", "lone wall", "wrapping 6x5", "open 5x4"],
)
# Seeds 2-5 are whole-game sweeps of the same boards: the slow step plays them.
@pytest.mark.parametrize(
    "seed", [*range(2), *(pytest.param(s, marks=pytest.mark.slow) for s in range(2, 6))]
)
def test_the_cycle_holds_the_snake_at_every_move_on_a_cut_board(
    rows: tuple[str, ...], wrap: bool, seed: int
) -> None:
    board = Board.from_rows(rows, wrap=wrap)
    start = Point(0, 0) if board.is_free(Point(0, 0)) else Point(1, 1)
    game = play_checked(Level(board, (start,), Direction.RIGHT), seed)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize(
    ("rows", "why"),
    [
        ((".....",) * 5, "odd number of free cells"),
        ((".#...", ".....", ".....", ".....", "....."), "half light, half dark"),
        (("......", "......", "#.####", "#.####", "......", "......"), "that all join"),
    ],
    ids=["odd", "unbalanced", "one-wide corridor"],
)
def test_boards_no_cut_fits_are_refused_with_the_reason(rows: tuple[str, ...], why: str) -> None:
    game = Game(level_of(rows), seed=1)
    with pytest.raises(SolverUnavailable, match=why):
        TreeSolver().setup(game)


@st.composite
def _walled_boards(draw: st.DrawFn) -> Board:
    """Open boards up to 10x8 with up to four small walls anywhere; a quarter wrap."""
    width, height = draw(st.integers(4, 10)), draw(st.integers(4, 8))
    rows = [["."] * width for _ in range(height)]
    for _ in range(draw(st.integers(0, 4))):
        x, y = draw(st.integers(0, width - 1)), draw(st.integers(0, height - 1))
        w, h = draw(st.sampled_from([(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1)]))
        for dy in range(h):
            for dx in range(w):
                if x + dx < width and y + dy < height:
                    rows[y + dy][x + dx] = "#"
    return Board.from_rows(
        ["".join(r) for r in rows], wrap=draw(st.booleans()) and draw(st.booleans())
    )


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(board=_walled_boards(), seed=st.integers(0, 2**16))
def test_any_board_the_tree_cuts_is_won_with_the_cycle_held_at_every_move(
    board: Board, seed: int
) -> None:
    _won_with_the_cycle_held(board, seed)


@pytest.mark.slow
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(board=_walled_boards(), seed=st.integers(0, 2**16))
def test_many_boards_the_tree_cuts_are_won_with_the_cycle_held_at_every_move(
    board: Board, seed: int
) -> None:
    _won_with_the_cycle_held(board, seed)


def _won_with_the_cycle_held(board: Board, seed: int) -> None:
    assume(board.free_count >= 4)
    level = Level(board, (board.free_cells[0],), Direction.RIGHT)
    solver = TreeSolver()
    try:
        solver.setup(Game(level, seed=seed))
    except SolverUnavailable:
        assume(False)
    assert play_checked(level, seed).outcome is Outcome.WON


@pytest.mark.slow
@pytest.mark.parametrize("name", ["wide-doors", "posts"])
def test_boards_cut_with_notched_blocks_are_won_with_the_cycle_held(name: str) -> None:
    level = load_level_file(EXAMPLES / f"{name}.txt")
    assert play_checked(level, 1, check_every=3).outcome is Outcome.WON


def test_lone_walls_are_ringed_by_the_smallest_notched_blocks_first() -> None:
    # posts: 18 lone walls. With notched blocks of any size placed in the board's order, the
    # first cut boxed six of them in 3x3 rings and the rest in boxes of up to 26 cells.
    board = load_level_file(EXAMPLES / "posts.txt").board
    cut = cuts_of(board)
    assert not isinstance(cut, str)
    notched = [r for r in cut[0] if r.missing]
    assert len(notched) == len(board.walls) == 18
    assert all((r.width, r.height, r.missing) == (3, 3, ((1, 1),)) for r in notched)


def test_pillars_in_the_open_are_cut_with_rings_round_them_before_the_rectangles() -> None:
    # Two 2x2 pillars off any one grid of 2x2 blocks: rectangles cut the board, and rings too.
    rows = ["." * 14] * 3 + ["...##" + "." * 9, "...##...##" + "." * 4, "........##" + "." * 4]
    board = Board.from_rows(rows + ["." * 14] * 4)
    grids = tiled_grids(board)
    assert not isinstance(grids, str)
    rings = [r for r in grids[0][1] if r.ring]
    assert rings and all(len(r.missing) == 4 for r in rings)  # round a pillar
    ringed = [any(r.ring for r in rects) for _, rects, _ in grids]
    assert not all(ringed) and ringed == sorted(ringed, reverse=True)


@pytest.mark.parametrize("x", [0, 4])
def test_a_small_pillar_counts_as_in_the_open_across_a_wrapping_board_s_seam_too(x: int) -> None:
    rows = ["." * 12] * 4 + [("." * x + "##").ljust(12, ".")] * 2 + ["." * 12] * 4
    if x == 0:  # the same pillar split by the seam: one cell each side
        rows[4:6] = ["#" + "." * 10 + "#"] * 2
    assert small_islands(Board.from_rows(rows, wrap=True))
    # Unwrapped, the split pillar's walls touch the board's edge: not in the open.
    assert small_islands(Board.from_rows(rows)) == (x != 0)


def test_a_small_board_with_dead_end_blocks_is_won_without_an_opening() -> None:
    # Found by the test above: rings round two of the walls leave blocks with one neighbour,
    # and an opening on eleven blocks let its escapes take turns until the game stalled.
    rows = (
        "..........",
        "...##.....",
        "...##.....",
        ".......##.",
        ".......##.",
        "..........",
        ".....##...",
        ".....##...",
    )
    board = Board.from_rows(rows)
    level = Level(board, (board.free_cells[0],), Direction.RIGHT)
    solver = TreeSolver()
    solver.setup(Game(level, seed=44151))
    assert solver.tiled and solver.opening is None
    assert play_checked(level, 44151).outcome is Outcome.WON
