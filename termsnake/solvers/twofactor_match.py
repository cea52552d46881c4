"""A 2-factor of a board's free cells: every cell gets two cycle-neighbours, by b-matching.

The checkerboard colouring splits the cells into dark and light, and every move joins a dark
cell to a light one. A 2-factor is then a set of edges giving every cell degree two: a flow of
two units from each dark cell to the light cells, one unit an edge. A greedy pass fills most
of it; Dinic's phases of shortest augmenting paths fill the rest or prove it cannot be done.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from termsnake.solvers.grid import Grid

# The edges of cell c are mate[2c] and mate[2c + 1]; -1 is an empty slot.
Mates = list[int]


def two_factor(grid: Grid, cells: Sequence[int], attempt: int = 0) -> Mates | None:
    """Two neighbours for each free cell (``mate[2c]``, ``mate[2c + 1]``), else None.

    ``attempt`` picks the order the greedy pass takes cells and neighbours in: attempts 0-3 go
    row by row, the others are shuffled by a generator seeded with ``attempt`` alone, so each
    attempt gives the same 2-factor on every machine. The board must be bipartite (it does not
    wrap, or both its sides are even).
    """
    w = grid.width
    mate = [-1] * (2 * grid.cells)
    deg = bytearray(grid.cells)
    dark = [c for c in cells if (c % w + c // w) % 2]
    if 2 * len(dark) != len(cells):
        return None
    order = _neighbour_orders(grid, dark, attempt)
    for u in dark:
        for v in order[u]:
            if deg[u] == 2:
                break
            if deg[v] < 2:
                _link(mate, deg, u, v)
    while True:
        free = [u for u in dark if deg[u] < 2]
        if not free:
            return mate
        dist = _levels(grid, mate, deg, free)
        if dist is None:
            return None
        ptr = [0] * grid.cells
        grew = False
        for u in free:
            while deg[u] < 2 and _augment(grid, mate, deg, dist, ptr, u):
                grew = True
        if not grew:
            return None


def _neighbour_orders(grid: Grid, dark: list[int], attempt: int) -> dict[int, list[int]]:
    # Attempt 0 keeps the board's order (up, down, left, right), which pairs cells into long
    # straight runs; the next three rotate that order, later ones shuffle, so that a 2-factor
    # whose cycles would not join is not rebuilt the same way.
    if attempt < 4:
        return {u: [*grid.adj[u][attempt:], *grid.adj[u][:attempt]] for u in dark}
    rng = random.Random(attempt)
    rng.shuffle(dark)
    order: dict[int, list[int]] = {}
    for u in dark:
        nbrs = list(grid.adj[u])
        rng.shuffle(nbrs)
        order[u] = nbrs
    return order


def _link(mate: Mates, deg: bytearray, a: int, b: int) -> None:
    mate[2 * a + (mate[2 * a] >= 0)] = b
    mate[2 * b + (mate[2 * b] >= 0)] = a
    deg[a] += 1
    deg[b] += 1


def _unlink(mate: Mates, deg: bytearray, a: int, b: int) -> None:
    mate[2 * a + (mate[2 * a] != b)] = -1
    mate[2 * b + (mate[2 * b] != a)] = -1
    deg[a] -= 1
    deg[b] -= 1


def _levels(grid: Grid, mate: Mates, deg: bytearray, free: list[int]) -> list[int] | None:
    """Breadth-first layers of alternating paths from the short dark cells, or None if none
    reaches a short light cell (then the matching is as large as it gets)."""
    adj = grid.adj
    dist = [-1] * grid.cells
    for u in free:
        dist[u] = 0
    frontier = free
    found = False
    while frontier and not found:
        nxt: list[int] = []
        for u in frontier:
            du = dist[u] + 1
            for v in adj[u]:
                if dist[v] >= 0 or mate[2 * u] == v or mate[2 * u + 1] == v:
                    continue
                dist[v] = du
                if deg[v] < 2:
                    found = True
                    continue
                for x in (mate[2 * v], mate[2 * v + 1]):
                    if dist[x] < 0:
                        dist[x] = du + 1
                        nxt.append(x)
        frontier = nxt
    return dist if found else None


def _augment(
    grid: Grid, mate: Mates, deg: bytearray, dist: list[int], ptr: list[int], start: int
) -> bool:
    """One augmenting path from dark ``start`` along the layers, applied; False if none.

    Option k of dark cell u is its neighbour v = adj[u][k // 2] and then v's partner in slot
    k % 2; ``ptr`` remembers, for the whole phase, the options already found to lead nowhere.
    """
    adj = grid.adj
    darks = [start]
    lights: list[int] = []
    while darks:
        u = darks[-1]
        nbrs = adj[u]
        k = ptr[u]
        if k >= 2 * len(nbrs):
            darks.pop()
            if lights:
                lights.pop()
                ptr[darks[-1]] += 1
            continue
        v = nbrs[k >> 1]
        if dist[v] != dist[u] + 1 or mate[2 * u] == v or mate[2 * u + 1] == v:
            ptr[u] += 1
            continue
        if deg[v] < 2:
            lights.append(v)
            _flip(mate, deg, darks, lights)
            return True
        x = mate[2 * v + (k & 1)]
        if dist[x] != dist[v] + 1:
            ptr[u] += 1
            continue
        lights.append(v)
        darks.append(x)
    return False


def _flip(mate: Mates, deg: bytearray, darks: list[int], lights: list[int]) -> None:
    # darks[i] - lights[i] joins the 2-factor; lights[i] - darks[i + 1] leaves it. Unlink first,
    # so that no cell ever holds three edges on the way.
    for i in range(1, len(darks)):
        _unlink(mate, deg, lights[i - 1], darks[i])
    for d, v in zip(darks, lights, strict=True):
        _link(mate, deg, d, v)
