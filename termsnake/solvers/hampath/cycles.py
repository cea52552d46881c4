"""Hamiltonian cycles over a board's free cells: constructions, the bounded search, a checker."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.grid import Grid, checkerboard, grid_of
from termsnake.solvers.hampath.limit import DEFAULT_BUDGET, Limit
from termsnake.solvers.hampath.search import search
from termsnake.solvers.hampath.twofactor import find_two_factor_cycle, two_factor_of
from termsnake.solvers.hampath.twofactor_match import Mates

CycleStatus = Literal["found", "none", "unknown"]

# The limit ``termsnake levels`` and the hamilton solver use, so that they always agree.
DEFAULT_LIMIT: Final = Limit.of_budget(DEFAULT_BUDGET)
# After this many restarts of the search, the 2-factor method may take up to half the nodes
# left, at most TWO_FACTOR_NODES.
TWO_FACTOR_AFTER: Final = 2
TWO_FACTOR_NODES: Final = 200_000
NO_TWO_FACTOR: Final = (
    "the free cells cannot all have two neighbours on a cycle at once: the walls leave too few "
    "ways between some of them (in a corner or a corridor, say)"
)
# Each restart of the search is allowed twice the positions of the one before, from this many.
FIRST_LIMIT: Final = 4000


@dataclass(frozen=True, slots=True)
class CycleResult:
    """The outcome of a cycle search: ``found`` (with the cycle), ``none`` or ``unknown``.

    ``cycle`` visits every free cell once, each cell adjacent to the next (wrap included) and
    the last to the first. ``reason`` says why there is no cycle, or why the search gave up.
    """

    status: CycleStatus
    cycle: tuple[Point, ...] | None = None
    reason: str = ""

    @property
    def found(self) -> bool:
        """Whether a cycle was found."""
        return self.status == "found"


# (board, its file's lines, node limit) -> result. Boards are frozen, hence hashable. Keyed by
# the limit too: a result reused from another limit would make the answer depend on what was
# asked before; and by the lines, which a board's equality leaves out but its reasons name.
_CACHE: dict[tuple[Board, tuple[int, ...], int], CycleResult] = {}
_CACHE_SIZE = 128


def find_cycle(board: Board, limit: Limit = DEFAULT_LIMIT) -> CycleResult:
    """A Hamiltonian cycle of ``board``'s free cells, or why there is none (cached per board
    and limit).

    Open rectangles, wrapping tori and boards made of 2x2 blocks are built directly; a board
    whose cells cannot all have two neighbours on a cycle (no 2-factor: a matching, exact on
    boards that wrap with an odd side too) has none; anything
    else goes to the pruned search of :mod:`~termsnake.solvers.hampath.search` and, after a few
    of its restarts find nothing, to the 2-factor join of :mod:`~termsnake.solvers.hampath.
    twofactor`, within ``limit``. The answer depends only on the board and the limit, never on
    the machine.
    """
    key = (board, board.file_lines, limit.nodes)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    result = _find(board, limit)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.clear()
    _CACHE[key] = result
    return result


def check_cycle(board: Board, cycle: Sequence[Point]) -> list[str]:
    """The problems that stop ``cycle`` from being a Hamiltonian cycle of ``board`` (none: [])."""
    problems: list[str] = []
    if not cycle:
        return ["the cycle is empty"]
    counts: dict[Point, int] = {}
    for p in cycle:
        counts[p] = counts.get(p, 0) + 1
    for p, k in counts.items():
        if not board.is_free(p):
            problems.append(f"{board.where(p)} is a wall or off the board")
        elif k > 1:
            problems.append(f"{board.where(p)} is visited {k} times")
    missing = [p for p in board.free_cells if p not in counts]
    if missing:
        problems.append(
            f"{len(missing)} free cells are not visited, e.g. {board.where(missing[0])}"
        )
    # A one-cell board is its own (degenerate) cycle; otherwise every step must be a move.
    if len(cycle) > 1:
        for i, a in enumerate(cycle):
            b = cycle[(i + 1) % len(cycle)]
            if all(q != b for _, q in board.neighbours(a)):
                problems.append(f"{board.where(a)} -> {board.where(b)} is not a move on this board")
    return problems


def _find(board: Board, limit: Limit) -> CycleResult:
    grid = grid_of(board)
    cells = board.free_cells
    n = len(cells)
    if n == 0:
        return CycleResult("none", None, "the board has no free cells")
    # 1. Reasons there can be none: disconnected cells, dead ends, checkerboard parity.
    unreachable = _unreachable(grid, cells)
    if unreachable is not None:
        return CycleResult(
            "none",
            None,
            f"the free cells are not all connected: the cell at {board.where(unreachable)} "
            f"cannot be reached from the one at {board.where(cells[0])}",
        )
    if n <= 2:
        # Too small for a real cycle, and a snake fills it without ever turning back.
        return CycleResult("found", tuple(cells), "")
    for p in cells:
        if len(grid.adj[grid.index(p)]) < 2:
            return CycleResult("none", None, f"a dead-end cell at {board.where(p)}")
    parity = _parity_reason(board, grid, cells)
    if parity is not None:
        return CycleResult("none", None, parity)
    # 2. Constructions, each checked before it is trusted.
    for build in (_rectangle_cycle, _torus_cycle, _block_cycle):
        cycle = build(board)
        if cycle is not None and not check_cycle(board, cycle):
            return CycleResult("found", cycle, "")
    # 3. A cycle gives every cell two neighbours on it: a matching says exactly whether the
    #    cells can all have two (a 2-factor), cheaply.
    first = two_factor_of(grid, [grid.index(p) for p in cells])
    if first is None:
        return CycleResult("none", None, NO_TWO_FACTOR)
    # 4. The pruned search, within ``limit``; the 2-factor's turn starts from that one.
    return _search(board, grid, limit, first)


def _unreachable(grid: Grid, cells: Sequence[Point]) -> Point | None:
    start = grid.index(cells[0])
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        for v in grid.adj[u]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    for p in cells:
        if grid.index(p) not in seen:
            return p
    return None


def _parity_reason(board: Board, grid: Grid, cells: Sequence[Point]) -> str | None:
    # Colour the cells like a checkerboard: every move changes colour, so a cycle alternates and
    # needs as many cells of each. Moves across the seam of a wrapping board's odd side break
    # the colouring (unless walls leave none).
    if not checkerboard(grid):
        return None
    n = len(cells)
    if n % 2:
        if not board.wrap:
            where = "on a board that does not wrap"
        elif board.width % 2 == 0 and board.height % 2 == 0:
            where = "on a board with even sides"
        else:
            where = "where no move crosses the seam of an odd side"
        return f"an odd number of free cells ({n}) {where}"
    dark = sum((p.x + p.y) % 2 for p in cells)
    if dark * 2 != n:
        return (
            f"the free cells are {n - dark} light and {dark} dark on a checkerboard; every move "
            "changes colour, so a cycle needs as many of each"
        )
    return None


def zigzag(x0: int, y0: int, w: int, h: int) -> list[Point]:
    """A cycle of the w x h rectangle at (x0, y0); needs h even and w >= 2."""
    out = [Point(x0 + x, y0) for x in range(w)]
    for y in range(1, h):
        xs = range(w - 1, 0, -1) if y % 2 else range(1, w)
        out.extend(Point(x0 + x, y0 + y) for x in xs)
    out.extend(Point(x0, y0 + y) for y in range(h - 1, 0, -1))
    return out


def _rectangle_cycle(board: Board) -> tuple[Point, ...] | None:
    """The classic zig-zag when the free cells form one rectangle (a walled room included)."""
    cells = board.free_cells
    x0 = min(p.x for p in cells)
    y0 = min(p.y for p in cells)
    w = max(p.x for p in cells) - x0 + 1
    h = max(p.y for p in cells) - y0 + 1
    if w * h != len(cells) or w < 2 or h < 2:
        return None
    if h % 2 == 0:
        return tuple(zigzag(x0, y0, w, h))
    if w % 2 == 0:
        # Zig-zag the transposed rectangle, then swap the coordinates back.
        return tuple(Point(p.y, p.x) for p in zigzag(y0, x0, h, w))
    return None


def _torus_cycle(board: Board) -> tuple[Point, ...] | None:
    """A cycle of an open wrapping board with both sides odd, which a zig-zag cannot cover.

    Each row is walked whole, left or right, and the walk drops to the next row where it ends:
    a row walked right starts one column further left than the last, a row walked left one
    further right. With k rows walked left out of h, the drift is 2k - h; choosing
    k = (h + w) / 2 makes it exactly w, so the last row drops back onto the first cell.
    """
    w, h = board.width, board.height
    if not board.wrap or board.walls or w % 2 == 0 or h % 2 == 0 or min(w, h) < 3:
        return None
    transpose = h < w
    if transpose:
        w, h = h, w
    k = (h + w) // 2
    out: list[Point] = []
    a = 0
    for y in range(h):
        leftward = y < k
        sign = -1 if leftward else 1
        out.extend(Point((a + sign * i) % w, y) for i in range(w))
        a = (a - sign) % w
    if transpose:
        out = [Point(p.y, p.x) for p in out]
    return tuple(out)


def _block_cycle(board: Board) -> tuple[Point, ...] | None:
    """A cycle for boards made of whole 2x2 blocks: a spanning tree of blocks, walked around.

    Each block starts as its own clockwise 4-cycle; for each tree edge between two blocks the
    two facing sides are swapped for two crossing steps, joining the cycles into one.
    """
    free = set(board.free_cells)
    w, h = board.width, board.height
    if board.wrap and (w % 2 or h % 2):
        return None
    for ox in (0, 1):
        for oy in (0, 1):
            cycle = _blocks_at(board, free, ox, oy)
            if cycle is not None:
                return cycle
    return None


# A 2x2 block: top-left, top-right, bottom-right, bottom-left.
Quad = tuple[Point, Point, Point, Point]


def _blocks_at(board: Board, free: set[Point], ox: int, oy: int) -> tuple[Point, ...] | None:
    """The block cycle with blocks' top-left cells at (ox + 2i, oy + 2j), if such blocks cover
    every free cell and are connected."""
    corners = _blocks(board, free, ox, oy)
    if not corners or 4 * len(corners) != len(free):
        return None
    # Every block starts as a clockwise 4-cycle: top-left, top-right, bottom-right, bottom-left.
    succ: dict[Point, Point] = {}
    for tl, tr, br, bl in corners.values():
        succ[tl], succ[tr], succ[br], succ[bl] = tr, br, bl, tl
    bw, bh = _block_counts(board, ox, oy)

    def key(i: int, j: int) -> tuple[int, int]:
        return (i % bw, j % bh) if board.wrap else (i, j)

    # A breadth-first spanning tree of the blocks; each side of a block joins at most once.
    root = next(iter(corners))
    seen = {root}
    queue = [root]
    for blk in queue:
        i, j = blk
        for di, dj in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            other = key(i + di, j + dj)
            if other in seen or other not in corners:
                continue
            seen.add(other)
            queue.append(other)
            left, right = (blk, other) if di + dj > 0 else (other, blk)
            _, a_tr, a_br, a_bl = corners[left]
            b_tl, b_tr, _, b_bl = corners[right]
            if di:
                # Left block's right side (down) and right block's left side (up) become two
                # crossing steps.
                succ[a_tr], succ[b_bl] = b_tl, a_br
            else:
                # Upper block's bottom side (leftward) and lower block's top side (rightward).
                succ[a_br], succ[b_tl] = b_tr, a_bl
    if len(seen) != len(corners):
        return None
    start = corners[root][0]
    out = [start]
    p = succ[start]
    while p != start and len(out) <= len(free):
        out.append(p)
        p = succ[p]
    return tuple(out) if len(out) == len(free) else None


def _block_counts(board: Board, ox: int, oy: int) -> tuple[int, int]:
    # On a wrapping board (even sides) the block grid wraps too.
    w, h = board.width, board.height
    return (w // 2, h // 2) if board.wrap else ((w - ox) // 2, (h - oy) // 2)


def _blocks(board: Board, free: set[Point], ox: int, oy: int) -> dict[tuple[int, int], Quad]:
    """The whole free 2x2 blocks, block (i, j) having its top-left cell at (ox + 2i, oy + 2j)."""
    w, h, wrap = board.width, board.height, board.wrap

    def cell(x: int, y: int) -> Point | None:
        if wrap:
            return Point(x % w, y % h)
        return Point(x, y) if 0 <= x < w and 0 <= y < h else None

    bw, bh = _block_counts(board, ox, oy)
    corners: dict[tuple[int, int], Quad] = {}
    for j in range(bh):
        for i in range(bw):
            x, y = ox + 2 * i, oy + 2 * j
            tl, tr, br, bl = cell(x, y), cell(x + 1, y), cell(x + 1, y + 1), cell(x, y + 1)
            if tl in free and tr in free and br in free and bl in free:
                assert tl is not None and tr is not None and br is not None and bl is not None
                corners[(i, j)] = (tl, tr, br, bl)
    return corners


def _search(board: Board, grid: Grid, limit: Limit, first: Mates) -> CycleResult:
    """Restarts of the pruned search, each allowed twice the nodes of the one before, ``limit``
    in all.

    A search that runs to the end without hitting its node limit has tried everything, so
    "none" is a proof; running out of nodes is "unknown". The first search starts at the first
    cell with the fewest neighbours; restarts start at another such cell and break ties with a
    generator seeded by the board alone, so the same board and limit give the same answer.
    After TWO_FACTOR_AFTER restarts the 2-factor method (``twofactor``) has its turn, which
    finds cycles on big boards with scattered walls that backtracking never does.
    """
    cells = [grid.index(p) for p in board.free_cells]
    factor_after = TWO_FACTOR_AFTER
    least = min(len(grid.adj[c]) for c in cells)
    corners = [c for c in cells if len(grid.adj[c]) == least]
    rng = random.Random(len(cells))
    allowed = FIRST_LIMIT
    left = limit.nodes
    start, noise = corners[0], None
    while left > 0:
        nodes = min(allowed, left)
        outcome = search(grid, [start], Limit(nodes), noise=noise)
        if isinstance(outcome, list):
            return CycleResult("found", tuple(grid.points[c] for c in outcome), "")
        if outcome == "exhausted":
            return CycleResult("none", None, "an exhaustive search found no Hamiltonian cycle")
        left -= nodes
        allowed *= 2
        factor_after -= 1
        if factor_after == 0:
            # The search did not find one soon: a 2-factor joined into one cycle scales where
            # backtracking does not.
            share = Limit(min(left // 2, TWO_FACTOR_NODES))
            left -= share.nodes
            joined = find_two_factor_cycle(board, share, first)
            if joined is not None and not check_cycle(board, joined):
                return CycleResult("found", joined, "")
        start = rng.choice(corners)
        noise = [rng.random() for _ in range(grid.cells)]
    return CycleResult("unknown", None, f"the search gave up after {limit.nodes} positions")
