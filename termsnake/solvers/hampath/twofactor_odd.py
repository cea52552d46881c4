"""A 2-factor of the free cells of a board that wraps with an odd side: there the moves across
that side's seam join cells of one checkerboard colour, and ``twofactor_match`` cannot be used.

As there: 2x2 squares laid from an offset, a greedy pass, then an augmenting search from each
cell still short of two edges. Without colours, whether the next step of an alternating walk
adds an edge or drops one is part of the search's state: (cell, add next) or (cell, drop next).
A walk found is taken if it uses no edge twice: toggling such a trail keeps every cell inside
it at its degree and gives each end one edge more, even where it passes a cell twice. This
search does not shrink blossoms, so it may miss a trail that exists; the few cells it leaves
short go to ``blossom.complete``, which is exact: None from ``odd_two_factor`` is a proof that
the board has no 2-factor.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from typing import Final

from termsnake.solvers.grid import Grid
from termsnake.solvers.hampath import blossom
from termsnake.solvers.hampath.twofactor_match import Mates, lay_squares, link, unlink

# The states an augmenting search may reach, in rounds, before the last, unbounded one.
SEARCH_REACH: Final = (32, 128, 512, 2048)


def odd_two_factor(grid: Grid, cells: Sequence[int], attempt: int = 0) -> Mates | None:
    """Two neighbours for each free cell (``mate[2c]``, ``mate[2c + 1]``), else None (the board
    has no 2-factor).

    Attempts 0-3 lay 2x2 squares from the four offsets and fill the rest in the board's order;
    later ones fill greedily in an order shuffled by a generator seeded with ``attempt`` alone,
    so each attempt gives the same 2-factor on every machine.
    """
    mate = [-1] * (2 * grid.cells)
    deg = bytearray(grid.cells)
    order = list(cells)
    if attempt < 4:
        lay_squares(grid, mate, deg, attempt & 1, attempt >> 1)
        neighbours = {c: list(grid.adj[c]) for c in order}
    else:
        rng = random.Random(attempt)
        rng.shuffle(order)
        neighbours = {}
        for c in order:
            neighbours[c] = list(grid.adj[c])
            rng.shuffle(neighbours[c])
    for u in order:
        for v in neighbours[u]:
            if deg[u] == 2:
                break
            if deg[v] < 2 and v not in (mate[2 * u], mate[2 * u + 1]):
                link(mate, deg, u, v)
    if _fill(grid, mate, deg, order) or blossom.complete(grid, list(cells), mate):
        return mate
    return None


def _fill(grid: Grid, mate: Mates, deg: bytearray, order: list[int]) -> bool:
    """Augment from every cell short of edges, the near deficits first; whether none is left."""
    search = _Search(grid, mate, deg)
    short = [u for u in order if deg[u] < 2]
    for reach in (*SEARCH_REACH, 2 * grid.cells):
        for u in short:
            while deg[u] < 2 and search.augment(u, reach):
                pass
        short = [u for u in short if deg[u] < 2]
    return not short


class _Search:
    """Breadth-first searches over states 2c (at cell c, an edge is added next) and 2c + 1 (at
    c, one of its edges is dropped next), for a trail from a short cell to another."""

    def __init__(self, grid: Grid, mate: Mates, deg: bytearray) -> None:
        self.adj = grid.adj
        self.mate, self.deg = mate, deg
        self.seen = [0] * (2 * grid.cells)  # == epoch: reached by this search
        self.via = [0] * (2 * grid.cells)
        self.epoch = 0

    def augment(self, u: int, reach: int) -> bool:
        """Find a trail from ``u`` and toggle it; False if none was found within ``reach``
        states (or the walks found used an edge twice)."""
        self.epoch += 1
        epoch, seen, via, mate = self.epoch, self.seen, self.via, self.mate
        start = 2 * u
        seen[start] = epoch
        queue = [start]
        for s in queue:
            x = s >> 1
            if s & 1:  # drop one of x's edges next
                for y in (mate[2 * x], mate[2 * x + 1]):
                    if y >= 0 and seen[2 * y] != epoch:
                        seen[2 * y], via[2 * y] = epoch, s
                        queue.append(2 * y)
                continue
            for v in self.adj[x]:
                if v in (mate[2 * x], mate[2 * x + 1]):
                    continue
                if self.deg[v] < 2 and v != u:
                    if self._toggle([*self._walk(s, start), v]):
                        return True
                    continue
                if seen[2 * v + 1] != epoch:
                    seen[2 * v + 1], via[2 * v + 1] = epoch, s
                    queue.append(2 * v + 1)
            if len(queue) > reach:
                return False
        return False

    def _walk(self, s: int, start: int) -> list[int]:
        cells = [s >> 1]
        while s != start:
            s = self.via[s]
            cells.append(s >> 1)
        return cells[::-1]

    def _toggle(self, trail: list[int]) -> bool:
        """Add the trail's edges at even places and drop those at odd ones, if no edge repeats."""
        edges = [(min(a, b), max(a, b)) for a, b in itertools.pairwise(trail)]
        if len(set(edges)) != len(edges):
            return False
        for a, b in edges[1::2]:  # dropped first: no cell ever holds three edges
            unlink(self.mate, self.deg, a, b)
        for a, b in edges[0::2]:
            link(self.mate, self.deg, a, b)
        return True
