"""The opening: while the snake is short it goes straight to the food, off the blocks' ways,
and hands the game back to the cell tree once it is longer.

A short body does not need the tree's invariant to be safe; keeping it anyway makes the snake
go round blocks it does not need to. So in the opening the snake may leave the blocks' ways as
long as it keeps an *escape*: a walk from the head along a Hamiltonian cycle of the blocks (the
witness cycle of the last position in which the body fitted a tree) that runs into no body cell
before that cell is left. After such a walk the body is an arc of that cycle, so it fits a tree
again.

At each food the opening plans the shortest way there; it takes that way only if, once the
snake has eaten at its end, an escape holds even with the tail ``margin`` moves late (foods
that fall on the walk hold the tail back), and then keeps to it. Otherwise the tree moves where
the body fits, and the escape is walked where it does not, checked again at every move: if
foods fell on it, a new one is looked for; failing that, a *harbour* (a Hamiltonian cycle the
body is an arc of, safe whatever the food does); failing that, an escape that holds if no
other food falls on it. Once the snake is longer than the opening's length, or a lap has gone
without food, the escape is walked until the body fits and the tree plays on.

Unlike the tree's, this is not a proof: an escape can be spoiled by more foods falling on it
than it allows for, before a new one is found. So the opening is played only where it pays
(boards with dead ends) and only while the snake is short.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from termsnake.core.game import Game
from termsnake.core.geometry import Point
from termsnake.solvers.celltree.blocks import BlockGrid, direction
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.spanning import body_fits, witness_cycle
from termsnake.solvers.grid import ARROWS, Grid, body_free_at, grid_of, shortest_path
from termsnake.solvers.hampath import Limit, close_body
from termsnake.solvers.hampath.holes import successors

TREE = -1  # ``Opening.move``: the tree moves (the body fits)
OVER = -2  # ``Opening.move``: the opening is over and the body fits


class Opening:
    """The opening's state: the cycle to escape along, the way kept to, how long it lasts."""

    __slots__ = (
        "cells",
        "chosen",
        "cycle",
        "eats",
        "escape",
        "harbour",
        "lag",
        "length",
        "margin",
        "way",
    )

    def __init__(self, mirror: BodyMirror, game: Game, *, length: int, margin: int) -> None:
        self.cells: Grid = grid_of(game.board)
        self.cycle = witness_cycle(mirror)  # the start body fits (the tree's set-up saw to it)
        self.length = length  # the opening lasts while the snake is at most this long
        self.margin = margin
        self.way: deque[int] = deque()  # the rest of a way to the food that keeps an escape
        self.escape: deque[int] = deque()  # the way onto the cycle, then the cycle
        self.chosen = -1  # the cell last moved to (for the overlay)
        self.lag = margin  # how late the tail may be and the plan still hold (-1: unchecked)
        self.harbour: list[int] = []  # a Hamiltonian cycle the body was last found an arc of
        self.eats = False  # whether the escape last checked eats the food there is

    def move(self, game: Game, mirror: BodyMirror) -> int:
        """The next cell in the opening; TREE if the tree is to move, OVER once the opening is
        over. The mirror is rebuilt from the game."""
        self.chosen = self._move(game, mirror)
        return self.chosen

    def _move(self, game: Game, mirror: BodyMirror) -> int:
        mirror.rebuild(game)
        if self.way:
            return self.way.popleft()  # checked whole when it was planned; nothing has eaten
        fits = body_fits(mirror) is None
        if fits:
            self.cycle = witness_cycle(mirror)
            self.escape.clear()
            self.lag = self.margin
        index = mirror.grid.index
        body = [index(p) for p in game.body]
        lapped = game.since_food > len(mirror.grid.open_cells)
        if lapped and not fits and self._harboured(body):
            # Escapes checked afresh at each move can take turns for ever without eating; a
            # harbour reaches the food within a lap.
            self.lag = HARBOUR
            self.escape.clear()
            return self.harbour[body[0]]
        if game.length > self.length or lapped:
            return OVER if fits else self._escaping(body, game)
        if game.food is not None:
            free_at = body_free_at(self.cells, game.body)
            way = shortest_path(self.cells, body[0], index(game.food), free_at)
            # After eating at the end of the way, the next food is not known yet.
            escape = None if not way else self.escape_from(_after(body, way), self.margin, -1)
            if way and escape is not None:
                self.way.extend(way[1:])
                self.escape = deque(escape)
                self.lag = self.margin
                return way[0]
        return TREE if fits else self._escaping(body, game)

    def overlay(self, game: Game, grid: BlockGrid) -> dict[Point, str]:
        """The way to the food and the escape, then the cycle (or the harbour) up to the body,
        as arrows."""
        out: dict[Point, str] = {}
        c = grid.index(game.head)
        harboured = self.lag == HARBOUR
        ring = self.harbour if harboured else self.cycle
        # Asked between a move and the game's step, the way goes on from the cell chosen.
        ahead = [self.chosen] if self.chosen >= 0 and self.chosen != c else []
        for nxt in [*ahead, *([] if harboured else [*self.way, *self.escape])]:
            if game.occupied(grid.points[nxt]) and nxt != grid.index(game.tail):
                return out
            out[grid.points[c]] = ARROWS[direction(grid, c, nxt)]
            c = nxt
        while not out or not game.occupied(grid.points[c]):
            out[grid.points[c]] = ARROWS[direction(grid, c, ring[c])]
            c = ring[c]
            if len(out) > len(grid.open_cells):
                break
        return out

    def _escaping(self, body: list[int], game: Game) -> int:
        """The next cell of an escape: the one kept if it still holds with the margin (foods
        that fell on it since may have used the margin up), else a new one; else along a
        harbour, a Hamiltonian cycle the body is an arc of (safe whatever the food does); else
        an escape that holds if no other food falls on it; else the one kept."""
        margin = self.margin
        food = -1 if game.food is None else self.cells.index(game.food)
        self.lag = margin
        if self._holds(self._times(body, margin), list(self.escape), body, margin, food):
            return self._next(body)
        found = self.escape_from(body, margin, food)
        if found is None and self._harboured(body):
            self.lag = HARBOUR
            self.escape.clear()
            return self.harbour[body[0]]
        if found is None:
            self.lag = 0
            found = self.escape_from(body, 0, food)
        if found is None:
            self.lag = -1
            nxt = self._next(body)
            safe = self._legal(game, body[0])
            return nxt if nxt in safe or not safe else safe[0]
        self.escape = deque(found)
        return self._next(body)

    def _times(self, body: list[int], lag: int) -> list[int]:
        """Cell -> the moves until ``body`` (head first) has left it, the tail ``lag`` late."""
        points = self.cells.points
        return body_free_at(self.cells, [points[c] for c in body], lag)

    def _legal(self, game: Game, head: int) -> list[int]:
        """The cells next to the head that a move into now does not kill."""
        step = self.cells.step
        return [step[d][head] for d, safe in enumerate(game.safe_moves()) if safe]

    def _next(self, body: list[int]) -> int:
        return self.escape.popleft() if self.escape else self.cycle[body[0]]

    def _harboured(self, body: list[int]) -> bool:
        """Whether the body is an arc of the harbour, after looking for one if it is not."""
        harbour = self.harbour
        if harbour and all(harbour[b] == a for a, b in pairwise(body)):
            return True
        closed = close_body(self.cells, body, Limit(HARBOUR_NODES), self.cycle)
        if closed is None:
            return False
        self.harbour = successors(self.cells, closed)
        return True

    def escape_from(self, body: list[int], lag: int, food: int) -> list[int] | None:
        """A way from the head (its cells, the head's excluded) to a cell from which the walk
        along the cycle runs into no cell of ``body`` (head first), nor of the way, before it
        is left, with the tail ``lag`` moves late (and one more if the walk eats at ``food``);
        the nearest cells first, a few of them."""
        left = self._times(body, lag)
        head = body[0]
        parent = {head: head}
        frontier = [head]
        order = [head]
        t = 0
        while frontier and len(order) < ESCAPE_TRIES:
            t += 1
            nxt = []
            for u in frontier:
                for v in self.cells.adj[u]:
                    if v not in parent and left[v] <= t:
                        parent[v] = u
                        nxt.append(v)
                        order.append(v)
            frontier = nxt
        for c in order[:ESCAPE_TRIES]:
            way = [c]
            while way[-1] != head:
                way.append(parent[way[-1]])
            way.pop()
            way.reverse()
            if self._holds(left, way, body, lag, food):
                return way
        return None

    def _holds(self, left: list[int], way: list[int], body: list[int], lag: int, food: int) -> bool:
        """Whether ``way`` from the head of ``body``, then the cycle, runs into no cell before
        it is left: ``left`` (``_times`` with ``lag``) says when each body cell is; the way's
        own cells are left a body's length and ``lag`` after they are entered; if the walk
        eats at ``food``, everything one move later still."""
        length = len(body)
        walk = list(way)
        cell = walk[-1] if walk else body[0]
        cycle = self.cycle
        for _ in range(length + lag + 1):
            cell = cycle[cell]
            walk.append(cell)
        grow = 1 if food in walk else 0
        mine: dict[int, int] = {}
        adj = self.cells.adj
        cell, back = body[0], body[1] if length > 1 else -1
        for k, w in enumerate(walk, start=1):
            if w not in adj[cell] or w == back or left[w] + grow > k or mine.get(w, 0) > k:
                return False  # not a move (an escape kept from elsewhere), back, into the body
            mine[w] = k + length + lag + grow
            cell, back = w, cell
        self.eats = grow == 1
        return True


# How many cells, the nearest first, an escape may lead to before the cycle takes over.
ESCAPE_TRIES = 32
# ``Opening.lag`` while the snake follows a harbour: any number of foods may fall on it.
HARBOUR = 1 << 30
# How many nodes the search for a harbour may take (it is asked only when no escape holds).
HARBOUR_NODES = 20000


def _after(body: list[int], way: list[int]) -> list[int]:
    """The body (head first) once the snake has walked ``way`` and eaten at its end."""
    return (way[::-1] + body)[: len(body) + 1]
