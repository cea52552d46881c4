"""The board cut into blocks: ``BlockGrid``, the two moves of each cell, and the block graph.

The blocks are 2x2 (``cuts`` tries every grid of them first), or where no grid fits, 2x2, 2x3
and 3x2, and notched ones round walls (``tiling``). Inside a block the snake always goes round
its rim (a notched block's Hamiltonian cycle) the same way, so each
cell has two moves: the default move that stays in the block, or the cross move into the next
block over an edge of the block graph. Cells are numbered ``y * width + x``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final

from termsnake.core.board import Board
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.celltree.notched import CROSS, notched_moves
from termsnake.solvers.celltree.tiling import OFFSETS, Rect, cuts_of

_D, _U, _L, _R = Direction.DOWN, Direction.UP, Direction.LEFT, Direction.RIGHT
# (x % 2, y % 2) -> (default move inside the block, cross move out of it), for both turnings.
_TURNS: Final[tuple[dict[tuple[int, int], tuple[Direction, Direction]], ...]] = (
    {(0, 0): (_D, _L), (0, 1): (_R, _D), (1, 1): (_U, _R), (1, 0): (_L, _U)},
    {(0, 0): (_R, _U), (1, 0): (_D, _R), (1, 1): (_L, _D), (0, 1): (_U, _L)},
)
# Every way to cut a board: the blocks shifted by OFFSETS, each turning both ways round.
TURNINGS: Final = (0, 1)
_MIRRORED: Final = {_D: _R, _R: _D, _U: _L, _L: _U}  # each move mirrored along the diagonal


@dataclass(slots=True)
class BlockGrid:
    """The two-moves-per-cell graph of a board cut into blocks, for one turning."""

    board: Board
    points: list[Point]  # cell index -> point (index = y * width + x)
    dflt: list[int]  # cell -> its default (in-block) successor, -1 for walls
    cross: list[int]  # cell -> its cross successor, -1 if none
    turns: list[tuple[Direction, Direction] | None]  # cell -> (default, cross) move, None: wall
    cedge: list[int]  # cell -> the block edge its cross move uses, -1 if none
    block: list[int]  # cell -> its block, -1 for walls
    ends: list[tuple[int, int]]  # edge -> its two blocks
    adj: list[list[tuple[int, int]]]  # block -> (edge, other block)
    blocks: list[int]  # the free blocks
    block_free: list[bool]  # block -> whether it is free
    cells_of: list[list[int]]  # block -> its cells (none for walls)
    pred: list[list[int]]  # cell -> the cells whose default or cross move enters it
    ways: list[tuple[int, ...]]  # cell -> its default and cross successors that exist
    crossing: list[tuple[int, ...]]  # cell -> its cross successor, if any
    nbrs: list[list[int]]  # cell -> the free cells next to it
    open_cells: list[int]  # the cells that are not wall
    tiled: bool = False  # cut into blocks of other shapes than 2x2 (``tiling``)
    # cell -> (cedge, cross, ways, crossing): what the planner's search reads of a cell, at once
    step_info: list[tuple[int, int, tuple[int, ...], tuple[int, ...]]] = field(init=False)

    def __post_init__(self) -> None:
        self.step_info = list(zip(self.cedge, self.cross, self.ways, self.crossing, strict=True))

    def index(self, p: Point) -> int:
        """The cell index of a point."""
        return p.y * self.board.width + p.x


def cuts(board: Board) -> Iterator[BlockGrid | str]:
    """Every block grid of ``board``, or why an offset cannot cut it (once for both turnings):
    the grids of 2x2 blocks, then the cuts into 2x2, 2x3 and 3x2 blocks."""
    for offset in OFFSETS:
        for turning in TURNINGS:
            grid = build_grid(board, turning, offset)
            yield grid
            if isinstance(grid, str):
                break
    tilings = tiled_grids(board)
    if isinstance(tilings, str):
        yield tilings
        return
    yield from (grid for grid, _, _ in tilings)


def tiled_grids(board: Board) -> list[tuple[BlockGrid, tuple[Rect, ...], int]] | str:
    """The grids of ``tiling``'s cuts of ``board``, each with its blocks and turning, or why it
    has none. The grids whose ways lead most directly across the board first: a doorway whose
    blocks do not line up is a wall to the tree, and costs a detour round the other rooms."""
    tilings = cuts_of(board)
    if isinstance(tilings, str):
        return tilings
    grids = [(build_tiled_grid(board, t, list(r)), r, t) for r in tilings for t in TURNINGS]
    # Rings round walls first (the cycle may go round those walls), then by spread.
    return sorted(grids, key=lambda found: (not any(r.ring for r in found[1]), spread(found[0])))


def build_grid(board: Board, turning: int, offset: tuple[int, int] = (0, 0)) -> BlockGrid | str:
    """The block graph of ``board`` for turning 0 or 1, or why the board cannot be cut so.

    ``offset`` shifts the blocks: with (1, 1) the first block starts at (-1, -1), which suits
    boards framed by a wall.
    """
    block = _blocks_of(board, offset)
    if isinstance(block, str):
        return block
    n = board.width * board.height
    points = [Point(i % board.width, i // board.width) for i in range(n)]
    moves, dflt, cross, cedge, ends = _moves(board, block, points, _TURNS[turning], offset)
    return _grid(board, points, block, moves, dflt, cross, cedge, ends, _block_count(board, offset))


def _grid(
    board: Board,
    points: list[Point],
    block: list[int],
    moves: list[tuple[Direction, Direction] | None],
    dflt: list[int],
    cross: list[int],
    cedge: list[int],
    ends: list[tuple[int, int]],
    count: int,
) -> BlockGrid:
    """The grid of these moves, with the block graph of ``count`` blocks (free or not)."""
    n = len(points)
    adj: list[list[tuple[int, int]]] = [[] for _ in range(count)]
    for e, (a, b) in enumerate(ends):
        adj[a].append((e, b))
        adj[b].append((e, a))
    blocks = sorted({b for b in block if b >= 0})
    free = set(blocks)
    return BlockGrid(
        board,
        points,
        dflt,
        cross,
        moves,
        cedge,
        block,
        ends,
        adj,
        blocks,
        [b in free for b in range(count)],
        [[c for c in range(n) if block[c] == b] for b in range(count)],
        pred_of(dflt, cross),
        [tuple(d for d in (dflt[c], cross[c]) if d >= 0) for c in range(n)],
        [(x,) if x >= 0 else () for x in cross],
        _neighbours(board, block, points),
        [c for c in range(n) if block[c] >= 0],
    )


def spread(grid: BlockGrid, sources: int = 8) -> int:
    """How many moves along the blocks' ways the cells are from a few cells spread over the
    board, in all: the fewer, the more directly the ways lead across it."""
    cells = grid.open_cells
    total = 0
    for source in cells[:: max(1, len(cells) // sources)]:
        dist = {source: 0}
        queue = deque([source])
        while queue:
            a = queue.popleft()
            for b in grid.ways[a]:
                if b not in dist:
                    dist[b] = dist[a] + 1
                    queue.append(b)
        total += sum(dist.values())
    return total


def leaf_blocks(grid: BlockGrid) -> int:
    """How many blocks have only one neighbouring block: every cycle of the blocks goes into
    each of them and back out the same side, like the snake into a dead end."""
    free = grid.block_free
    return sum(1 for b in grid.blocks if len({o for _, o in grid.adj[b] if free[o]}) == 1)


def build_tiled_grid(
    board: Board, turning: int, rects: list[Rect], rings: Sequence[Sequence[Point]] = ()
) -> BlockGrid:
    """The block graph of ``board`` cut into ``rects`` (see ``tiling``), for turning 0 or 1;
    each of ``rings`` (cells in the order of a cycle, with the blocks' rims' orientation for
    turning 0) is one more block, gone round along that cycle. Each of ``rects`` must fit
    ``board`` (``Rect.cells`` is not None): ``tiling``'s cuts do."""
    n = board.width * board.height
    w = board.width
    points = [Point(i % w, i // w) for i in range(n)]
    block = [-1] * n
    moves: list[tuple[Direction, Direction] | None] = [None] * n
    dflt = [-1] * n
    for b, ring in enumerate(rings, start=len(rects)):
        way = list(ring) if turning == 0 else list(ring)[::-1]
        for here, after in zip(way, way[1:] + way[:1], strict=True):
            c = here.y * w + here.x
            default = next(d for d in (_U, _D, _L, _R) if board.step(here, d) == after)
            block[c], dflt[c] = b, after.y * w + after.x
            moves[c] = (default, CROSS[turning][default])
    for b, rect in enumerate(rects):
        cells = rect.cells(board)
        assert cells is not None
        notched = (
            notched_moves(rect.width, rect.height, rect.missing, turning) if rect.missing else {}
        )
        for (i, j), p in zip(rect.box_cells(), cells, strict=True):
            c = p.y * w + p.x
            block[c] = b
            moves[c] = turns = (
                notched[i, j] if notched else _rim_move(i, j, rect.width, rect.height, turning)
            )
            q = board.step(p, turns[0])
            assert q is not None
            dflt[c] = q.y * w + q.x
    cross, cedge, ends = _rim_crossings(board, block, moves, dflt)
    grid = _grid(board, points, block, moves, dflt, cross, cedge, ends, len(rects) + len(rings))
    grid.tiled = True
    return grid


def _rim_move(i: int, j: int, width: int, height: int, turning: int) -> tuple[Direction, Direction]:
    """The (default, cross) move of the cell (i, j) of a block going round its rim: down the
    left side first (turning 0) or right along the top (turning 1, turning 0 mirrored along the
    diagonal); the cross move leaves the block at right angles to the default one."""
    if turning:
        default, cross = _rim_move(j, i, height, width, 0)
        return _MIRRORED[default], _MIRRORED[cross]
    if i == 0 and j < height - 1:
        return _D, _L
    if j == height - 1 and i < width - 1:
        return _R, _D
    if i == width - 1 and j > 0:
        return _U, _R
    return _L, _U


def _rim_crossings(
    board: Board,
    block: list[int],
    moves: list[tuple[Direction, Direction] | None],
    dflt: list[int],
) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    """Each cell's cross successor and edge, and each edge's two blocks: a cell may cross where
    the block over the side runs the other way along it (so the two rims merge)."""
    w = board.width
    n = len(block)
    cross, cedge = [-1] * n, [-1] * n
    ends: list[tuple[int, int]] = []
    for i in range(n):
        turns = moves[i]
        if turns is None or cross[i] >= 0:
            continue
        p, d = Point(i % w, i // w), Point(dflt[i] % w, dflt[i] // w)
        q, r = board.step(p, turns[1]), board.step(d, turns[1])
        if q is None or r is None:
            continue
        j, k = q.y * w + q.x, r.y * w + r.x
        if block[j] < 0 or block[j] == block[i] or block[k] != block[j] or dflt[k] != j:
            continue
        cross[i], cross[k], cedge[i], cedge[k] = j, dflt[i], len(ends), len(ends)
        ends.append((block[i], block[j]))
    return cross, cedge, ends


def _block_count(board: Board, offset: tuple[int, int]) -> int:
    """How many blocks (free or not) a row-major numbering of the blocks spans."""
    w, h = board.width, board.height
    if board.wrap:
        return (w // 2) * (h // 2)
    return ((w + offset[0] + 1) // 2) * ((h + offset[1] + 1) // 2)


def _blocks_of(board: Board, offset: tuple[int, int]) -> list[int] | str:
    """Cell -> its block (-1 for walls), or why some block is not four free cells."""
    w, h = board.width, board.height
    ox, oy = offset
    if board.wrap and (w % 2 or h % 2):
        return f"the board wraps with an odd side ({w}x{h})"
    bw = w // 2 if board.wrap else (w + ox + 1) // 2
    members: dict[int, list[Point]] = {}
    for p in board.free_cells:
        bx = ((p.x + ox) % w) // 2 if board.wrap else (p.x + ox) // 2
        by = ((p.y + oy) % h) // 2 if board.wrap else (p.y + oy) // 2
        members.setdefault(by * bw + bx, []).append(p)
    block = [-1] * (w * h)
    for b, cells in members.items():
        if len(cells) != 4:
            corner = min(cells)
            where = board.where(corner)
            return f"the 2x2 block holding the cell at {where} is part wall or off the board"
        for p in cells:
            block[p.y * w + p.x] = b
    return block


def _moves(
    board: Board,
    block: list[int],
    points: list[Point],
    turns: dict[tuple[int, int], tuple[Direction, Direction]],
    offset: tuple[int, int],
) -> tuple[
    list[tuple[Direction, Direction] | None],
    list[int],
    list[int],
    list[int],
    list[tuple[int, int]],
]:
    """Each cell's (default, cross) move, default successor, cross successor and cross edge,
    and each edge's two blocks."""
    w = board.width
    n = len(points)
    dflt, cross, cedge = [-1] * n, [-1] * n, [-1] * n
    moves: list[tuple[Direction, Direction] | None] = [None] * n
    keys: dict[tuple[int, Direction], int] = {}
    ends: list[tuple[int, int]] = []
    for i, p in enumerate(points):
        if block[i] < 0:
            continue
        d_dir, c_dir = moves[i] = turns[((p.x + offset[0]) % 2, (p.y + offset[1]) % 2)]
        q = board.step(p, d_dir)
        assert q is not None
        dflt[i] = q.y * w + q.x
        q = board.step(p, c_dir)
        if q is None or block[q.y * w + q.x] < 0 or block[q.y * w + q.x] == block[i]:
            continue
        j = q.y * w + q.x
        # One key per edge, seen from its left or upper block, so both cells crossing it share it.
        key = (block[i], c_dir) if c_dir in (_R, _D) else (block[j], c_dir.opposite)
        if key not in keys:
            keys[key] = len(ends)
            ends.append((block[i], block[j]))
        cross[i], cedge[i] = j, keys[key]
    return moves, dflt, cross, cedge, ends


def _neighbours(board: Board, block: list[int], points: list[Point]) -> list[list[int]]:
    """Cell -> the free cells next to it."""
    out: list[list[int]] = [[] for _ in points]
    for c, p in enumerate(points):
        if block[c] < 0:
            continue
        for d in (_U, _D, _L, _R):
            q = board.step(p, d)
            if q is not None and block[q.y * board.width + q.x] >= 0:
                out[c].append(q.y * board.width + q.x)
    return out


def pred_of(dflt: list[int], cross: list[int]) -> list[list[int]]:
    """Cell -> the cells whose default or cross move enters it."""
    pred: list[list[int]] = [[] for _ in dflt]
    for c, (d, x) in enumerate(zip(dflt, cross, strict=True)):
        if d >= 0:
            pred[d].append(c)
        if x >= 0:
            pred[x].append(c)
    return pred


def direction(g: BlockGrid, a: int, b: int) -> Direction:
    """The move from cell ``a`` to the next cell ``b``: one of its two moves, or (in the late
    game, off the blocks' ways) whichever move leads there."""
    turns = g.turns[a]
    if turns is not None and b == g.dflt[a]:
        return turns[0]
    if turns is not None and b == g.cross[a]:
        return turns[1]
    pa, pb = g.points[a], g.points[b]
    for d in (_U, _D, _L, _R):
        if g.board.step(pa, d) == pb:
            return d
    raise AssertionError("cells are not adjacent")  # pragma: no cover
