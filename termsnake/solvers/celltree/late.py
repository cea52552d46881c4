"""The late game: off the blocks, along a Hamiltonian cycle shortened at each food.

Once few cells are free, the snake leaves the blocks behind. It follows the tree's last witness
cycle, and at each food looks for a shorter way to it after which the body still closes into a
Hamiltonian cycle (any cycle, not only the blocks'); if it finds one, it takes it and then
follows that new cycle.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.celltree.blocks import BlockGrid, direction
from termsnake.solvers.endgame import closing_path
from termsnake.solvers.grid import ARROWS, grid_of
from termsnake.solvers.hampath import Limit


class LateGame:
    """The cycle the snake follows, and the moves of a shorter way to the food if one is
    planned."""

    __slots__ = ("chosen", "closing", "lane", "limit", "ring", "searched")

    def __init__(self, ring: list[int], limit: Limit, closing: Limit) -> None:
        self.ring = ring  # cell -> the next cell of the cycle followed
        self.limit = limit  # what a search for a shorter way may do
        self.closing = closing  # what each closure it tries may do
        self.lane: deque[int] = deque()  # the moves of a shorter way to the food
        self.searched = -1  # the step at which the food last searched for appeared
        self.chosen = -1  # the cell the last move went (or is about to go) to

    def move(self, game: Game) -> Direction:
        """Along a shorter way to the food if one is planned, else along the ring.

        Once per food it searches for a way shorter than the ring's after which the body
        closes into a Hamiltonian cycle; if found, the ring becomes that cycle.
        """
        cells = grid_of(game.board)
        head = cells.index(game.head)
        ring = self.ring
        appeared = game.steps - game.since_food
        if not self.lane and game.food is not None and self.searched != appeared:
            self.searched = appeared
            food = cells.index(game.food)
            ahead, c = 0, head
            while c != food:
                c = ring[c]
                ahead += 1
            body = [cells.index(p) for p in game.body]
            found = closing_path(cells, body, food, ahead - 1, self.limit, self.closing)
            if found is not None:
                moves, cycle = found
                for a, b in pairwise([*cycle, cycle[0]]):
                    ring[a] = b
                self.lane.extend(moves)
        return self.follow(game)

    def follow(self, game: Game) -> Direction:
        """The next move of the way planned, else along the ring; no search for a new way.
        While a way is planned the ring is the cycle after it, not yet the body's."""
        cells = grid_of(game.board)
        head = cells.index(game.head)
        nxt = self.chosen = self.lane.popleft() if self.lane else self.ring[head]
        return cells.move(head, nxt)

    def overlay(self, game: Game, grid: BlockGrid) -> dict[Point, str]:
        """The planned way to the food, if any, then the cycle, as arrows up to the body."""
        cells = grid_of(game.board)
        out: dict[Point, str] = {}
        c = cells.index(game.head)
        # Asked between a move and the game's step, the way goes on from the cell chosen.
        ahead = [self.chosen] if self.chosen not in (-1, c) else []
        for nxt in [*ahead, *self.lane]:
            out[cells.points[c]] = ARROWS[direction(grid, c, nxt)]
            c = nxt
        while not game.occupied(cells.points[c]) or not out:
            out[cells.points[c]] = ARROWS[direction(grid, c, self.ring[c])]
            c = self.ring[c]
        return out
