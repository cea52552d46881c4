"""Distances along the blocks' ways with no body in the way, per food cell: the planner's A*
bound and the play-outs' floor on the after-eating term. Pure functions of the grid and the
food, so the solver and its play-outs share one cache."""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence

from termsnake.solvers.celltree.blocks import BlockGrid
from termsnake.solvers.celltree.config import FAR, STEP


def spread(start: int, links: Sequence[Sequence[int]], step: int, unreached: int) -> list[int]:
    """Cell -> ``step`` times its number of links from ``start``, breadth first (``unreached``
    where there is no way)."""
    far = [unreached] * len(links)
    far[start] = 0
    queue = deque([start])
    while queue:
        c = queue.popleft()
        k = far[c] + step
        for d in links[c]:
            if far[d] == unreached:
                far[d] = k
                queue.append(d)
    return far


class FoodMaps:
    """The distance maps of one grid for the last food asked about."""

    __slots__ = ("_astar", "_grid", "_spread", "_tails", "_toward")

    def __init__(self, grid: BlockGrid, *, astar: bool) -> None:
        self._grid = grid
        self._astar = astar
        self._toward: tuple[int, list[int]] = (-1, [])
        self._spread: tuple[int, list[int], list[int]] = (-1, [], [])
        self._tails: dict[int, list[int]] = {}  # every tail cell: the chase comes back to them

    @property
    def food(self) -> int:
        """The food cell whose A* bounds are cached (-1: none yet)."""
        return self._toward[0]

    def bound(self, food: int) -> list[int]:
        """Cell -> a lower bound on the cost of a plan from it to ``food``: STEP times its
        distance there along the blocks' ways ([] if the planner does not use A*)."""
        if not self._astar:
            return []
        if self._toward[0] != food:
            self._toward = (food, spread(food, self._grid.pred, STEP, FAR))
        return self._toward[1]

    def bound_to_tail(self, tail: int) -> list[int]:
        """``bound`` toward a tail cell; each is kept, where ``bound`` keeps the last food's."""
        if not self._astar:
            return []
        far = self._tails.get(tail)
        if far is None:
            far = self._tails[tail] = spread(tail, self._grid.pred, STEP, FAR)
        return far

    def spread(self, food: int) -> tuple[list[int], list[int]]:
        """Cell -> its distance from ``food`` along the blocks' ways (the board's cell count if
        none), and k -> the sum of the k nearest distances of cells but the food's."""
        if self._spread[0] != food:
            g = self._grid
            far = spread(food, g.ways, 1, len(g.points))
            sums = [0]
            for k in sorted(far[c] for c in g.open_cells if c != food):
                sums.append(sums[-1] + k)
            self._spread = (food, far, sums)
        return self._spread[1], self._spread[2]
