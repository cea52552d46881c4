"""Cycles through every free cell but one or two, the *holes*, for boards a cell or two short
of a cycle.

Every move changes a cell's checkerboard colour, so a Hamiltonian cycle needs as many cells of
each colour. A board with one cell more of one colour (any open board with both sides odd, and
many walled ones) has none, but may have a cycle through all cells but one of that colour; a
board with two more, one through all cells but two of that colour.

A hole is *switchable* on its cycle when the cycle runs a -> m -> b round a corner of it (a and
b both next to the hole, so a, m, b and the hole form a 2x2 square): a -> hole -> b is then a
cycle too, leaving out m. A snake on the cycle reaches food in such a hole by going round to a
and switching; the new hole, m, is switchable again on the new cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from itertools import combinations

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.grid import Grid, distances, grid_of
from termsnake.solvers.hampath.cycles import find_cycle, zigzag
from termsnake.solvers.hampath.limit import Limit
from termsnake.solvers.hampath.search import search

# Holes a search for a first cycle tries, each with an equal share of the limit.
FIRST_HOLES = 4
# The fallback for walled boards (``_walled_hole_cycle``) tries holes until WALLED_HOLES of their
# searches have not proved at once that no cycle goes round them (they ran out of nodes, or found
# a cycle the hole cannot switch on), each with that part of its limit, from the first
# WALLED_CANDIDATES (most holes that cannot work are proved so at once, by the 2-factor test),
# fewer on big boards, where even that proof takes a while: at most WALLED_CELLS over the free
# cells, but never fewer than WALLED_HOLES;
# or pairs of holes from the first WALLED_PAIR_HOLES, at most WALLED_PAIRS of them, each with the
# share a hole alone has (a cycle round two holes that can both move is rarer).
WALLED_HOLES = 8
WALLED_CANDIDATES = 32
WALLED_CELLS = 160_000
WALLED_PAIR_HOLES = 12
WALLED_PAIRS = 24
# Holes (or pairs) whose search ran out of nodes that the fallback tries again, and how many
# times their share each then gets.
DEEPER_TRIES = 3
DEEPER = 4


def spare(grid: Grid) -> tuple[int, int] | None:
    """The colour (0 or 1, of ``(x + y) % 2``) that has one or two free cells more than the
    other, and how many more, on a two-coloured board; None if the board is not two-coloured
    or the counts differ otherwise."""
    board = grid.board
    if board.wrap and (board.width % 2 or board.height % 2):
        return None
    w = grid.width
    counts = [0, 0]
    for c in range(grid.cells):
        if grid.free[c]:
            counts[(c % w + c // w) & 1] += 1
    more = abs(counts[0] - counts[1])
    if more not in (1, 2):
        return None
    return (0 if counts[0] > counts[1] else 1), more


def apart(grid: Grid, a: int, b: int) -> bool:
    """Whether holes at ``a`` and ``b`` are too far apart to share a cell of their switches (no
    2x2 square round one meets one round the other)."""
    w, h = grid.width, grid.height
    dx, dy = abs(a % w - b % w), abs(a // w - b // w)
    if grid.board.wrap:  # the way round the edge may be the shorter
        dx, dy = min(dx, w - dx), min(dy, h - dy)
    return max(dx, dy) > 2


def hole_candidates(
    grid: Grid, colour: int, taken: Collection[int], far_from: int = -1
) -> list[int]:
    """The cells that could be the hole: free, of the spare ``colour``, not ``taken``; those
    with the fewest neighbours first (a corner is the easiest cell to leave out), then those
    furthest from ``far_from`` (if given), then by index."""
    w = grid.width
    dist = distances(grid, far_from, grid.walls) if far_from >= 0 else [0] * grid.cells
    cells = [
        c
        for c in range(grid.cells)
        if grid.free[c] and (c % w + c // w) & 1 == colour and c not in taken
    ]
    return sorted(cells, key=lambda c: (len(grid.adj[c]), -dist[c], c))


def switch_at(
    grid: Grid, succ: Sequence[int], hole: int, prefer: Callable[[int], bool] | None = None
) -> tuple[int, int] | None:
    """Where the cycle given by ``succ`` (cell -> next cell, -1 off it) can switch into
    ``hole``: the cells a and m of the module docstring (the first whose m ``prefer`` holds
    for, if any does), or None if the hole is not switchable."""
    adj = grid.adj[hole]
    found = [(a, m) for a in adj if (m := succ[a]) >= 0 and succ[m] in adj]
    preferred = [(a, m) for a, m in found if prefer is not None and prefer(m)]
    if preferred:
        return preferred[0]
    return found[0] if found else None


def successors(grid: Grid, cycle: Sequence[int]) -> list[int]:
    """Cell -> the next cell of ``cycle`` (-1 for cells off it)."""
    succ = [-1] * grid.cells
    for i, c in enumerate(cycle):
        succ[c] = cycle[(i + 1) % len(cycle)]
    return succ


def hole_cycles(cells: Sequence[Point]) -> tuple[list[Point], list[Point]] | None:
    """The two cycles A and B of the module docstring for free cells forming one rectangle with
    both sides odd (at least 3), as lists of points; None for any other shape."""
    x0 = min(p.x for p in cells)
    y0 = min(p.y for p in cells)
    w = max(p.x for p in cells) - x0 + 1
    h = max(p.y for p in cells) - y0 + 1
    if w * h != len(cells) or w < 3 or h < 3 or w % 2 == 0 or h % 2 == 0:
        return None
    # A zig-zag over rows 1..h-1 (an even number) runs along row 1 from left to right; each pair
    # of row-0 cells above a step of it is taken in on the way: (x, 1) -> (x, 0) -> (x+1, 0) ->
    # (x+1, 1). Row 0 then lacks only its corner, and the zig-zag closes up the left column into
    # (0, 1) -> (1, 1) -> (1, 0).
    rows = zigzag(x0, y0 + 1, w, h - 1)
    a: list[Point] = []
    for p in rows:
        a.append(p)
        dx = p.x - x0
        if p.y == y0 + 1 and dx % 2 == 1:
            a.extend((Point(p.x, y0), Point(p.x + 1, y0)))
    mid, corner = Point(x0 + 1, y0 + 1), Point(x0, y0)
    b = [corner if p == mid else p for p in a]
    return a, b


def find_hole_cycle(
    board: Board, taken: Collection[int], limit: Limit
) -> tuple[list[int], tuple[int, ...]] | None:
    """A cycle (cell indexes) through every free cell but one or two holes, none of them
    ``taken``, and the holes, each switchable on it; None if the board has no spare colour or
    no such cycle was found within ``limit``."""
    grid = grid_of(board)
    found = spare(grid)
    if found is None:
        return None
    colour, more = found
    # An open rectangle has a switchable cycle round a corner hole, built directly.
    built = None if board.wrap else hole_cycles(board.free_cells)
    if built is not None:
        cycle = [grid.index(p) for p in built[0]]
        (hole,) = set(grid.index(p) for p in board.free_cells) - set(cycle)
        if hole not in taken:
            return cycle, (hole,)
    # Half the limit for the plain search, half for the 2-factor way if that finds nothing.
    half = Limit(limit.nodes // 2)
    candidates = hole_candidates(grid, colour, taken)
    tries = _hole_sets(grid, candidates[:FIRST_HOLES], more)
    share = Limit(half.nodes // max(1, len(tries)))
    for holes in tries:
        start = next(
            c
            for c in sorted(range(grid.cells), key=lambda c: len(grid.adj[c]))
            if grid.free[c] and c not in holes
        )
        walk = search(grid, [start], share, skip=holes)
        if isinstance(walk, list) and switchable(grid, walk, holes):
            return walk, holes
    if more == 1:
        count = max(WALLED_HOLES, min(WALLED_CANDIDATES, WALLED_CELLS // len(board.free_cells)))
        tries = _hole_sets(grid, candidates[:count], 1)
        share = Limit(half.nodes // max(1, min(len(tries), WALLED_HOLES)))
        return _walled_hole_cycle(board, grid, tries, share, WALLED_HOLES)
    tries = _hole_sets(grid, candidates[:WALLED_PAIR_HOLES], 2)[:WALLED_PAIRS]
    return _walled_hole_cycle(board, grid, tries, Limit(half.nodes // WALLED_HOLES), WALLED_PAIRS)


def _hole_sets(grid: Grid, candidates: list[int], more: int) -> list[tuple[int, ...]]:
    """The holes to try, in order: each candidate alone, or each pair of them far apart, the
    pairs of the first candidates first (so that no one candidate is in all the first pairs)."""
    if more == 1:
        return [(c,) for c in candidates]
    rank = {c: i for i, c in enumerate(candidates)}
    pairs = [pair for pair in combinations(candidates, 2) if apart(grid, *pair)]
    return sorted(pairs, key=lambda p: (rank[p[1]], rank[p[0]]))


def switchable(grid: Grid, cycle: Sequence[int], holes: Sequence[int]) -> bool:
    """Whether every one of ``holes`` is switchable on ``cycle``."""
    if not holes:
        return True
    succ = successors(grid, cycle)
    return all(switch_at(grid, succ, hole) is not None for hole in holes)


def _walled_hole_cycle(
    board: Board, grid: Grid, tries: list[tuple[int, ...]], share: Limit, most: int
) -> tuple[list[int], tuple[int, ...]] | None:
    """A switchable cycle round holes made walls, by ``find_cycle`` (whose 2-factor way finds
    cycles of walled boards that the plain search above gives up on): the first of ``tries``
    that has one, each within ``share``, until ``most`` searches have spent it (found no proof
    that there is none); failing that, the first DEEPER_TRIES that ran out of nodes, again with
    DEEPER times the share (most holes that cannot work are proved so at once, so the few left
    can have more)."""
    pending = tries
    for limit in (share, Limit(share.nodes * DEEPER)):
        ran_out: list[tuple[int, ...]] = []
        spent = 0
        for holes in pending:
            if spent >= most:
                break
            walled = board.with_walls(grid.points[hole] for hole in holes)
            found = find_cycle(walled, limit)
            if found.cycle is not None:
                cycle = [grid.index(p) for p in found.cycle]
                if switchable(grid, cycle, holes):
                    return cycle, holes
            elif found.status == "unknown":
                ran_out.append(holes)
            spent += found.status != "none"
        pending = ran_out[:DEEPER_TRIES]
    return None
