"""A 2-factor of a board's free cells: every cell gets two cycle-neighbours, by b-matching.

The checkerboard colouring splits the cells into dark and light, and every move joins a dark
cell to a light one. A 2-factor is then a set of edges giving every cell degree two: a flow of
two units from each dark cell to the light cells, one unit an edge. A greedy pass fills most
of it; shortest augmenting paths, one search from each cell still short, fill the rest or
prove it cannot be done.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from termsnake.solvers.grid import Grid

# The edges of cell c are mate[2c] and mate[2c + 1]; -1 is an empty slot.
Mates = list[int]
# The dark cells an augmenting search may reach, in rounds, before the last, unbounded one.
SEARCH_REACH: Final = (16, 64, 256, 1024)


def two_factor(grid: Grid, cells: Sequence[int], attempt: int = 0) -> Mates | None:
    """Two neighbours for each free cell (``mate[2c]``, ``mate[2c + 1]``), else None.

    ``attempt`` picks how it starts: attempts 0-3 lay 2x2 squares from the four offsets and
    fill the rest greedily row by row; later ones fill the board greedily in an order shuffled
    by a generator seeded with ``attempt`` alone. Each attempt gives the same 2-factor on every
    machine. The board must be bipartite (it does not wrap, or both its sides are even).
    """
    w = grid.width
    mate = [-1] * (2 * grid.cells)
    deg = bytearray(grid.cells)
    dark = [c for c in cells if (c % w + c // w) % 2]
    if 2 * len(dark) != len(cells):
        return None
    if attempt < 4:
        lay_squares(grid, mate, deg, attempt & 1, attempt >> 1)
    # Shuffles ``dark`` itself on later attempts: the greedy pass and the searches follow it.
    order = _neighbour_orders(grid, dark, attempt)
    for u in dark:
        for v in order[u]:
            if deg[u] == 2:
                break
            if deg[v] < 2 and mate[2 * u] != v and mate[2 * u + 1] != v:
                link(mate, deg, u, v)
    seen = [0] * grid.cells
    via = [0] * grid.cells
    epoch = 0
    short = [u for u in dark if deg[u] < 2]
    # Searches that may reach ever more cells: the close deficits pair up first, so that a
    # cell short of an edge is not filled from far away, leaving its neighbour to go further.
    for reach in (*SEARCH_REACH, grid.cells):
        for u in short:
            while deg[u] < 2:
                epoch += 1
                if not _augment(grid, mate, deg, u, seen, epoch, via, reach):
                    if reach >= grid.cells:
                        return None
                    break
        short = [u for u in short if deg[u] < 2]
    return mate


def lay_squares(grid: Grid, mate: Mates, deg: bytearray, ox: int, oy: int) -> None:
    """Lay the board with 2x2 squares from (ox, oy), each square's free sides in the 2-factor.

    On an open board that is a 2-factor of 4-cycles that all join one another; a wall leaves
    its two neighbours in the square one edge short, so the augmenting paths that fill them
    run from wall to wall instead of across the board.
    """
    step = grid.step
    free = grid.free
    for y in range(oy, grid.height - 1, 2):
        for x in range(ox, grid.width - 1, 2):
            p = y * grid.width + x
            q, s = step[3][p], step[1][p]
            t = step[3][s] if s >= 0 else -1
            if q < 0 or s < 0 or t < 0 or p in (q, s) or q == t:
                continue
            for a, b in ((p, q), (q, t), (t, s), (s, p)):
                if free[a] and free[b]:
                    link(mate, deg, a, b)


def _neighbour_orders(grid: Grid, dark: list[int], attempt: int) -> dict[int, list[int]]:
    # The first four attempts fill what their squares leave in the board's order; later ones
    # shuffle, so that a 2-factor whose cycles would not join is not rebuilt the same way.
    if attempt < 4:
        return {u: list(grid.adj[u]) for u in dark}
    rng = random.Random(attempt)
    rng.shuffle(dark)
    order: dict[int, list[int]] = {}
    for u in dark:
        nbrs = list(grid.adj[u])
        rng.shuffle(nbrs)
        order[u] = nbrs
    return order


def link(mate: Mates, deg: bytearray, a: int, b: int) -> None:
    """Join ``a`` and ``b`` (each with an edge to spare) in the 2-factor."""
    mate[2 * a + (mate[2 * a] >= 0)] = b
    mate[2 * b + (mate[2 * b] >= 0)] = a
    deg[a] += 1
    deg[b] += 1


def unlink(mate: Mates, deg: bytearray, a: int, b: int) -> None:
    """Take the edge ``a``-``b`` out of the 2-factor."""
    mate[2 * a + (mate[2 * a] != b)] = -1
    mate[2 * b + (mate[2 * b] != a)] = -1
    deg[a] -= 1
    deg[b] -= 1


def _augment(
    grid: Grid,
    mate: Mates,
    deg: bytearray,
    u: int,
    seen: list[int],
    epoch: int,
    via: list[int],
    reach: int,
) -> bool:
    """Breadth-first search for the shortest alternating path from dark ``u`` to a light cell
    short of edges, applied; False if there is none (then there is no 2-factor at all: the
    difference between this b-matching and a 2-factor would hold such a path), or if the
    search queued more than ``reach`` dark cells.

    ``via`` keeps each cell the search reached through; ``seen[c] == epoch`` marks this search.
    """
    adj = grid.adj
    seen[u] = epoch
    queue = [u]
    for x in queue:
        for v in adj[x]:
            if seen[v] == epoch or mate[2 * x] == v or mate[2 * x + 1] == v:
                continue
            seen[v] = epoch
            via[v] = x
            if deg[v] < 2:
                lights = [v]
                darks = [x]
                while x != u:
                    lights.append(via[x])
                    x = via[lights[-1]]
                    darks.append(x)
                _flip(mate, deg, darks[::-1], lights[::-1])
                return True
            for y in (mate[2 * v], mate[2 * v + 1]):
                if seen[y] != epoch:
                    seen[y] = epoch
                    via[y] = v
                    queue.append(y)
        if len(queue) > reach:
            return False
    return False


def _flip(mate: Mates, deg: bytearray, darks: list[int], lights: list[int]) -> None:
    # darks[i] - lights[i] joins the 2-factor; lights[i] - darks[i + 1] leaves it. Unlink first,
    # so that no cell ever holds three edges on the way.
    for i in range(1, len(darks)):
        unlink(mate, deg, lights[i - 1], darks[i])
    for d, v in zip(darks, lights, strict=True):
        link(mate, deg, d, v)
