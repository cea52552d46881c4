"""The move policy's state and steps, over one body mirror: the live solver has one, and every
play-out a fork of it (``lookahead.choose`` puts the steps together).

Each move: after a lap without food, follow a fixed cycle (re-planning is a heuristic); else
keep to a route chosen earlier while every step of it keeps the tree; else plan the cheapest
path to the food and take its first step if the tree survives it, otherwise the other move
(the witness tree's own move is always one of the two, so one of them keeps it).
"""

from __future__ import annotations

from collections import deque

from termsnake.solvers.celltree.config import STEP, TreeConfig
from termsnake.solvers.celltree.distances import FoodMaps
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.planner import BREAKS, Planner, StepCosts, Watched
from termsnake.solvers.celltree.spanning import keeps_tree, witness_cycle


class Policy:
    """A mirror with the planner and the routes that move it: the state one line of play needs."""

    __slots__ = ("config", "follow", "mirror", "planner", "route", "route_score")

    def __init__(
        self,
        config: TreeConfig,
        mirror: BodyMirror,
        maps: FoodMaps,
        *,
        shut: int,
        hug: int,
        chase: bool = False,
    ) -> None:
        self.config = config
        self.mirror = mirror
        costs = StepCosts.of(config, shut=shut, hug=hug, chase=chase)
        self.planner = Planner(config, mirror, maps, costs)
        self.follow: list[int] | None = None  # a fixed cycle to follow when re-planning stalls
        self.route: deque[int] = deque()  # cells of a route to keep to
        self.route_score = -1  # the look-ahead score of the rest of that route, -1 if none

    def fork(
        self, *, shut: int, hug: int, chase: bool = False, at: Watched | None = None
    ) -> Policy:
        """A play-out's policy: a copy of the mirror, these costs, nothing kept or followed; or,
        ``at`` a watched state (``Planner.watch``), a copy of its mirror and its path kept."""
        mirror, kept = at if at is not None else (self.mirror, None)
        maps = self.planner.maps
        twin = Policy(self.config, mirror.copy(), maps, shut=shut, hug=hug, chase=chase)
        if kept is not None:
            twin.planner.kept = kept
        return twin

    def restart(self) -> None:
        """Forget the routes kept and the cycle followed (the body moved off the blocks' ways)."""
        self.follow = None
        self.route.clear()
        self.route_score = -1
        self.planner.kept = (-1, [], None)

    def options(self) -> list[int]:
        """The head's moves into cells that are free now."""
        m = self.mirror
        g, head = m.grid, m.head
        return [c for c in (g.dflt[head], g.cross[head]) if c >= 0 and m.occ[c] < 0]

    def following(self, since_food: int) -> int | None:
        """The next cell of the fixed cycle, while one is followed (from a lap without food on,
        until the snake eats)."""
        m = self.mirror
        if since_food > len(m.grid.open_cells) and self.follow is None:
            self.follow = witness_cycle(m)
        if self.follow is None:
            return None
        if since_food == 0:
            self.follow = None
            return None
        return self.follow[m.head]

    def take_route(self, food: int, options: list[int]) -> tuple[int, int] | None:
        """The next cell of the kept route and the score of the route from there, if it is free
        and keeps the tree; else the route is dropped."""
        route = self.route
        if not route:
            return None
        c = route.popleft()
        if c in options and keeps_tree(self.mirror, c, c == food):
            score = self.route_score
            self.route_score = score - STEP
            return c, score
        route.clear()
        return None

    def tree_keeping_moves(
        self, food: int, options: list[int], *, both: bool
    ) -> tuple[list[int], list[int]]:
        """The moves that keep the tree, the planner's first (all of them if ``both``, else the
        first only), and the planner's path to the food if it cuts nothing off."""
        order = list(options)
        first, route = self.planner.first_step(food)
        if first in order:
            order.sort(key=lambda c: c != first)
        elif first == BREAKS and len(order) == 2:
            order.reverse()
        safe: list[int] = []
        for c in order:
            if keeps_tree(self.mirror, c, c == food):
                safe.append(c)
                if not both:
                    break
        if not safe:
            raise AssertionError("the cell tree lost its spanning tree")  # pragma: no cover
        return safe, route

    def keep_play_out(self, cells: list[int], score: int) -> int:
        """Keep to a played-out route after its first cell, which it returns; ``score`` is the
        route's, and counts down a move's worth at each step taken."""
        self.route.extend(cells[1:])
        self.route_score = score - STEP
        return cells[0]

    def keep_route(self, path: list[int], move: int) -> None:
        """Keep to a path that cuts nothing off (it stays the cheapest as the snake walks it)
        rather than search again each move, if ``move`` is its first step."""
        if path and path[0] == move:
            self.route.extend(path[1:])
            self.route_score = -1
