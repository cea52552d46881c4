"""Hole boxes: boxes round walls with a cell more of the spare colour, in which a hole and the
cell on its diagonal take turns, and the cuts of a board one short of a cycle with one."""

from __future__ import annotations

import pytest
from example_levels import EXAMPLES

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.formats.levelfile import load_level_file
from termsnake.solvers.celltree.blocks import build_tiled_grid
from termsnake.solvers.celltree.holeboxes import (
    hole_boxes,
    hole_cuts,
    hole_grids,
    less_hole,
    switch_fixed,
)
from termsnake.solvers.celltree.tiling import OFFSETS, Rect, tile

# 94 cells of the colour (x + y) % 2 == 0, 93 of the other.
ODD_WALLS = load_level_file(EXAMPLES / "odd-walls.txt").board
# The box round odd-walls' lower right walls: the only block (36 cells, less 7 walls) that holds
# the cell between them, with a cell more of that colour.
BOX = Rect(9, 6, 6, 6, ((2, 1), (3, 1), (2, 2), (3, 2), (3, 3), (2, 5), (3, 5)))


def test_a_hole_box_has_one_cell_more_of_the_spare_colour_and_holes_that_take_turns() -> None:
    boxes = dict(hole_boxes(ODD_WALLS, 0))
    assert (Point(13, 7), Point(14, 8)) in boxes[BOX]
    for rect, pairs in boxes.items():
        cells = rect.cells(ODD_WALLS)
        assert cells is not None
        assert sum(1 if (p.x + p.y) % 2 == 0 else -1 for p in cells) == 1
        for hole, m in pairs:
            assert (hole.x + hole.y) % 2 == 0 and abs(hole.x - m.x) == abs(hole.y - m.y) == 1
            assert {hole, m, Point(hole.x, m.y), Point(m.x, hole.y)} <= set(cells)


def test_each_cut_of_odd_walls_holds_the_box_round_its_walls_and_covers_every_cell_once() -> None:
    cuts = hole_cuts(ODD_WALLS, 0)
    assert cuts
    for cut in cuts:
        assert BOX in cut
        cells = [p for r in cut for p in r.cells(ODD_WALLS) or []]
        assert sorted(cells) == sorted(ODD_WALLS.free_cells)


def test_every_cycle_of_the_blocks_switches_the_hole_both_ways() -> None:
    found = hole_grids(ODD_WALLS, 0, set())
    assert found
    for grid, rects, turning, hole, m in found:
        assert less_hole(BOX, hole) in rects and switch_fixed(grid, hole, m)
        moved = [less_hole(BOX, m) if r == less_hole(BOX, hole) else r for r in rects]
        other = build_tiled_grid(ODD_WALLS.with_walls([m]), turning, moved)
        assert switch_fixed(other, m, hole)


def test_a_hole_never_goes_where_the_start_body_or_food_is() -> None:
    taken = {Point(13, 7)}
    assert all(hole not in taken for *_, hole, _ in hole_grids(ODD_WALLS, 0, taken))


@pytest.mark.parametrize(
    "board",
    [
        # (0, 0) has one way in: no block holds it.
        Board.from_rows([".#.....", ".#.....", ".......", ".......", "...#..."]),
        Board.open(6, 4, wrap=True).with_walls([Point(2, 2)]),
    ],
)
def test_boards_with_a_dead_end_or_that_wrap_have_none(board: Board) -> None:
    assert hole_boxes(board, 0) == hole_boxes(board, 1) == ()


def test_a_cut_with_hole_boxes_is_of_a_board_with_an_odd_number_of_cells() -> None:
    board = Board.open(6, 4)
    box = Rect(0, 0, 3, 3)
    assert all(isinstance(tile(board, offset, holes=(box,)), str) for offset in OFFSETS)
