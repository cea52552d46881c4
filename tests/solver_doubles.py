"""Test doubles shared by the test modules: tiny solvers whose games are known in advance."""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable


class ZigZag:
    """Follows a fixed Hamiltonian cycle of an open board with an even height: it always wins."""

    name = "zigzag"

    def setup(self, game: Game) -> None:
        w, h = game.board.width, game.board.height
        if h % 2 or w < 2 or game.board.walls:
            raise SolverUnavailable(f"no zig-zag cycle on a {w}x{h} board")
        order = [Point(x, 0) for x in range(w)]
        for y in range(1, h):
            xs = range(w - 1, 0, -1) if y % 2 else range(1, w)
            order += [Point(x, y) for x in xs]
        order += [Point(0, y) for y in range(h - 1, 0, -1)]
        self.succ = {p: order[(i + 1) % len(order)] for i, p in enumerate(order)}

    def next_direction(self, game: Game) -> Direction:
        d = Direction.between(game.head, self.succ[game.head])
        assert d is not None
        return d

    def overlay(self, game: Game) -> Mapping[Point, str]:
        return {}
