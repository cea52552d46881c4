"""An exact 2-factor test for any board: Tutte's gadget, matched by Edmonds' blossom search.

Each free cell ``c`` with d neighbours becomes d *outer* nodes, one for each of its edges, and
d - 2 *inner* nodes, each joined to every outer node of ``c``; the edge c-v joins c's outer node
for it to v's outer node for it. In a perfect matching the inner nodes take d - 2 of the outer
nodes, so exactly two of c's edges are matched across: a 2-factor, and every 2-factor gives
such a matching.

``complete`` starts from a partial 2-factor (a heuristic's, with a few cells short of two
edges), so only those cells' outer nodes are unmatched, and only they are searched from. When
the search from an unmatched node finds no augmenting path, a maximum matching leaves that node
out (Edmonds), so there is no perfect matching: the board has no 2-factor, hence no Hamiltonian
cycle.
"""

from __future__ import annotations

from collections import deque

from termsnake.solvers.grid import Grid

Mates = list[int]  # as in twofactor_match: the edges of cell c are mate[2c] and mate[2c + 1]


class _Gadget:
    """Tutte's gadget of the board's free cells: ``adj`` per node, and where each cell's nodes
    begin."""

    def __init__(self, grid: Grid, cells: list[int]) -> None:
        adj = grid.adj
        self.first: dict[int, int] = {}
        total = 0
        for c in cells:
            self.first[c] = total
            total += 2 * len(adj[c]) - 2
        self.adj: list[list[int]] = [[] for _ in range(total)]
        for c in cells:
            d = len(adj[c])
            for k, v in enumerate(adj[c]):
                outer = self.first[c] + k
                self.adj[outer].append(self.across(grid, c, v))
                for j in range(d - 2):
                    inner = self.first[c] + d + j
                    self.adj[outer].append(inner)
                    self.adj[inner].append(outer)

    def across(self, grid: Grid, c: int, v: int) -> int:
        """v's outer node for its edge to c."""
        return self.first[v] + grid.adj[v].index(c)


def complete(grid: Grid, cells: list[int], mate: Mates) -> bool:
    """Fill ``mate`` (at most two edges a cell) up to a 2-factor of ``cells``, in place; False
    if the board has none (``mate`` is then left as it was)."""
    if any(len(grid.adj[c]) < 2 for c in cells):
        return False  # a cell with fewer than two neighbours has no gadget, and no 2-factor
    gadget = _Gadget(grid, cells)
    match = _from_mates(grid, cells, mate, gadget)
    for root in range(len(match)):
        if match[root] < 0 and not _augment(gadget.adj, match, root):
            return False
    for c in cells:
        first = gadget.first[c]
        ends = [
            v
            for k, v in enumerate(grid.adj[c])
            if match[first + k] >= 0 and match[first + k] == gadget.across(grid, c, v)
        ]
        mate[2 * c], mate[2 * c + 1] = ends
    return True


def _from_mates(grid: Grid, cells: list[int], mate: Mates, gadget: _Gadget) -> list[int]:
    """The gadget's matching of a partial 2-factor: its edges across, and the other outer nodes
    to inner ones while those last."""
    match = [-1] * len(gadget.adj)
    for c in cells:
        d = len(grid.adj[c])
        first = gadget.first[c]
        inner = [first + d + j for j in range(d - 2)]
        for k, v in enumerate(grid.adj[c]):
            outer = first + k
            if v in (mate[2 * c], mate[2 * c + 1]):
                match[outer] = gadget.across(grid, c, v)
            elif inner:
                node = inner.pop()
                match[outer], match[node] = node, outer
    return match


def _augment(adj: list[list[int]], match: list[int], root: int) -> bool:
    """Edmonds' breadth-first search for an augmenting path from the unmatched ``root``,
    blossoms shrunk as they are met; the path is applied if found."""
    tree = _Tree(len(adj), root)
    queue = deque([root])
    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if tree.base[v] == tree.base[to] or match[v] == to:
                continue
            if to == root or (match[to] >= 0 and tree.parent[match[to]] >= 0):
                queue.extend(tree.shrink(match, v, to))
            elif tree.parent[to] < 0:
                tree.parent[to] = v
                tree.reached.append(to)
                if match[to] < 0:
                    _flip(match, tree.parent, to)
                    return True
                tree.outer[match[to]] = True
                tree.reached.append(match[to])
                queue.append(match[to])
    return False


class _Tree:
    """The alternating tree of one search: each node's parent (odd nodes), whether it is an
    outer (even) node, the base of the blossom holding it, and the nodes it has reached."""

    def __init__(self, n: int, root: int) -> None:
        self.parent = [-1] * n
        self.base = list(range(n))
        self.outer = [False] * n
        self.outer[root] = True
        self.reached = [root]

    def shrink(self, match: list[int], v: int, to: int) -> list[int]:
        """Shrink the blossom closed by the edge v-to into its base; the nodes of it that
        become outer, to be searched from."""
        base = self._common_base(match, v, to)
        held: set[int] = set()
        self._mark(match, held, v, base, to)
        self._mark(match, held, to, base, v)
        newly = []
        for i in self.reached:
            if self.base[i] in held:
                self.base[i] = base
                if not self.outer[i]:
                    self.outer[i] = True
                    newly.append(i)
        return newly

    def _common_base(self, match: list[int], a: int, b: int) -> int:
        seen = set()
        while True:
            a = self.base[a]
            seen.add(a)
            if match[a] < 0:
                break
            a = self.parent[match[a]]
        while True:
            b = self.base[b]
            if b in seen:
                return b
            b = self.parent[match[b]]

    def _mark(self, match: list[int], held: set[int], v: int, base: int, child: int) -> None:
        while self.base[v] != base:
            held.add(self.base[v])
            held.add(self.base[match[v]])
            self.parent[v] = child
            child = match[v]
            v = self.parent[match[v]]


def _flip(match: list[int], parent: list[int], end: int) -> None:
    """Swap the matched and unmatched edges along the path from ``end`` back to the root."""
    v = end
    while v >= 0:
        before = parent[v]
        after = match[before]
        match[v], match[before] = before, v
        v = after
