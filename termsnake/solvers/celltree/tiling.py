"""Boards the 2x2 blocks do not fit, cut into thin rectangles: 2x2, 2x3 and 3x2 blocks.

Any rectangle two cells wide (or tall) has a Hamiltonian cycle, its rim, so it can stand in for
a 2x2 block: inside it the snake goes round the rim, and two blocks side by side merge over
any two cells of the shared side. ``tile`` finds such a cut by exact cover, grown from the
blocks placed (the free cell next to them with the fewest ways to be covered first), each new
block lined up with a placed one so that all of them join, and preferring 2x2 blocks on a grid
of the given offset, so that most of the board is cut as an open board would be and the rest
absorbs the odd rows. ``cuts_of`` gathers the cuts of a few such ways, once per board; where
no cut into rectangles is found, it cuts with notched blocks (``notched``) round the walls too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from termsnake.core.board import Board
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.celltree.cover import Cover
from termsnake.solvers.celltree.notched import NOTCH_SIZES, notched_moves
from termsnake.solvers.celltree.walls import small_islands
from termsnake.solvers.hampath import Limit

SHAPES: Final = ((2, 2), (2, 3), (3, 2))
# The grids of 2x2 blocks a cut keeps to where it can: shifted by these offsets.
OFFSETS: Final = ((0, 0), (1, 1), (1, 0), (0, 1))
# Each way out of a block, with the direction along the sides it crosses.
_ACROSS: Final = (
    (Direction.LEFT, Direction.DOWN),
    (Direction.RIGHT, Direction.DOWN),
    (Direction.UP, Direction.RIGHT),
    (Direction.DOWN, Direction.RIGHT),
)
# What each way of choosing the next cell may try (``Cover``): the second fails faster, so it
# can try more; it is tried last, on boards no other way cuts, where more rarely pays.
LIMITS: Final = (Limit(500), Limit(2_000))
# Bigger boards go to replan: cutting one would hold up the first game on it (the times are in
# docs/tuning.md, "Walled boards"), and the search recurses once per block placed, which at
# this size stays well within Python's stack.
MAX_CELLS: Final = 1_200


@dataclass(frozen=True, slots=True)
class Rect:
    """A block: its top-left corner and its size (it may wrap round a wrapping board), less the
    ``missing`` cells of that box (x, y within it), which must be walls or off the board."""

    x: int
    y: int
    width: int
    height: int
    missing: tuple[tuple[int, int], ...] = ()

    def cells(self, board: Board) -> list[Point] | None:
        """Its cells row by row, or None if one is a wall or off the board (or a missing one
        is free)."""
        out = []
        for j in range(self.height):
            for i in range(self.width):
                x, y = self.x + i, self.y + j
                if board.wrap:
                    x, y = x % board.width, y % board.height
                p = Point(x, y)
                if (i, j) in self.missing:
                    if board.is_free(p):
                        return None
                elif board.is_free(p):
                    out.append(p)
                else:
                    return None
        return out

    @property
    def ring(self) -> bool:
        """Whether it is a ring round walls: its missing cells are all inside the box, so its
        cycle goes round them, as no cycle of rectangles can."""
        w, h = self.width, self.height
        return bool(self.missing) and all(0 < i < w - 1 and 0 < j < h - 1 for i, j in self.missing)

    def box_cells(self) -> list[tuple[int, int]]:
        """Its cells' places within the box, in the order of ``cells``."""
        box = ((i, j) for j in range(self.height) for i in range(self.width))
        return [ij for ij in box if ij not in self.missing]


# A notched block's rank in ``_placements`` is this plus its cells: above any rectangle's (a
# rectangle ranks 9 at most), so the notched blocks come after every rectangle.
_NOTCH_RANK = 16
# A box round a hole (``tile``'s ``holes``) comes after every notched block.
_HOLE_RANK = _NOTCH_RANK + 64


def _placements(
    board: Board, offset: tuple[int, int], squares_first: bool, notched: int = 0
) -> list[tuple[int, Rect, list[Point]]]:
    """Every block that fits the board, ranked: the fewer sides off the grid of 2x2 blocks at
    ``offset`` the better (a block that brings the cut back onto the grid comes before one that
    keeps it off), then 2x2 first; or with ``squares_first``, 2x2 first, then on the grid.
    With ``notched``, the notched blocks of at most that many cells in their box round walls
    too, after the rectangles, the fewer cells the sooner."""
    out = []
    ox, oy = offset
    for rect, cells in _rectangles(board):
        x, y, w, h = rect.x, rect.y, rect.width, rect.height
        off = (x + ox) % 2 + (x + w + ox) % 2 + (y + oy) % 2 + (y + h + oy) % 2
        odd = int(w != h)
        out.append(((4 * odd + off) if squares_first else (2 * off + odd), rect, cells))
    if notched:
        # The smaller first: a big block's rim is a long way round, with few ways across it.
        out.extend(
            (_NOTCH_RANK + len(cells), rect, cells)
            for rect, cells in _notched_placements(board)
            if rect.width * rect.height <= notched
        )
    out.sort(key=lambda t: t[0])  # stable: row by row within a rank, as found
    return out


# The same for every grid offset and way of cutting a board (``cuts_of`` tiles one board up to
# twenty times, and finding them was most of a cut's time): found once.
@lru_cache(maxsize=16)
def _rectangles(board: Board) -> tuple[tuple[Rect, list[Point]], ...]:
    """Every rectangle of ``SHAPES`` that fits the board, with its cells, row-major."""
    out = []
    for p in board.free_cells:
        for w, h in SHAPES:
            rect = Rect(p.x, p.y, w, h)
            cells = rect.cells(board)
            if cells is not None and len(set(cells)) == len(cells):
                out.append((rect, cells))
    return tuple(out)


# The same for every grid offset and way of cutting a board: found once.
@lru_cache(maxsize=16)
def _notched_placements(board: Board) -> tuple[tuple[Rect, list[Point]], ...]:
    """Every notched block that fits the board: a box on it with walls in it (and nothing
    else missing) whose free cells have a Hamiltonian cycle."""
    w, h = board.width, board.height
    boxes: set[tuple[int, int, int, int]] = set()
    for wall in board.walls:
        for bw, bh in NOTCH_SIZES:
            for i in range(bw):
                for j in range(bh):
                    x, y = wall.x - i, wall.y - j
                    if board.wrap:
                        if bw <= w and bh <= h:
                            boxes.add((x % w, y % h, bw, bh))
                    elif 0 <= x <= w - bw and 0 <= y <= h - bh:
                        boxes.add((x, y, bw, bh))
    out = []
    for x, y, bw, bh in sorted(boxes, key=lambda b: (b[1], b[0], b[2], b[3])):
        missing = tuple(
            (i, j)
            for j in range(bh)
            for i in range(bw)
            if not board.is_free(Point((x + i) % w, (y + j) % h))
        )
        rect = Rect(x, y, bw, bh, missing)
        cells = rect.cells(board)
        if cells and len(set(cells)) == len(cells) and notched_moves(bw, bh, missing, 0):
            out.append((rect, cells))
    return tuple(out)


# Every game on a board cuts it the same way: bench and serve play many games on a few boards.
@lru_cache(maxsize=16)
def cuts_of(board: Board) -> tuple[tuple[Rect, ...], ...] | str:
    """Every cut ``tile`` finds, each once, or why none was found (the last reason).

    Cutting with ``joined_first`` is slower and its cuts lead less directly across the board,
    so it is tried last; notched blocks only where the first two ways find no cut into
    rectangles (the maze, a wall sticking out one cell)."""
    found: list[tuple[Rect, ...]] = []
    why = ""
    for n, ways in enumerate(_ROUNDS):
        why = _cut_round(board, ways, found) or why
        if found:
            if n == 0 and small_islands(board):
                # Rings round the walls in the open let the cycle go round them, as no cut into
                # rectangles can: the notched cuts with the most rings come first.
                notched: list[tuple[Rect, ...]] = []
                for notched_round in _ROUNDS[1:3]:
                    _cut_round(board, notched_round, notched)
                rings = {cut: sum(r.ring for r in cut) for cut in notched}
                most = max(rings.values(), default=0)
                found[:0] = [cut for cut in notched if most and rings[cut] == most]
            break
    return tuple(found) or why


def _cut_round(
    board: Board, ways: tuple[tuple[bool, bool, int], ...], found: list[tuple[Rect, ...]]
) -> str:
    """Add the cuts of one round of ways to ``found``; the last reason a way found none."""
    why = ""
    for squares_first, joined_first, notched in ways:
        for offset in OFFSETS:
            cut = tile(
                board,
                offset,
                joined_first=joined_first,
                squares_first=squares_first,
                notched=notched,
            )
            if isinstance(cut, str):
                why = cut
            elif cut not in found:
                found.append(cut)
    return why


# The ways ``cuts_of`` cuts a board, (squares_first, joined_first, notched: the most cells of a
# notched block's box, 0 for none), in rounds: a round is tried only if the rounds before it
# found no cut. Small notched blocks first: a big one's rim is a long way round.
SMALL_NOTCH: Final = 18
ANY_NOTCH: Final = max(w * h for w, h in NOTCH_SIZES)
_ROUNDS: Final = (
    ((False, False, 0), (True, False, 0)),
    ((False, False, SMALL_NOTCH),),
    ((False, False, ANY_NOTCH),),
    ((False, True, 0),),
)


def tile(
    board: Board,
    offset: tuple[int, int],
    limit: Limit | None = None,
    *,
    joined_first: bool = False,
    squares_first: bool = False,
    notched: int = 0,
    holes: tuple[Rect, ...] = (),
) -> tuple[Rect, ...] | str:
    """A cut of every free cell into blocks whose sides lie on the grid of 2x2 blocks at
    ``offset`` where they can, or why none was found within ``limit`` (default: LIMITS); with
    ``notched``, notched blocks whose box has at most that many cells too. With ``holes``, a
    board with one cell more of one colour, and boxes (less their walls) with one more of that
    colour too, which the cut may place after every other block: as every other block has as
    many cells of each colour, a cut holds exactly one of them."""
    limit = limit or LIMITS[joined_first]
    if board.free_count % 2 != len(holes[:1]):
        return "the board has an odd number of free cells"
    if board.free_count > MAX_CELLS:
        return f"blocks of other shapes than 2x2 are cut on boards of at most {MAX_CELLS} cells"
    dark = sum((p.x + p.y) % 2 for p in board.free_cells)
    # Every block has as many light cells as dark, where the colours alternate across the edges
    # (on a board that wraps with an odd side they do not).
    if (
        not holes
        and 2 * dark != board.free_count
        and not (board.wrap and (board.width % 2 or board.height % 2))
    ):
        return "the free cells are not half light, half dark like a chessboard's"
    places = _placements(board, offset, squares_first, notched)
    sides = _sides_of(board, False)
    notched_sides = _sides_of(board, True) if notched else sides
    block_sides = [(notched_sides if rect.missing else sides)[rect] for _, rect, _ in places]
    index = {p: i for i, p in enumerate(board.free_cells)}
    for rect in holes:
        cells = rect.cells(board)
        assert cells is not None
        places.append((_HOLE_RANK, rect, cells))
        block_sides.append(_sides(board, cells, index))
    cover = Cover(
        board, [cells for _, _, cells in places], block_sides, limit, joined_first=joined_first
    )
    found = cover.solve(list(range(len(cover.count))))
    if found is None:
        return f"no cut into 2x2, 2x3 and 3x2 blocks found within {limit.nodes} tries"
    if not found:
        return "no cut into 2x2, 2x3 and 3x2 blocks that all join was found"
    return tuple(sorted((places[k][1] for k, _ in cover.trail), key=lambda r: (r.y, r.x)))


# The same blocks fit a board whatever the offset, order and notch size of a cut: their sides
# are found once, the rectangles' and the notched blocks' apart (most boards need no notched).
@lru_cache(maxsize=32)
def _sides_of(board: Board, notched: bool) -> dict[Rect, list[tuple[int, int]]]:
    """Every rectangle (or with ``notched``, every notched block) that fits the board -> its
    ``_sides`` (cells numbered as in ``Cover``)."""
    index = {p: i for i, p in enumerate(board.free_cells)}
    found = (
        _notched_placements(board)
        if notched
        else [(rect, cells) for _, rect, cells in _placements(board, (0, 0), False)]
    )
    return {rect: _sides(board, cells, index) for rect, cells in found}


def _sides(board: Board, cells: list[Point], index: dict[Point, int]) -> list[tuple[int, int]]:
    """The pairs of free cells next to two neighbouring cells of a block, across one side."""
    mine = set(cells)
    out = []
    for a in cells:
        for out_dir, along in _ACROSS:
            a2 = board.step(a, along)
            if a2 not in mine:
                continue
            n1, n2 = board.step(a, out_dir), board.step(a2, out_dir)
            if n1 in index and n2 in index and n1 not in mine and n2 not in mine:
                out.append((index[n1], index[n2]))
    return out
