"""The shortest-path baselines: BFS and A* straight to the food, with no look-ahead."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.grid import (
    Grid,
    astar_path,
    body_free_at,
    direction_number,
    grid_of,
    path_arrows,
    roomiest_move,
    shortest_path,
)


class _ShortestPathSolver:
    """Take the first step of a shortest path to the food, through cells the body will have left.

    With no path (or no food), the safe move with the most room; with no safe move, any move.
    These bots may trap themselves: that is what the other solvers are measured against.
    """

    name = "shortest"

    def __init__(self) -> None:
        self._plan: Mapping[Point, str] = MappingProxyType({})

    def setup(self, game: Game) -> None:
        """Nothing to prepare beyond the board's adjacency (cached)."""
        grid_of(game.board)

    def _path(
        self, grid: Grid, head: int, food: int, free_at: Sequence[int], first_dir: int
    ) -> list[int] | None:
        raise NotImplementedError

    def next_direction(self, game: Game) -> Direction:
        """The first step toward the food, else the roomiest safe move."""
        grid = grid_of(game.board)
        head = grid.index(game.head)
        path = None
        if game.food is not None:
            free_at = body_free_at(grid, game.body)
            path = self._path(
                grid, head, grid.index(game.food), free_at, direction_number(game.direction)
            )
        if path:
            direction = grid.direction(head, path[0])
            if direction is not None and game.is_safe(direction):
                self._plan = MappingProxyType(path_arrows(grid, head, path))
                return direction
        self._plan = MappingProxyType({})
        return roomiest_move(game, grid)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The planned path to the food, as arrows."""
        return self._plan


class BfsSolver(_ShortestPathSolver):
    """Breadth-first search to the food, preferring straight runs among equal paths."""

    name = "bfs"

    def _path(
        self, grid: Grid, head: int, food: int, free_at: Sequence[int], first_dir: int
    ) -> list[int] | None:
        return shortest_path(grid, head, food, free_at, first_dir)


class AStarSolver(_ShortestPathSolver):
    """A* search to the food with the Manhattan heuristic (around the edges on wrapping boards)."""

    name = "astar"

    def _path(
        self, grid: Grid, head: int, food: int, free_at: Sequence[int], first_dir: int
    ) -> list[int] | None:
        return astar_path(grid, head, food, free_at)
