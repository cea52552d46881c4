"""Hamiltonian cycles that scale: a 2-factor of the free cells, its cycles joined by switches.

1. A b-matching gives every free cell two cycle-neighbours (``twofactor_match``): a set of
   disjoint cycles covering the board.
2. Where two different cycles run side by side through a 2x2 square (two opposite sides of it
   in two cycles), swapping those sides for the other two joins the cycles. A union-find of
   cycles tells which squares join two; each switch re-examines only the squares around it.
3. When no square joins two cycles, a repair splits a cycle at one square so that one half
   can join a neighbouring cycle at the next square, and the halves meet again elsewhere.
4. If the cycles still do not join, a 2-factor built in another order starts over.

On a board that wraps with an odd side, the moves across that seam join cells of one colour:
the 2-factor is then ``twofactor_odd``'s, and where switches and repairs leave more than one
cycle, short alternating cycles round walls (``altjoin``) may join them before a new start.

Every choice follows the cells' order and seeded generators, and the repair counts its work in
operations, never by the clock, so a board and a limit give the same cycle on every machine.
"""

from __future__ import annotations

from typing import Final

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.grid import Grid, checkerboard, grid_of
from termsnake.solvers.hampath.altjoin import alternating_join
from termsnake.solvers.hampath.limit import Limit
from termsnake.solvers.hampath.twofactor_match import Mates, two_factor
from termsnake.solvers.hampath.twofactor_odd import odd_two_factor

# Direction numbers as in DIRECTIONS.
UP, DOWN, LEFT, RIGHT = 0, 1, 2, 3
# The repair operations ``find_two_factor_cycle`` may spend unless told otherwise.
TWO_FACTOR_LIMIT: Final = Limit(200_000)
# What a fresh 2-factor costs on top of one operation a cell of the board's rectangle: its
# set-up, which dominates on tiny boards.
ATTEMPT_COST: Final = 50


def two_factor_of(grid: Grid, cells: list[int], attempt: int = 0) -> Mates | None:
    """The 2-factor of ``attempt`` (None: there is none): ``twofactor_match``'s where the
    checkerboard colouring holds, else ``twofactor_odd``'s."""
    factor = two_factor if checkerboard(grid) else odd_two_factor
    return factor(grid, cells, attempt)


def find_two_factor_cycle(
    board: Board, limit: Limit = TWO_FACTOR_LIMIT, first: Mates | None = None
) -> tuple[Point, ...] | None:
    """A Hamiltonian cycle of ``board``'s free cells, or None if this method finds none.

    The cycle lists every free cell once, each adjacent to the next (wrap included) and the
    last to the first. ``limit`` bounds the repairs: each square examined and each cell walked
    costs one node of the limit, a fresh 2-factor one a cell of the board's rectangle plus
    ``ATTEMPT_COST``; each edge an alternating search tries one more. None is certain (no
    cycle exists) when the cells are disconnected, a cell has fewer than two neighbours or no
    2-factor exists; otherwise it means the limit ran out. ``first``: the 2-factor of attempt 0
    (``two_factor_of``), if the caller has made it already; it is changed in place.
    """
    grid = grid_of(board)
    cells = [grid.index(p) for p in board.free_cells]
    n = len(cells)
    if n <= 2:
        return _tiny(grid, cells)
    if any(len(grid.adj[c]) < 2 for c in cells) or not _connected(grid, cells):
        return None
    if all(len(grid.adj[c]) == 2 for c in cells):
        # The board is one loop (a one-wide wrapping board, say), odd or not.
        return tuple(grid.points[c] for c in _walk(_edges(grid, cells), cells[0]))
    coloured = checkerboard(grid)
    budget = limit.nodes
    attempt = 0
    while True:
        mate = first if attempt == 0 and first is not None else two_factor_of(grid, cells, attempt)
        if mate is None:
            return None
        joiner = _Joiner(grid, cells, mate)
        joiner.run()
        budget = joiner.repair(budget)
        while not coloured and joiner.count > 1 and budget > 0:
            joined, budget = alternating_join(grid, cells, mate, budget)
            if not joined:
                break
            joiner = _Joiner(grid, cells, mate)
            joiner.run()
            budget = joiner.repair(budget)
        if joiner.count == 1:
            return tuple(grid.points[c] for c in _walk(mate, cells[0]))
        attempt += 1
        budget -= grid.cells + ATTEMPT_COST
        if budget < 0:
            return None


def _tiny(grid: Grid, cells: list[int]) -> tuple[Point, ...] | None:
    # One cell is its own cycle; two are one if they touch, as check_cycle counts them.
    if not cells or (len(cells) == 2 and cells[1] not in grid.adj[cells[0]]):
        return None
    return tuple(grid.points[c] for c in cells)


def _walk(mate: Mates, start: int) -> list[int]:
    """The cells of ``start``'s cycle in the 2-factor, in order from ``start``."""
    out = [start]
    prev, cur = start, mate[2 * start]
    while cur != start:
        out.append(cur)
        nxt = mate[2 * cur]
        prev, cur = cur, (nxt if nxt != prev else mate[2 * cur + 1])
    return out


def _edges(grid: Grid, cells: list[int]) -> Mates:
    # Every cell has exactly two neighbours: they are its cycle-neighbours.
    mate = [-1] * (2 * grid.cells)
    for c in cells:
        mate[2 * c], mate[2 * c + 1] = grid.adj[c]
    return mate


def _connected(grid: Grid, cells: list[int]) -> bool:
    seen = bytearray(grid.cells)
    seen[cells[0]] = 1
    stack = [cells[0]]
    reached = 1
    while stack:
        for v in grid.adj[stack.pop()]:
            if not seen[v]:
                seen[v] = 1
                reached += 1
                stack.append(v)
    return reached == len(cells)


class _Joiner:
    """A 2-factor with a union-find of its cycles, joined square by square."""

    def __init__(self, grid: Grid, cells: list[int], mate: Mates) -> None:
        self.step = grid.step
        self.mate = mate
        # label[c] names c's cycle up to the union-find: cycles only ever join, except in a
        # repair, which gives one half a fresh label.
        self.label = [-1] * grid.cells
        self.parent: list[int] = []
        for c in cells:
            if self.label[c] < 0:
                self._relabel(_walk(mate, c))
        self.count = len(self.parent)
        step = grid.step
        self.is_square = bytearray(grid.cells)
        for c in cells:
            r, s = step[RIGHT][c], step[DOWN][c]
            if r >= 0 and s >= 0 and step[RIGHT][s] >= 0:
                self.is_square[c] = 1
        self.squares = [c for c in cells if self.is_square[c]]
        self.queued = bytearray(self.is_square)
        self.todo = self.squares[::-1]

    def _relabel(self, cells: list[int]) -> None:
        new = len(self.parent)
        self.parent.append(new)
        label = self.label
        for c in cells:
            label[c] = new

    def find(self, c: int) -> int:
        """The root naming cell ``c``'s cycle."""
        parent = self.parent
        x = self.label[c]
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def pairs(self, c: int) -> tuple[int, int, int, int] | None:
        """(a1, a2, b1, b2) if square ``c`` holds exactly the opposite sides a1-a2 and b1-b2
        of the 2-factor, so that a1-b1 and a2-b2 can replace them; else None."""
        step, m = self.step, self.mate
        p, q = c, step[RIGHT][c]
        s = step[DOWN][c]
        t = step[RIGHT][s]
        pq = m[2 * p] == q or m[2 * p + 1] == q
        st = m[2 * s] == t or m[2 * s + 1] == t
        ps = m[2 * p] == s or m[2 * p + 1] == s
        qt = m[2 * q] == t or m[2 * q + 1] == t
        if pq and st and not ps and not qt:
            return (p, q, s, t)
        if ps and qt and not pq and not st:
            return (p, s, q, t)
        return None

    def _switch(self, a1: int, a2: int, b1: int, b2: int) -> None:
        m = self.mate
        m[2 * a1 + (m[2 * a1] != a2)] = b1
        m[2 * a2 + (m[2 * a2] != a1)] = b2
        m[2 * b1 + (m[2 * b1] != b2)] = a1
        m[2 * b2 + (m[2 * b2] != b1)] = a2
        for x in (a1, a2, b1, b2):
            self._queue_around(x)

    def _queue_around(self, x: int) -> None:
        # The squares holding cell x: x is their top-left, top-right, bottom-left or -right.
        step = self.step
        left = step[LEFT][x]
        for k in (x, left, step[UP][x], step[UP][left] if left >= 0 else -1):
            if k >= 0 and self.is_square[k] and not self.queued[k]:
                self.queued[k] = 1
                self.todo.append(k)

    def merge_at(self, c: int) -> bool:
        """Switch square ``c`` if that joins two different cycles."""
        pairs = self.pairs(c)
        if pairs is None:
            return False
        ra, rb = self.find(pairs[0]), self.find(pairs[2])
        if ra == rb:
            return False
        self._switch(*pairs)
        self.parent[ra] = rb
        self.count -= 1
        return True

    def run(self) -> None:
        """Make every switch that joins two cycles, until none is left."""
        todo, queued = self.todo, self.queued
        while todo and self.count > 1:
            c = todo.pop()
            queued[c] = 0
            self.merge_at(c)
        # The squares left over need no look: one cycle is left.
        for c in todo:
            queued[c] = 0
        todo.clear()

    def repair(self, budget: int) -> int:
        """Join what switches alone cannot, by split-and-join moves; returns the budget left.

        Passes over the squares go on while a pass leaves fewer cycles than it found.
        """
        while self.count > 1 and budget > 0:
            before = self.count
            for c in self.squares:
                budget -= 1
                if budget <= 0 or self.count == 1:
                    break
                budget -= self._split_and_join(c)
                self.run()
            if self.count >= before:
                break
        return budget

    def _split_and_join(self, c: int) -> int:
        """Switch square ``c`` within one cycle, if a side square then joins a half of it to
        another cycle; returns the cells walked (0 if nothing was done)."""
        pairs = self.pairs(c)
        if pairs is None:
            return 0
        a1, a2, b1, b2 = pairs
        root = self.find(a1)
        if self.find(b1) != root:
            self.merge_at(c)
            return 0
        side = self._side_square(pairs, a1, b1, root)
        if side < 0:
            side = self._side_square(pairs, a2, b2, root)
        if side < 0:
            return 0
        self._switch(a1, a2, b1, b2)
        walked = self._split(a1, b1, a2, b2)
        self.merge_at(side)
        return walked

    def _side_square(self, quad: tuple[int, int, int, int], e1: int, e2: int, root: int) -> int:
        """The square beside ``quad`` across its (future) side e1-e2, if its far side is an
        edge of a cycle other than ``root`` and its cross sides are free; else -1."""
        step, m = self.step, self.mate
        # e2 lies below e1 or right of it; the square lies on either side of e1-e2.
        across = (LEFT, RIGHT) if step[DOWN][e1] == e2 else (UP, DOWN)
        for d in across:
            f1, f2 = step[d][e1], step[d][e2]
            top_left = f1 if d in (LEFT, UP) else e1
            if f1 < 0 or f2 < 0 or f1 in quad or f2 in quad or not self.is_square[top_left]:
                continue
            linked = m[2 * f1] == f2 or m[2 * f1 + 1] == f2
            cross = m[2 * f1] == e1 or m[2 * f1 + 1] == e1 or m[2 * f2] == e2 or m[2 * f2 + 1] == e2
            if linked and not cross and self.find(f1) != root:
                return top_left
        return -1

    def _split(self, a1: int, b1: int, a2: int, b2: int) -> int:
        """After a switch inside one cycle (new sides a1-b1, a2-b2), label the smaller half
        afresh if it split; walks both halves in turn, so costs twice the smaller one."""
        m = self.mate
        walkers = [[a1, b1, b1, a2, b2], [a2, b2, b2, a1, b1]]
        seen: list[list[int]] = [[a1], [a2]]
        while True:
            for i, (cur, prev, goal, o1, o2) in enumerate(walkers):
                nxt = m[2 * cur] if m[2 * cur] != prev else m[2 * cur + 1]
                if nxt == goal:
                    seen[i].append(goal)
                    self._relabel(seen[i])
                    self.count += 1
                    for x in seen[i]:
                        self._queue_around(x)
                    return len(seen[0]) + len(seen[1])
                if nxt in (o1, o2):
                    return len(seen[0]) + len(seen[1])
                seen[i].append(nxt)
                walkers[i][0], walkers[i][1] = nxt, cur
