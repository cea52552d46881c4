"""Notched blocks: a box on the board less the walls in it, where its free cells have a
Hamiltonian cycle (round a lone wall, round a wall on the diagonal, round a wall that sticks out
one cell). ``tiling`` cuts with them where no cut into rectangles two cells wide is found; the
cell tree treats them as it does the rectangles: round the cycle, or across to the next block.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from termsnake.core.geometry import Direction


def _cycles(cells: frozenset[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """Every Hamiltonian cycle of a few cells, each once (from the least cell, one way round);
    none if the search takes more than CYCLE_NODES steps (too many ways round to choose from)."""
    if len(cells) % 2 or 2 * sum((i + j) % 2 for i, j in cells) != len(cells):
        return []
    # A block is thin: each cell touches its outside (or a wall in it) at a side or a corner,
    # so its cycles are few and run round its rims, where it can merge.
    for i, j in cells:
        if all((i + a, j + b) in cells for a in (-1, 0, 1) for b in (-1, 0, 1)):
            return []
        if sum((i + a, j + b) in cells for a, b in _SIDES) < 2:
            return []  # a dead end
    start = min(cells)
    out: list[list[tuple[int, int]]] = []
    path, on = [start], {start}
    nodes = 0

    def stuck(c: tuple[int, int], n: tuple[int, int]) -> bool:
        """Whether a cell next to ``c`` (now inside the path, which ends at ``n``) is left
        with fewer than two ways in."""
        for a, b in _SIDES:
            u = (c[0] + a, c[1] + b)
            if u in cells and u not in on:
                ways = 0
                for a2, b2 in _SIDES:
                    v = (u[0] + a2, u[1] + b2)
                    ways += v in cells and (v not in on or v in (start, n))
                if ways < 2:
                    return True
        return False

    def extend(c: tuple[int, int]) -> bool:
        nonlocal nodes
        nodes += 1
        if nodes > CYCLE_NODES:
            return False
        for a, b in _SIDES:
            n = (c[0] + a, c[1] + b)
            if n == start and len(path) == len(cells) and path[1] < path[-1]:
                out.append(list(path))
            elif n in cells and n not in on:
                path.append(n)
                on.add(n)
                going = stuck(c, n) or extend(n)
                on.discard(n)
                path.pop()
                if not going:
                    return False
        return True

    return out if extend(start) else []


_SIDES: Final = ((0, 1), (1, 0), (0, -1), (-1, 0))
# Notched blocks: a box of one of these sizes less the walls in it, where its cells have a
# Hamiltonian cycle: round a lone wall, a wall on the diagonal, a wall sticking out one cell.
NOTCH_SIZES: Final = tuple((w, h) for w in range(3, 8) for h in range(3, 8) if w * h <= 30)
CYCLE_NODES: Final = 20_000
_BY_DELTA: Final = {(d.dx, d.dy): d for d in Direction}
# Each turning's cross move, at right angles to the default move (as in blocks._rim_move).
CROSS: Final = (
    {
        Direction.DOWN: Direction.LEFT,
        Direction.RIGHT: Direction.DOWN,
        Direction.UP: Direction.RIGHT,
        Direction.LEFT: Direction.UP,
    },
    {
        Direction.RIGHT: Direction.UP,
        Direction.DOWN: Direction.RIGHT,
        Direction.LEFT: Direction.DOWN,
        Direction.UP: Direction.LEFT,
    },
)


@lru_cache(maxsize=4096)
def notched_moves(
    width: int, height: int, missing: tuple[tuple[int, int], ...], turning: int
) -> dict[tuple[int, int], tuple[Direction, Direction]]:
    """The (default, cross) move of each cell of a notched block, round its Hamiltonian cycle
    the way in which most cross moves leave the block (so it merges where it can); empty if
    its cells have no cycle (or too many to choose from)."""
    cells = frozenset((i, j) for i in range(width) for j in range(height)) - set(missing)
    best: dict[tuple[int, int], tuple[Direction, Direction]] = {}
    best_out = -1
    for cycle in _cycles(cells):
        for way in (cycle, cycle[::-1]):
            moves = {}
            out = 0
            for a, b in zip(way, way[1:] + way[:1], strict=True):
                default = _BY_DELTA[b[0] - a[0], b[1] - a[1]]
                cross = CROSS[turning][default]
                moves[a] = (default, cross)
                out += (a[0] + cross.dx, a[1] + cross.dy) not in cells
            if out > best_out:
                best, best_out = moves, out
    return best
