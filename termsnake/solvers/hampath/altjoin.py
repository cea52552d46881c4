"""Joins that 2x2 switches cannot make: short alternating cycles round walls.

A switch across a 2x2 square toggles its four sides, so switches (and the repair's splits and
joins) keep a class of the 2-factor: the parity of its edges across each seam of a wrapping
board, and across any line from one wall to another. A 2-factor of the wrong class can never be
joined into one cycle; on a board that wraps with an odd side and has many walls most are
(docs/tuning.md). An alternating cycle (edges out of the 2-factor and in it, by turns) that goes
round a wall changes the class: this looks for one of at most ``MAX_EDGES`` edges, from a cell
beside a wall, that leaves fewer cycles than before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from termsnake.solvers.grid import Grid
from termsnake.solvers.hampath.twofactor_match import Mates

MAX_EDGES: Final = 12


def alternating_join(grid: Grid, cells: list[int], mate: Mates, budget: int) -> tuple[bool, int]:
    """Toggle one alternating cycle round a wall that joins cycles of ``mate`` (in place);
    whether one was found, and the budget left. Each edge the search tries costs one, each
    cell walked to count cycles one, and labelling the cycles two a cell."""
    label = _labels(cells, mate, grid.cells)
    budget -= 2 * len(cells)
    search = _Alternating(grid, mate, label)
    for a in _beside_walls(grid, cells):
        for ring in search.rings(a):
            budget -= search.tried
            search.tried = 0
            if budget <= 0:
                return False, budget
            before = len({label[c] for c in ring})
            _toggle(mate, ring)
            after, walked = _cycles_through(mate, ring)
            budget -= walked
            if after < before:
                return True, budget
            _toggle(mate, ring)  # no join: put it back
        budget -= search.tried
        search.tried = 0
        if budget <= 0:
            return False, budget
    return False, budget


def _beside_walls(grid: Grid, cells: list[int]) -> list[int]:
    """The free cells with a wall among their eight neighbours (round the edges if the board
    wraps; the edge of one that does not is no wall here), in the board's order."""
    w, h, wrap = grid.width, grid.height, grid.board.wrap
    out = []
    for c in cells:
        x, y = c % w, c // w
        for dx, dy in ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)):
            nx, ny = x + dx, y + dy
            if wrap:
                nx, ny = nx % w, ny % h
            elif not (0 <= nx < w and 0 <= ny < h):
                continue
            if not grid.free[ny * w + nx]:
                out.append(c)
                break
    return out


class _Alternating:
    """Depth-first search for alternating cycles from a cell: an edge out of the 2-factor to a
    cell of another cycle first, then one of its edges in the 2-factor, and so on back."""

    def __init__(self, grid: Grid, mate: Mates, label: list[int]) -> None:
        self.adj, self.mate, self.label = grid.adj, mate, label
        self.tried = 0  # edges tried since the caller last took the count
        self._path: list[int] = []
        self._used: set[tuple[int, int]] = set()

    def rings(self, a: int) -> Iterator[list[int]]:
        """Each alternating cycle from ``a`` as its cells [a, y1, z1, ..., yk]: a-y1 added,
        y1-z1 dropped, ..., yk-a dropped; in the board's order."""
        self._path, self._used = [a], set()
        yield from self._extend(a, a)

    def _extend(self, a: int, x: int) -> Iterator[list[int]]:
        path, used, mate = self._path, self._used, self.mate
        if len(path) >= MAX_EDGES:
            return
        for y in self.adj[x]:
            out = (min(x, y), max(x, y))
            linked = y in (mate[2 * x], mate[2 * x + 1])
            if linked or out in used or (x == a and self.label[y] == self.label[a]):
                continue
            self.tried += 1
            used.add(out)
            path.append(y)
            for z in (mate[2 * y], mate[2 * y + 1]):
                edge = (min(y, z), max(y, z))
                if edge in used:
                    continue
                if z == a:
                    yield list(path)
                    continue
                used.add(edge)
                path.append(z)
                yield from self._extend(a, z)
                path.pop()
                used.discard(edge)
            path.pop()
            used.discard(out)


def _toggle(mate: Mates, ring: list[int]) -> None:
    """Swap the ring's edges in and out of the 2-factor (those out first joined it, at even
    places, when the ring was found; a second toggle undoes the first)."""
    k = len(ring)
    edges = [(ring[i], ring[(i + 1) % k]) for i in range(k)]
    adds, drops = edges[0::2], edges[1::2]
    first, second = adds[0]
    if second in (mate[2 * first], mate[2 * first + 1]):  # toggled before: undo
        adds, drops = drops, adds
    for u, v in drops:
        mate[2 * u + (mate[2 * u] != v)] = -1
        mate[2 * v + (mate[2 * v] != u)] = -1
    for u, v in adds:
        mate[2 * u + (mate[2 * u] >= 0)] = v
        mate[2 * v + (mate[2 * v] >= 0)] = u


def _cycles_through(mate: Mates, ring: list[int]) -> tuple[int, int]:
    """How many cycles of ``mate`` pass through the cells of ``ring``, and the cells walked."""
    seen: set[int] = set()
    count = walked = 0
    for start in ring:
        if start in seen:
            continue
        count += 1
        prev, cur = -1, start
        while True:
            seen.add(cur)
            walked += 1
            nxt = mate[2 * cur] if mate[2 * cur] != prev else mate[2 * cur + 1]
            prev, cur = cur, nxt
            if cur == start:
                break
    return count, walked


def _labels(cells: list[int], mate: Mates, size: int) -> list[int]:
    """Each cell's cycle, numbered in the board's order."""
    label = [-1] * size
    n = 0
    for start in cells:
        if label[start] >= 0:
            continue
        prev, cur = -1, start
        while label[cur] < 0:
            label[cur] = n
            nxt = mate[2 * cur] if mate[2 * cur] != prev else mate[2 * cur + 1]
            prev, cur = cur, nxt
        n += 1
    return label
