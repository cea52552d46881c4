"""The greedy graph-search solver: eat by the shortest path when the tail stays in reach."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.endgame import lock_route
from termsnake.solvers.grid import (
    Grid,
    body_free_at,
    direction_number,
    distances,
    extend_path,
    grid_of,
    moved,
    path_arrows,
    roomiest_move,
    safe_directions,
    shortest_path,
    static_blocked,
)
from termsnake.solvers.hampath import Limit, completion

# Free cells from which greedy plays the late game (a Hamiltonian cycle through the free cells).
ENDGAME_FREE = 32
# Search nodes for one completion, and snake states for one look-ahead for a cycle.
COMPLETION_LIMIT = Limit(300)
LOCK_LIMIT = Limit(300)
LOCK_DEPTH = 16


class GreedySolver:
    """Go for the food only if a virtual snake that ate it could still chase its own tail.

    1. P1: the shortest path from the head to the food (BFS, straight runs preferred).
    2. A virtual snake follows P1 and eats.
    3. If the virtual snake can then still reach its tail (by a long path: the shortest path
       stretched by pairwise extension), take P1's first step.
    4. Else follow the longest path from the head to the tail.
    5. Else take the safe move that leaves the head farthest from the food.
    Whatever the plan, a move that kills at once is never taken while a safe one exists.

    In the late game (at most ENDGAME_FREE free cells) step 3 asks more of the virtual snake:
    a path through every free cell from beside its head to beside its tail (a *completion*:
    body and path close a Hamiltonian cycle). Once the snake lies on such a cycle, step 4 keeps
    to it, which eats every food within a lap; before that, step 4 first searches a few moves
    ahead (bounded) for a state that lies on one.
    """

    name = "greedy"

    def __init__(self) -> None:
        self._plan: Mapping[Point, str] = MappingProxyType({})
        # Late game: the route being followed (cells ahead) and the body expected next call.
        self._route: list[int] = []
        self._expect: tuple[int, ...] = ()
        # After a look-ahead finds no cycle, the next one waits (it would see the same states).
        self._search_after = (0, 0)

    def setup(self, game: Game) -> None:
        """Nothing to prepare beyond the board's adjacency (cached)."""
        grid_of(game.board)

    def next_direction(self, game: Game) -> Direction:
        """The next move by the five steps of the class docstring."""
        grid = grid_of(game.board)
        body = [grid.index(p) for p in game.body]
        head = body[0]
        route = self._route if tuple(body) == self._expect else []
        self._route = []
        plan, locked = self._food_plan(game, grid, body, route)
        if plan is None:
            # 4. Chase the tail the long way round, to wait for a better moment to eat.
            plan = _tail_path(grid, body)
        direction = grid.direction(head, plan[0]) if plan else None
        if locked and plan and direction is not None and game.is_safe(direction):
            # Remember the rest of the plan, and the body it should find at the next move.
            food = -1 if game.food is None else grid.index(game.food)
            self._route = plan[1:]
            self._expect = moved(body, plan[0], food)
        if direction is None or not game.is_safe(direction):
            # 5. No plan: keep away from the food, out of the way until the tail opens up.
            plan = None
            direction = _farthest_from_food(game, grid)
        self._plan = MappingProxyType(path_arrows(grid, head, plan) if plan else {})
        return direction

    def _food_plan(
        self, game: Game, grid: Grid, body: list[int], route: list[int]
    ) -> tuple[list[int] | None, bool]:
        """Steps 1-3 (and 4a-4b in the late game): a plan that eats or locks onto a cycle, and
        whether it is locked (to be followed on as long as the body is where it expects)."""
        if game.food is None:
            return None, False
        head = body[0]
        free = grid.board.free_count
        endgame = free - len(body) <= ENDGAME_FREE
        # 1. The shortest path to the food, through cells the body will have left.
        food = grid.index(game.food)
        free_at = body_free_at(grid, game.body)
        p1 = shortest_path(grid, head, food, free_at, direction_number(game.direction))
        # 2. The virtual snake after following P1: the path reversed, then the old body, one
        # cell longer than now because it ate.
        virtual = (p1[::-1] + body)[: len(body) + 1] if p1 else []
        if p1 and endgame:
            # 2-3 in the late game: eat only if the virtual snake then lies on a Hamiltonian
            # cycle (a path through all free cells leads back to its tail).
            if len(virtual) >= free:
                return p1, False
            rest = completion(grid, virtual, COMPLETION_LIMIT)
            if rest is not None:
                return p1 + rest, True
        if route:
            # 4a. Already on such a cycle: keep to it; it passes the food within a lap.
            return route, True
        if endgame and (len(body), game.steps) >= self._search_after:
            # 4b. Search a few moves ahead for a state that lies on such a cycle.
            plan = lock_route(grid, body, food, LOCK_DEPTH, LOCK_LIMIT, COMPLETION_LIMIT)
            if plan is not None:
                return plan, True
            self._search_after = (len(body), game.steps + LOCK_DEPTH // 2)
        # 3. Eating the last food wins; otherwise the tail must stay in reach. Counting the body
        # as walls errs on the safe side, but can keep the snake circling forever (food at the
        # end of a corridor); once a whole board's worth of moves has gone by without food,
        # cells the body will have left count as open.
        if p1 and (
            len(virtual) >= free
            or _tail_path(grid, virtual) is not None
            or (game.since_food >= free and _chases_tail(grid, virtual))
        ):
            return p1, False
        return None, False

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The planned path (to the food or to the tail), as arrows."""
        return self._plan


def _tail_path(grid: Grid, body: Sequence[int]) -> list[int] | None:
    """The longest path found from the head to the tail of ``body``, or None if out of reach.

    The rest of the body counts as walls (it only ever opens up, so this errs on the safe side).
    At length two the tail is also the neck, so the path must not step into it directly.
    """
    if len(body) < 2:
        return None
    blocked = static_blocked(grid, body[:-1])
    path = shortest_path(grid, body[0], body[-1], blocked)
    if path is None:
        return None
    path = extend_path(grid, body[0], path, blocked)
    if len(body) == 2 and len(path) < 2:
        return None
    return path


def _chases_tail(grid: Grid, body: Sequence[int]) -> bool:
    """Whether the head can wander until a cell of ``body`` opens up beside it (no eating).

    A rough test for a snake that has circled too long: the free cells the head can reach
    (body as walls) give it room for as many moves; if some body cell next to that room is
    left by the tail within that many moves, the head can take it and trail its own body.
    """
    length = len(body)
    free_at = [0] * grid.cells
    for i, c in enumerate(body):
        free_at[c] = length - i
    adj = grid.adj
    seen = bytearray(grid.cells)
    seen[body[0]] = 1
    room = [body[0]]
    for u in room:
        for v in adj[u]:
            if not seen[v] and not free_at[v]:
                seen[v] = 1
                room.append(v)
    moves = len(room)
    neck = body[1] if length >= 2 else -1
    return any(
        free_at[v] and free_at[v] <= moves and not (u == body[0] and v == neck)
        for u in room
        for v in adj[u]
    )


def _farthest_from_food(game: Game, grid: Grid) -> Direction:
    """The safe move whose cell is farthest from the food (around the body); else any move."""
    safe = safe_directions(game)
    if not safe:
        return game.direction
    if game.food is None:
        return roomiest_move(game, grid)
    head = grid.index(game.head)
    blocked = static_blocked(grid, (grid.index(p) for p in game.body))
    dist = distances(grid, grid.index(game.food), blocked)
    far = grid.cells + 1
    best = safe[0]
    best_d = -1
    for direction in safe:
        v = grid.step[direction_number(direction)][head]
        # A cell the food cannot reach at all is as far as it gets.
        d = dist[v] if v >= 0 and dist[v] >= 0 else far
        if d > best_d:
            best, best_d = direction, d
    return best
