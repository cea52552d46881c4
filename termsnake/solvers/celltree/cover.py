"""The exact cover ``tiling.tile`` searches: blocks placed one by one until every free cell of
the board is in one, each new block lined up with a placed one so that all of them join."""

from __future__ import annotations

from functools import lru_cache

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.hampath import Limit


class Cover:
    """Exact cover of the free cells by blocks, one connected part of the uncovered cells at a
    time: a part that cannot be covered fails at once, whatever the other parts hold."""

    def __init__(
        self,
        board: Board,
        blocks: list[list[Point]],
        sides: list[list[tuple[int, int]]],
        limit: Limit,
        *,
        joined_first: bool,
    ) -> None:
        # Which cell next to the blocks placed is covered next: the one with the fewest ways
        # (False), or with the fewest ways that join a block placed (True). Each finds cuts the
        # other misses, and cuts of its own.
        self.joined_first = joined_first
        index, self.nbrs = _numbered(board)
        self.covers = [[index[p] for p in cells] for cells in blocks]
        self.options: list[list[int]] = [[] for _ in index]
        for k, cs in enumerate(self.covers):
            for c in cs:
                self.options[c].append(k)
        self.count = [len(o) for o in self.options]
        self.alive = [True] * len(blocks)
        self.covered = [False] * len(index)
        self.trail: list[tuple[int, list[int]]] = []  # each block placed, and what it ruled out
        self.owner = [-1] * len(index)  # cell -> the block placed on it
        self.touch = [0] * len(index)  # cell -> how many cells next to it are covered
        # Block -> the pairs of cells next to two cells along one of its sides: a block holding
        # both can merge with it.
        self.sides = sides
        self.nodes = 0
        self.limit = limit.nodes

    def solve(self, part: list[int]) -> bool | None:
        """Cover the connected uncovered cells ``part``: True, False (they cannot be), None (the
        limit was reached)."""
        self.nodes += 1
        if self.nodes > self.limit:
            return None
        if not part:
            return True
        if min(self.count[c] for c in part) == 0:
            return False
        for k in self._ways(part):
            mark = len(self.trail)
            self._place(k)
            found: bool | None = True
            for sub in sorted(self._parts(part, k), key=len):
                found = self.solve(sub)
                if not found:
                    break
            if found is None:
                return None
            if found:
                return True
            while len(self.trail) > mark:
                self._undo()
        return False

    def _ways(self, part: list[int]) -> list[int]:
        """The blocks to try next: those that cover one cell next to the blocks placed and join
        one of them. The cut grows from the blocks placed, the cell with the fewest ways first,
        so that a dead end shows near the choices that made it."""
        count, touch = self.count, self.touch
        edge = [c for c in part if touch[c]] or part
        if not self.joined_first:
            c = min(edge, key=lambda c: (count[c], c))
            return [k for k in self.options[c] if self.alive[k] and self._joins(k)]
        # The cell with the fewest ways that join.
        best: list[int] = []
        for c in sorted(edge, key=lambda c: (count[c], c)):
            ways = [k for k in self.options[c] if self.alive[k] and self._joins(k)]
            if ways and (not best or len(ways) < len(best)):
                best = ways
                if len(ways) == 1:
                    break
        return best

    def _joins(self, k: int) -> bool:
        """Whether block ``k`` can merge with a block placed (any block, if none is)."""
        owner = self.owner
        return not self.trail or any(owner[a] == owner[b] >= 0 for a, b in self.sides[k])

    def _place(self, k: int) -> None:
        killed = []
        for c in self.covers[k]:
            self.covered[c] = True
            self.owner[c] = k
            for b in self.nbrs[c]:
                self.touch[b] += 1
            for o in self.options[c]:
                if self.alive[o]:
                    self.alive[o] = False
                    killed.append(o)
                    for c2 in self.covers[o]:
                        self.count[c2] -= 1
        self.trail.append((k, killed))

    def _undo(self) -> None:
        k, killed = self.trail.pop()
        for o in killed:
            self.alive[o] = True
            for c2 in self.covers[o]:
                self.count[c2] += 1
        for c in self.covers[k]:
            self.covered[c] = False
            self.owner[c] = -1
            for b in self.nbrs[c]:
                self.touch[b] -= 1

    def _parts(self, part: list[int], k: int) -> list[list[int]]:
        """The connected parts of the cells of ``part`` still uncovered, block ``k`` just
        placed."""
        covered, nbrs = self.covered, self.nbrs
        # Each part left holds a cell next to block k: if those cells meet close by, the rest
        # of ``part`` is still one piece.
        around = {b for c in self.covers[k] for b in nbrs[c] if not covered[b]}
        if self._meet_nearby(around):
            return [[c for c in part if not covered[c]]]
        seen: set[int] = set()
        out = []
        for c in part:
            if covered[c] or c in seen:
                continue
            seen.add(c)
            group = [c]
            for a in group:
                for b in nbrs[a]:
                    if not covered[b] and b not in seen:
                        seen.add(b)
                        group.append(b)
            out.append(group)
        return out

    def _meet_nearby(self, cells: set[int], reach: int = 24) -> bool:
        """Whether the uncovered ``cells`` are joined within ``reach`` cells of one of them."""
        if len(cells) <= 1:
            return True
        covered, nbrs = self.covered, self.nbrs
        start = min(cells)
        seen = {start}
        queue = [start]
        left = len(cells) - 1
        for a in queue:
            for b in nbrs[a]:
                if not covered[b] and b not in seen:
                    seen.add(b)
                    queue.append(b)
                    if b in cells:
                        left -= 1
                        if not left:
                            return True
            if len(queue) > reach:
                return False
        return False


@lru_cache(maxsize=16)
def _numbered(board: Board) -> tuple[dict[Point, int], tuple[list[int], ...]]:
    """The free cells' numbers in ``Cover`` (row-major), and each one's neighbours'."""
    index = {p: i for i, p in enumerate(board.free_cells)}
    return index, tuple([index[q] for _, q in board.neighbours(p)] for p in board.free_cells)
