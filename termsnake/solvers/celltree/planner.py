"""The path planner: cheapest paths from the head in the two-moves-per-cell graph.

One search (``Search``) with one cost model (``StepCosts``) serves both the plans toward the
food and the after-eating count of moves to every cell, so the two cannot drift apart.
``Planner.first_step`` turns a plan into the next cell to move to, keeping the tree whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from heapq import heappop, heappush
from typing import Final

from termsnake.solvers.celltree.config import FAR, STEP, TreeConfig
from termsnake.solvers.celltree.distances import FoodMaps
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.spanning import path_cuts

Kept = tuple[int, list[int], list[int] | None]  # a planner's last path to the food (``kept``)
Watched = tuple[BodyMirror, Kept]  # the state a planner's first detour round a cut began in

# What ``Planner.first_step`` returns instead of a cell.
NO_PLAN: Final = -1  # no path to the food
BREAKS: Final = -2  # the only path found would break the tree
# What ``Search.run`` returns instead of a cell, besides -1 (no goal cell reached); not -2, so
# that no value here means two things.
GAVE_UP: Final = -3  # the moves to the free cells reached ``cap``


@dataclass(frozen=True, slots=True)
class StepCosts:
    """What one move costs, in thousandths of a move.

    A move inside a block costs ``same``; passing by a block the body has not reached (which
    closes that block's edge) ``shut`` more, and ``avoid`` more again if that block is one to
    avoid. A cross move into a new block costs ``new``, one back along a tree edge ``back``.
    Entering a cell costs ``hug`` more per free neighbour it has. With ``chase``, the way round
    a path to the food that would cut blocks off heads for the tail (``Planner.first_step``).
    """

    same: int
    new: int
    back: int
    shut: int
    hug: int
    avoid: int
    chase: bool = False  # round a path that cuts blocks off: after the tail, not into them

    @classmethod
    def of(cls, config: TreeConfig, *, shut: int, hug: int, chase: bool = False) -> StepCosts:
        """The costs of ``config`` with this shut and hug cost."""
        same, new, back = (STEP + p for p in config.penalties)
        return cls(same, new, back, shut, hug, config.avoid_cost, chase)


class Search:
    """One cheapest-path search from the head (A* with a ``bound``, else Dijkstra), run once.

    Body cells count as free once the tail has left them, a body cell's edge constraint holds
    until then, and a cross move may not enter a block the body still holds (that would close
    a loop in the tree), unless it retraces a tree edge. With ``first``, the path's first move
    is that cell; with ``avoid`` (block -> bool), passing one of those blocks costs more.
    """

    __slots__ = ("_avoid", "_bound", "_costs", "_first", "_mirror", "prev", "steps")

    def __init__(
        self,
        mirror: BodyMirror,
        costs: StepCosts,
        *,
        first: int = -1,
        avoid: list[bool] | None = None,
        bound: list[int] | None = None,
    ) -> None:
        self._mirror = mirror
        self._costs = costs
        self._first = first
        self._avoid = avoid
        self._bound = bound
        n = len(mirror.occ)
        self.prev = [-1] * n  # cell -> the cell before it on its cheapest path
        self.steps = [-1] * n  # cell -> the moves of its cheapest path (-1: not reached)

    def run(
        self, goal: list[bool] | None = None, far: list[int] | None = None, cap: int = FAR
    ) -> int:
        """The first goal cell settled, -1 if none is reached. Without ``goal`` it settles every
        cell it reaches, for ``steps``; with ``far`` (cell -> at most its number of moves) it
        gives up (GAVE_UP) as soon as the sum of the moves to the free cells is sure to reach
        ``cap``. Over 60 lines: the planner's hot loop, with the one cost model inline."""
        m, k, g = self._mirror, self._costs, self._mirror.grid
        occ, fixed, fixed_as, last, block = m.occ, m.fixed, m.fixed_as, m.last, g.block
        step_same, step_new, step_back, shut, hug = k.same, k.new, k.back, k.shut, k.hug
        avoid, nbrs, head, cells = self._avoid, g.nbrs, m.head, g.step_info
        tail_serial, gen, seen = m.tail_serial, m.marks.new(), m.marks.seen  # seen: settled
        n = len(occ)
        # The sum of the moves to the free cells is at least that of ``far`` (it rises below).
        low = 0 if far is None else sum(far[c] for c in g.open_cells if occ[c] < 0)
        # Heap keys are (cost + bound) * n + cell: one int orders as the pair would.
        h = self._bound or [0] * n
        best, prev, steps = [FAR] * n, self.prev, self.steps
        best[head] = steps[head] = 0
        heap = [head]
        first = self._first
        while heap:
            c = heappop(heap) % n
            if seen[c] == gen:
                continue
            seen[c] = gen
            t = steps[c]
            if goal is not None:
                if goal[c]:
                    return c
            elif far is not None and occ[c] < 0:
                low += t - far[c]  # a free cell's moves are known
                if low >= cap:
                    return GAVE_UP
            cost = best[c]
            lim = t + tail_serial  # serial numbers above this are still body at time t
            t += 1
            e, cc, succ, crossing = cells[c]
            # The body's constraint on this cell's edge while it lasts.
            if e >= 0 and fixed[e] > lim:
                v = fixed_as[e]
                if v == 1:
                    succ = crossing
            else:
                v = -1
            if first >= 0:
                succ = (first,) if first in succ else ()
                first = -1  # the head is settled first
            for d in succ:
                if seen[d] == gen or occ[d] >= lim:
                    continue  # settled, or still under the body on arrival
                if d == cc:
                    if v == 1:
                        nc = cost + step_back  # retracing a tree edge
                    elif v == 0 or last[block[d]] > lim:
                        continue  # a forbidden edge, or a loop into the body's blocks
                    else:
                        nc = cost + step_new
                else:
                    nc = cost + step_same
                    if v == -1 and e >= 0:
                        if last[block[cc]] <= lim:
                            nc += shut  # passing by a block the body has not reached
                        if avoid is not None and avoid[block[cc]]:
                            nc += k.avoid  # passing by a block to avoid
                if hug:
                    for q in nbrs[d]:
                        if occ[q] < 0:
                            nc += hug
                if nc < best[d]:
                    to_go = h[d]
                    if to_go < FAR:
                        best[d] = nc
                        prev[d] = c
                        steps[d] = t
                        heappush(heap, (nc + to_go) * n + d)
        return -1

    def path_to(self, c: int) -> list[int]:
        """The cheapest path from the head to a settled cell ``c``, both included."""
        prev = self.prev
        path = [c]
        while prev[c] >= 0:
            c = prev[c]
            path.append(c)
        path.reverse()
        return path


class Planner:
    """Plans from one mirror's head with one set of costs; remembers its last path to the food."""

    __slots__ = ("config", "costs", "kept", "maps", "mirror", "watch")

    def __init__(
        self, config: TreeConfig, mirror: BodyMirror, maps: FoodMaps, costs: StepCosts
    ) -> None:
        self.config = config
        self.mirror = mirror
        self.maps = maps
        self.costs = costs
        # The last path planned to the food: the head's serial then, the path, its cut check.
        self.kept: Kept = (-1, [], None)
        # If a list: the first time a way round a cut gets as far as the detour (where ``chase``
        # makes a difference), a copy of the mirror and the path kept before that move go in.
        self.watch: list[Watched] | None = None

    def plan(
        self,
        goal: list[bool],
        first: int = -1,
        avoid: list[bool] | None = None,
        bound: list[int] | None = None,
    ) -> list[int] | None:
        """The cheapest path from the head (through ``first`` if given) to a goal cell."""
        search = Search(self.mirror, self.costs, first=first, avoid=avoid, bound=bound)
        c = search.run(goal)
        return search.path_to(c) if c >= 0 else None

    def moves_to_cells(self, far: list[int] | None = None, cap: int = FAR) -> list[int] | None:
        """Cell -> the number of moves of the cheapest path to it from the head (-1: none).

        With ``far`` (cell -> at most its number of moves), None as soon as the sum of the moves
        to the free cells is sure to reach ``cap``."""
        search = Search(self.mirror, self.costs)
        gave_up = search.run(far=far or [0] * len(self.mirror.occ), cap=cap) == GAVE_UP
        return None if gave_up else search.steps

    def first_step(self, food: int) -> tuple[int, list[int]]:
        """The first cell of a good path: to the food, or to blocks it would cut off first.

        NO_PLAN if there is none, BREAKS if the only plan found would break the tree; the list
        is the whole path to the food (without the head) when it cuts nothing off, else empty.
        """
        if food < 0:
            return NO_PLAN, []
        goal = [False] * len(self.mirror.occ)
        goal[food] = True
        bound = self.maps.bound(food)
        before = self.kept
        found = self._path_to_food(food, goal, bound)
        if found is None:
            return NO_PLAN, []
        path, cut = found
        if cut == []:
            return path[1], path[1:]
        return self._around_cut(goal, bound, path, cut, before), []

    def _path_to_food(
        self, food: int, goal: list[bool], bound: list[int]
    ) -> tuple[list[int], list[int] | None] | None:
        """The cheapest path to the food and the blocks it cuts off (``path_cuts``).

        While the head walks along the last path to the food, the rest of it is taken again
        without a new search: a new one nearly always finds the same, and eating at its end
        leaves the same body, so its cut check stands too."""
        m = self.mirror
        serial, path, cut = self.kept
        if serial == m.serial - 1 and len(path) > 2 and path[1] == m.head and path[-1] == food:
            path = path[1:]
        else:
            found = self.plan(goal, bound=bound)
            if found is None or len(found) < 2:
                self.kept = (-1, [], None)
                return None
            path, cut = found, path_cuts(m, found)
        self.kept = (m.serial, path, cut)
        return path, cut

    def _around_cut(
        self,
        goal: list[bool],
        bound: list[int],
        path: list[int],
        cut: list[int] | None,
        before: Kept,
    ) -> int:
        """The first cell of a way round a ``path`` that cuts the blocks ``cut`` off (None: it
        breaks the tree), or BREAKS; ``before`` is the path kept when the move began."""
        m, g = self.mirror, self.mirror.grid
        head = m.head
        # 1. The best path that starts with the other move may keep the tree whole, if it is at
        # most ``slack`` moves longer (it takes at least the distance from there).
        other = g.cross[head] if path[1] == g.dflt[head] else g.dflt[head]
        longest = len(path) + self.config.slack
        if other >= 0 and m.occ[other] < 0 and (not bound or 2 + bound[other] // STEP <= longest):
            path2 = self.plan(goal, other, bound=bound)
            if path2 is not None and len(path2) <= longest and path_cuts(m, path2) == []:
                return other
        if cut is None:
            return BREAKS
        # 2. On small boards: the best path that enters the blocks it would cut off as it passes
        # them, if that path cuts nothing off.
        if len(g.blocks) <= self.config.few_blocks:
            avoid = [False] * len(g.adj)
            for b in cut:
                avoid[b] = True
            path3 = self.plan(goal, avoid=avoid, bound=bound)
            if path3 is not None and len(path3) >= 2 and path_cuts(m, path3) == []:
                return path3[1]
        # 3. Chasing: after the tail, whose leaving opens the blocks cut off again.
        if self.watch is not None and not self.watch:
            self.watch.append((m.copy(), before))  # the mirror is as the move began
        detour_goal = [False] * len(goal)
        if self.costs.chase and len(m.body) > 2:
            tail = m.body[-1]
            detour_goal[tail] = True
            detour = self.plan(detour_goal, bound=self.maps.bound_to_tail(tail))
            if detour is not None and len(detour) >= 2:
                return detour[1]
            detour_goal[m.body[-1]] = False
        # 4. Else visit the blocks the path would cut off first (join them to the tree).
        for b in cut:
            for c in g.cells_of[b]:
                detour_goal[c] = m.occ[c] < 0
        detour = self.plan(detour_goal)
        if detour is None or len(detour) < 2:
            return BREAKS
        return detour[1]
