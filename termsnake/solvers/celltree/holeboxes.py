"""Boxes round a hole, for boards one cell short of a cycle that no corner lets the tree cut.

Such a board has one free cell more of one colour. Where a group of walls needs a notched
block whose box has one more cell of that colour too, no cut into blocks with as many cells of
each colour exists whatever corner is left out: the hole must be in that box. A *hole box* is
a box round walls, less them, with one cell more of the spare colour, and a cell h of that
colour and the cell m on its diagonal (the other two cells of their 2x2 square in the box too)
such that the box less h has a Hamiltonian cycle running a, m, b round that square, and the
box less m the same cycle with a, h, b instead. ``tiling.tile`` cuts the board with one hole
box among its blocks; ``holetree`` leaves out h or m, and moves the hole from one to the other
when food falls in it.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import lru_cache
from typing import Final

from termsnake.core.board import Board
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.celltree.blocks import TURNINGS, BlockGrid, build_tiled_grid, spread
from termsnake.solvers.celltree.notched import notched_moves
from termsnake.solvers.celltree.tiling import ANY_NOTCH, OFFSETS, SMALL_NOTCH, Rect, tile

# The most cells of a hole box's box: one more row or column than a notched block's, since a
# group of walls with the spare colour in excess may need a box round all of it and the hole.
HOLE_BOX: Final = 36
SIZES: Final = tuple((w, h) for w in range(3, 8) for h in range(3, 8) if w * h <= HOLE_BOX)
# The notched blocks the rest of the board may have, a round at a time (as ``tiling.cuts_of``).
_ROUNDS: Final = (0, SMALL_NOTCH, ANY_NOTCH)

# A hole box and the pairs (h, m) of board cells that can take turns as its hole.
HoleBox = tuple[Rect, tuple[tuple[Point, Point], ...]]


@lru_cache(maxsize=16)
def hole_boxes(board: Board, colour: int) -> tuple[HoleBox, ...]:
    """Every hole box round walls of ``board`` whose spare colour is ``colour`` (of
    ``(x + y) % 2``), with its pairs, box by box from the top row; none on a board that wraps
    or has a dead end."""
    if board.wrap or any(sum(1 for _ in board.neighbours(p)) < 2 for p in board.free_cells):
        return ()  # a cell with one way in is on no cycle: no block holds it
    w, h = board.width, board.height
    boxes = {
        (wall.x - i, wall.y - j, bw, bh)
        for wall in board.walls
        for bw, bh in SIZES
        for i in range(bw)
        for j in range(bh)
        if 0 <= wall.x - i <= w - bw and 0 <= wall.y - j <= h - bh
    }
    out = []
    for x, y, bw, bh in sorted(boxes, key=lambda b: (b[1], b[0], b[2], b[3])):
        box = [(i, j) for j in range(bh) for i in range(bw)]
        walls = [(i, j) for i, j in box if not board.is_free(Point(x + i, y + j))]
        cells = {c for c in box if c not in walls}
        if sum(1 if (x + y + i + j) % 2 == colour else -1 for i, j in cells) != 1:
            continue
        pairs = [
            (Point(x + i, y + j), Point(x + mi, y + mj))
            for i, j in sorted(cells, key=lambda c: (c[1], c[0]))
            if (x + y + i + j) % 2 == colour
            for mi, mj in ((i - 1, j - 1), (i + 1, j - 1), (i - 1, j + 1), (i + 1, j + 1))
            if {(mi, mj), (mi, j), (i, mj)} <= cells
            and all(_switches(bw, bh, walls, (i, j), (mi, mj), t) for t in TURNINGS)
        ]
        if pairs:
            out.append((Rect(x, y, bw, bh, tuple(walls)), tuple(pairs)))
    return tuple(out)


def _switches(
    width: int,
    height: int,
    walls: list[tuple[int, int]],
    hole: tuple[int, int],
    m: tuple[int, int],
    turning: int,
) -> bool:
    """Whether the box less ``hole`` has a cycle (its rim for ``turning``), running a, m, b
    round their 2x2 square, and the box less ``m`` has as its rim that cycle with a, hole, b
    instead: after a switch the body is on the blocks of the other cut."""
    with_hole = notched_moves(width, height, _less(walls, hole), turning)
    with_m = notched_moves(width, height, _less(walls, m), turning)
    if not with_hole or not with_m:
        return False
    succ = _successors(with_hole)
    a = next(c for c, after in succ.items() if after == m)
    # a, m, b round the square only if the hole, m's opposite corner, is beside a and b too.
    if Direction.between(a, hole) is None or Direction.between(succ[m], hole) is None:
        return False
    succ[a], succ[hole] = hole, succ.pop(m)
    return succ == _successors(with_m)


def _successors(
    moves: dict[tuple[int, int], tuple[Direction, Direction]],
) -> dict[tuple[int, int], tuple[int, int]]:
    """Each cell's next cell round the cycle of ``notched_moves``'s default moves."""
    return {c: (c[0] + d.dx, c[1] + d.dy) for c, (d, _) in moves.items()}


def _less(walls: list[tuple[int, int]], cell: tuple[int, int]) -> tuple[tuple[int, int], ...]:
    """A box's missing cells, its walls and ``cell``, in ``Rect``'s order (row by row)."""
    return tuple(sorted([*walls, cell], key=lambda c: (c[1], c[0])))


# Every game on a board cuts it the same way (as ``tiling.cuts_of``).
@lru_cache(maxsize=16)
def hole_cuts(board: Board, colour: int) -> tuple[tuple[Rect, ...], ...]:
    """The cuts of ``board`` with one of its hole boxes (less its walls only), each once: the
    first round of notched blocks that finds any, as ``tiling.cuts_of`` does."""
    holes = tuple(rect for rect, _ in hole_boxes(board, colour))
    found: list[tuple[Rect, ...]] = []
    if not holes:
        return ()
    for notched in _ROUNDS:
        for offset in OFFSETS:
            cut = tile(board, offset, notched=notched, holes=holes)
            if not isinstance(cut, str) and cut not in found:
                found.append(cut)
        if found:
            break
    return tuple(found)


def less_hole(rect: Rect, hole: Point) -> Rect:
    """A hole box less ``hole`` too: the notched block the tree plays while it is the hole."""
    return Rect(
        rect.x,
        rect.y,
        rect.width,
        rect.height,
        _less(list(rect.missing), (hole.x - rect.x, hole.y - rect.y)),
    )


# A cut of the board less a hole: its grid, its blocks (the hole box less the hole), its
# turning, the hole and the cell on its diagonal that takes its place at a switch.
HoleCut = tuple[BlockGrid, tuple[Rect, ...], int, Point, Point]


def hole_grids(board: Board, colour: int, taken: Collection[Point]) -> list[HoleCut]:
    """Every cut of ``board`` less a hole in a hole box (none of ``taken``) whose blocks' cycles
    all run round the cell on its diagonal to its neighbours, and with that cell the hole,
    round the hole: the switch is there both ways, whatever the tree. The cuts whose ways lead
    most directly across the board first (as ``blocks.tiled_grids``)."""
    boxes = dict(hole_boxes(board, colour))
    out = []
    for cut in hole_cuts(board, colour):
        box = next(r for r in cut if r in boxes)
        for hole, m in boxes[box]:
            if hole in taken:
                continue
            with_hole = [less_hole(box, hole) if r == box else r for r in cut]
            with_m = [less_hole(box, m) if r == box else r for r in cut]
            less, less_m = board.with_walls([hole]), board.with_walls([m])
            for turning in TURNINGS:
                grid = build_tiled_grid(less, turning, with_hole)
                if switch_fixed(grid, hole, m) and switch_fixed(
                    build_tiled_grid(less_m, turning, with_m), m, hole
                ):
                    out.append((grid, tuple(with_hole), turning, hole, m))
    return sorted(out, key=lambda found: spread(found[0]))


def switch_fixed(grid: BlockGrid, hole: Point, m: Point) -> bool:
    """Whether every cycle of ``grid``'s blocks runs a, m, b round the 2x2 square of ``hole``
    and ``m``: a's and m's default moves lead that way, and neither can cross to another block
    (so no merge of blocks takes them off it)."""
    a, b = grid.index(Point(m.x, hole.y)), grid.index(Point(hole.x, m.y))
    c = grid.index(m)
    crossing = grid.cedge[c] >= 0
    return not crossing and any(
        grid.dflt[first] == c and grid.dflt[c] == last and grid.cedge[first] < 0
        for first, last in ((a, b), (b, a))
    )
