"""The re-planning cycle solver: a Hamiltonian cycle rebuilt around the body at each food.

It follows a Hamiltonian cycle like ``hamilton``, but the cycle is not fixed. When a new food
appears and the way round the cycle is longer than the shortest path, it searches for a new
cycle that keeps the body as one arc and heads from the head for the food first
(``hampath.close_body``: a path from the head through every free cell back to the tail, which
goes for the food by distance, then covers the rest). If one reaches the food sooner, it is
followed from then on; if none is found within a bounded number of positions, the old cycle is
kept and the search is tried again a few moves later (1, 2, 4, ... moves). Before that search,
local changes of the cycle at 2x2 squares are tried (``hampath.reroute``): they need no search,
and work where it fails, as on boards that wrap with an odd side.

On boards of at most ``lane_cells`` free cells it first looks for a *lane* (``lane``): the
fewest moves to the food, off the cycle, after which the grown body closes into a new cycle.
The snake walks the lane, eats at its end and follows that cycle from there.

It takes no shortcuts of ``hamilton``'s kind (to a cell further round the cycle): one leaves a
pocket behind the body that no cycle can close around, which would stop the rebuilding; the
rebuilt cycle, or a lane, takes the shortcut when a safe one exists. On a board where no cycle
can be rebuilt to reach a cell sooner (one long two-lane corridor, say: the set-up probes a few
cells to find out) it plays exactly as ``hamilton``, shortcuts included.

A board one or two cells short of a cycle (an odd board, say) is played on a cycle through all
cells but one or two *holes* (``hampath.holes``); food in a hole is reached by switching the
cycle into it at a corner, which moves the hole to the cell the cycle then leaves out. Holes
are looked for off the snake and the first food; where none is found there, one under them is
taken, and the snake gets onto the cycle as from any start that is not in order on it.

Safety: the snake is always on a Hamiltonian cycle (of the free cells, less the holes) on which
its body lies in order, or on a lane that ends on one; each new cycle is checked before it is
taken. That is the state ``hamilton`` never dies from, so it never dies on a board with a
Hamiltonian cycle, walls and wrap included. (A start body that is not in order on the board's
cycle gets a cycle built around it first: see ``hamilton``.) The cell-tree solver (``tree``)
needs a board cut into blocks (2x2, or 2x3 and 3x2 where those fit) and refuses the others;
``best`` plays those with a cycle with this one.
"""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.grid import (
    Grid,
    body_free_at,
    grid_of,
    shortest_path,
)
from termsnake.solvers.hamilton import HamiltonSolver
from termsnake.solvers.hampath import DEFAULT_LIMIT, Limit, close_body
from termsnake.solvers.hampath.holes import (
    apart,
    find_hole_cycle,
    hole_candidates,
    switch_at,
    switchable,
)
from termsnake.solvers.hampath.reroute import reroute
from termsnake.solvers.lane import Lane

# Closure searches per try: Warnsdorff first, then one that keeps to the old cycle where it can,
# which finds cycles Warnsdorff misses on boards like pillars (docs/tuning.md, "replan").
ATTEMPTS = (False, True)
# ``_retry`` once a search has found a way to this food (a lane, or a cycle that reaches it
# sooner): no step comes this late, so none runs again until the next food resets it.
NO_MORE_SEARCH = 1 << 62
# The sets of holes a rebuilt cycle may leave out, each tried in turn (``_hole_sets``).
HoleSets = list[tuple[int, ...]]


class ReplanSolver:
    """Follow a Hamiltonian cycle, rebuilt at each food so that it reaches the food soon."""

    name = "replan"
    # Positions the closure search may try: this many per free cell, plus a floor; more finds
    # more shortcuts on walled boards (docs/tuning.md, "replan").
    nodes_per_cell = 6
    min_nodes = 500
    # After a failed search for a food, wait this many moves before the next, doubling each time.
    first_wait = 1
    wait_growth = 4  # in halves: 4 doubles the wait, 2 keeps it
    # Cells the set-up tries to rebuild the cycle toward (see setup).
    probes = 7
    # On a board a cell or two short of a cycle: holes tried instead of one now, at each search.
    other_holes = 3
    # On boards of at most this many free cells, look for a lane (see ``lane``) before
    # rebuilding the cycle, within lane_nodes; on bigger ones its searches cost too much time.
    lane_cells = 100
    lane_nodes = 2000
    # Nodes for each closure a lane search tries: this many per free cell, plus a floor.
    lane_per_cell = 1
    lane_floor = 100
    # A lane search's moves searched and closure nodes together: a search that finds nothing
    # would otherwise be a pause a player sees; few lanes take more (docs/tuning.md).
    lane_work = 20_000
    # Lane searches per food, and sets of holes each tries (on a board short of a cycle).
    lane_tries = 99
    lane_holes = 1

    def __init__(self, limit: Limit = DEFAULT_LIMIT) -> None:
        self._ham = HamiltonSolver(limit)
        # Shortcuts leave pockets behind the body that no cycle can close around; the cycle is
        # rebuilt instead, which takes the shortcut too when it is safe.
        self._ham.shortcuts = False
        self._rebuild = True
        self._grid: Grid | None = None
        self._board: object = None
        self._food: Point | None = None  # the food the waiting below is about
        self._retry = 0  # no search before this step
        self._wait = 1
        self.found = 0  # closure searches that found a cycle
        # The cells the cycle leaves out on a board a cell or two short of a cycle. ``_ham``
        # reads the same cells off the cycle, in cell order; this order is the one
        # ``_hole_sets`` reads: a search that moves a hole puts the new one last, a switch
        # keeps its place, and with the food in neither hole the last one is moved.
        self._holes: tuple[int, ...] = ()
        self._lane = Lane()
        self._lane_tries = 0

    @property
    def cycle(self) -> tuple[Point, ...]:
        """The cycle followed now."""
        return self._ham.cycle

    @property
    def on_lane(self) -> bool:
        """Whether the snake is on a lane (off the cycle) or has just walked one."""
        return bool(self._lane.moves or self._lane.after)

    @property
    def rebuilds(self) -> bool:
        """Whether it rebuilds the cycle (once set up); if not, it plays ``hamilton``'s game."""
        return self._rebuild

    @property
    def holes(self) -> tuple[int, ...]:
        """The cell indexes the cycle leaves out on a board a cell or two short of a cycle."""
        return self._holes

    def setup(self, game: Game) -> None:
        """Find the board's first cycle, or one through all cells but one or two holes;
        SolverUnavailable (saying why) if it has neither."""
        self._holes = ()
        try:
            self._ham.setup(game)
        except SolverUnavailable as exc:
            if not self._start_with_hole(game):
                raise SolverUnavailable(str(exc).replace("hamilton", self.name, 1)) from None
        grid = grid_of(game.board)
        # Probe: can the cycle be rebuilt toward cells spread around it? On a board where it
        # cannot (one long corridor, say), play as hamilton, whose shortcuts leave pockets to
        # be filled on the next lap instead.
        # Food in a hole is reached only by rebuilding, wherever the probe says.
        self._begin(game, grid, rebuild=bool(self._holes) or self._probe(game, grid))

    def take_over(self, game: Game, cycle: tuple[Point, ...], holes: tuple[Point, ...]) -> None:
        """Set up mid-game on another solver's ``cycle``, through every free cell but ``holes``
        (each switchable, or the food's), with the body in order on it."""
        grid = grid_of(game.board)
        self._ham.start_on(game, cycle)
        self._holes = tuple(grid.index(p) for p in holes)
        self._begin(game, grid, rebuild=True)

    def _begin(self, game: Game, grid: Grid, *, rebuild: bool) -> None:
        """The state of a game just taken on ``grid``, rebuilding the cycle or not."""
        self._grid, self._board, self._food = grid, game.board, None
        self.found = 0
        self._rebuild = rebuild
        self._ham.shortcuts = not rebuild

    def _start_with_hole(self, game: Game) -> bool:
        grid = grid_of(game.board)
        taken = {grid.index(p) for p in game.body}
        if game.food is not None:
            taken.add(grid.index(game.food))
        found = find_hole_cycle(game.board, taken, self._ham.limit) or find_hole_cycle(
            game.board, (), self._ham.limit
        )
        if found is None:
            return False
        cycle, self._holes = found
        self._ham.start_on(game, tuple(grid.points[c] for c in cycle))
        return True

    def _probe(self, game: Game, grid: Grid) -> bool:
        cycle = self._ham.cycle
        n = len(cycle)
        # A snake shorter than 3 could turn round and take the cycle backwards, which says
        # nothing about the game: probe as if it had come along the cycle, 3 cells long.
        body = [grid.index(p) for p in game.body]
        where = {grid.index(p): i for i, p in enumerate(cycle)}
        while len(body) < min(3, n - 1):
            behind = grid.index(cycle[(where[body[-1]] - 1) % n])
            if behind in body:
                break
            body.append(behind)
        limit = max(self.min_nodes, self.nodes_per_cell * (n - len(body)))
        head = body[0]
        for k in range(1, self.probes + 1):
            target = grid.index(cycle[k * n // (self.probes + 1)])
            if target in body:
                continue
            closed = close_body(
                grid, body, Limit(limit), self._ham.successors, target, skip=self._holes
            )
            if closed is not None:
                sooner = closed.index(target) - (len(body) - 1)
                if sooner < self._ham.cycle_distance(head, target):
                    return True
            # The same with a body along the cycle (the snake may not be on it yet).
            if head in where and n > 3:
                along = [grid.index(cycle[(where[head] - k) % n]) for k in range(3)]
                if self._rerouted(grid, along, target) is not None:
                    return True
        return False

    def _rerouted(self, grid: Grid, body: list[int], goal: int) -> list[int] | None:
        """The cycle from the tail of ``body`` (head first), changed at squares
        (``hampath.reroute``) to reach ``goal`` sooner, each hole still switchable; None if no
        change does, or the body is not one arc of the cycle (at the start of a game it may lie
        on it in order with gaps, and the changes keep only the arc they are given)."""
        succ = self._ham.successors
        order = [body[-1]]
        for _ in range(len(self._ham.cycle) - 1):
            order.append(succ[order[-1]])
        if order[: len(body)] != body[::-1]:
            return None
        new = reroute(grid, order, len(body), goal)
        return new if new is not None and switchable(grid, new, self._holes) else None

    def next_direction(self, game: Game) -> Direction:
        """``hamilton``'s move on a cycle rebuilt, when it can be, to reach the food sooner."""
        grid = self._grid
        if grid is None or self._board is not game.board:
            self.setup(game)
            grid = self._grid
            assert grid is not None
        lane = self._lane.step(game, grid)
        if lane is not None:
            return lane
        landed = self._lane.landed(game)
        if landed is not None and self._ham.use_cycle(game, landed[0]):
            self._holes = landed[1]
        if self._should_search(game):
            self._search(game, grid)
            lane = self._lane.step(game, grid)
            if lane is not None:
                return lane
        food = -1 if game.food is None else grid.index(game.food)
        if food in self._holes:
            step = self._into_hole(game, grid, food)
            if step is not None:
                return step
        return self._ham.next_direction(game)

    def _into_hole(self, game: Game, grid: Grid, hole: int) -> Direction | None:
        """The move into ``hole`` for its food, if now is the time: the last food (the body
        fills the cycle, and eating it wins), or the head at the corner where the cycle can
        switch into the hole (see ``hampath.holes``), with the cell it then leaves out empty.
        With two holes a body that fills the cycle never eats again: a snake one cell short of
        the board would have an odd number of cells, which no cycle holds, and die."""
        head = grid.index(game.head)
        if game.length >= len(self._ham.cycle):
            return grid.direction(head, hole) if len(self._holes) == 1 else None
        succ = self._ham.successors
        corner = switch_at(grid, succ, hole)
        if corner is None or corner[0] != head or game.occupied(grid.points[corner[1]]):
            return None
        m = corner[1]
        cycle = [hole if c == m else c for c in (grid.index(p) for p in self._ham.cycle)]
        if not self._ham.use_cycle(game, tuple(grid.points[c] for c in cycle)):
            return None
        self._holes = tuple(m if h == hole else h for h in self._holes)
        return grid.direction(head, hole)

    def _should_search(self, game: Game) -> bool:
        food = game.food
        if food is None:
            return False
        if food != self._food:
            self._food = food
            self._lane_tries = self.lane_tries
            self._retry = game.steps
            self._wait = self.first_wait
        return self._rebuild and game.steps >= self._retry and self._ham.holds_invariant(game)

    def _search(self, game: Game, grid: Grid) -> None:
        """Rebuild the cycle around the body so that it heads for the food first: changed at
        2x2 squares (``_rerouted_to``), else along a lane (``_planned_lane``, small boards
        only), else closed anew (``_closed_anew``); if none gets there sooner, later again."""
        food = game.food
        assert food is not None
        goal = grid.index(food)
        head = grid.index(game.head)
        # Food in a hole is never reached round the cycle: the hole must move.
        on_cycle = self._ham.successors[goal] >= 0
        now = self._ham.cycle_distance(head, goal) if on_cycle else grid.cells
        path = shortest_path(grid, head, goal, body_free_at(grid, game.body))
        # Worth a search only if going round the cycle is longer than the way there.
        if path is None or len(path) >= now:
            self._later(game)
            return
        body = [grid.index(p) for p in game.body]
        if on_cycle and self._rerouted_to(game, grid, body, goal):
            self.found += 1
            now = self._ham.cycle_distance(head, goal)
            if len(path) >= now:
                self._retry = NO_MORE_SEARCH
                return
            if grid.board.free_count > self.lane_cells:
                # A lane or closure search to beat it as well pays on small boards only:
                # on bigger ones it costs more time than it saves moves (docs/tuning.md).
                self._later(game)
                return
        tries = self._hole_sets(grid, body, goal)
        if self._planned_lane(game, grid, goal, now, tries) or self._closed_anew(
            game, grid, body, goal, now, tries
        ):
            self.found += 1
            self._retry = NO_MORE_SEARCH
            return
        self._later(game)

    def _rerouted_to(self, game: Game, grid: Grid, body: list[int], goal: int) -> bool:
        """Whether the cycle, changed at 2x2 squares to reach ``goal`` sooner, was taken."""
        rerouted = self._rerouted(grid, body, goal)
        return rerouted is not None and self._ham.use_cycle(
            game, tuple(grid.points[c] for c in rerouted)
        )

    def _planned_lane(self, game: Game, grid: Grid, goal: int, now: int, tries: HoleSets) -> bool:
        """Whether a lane to ``goal``, shorter than ``now`` moves round the cycle, was found
        and is to be walked: on boards of at most ``lane_cells`` free cells, ``lane_tries``
        times a food at most, with the first ``lane_holes`` of the hole sets ``tries``."""
        if grid.board.free_count > self.lane_cells or self._lane_tries <= 0:
            return False
        self._lane_tries -= 1
        free = len(self._ham.cycle) - game.length
        closing = max(self.lane_floor, self.lane_per_cell * free)
        limits = (Limit(self.lane_nodes), Limit(closing), Limit(self.lane_work))
        lane_holes = tries[: self.lane_holes]
        return self._lane.plan(grid, game, goal, min(now, grid.cells) - 1, lane_holes, limits)

    def _closed_anew(
        self, game: Game, grid: Grid, body: list[int], goal: int, now: int, tries: HoleSets
    ) -> bool:
        """Whether a closure search (``hampath.close_body``) found a cycle, leaving out the
        holes of one of ``tries``, that reaches ``goal`` in fewer than ``now`` moves and keeps
        each hole switchable; if so it is followed from now on, with those holes."""
        free = len(self._ham.cycle) - len(body)
        limit = Limit(max(self.min_nodes, self.nodes_per_cell * free))
        for holes in tries:
            for keep in ATTEMPTS:
                closed = close_body(
                    grid, body, limit, self._ham.successors, goal, keep_to_prefer=keep, skip=holes
                )
                if closed is None:
                    continue
                cycle = tuple(grid.points[c] for c in closed)
                # The new cycle reaches the food at its place after the head (the body first).
                sooner = closed.index(goal) - (len(body) - 1) < now
                if not switchable(grid, closed, holes):
                    continue  # food in that hole later could never be reached
                if sooner and self._ham.use_cycle(game, cycle):
                    self._holes = holes
                    return True
        return False

    def _hole_sets(self, grid: Grid, body: list[int], goal: int) -> HoleSets:
        """The holes a rebuilt cycle may leave out: none on a board with a cycle; else the holes
        now (unless the food is in one), then the same with the food's hole (or the last one)
        moved to one of a few other cells that could be one, far from the holes kept."""
        holes = self._holes
        if not holes:
            return [()]
        kept = tuple(h for h in holes if h != goal)
        staying = kept if len(kept) < len(holes) else kept[:-1]  # when one hole moves
        colour = (holes[0] % grid.width + holes[0] // grid.width) & 1
        others = [
            c
            for c in hole_candidates(grid, colour, {*body, goal, *holes}, far_from=body[0])
            if all(apart(grid, c, h) for h in staying)
        ]
        now = [holes] if kept == holes else []
        return [*now, *((*staying, c) for c in others[: self.other_holes])]

    def _later(self, game: Game) -> None:
        self._retry = game.steps + self._wait
        self._wait = self._wait * self.wait_growth // 2 or 1

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The cycle the snake follows, one arrow per cell."""
        return self._ham.overlay(game)
