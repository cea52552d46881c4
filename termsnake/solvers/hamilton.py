"""The Hamiltonian-cycle solver: follow a cycle through every free cell, with safe shortcuts."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Final

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.entry import MAX_POSITIONS, way_to_closure
from termsnake.solvers.greedy import GreedySolver
from termsnake.solvers.grid import ARROWS, Grid, direction_number, grid_of, roomiest_move
from termsnake.solvers.hampath import DEFAULT_LIMIT, Limit, close_body, find_cycle
from termsnake.solvers.hampath.holes import switchable

# The closure nodes a search for a way onto a cycle may spend in all (``entry``).
ENTRY_NODES: Final = 2_000_000
# Off the cycle, the closure tried at each move may take this many nodes a cell of the cycle: a
# small search, where the set-up made a big one. A way onto a cycle (``entry``) ends where
# this closure succeeds, so that the move after the way finds that cycle.
OFF_CYCLE_NODES: Final = 6


def in_order(pos: Sequence[int], succ: Sequence[int], n: int, cells: Sequence[int]) -> bool:
    """The invariant of HamiltonSolver's docstring for a body (cell indexes, head first) on a
    cycle of ``n`` cells given as each cell's place and successor (place -1: not on the cycle):
    (a) the body lies in order along it from the tail, within one lap, and (b) the head's next
    cell is not its neck."""
    base = pos[cells[-1]]
    last = -1
    for c in reversed(cells):
        if pos[c] < 0:
            return False
        rel = (pos[c] - base) % n
        if rel <= last:
            return False
        last = rel
    return len(cells) < 2 or succ[cells[0]] != cells[1]


def furthest_shortcut(
    grid: Grid, pos: Sequence[int], n: int, game: Game, head: int, target: int
) -> int:
    """The shortcut rule of HamiltonSolver's docstring on a cycle of ``n`` cells given as each
    cell's place (-1: not on it): the free neighbour of ``head`` furthest along the cycle that
    passes neither the tail (1) nor ``target`` (2), and is not the head's predecessor at length
    1 (3); -1 if none beats the next cell of the cycle."""
    ph = pos[head]
    # Cycle distances forward from the head: to the tail (the empty stretch ends there) and to
    # the target.
    to_tail = (pos[grid.index(game.tail)] - ph) % n or n
    to_target = (pos[target] - ph) % n
    # (3) only bites at length 1: k = N - 1 <= to_target makes it the target, and at length 2
    # the predecessor is the tail, already ruled out by (1).
    single = game.length == 1
    best, best_k = -1, 1
    points = grid.points
    for v in grid.adj[head]:
        if pos[v] < 0 or game.occupied(points[v]):
            continue
        k = (pos[v] - ph) % n
        # (1) inside the empty stretch, (2) not past the target, and further than the best.
        if k <= best_k or k >= to_tail or k > to_target or (k == n - 1 and single):
            continue
        best, best_k = v, k
    return best


class HamiltonSolver:
    """Follow a Hamiltonian cycle; cut across it toward the food only when it stays safe.

    Invariant, true before every move once the snake is on the cycle. Number the cycle's cells
    0..N-1 in the direction of travel and let ``pos(c)`` be the cycle distance from the tail
    forward to cell c. Then

    (a) the body is in order along the cycle: pos(tail) = 0 < ... < pos(neck) < pos(head),
        so every cell beyond the head, up to the tail, is empty; and
    (b) the head's successor on the cycle is not its neck (this only matters at length 2).

    Following the cycle keeps (a) and (b) and never dies: the next cell is empty, or it is the
    tail, which is leaving (food never lies on the body; at length 2, (b) rules out the neck).
    Eating keeps the tail in place, yet the body stays in order; this is how the growth of the
    food is counted. A shortcut to a free neighbour ``n`` is taken only if
    (1) n lies in the empty stretch ahead: pos(head) < pos(n), i.e. the head does not pass
        the tail;
    (2) n does not pass the food: cycle distance head -> n <= cycle distance head -> food, so
        every move brings the food closer along the cycle (one food within N moves); and
    (3) if the snake will be two cells long after the move, n is not the head's predecessor on
        the cycle, which would make the neck the next cell (b).
    Among the allowed moves, the one that skips furthest along the cycle wins.
    """

    name = "hamilton"
    # Whether to cut across the cycle; without, the body stays one unbroken arc of the cycle.
    shortcuts = True

    def __init__(self, limit: Limit = DEFAULT_LIMIT) -> None:
        self.limit = limit
        self.cycle: tuple[Point, ...] = ()
        self._grid: Grid | None = None
        self._board: object = None
        self._n = 0
        self._pos: list[int] = []
        self._succ: list[int] = []
        self._succ_dir: list[Direction] = []
        self._overlay: Mapping[Point, str] = MappingProxyType({})
        self._on_cycle = False
        # (the game, its step, the head) after our own last move: the game itself, not its id,
        # which Python reuses once a game is gone.
        self._expect: tuple[Game | None, int, int] = (None, -1, -1)
        self._off_moves = 0  # moves made off the cycle, not following it, since set-up
        self._greedy: GreedySolver | None = None  # plays once those are more than a lap
        self._holes: tuple[int, ...] = ()  # free cells the cycle leaves out
        # A way onto a cycle being walked (``entry``), and (step, length) it expects next.
        self._way: list[int] = []
        self._way_at = (-1, -1)
        # After a search found no way: no other before this step, the wait doubling each time.
        self._way_retry = (0, 1)

    # -- set-up ------------------------------------------------------------------------------

    def setup(self, game: Game) -> None:
        """Find the board's cycle and orient it; SolverUnavailable (saying why) if there is none."""
        board = game.board
        result = find_cycle(board, self.limit)
        if result.cycle is None:
            what = (
                "has no Hamiltonian cycle"
                if result.status == "none"
                else "has no Hamiltonian cycle that could be found"
            )
            raise SolverUnavailable(
                f"hamilton cannot play {board.name}: the board {what} ({result.reason}); "
                "try --ai best"
            )
        self.start_on(game, result.cycle)

    def start_on(self, game: Game, cycle: tuple[Point, ...]) -> None:
        """Set up on ``cycle`` (a cycle through every free cell, or all but one or two holes)
        instead of the board's, oriented as :meth:`setup` orients it."""
        grid = grid_of(game.board)
        self._load(grid, self._start_cycle(game, grid, cycle))
        self._board = game.board
        self._on_cycle = self.holds_invariant(game)
        self._expect = (None, -1, -1)
        self._off_moves = 0
        self._greedy = None  # its plans and waits were for the last game
        self._way = []
        self._way_retry = (0, 1)

    def _start_cycle(self, game: Game, grid: Grid, cycle: tuple[Point, ...]) -> tuple[Point, ...]:
        """The cycle to start on: the board's, whichever way round has the snake in order on
        it; else one built around the body (a closure of it); else the way round from which
        following the cycle gets the snake in order (if no food grows it on the way)."""
        for candidate in (cycle, cycle[::-1]):
            self._load(grid, candidate)
            if self.holds_invariant(game):
                return candidate
        body = [grid.index(p) for p in game.body]
        closed = self._closure(body, self.limit)
        if closed is not None:
            return tuple(grid.points[c] for c in closed)
        for candidate in (cycle, cycle[::-1]):
            self._load(grid, candidate)
            if self._entry_works(game):
                return candidate
        return cycle

    def _load(self, grid: Grid, cycle: tuple[Point, ...]) -> None:
        self._grid = grid
        self.cycle = cycle
        n = len(cycle)
        self._n = n
        self._pos = [-1] * grid.cells
        self._succ = [-1] * grid.cells
        self._succ_dir = [Direction.RIGHT] * grid.cells
        overlay: dict[Point, str] = {}
        for i, p in enumerate(cycle):
            a = grid.index(p)
            b = grid.index(cycle[(i + 1) % n])
            self._pos[a] = i
            self._succ[a] = b
            d = grid.direction(a, b)
            if d is not None:
                self._succ_dir[a] = d
                overlay[p] = ARROWS[d]
        self._overlay = MappingProxyType(overlay)
        self._holes = tuple(c for c in range(grid.cells) if grid.free[c] and self._pos[c] < 0)

    def use_cycle(self, game: Game, cycle: tuple[Point, ...]) -> bool:
        """Follow ``cycle`` from now on if the invariant holds on it for ``game``; else keep
        the current cycle. Whether the new one was taken."""
        grid = self._grid
        if grid is None or len(cycle) != self._n:
            return False
        old = self.cycle
        self._load(grid, cycle)
        if self.holds_invariant(game):
            self._on_cycle = True
            self._expect = (None, -1, -1)
            return True
        self._load(grid, old)
        return False

    @property
    def successors(self) -> list[int]:
        """Cell index -> the next cell index on the cycle (-1 off it); do not modify."""
        return self._succ

    def cycle_distance(self, a: int, b: int) -> int:
        """How many moves along the cycle lead from cell index ``a`` to cell index ``b``."""
        return (self._pos[b] - self._pos[a]) % self._n

    # -- the invariant -----------------------------------------------------------------------

    def holds_invariant(self, game: Game) -> bool:
        """Whether (a) and (b) of the class docstring hold for ``game`` on this solver's cycle."""
        grid = self._grid
        if grid is None:
            return False
        return in_order(self._pos, self._succ, self._n, [grid.index(p) for p in game.body])

    def _entry_works(self, game: Game) -> bool:
        """Whether following the cycle from here reaches the invariant alive (no new food)."""
        grid = self._grid
        assert grid is not None
        body = deque(grid.index(p) for p in game.body)
        cells = set(body)
        food = -1 if game.food is None else grid.index(game.food)
        pos, n = self._pos, self._n
        for _ in range(n):
            head = body[0]
            nxt = self._succ[head]
            if nxt < 0:
                return False  # the head is in a hole, a cell the cycle leaves out
            if len(body) > 1 and nxt == body[1]:
                return False
            ate = nxt == food
            if nxt in cells and (nxt != body[-1] or ate):
                return False
            if ate:
                food = -1
            else:
                cells.discard(body.pop())
            body.appendleft(nxt)
            cells.add(nxt)
            if in_order(pos, self._succ, n, body):
                return True
        return False

    # -- playing -----------------------------------------------------------------------------

    def next_direction(self, game: Game) -> Direction:
        """The next move: a safe shortcut toward the food, else the cycle's next cell."""
        grid = self._grid
        if grid is None or self._board is not game.board:
            self.setup(game)
            grid = self._grid
            assert grid is not None
        index = grid.index
        head = index(game.head)
        # The invariant carries over from our own last move; anything else is checked afresh.
        expected_game, expected_step, expected_head = self._expect
        if expected_game is not game or (expected_step, expected_head) != (game.steps, head):
            self._on_cycle = self.holds_invariant(game)
        if not self._on_cycle:
            # Off the cycle (an odd start, or moved by someone else): build one around the body.
            body = [grid.index(p) for p in game.body]
            closed = self._closure(body, self._off_cycle_limit())
            if closed is not None:
                self._load(grid, tuple(grid.points[c] for c in closed))
                self._on_cycle = self.holds_invariant(game)
        if not self._on_cycle:
            direction = self._entry_move(game, grid, head)
            self._expect = (None, -1, -1)
            return direction
        direction = self._cycle_move(game, grid, head)
        target = grid.step[direction_number(direction)][head]
        self._expect = (game, game.steps + 1, target)
        return direction

    def _cycle_move(self, game: Game, grid: Grid, head: int) -> Direction:
        pos, n = self._pos, self._n
        follow = self._succ_dir[head]
        food = game.food
        if food is None or n < 3 or not self.shortcuts:
            return follow
        v = furthest_shortcut(grid, pos, n, game, head, grid.index(food))
        shortcut = grid.direction(head, v) if v >= 0 else None
        return follow if shortcut is None else shortcut

    def _closure(self, body: Sequence[int], limit: Limit) -> list[int] | None:
        """A cycle through every free cell but the holes with ``body`` as an arc (see
        ``close_body``), each hole switchable on it (food in one that is not could never be
        eaten), or None; none while the body lies on a hole."""
        grid, holes = self._grid, self._holes
        if grid is None or any(c in holes for c in body):
            return None
        closed = close_body(grid, body, limit, self._succ, skip=holes)
        return closed if closed is None or switchable(grid, closed, holes) else None

    def _off_cycle_limit(self) -> Limit:
        """The nodes of the closure tried at each move off the cycle (``OFF_CYCLE_NODES``)."""
        return Limit(OFF_CYCLE_NODES * max(1, self._n))

    def _entry_move(self, game: Game, grid: Grid, head: int) -> Direction:
        """Before the invariant holds (an odd start): follow the cycle if that gets there alive;
        else a way to a body some cycle holds (``entry``); else the safe move that keeps the
        most room; after a lap of those, greedy's moves."""
        follow = self._succ_dir[head]
        if game.is_safe(follow) and self._entry_works(game):
            return follow
        way = self._entry_way(game, grid)
        if way:
            nxt = way.pop(0)
            self._way_at = (game.steps + 1, game.length + (game.food == grid.points[nxt]))
            move = grid.direction(head, nxt)
            if move is not None and game.is_safe(move):
                return move
        self._way = []
        self._off_moves += 1
        if self._off_moves > self._n:
            # A body no cycle holds can go round and round a loop of the board (a column of a
            # wrapping board): eating changes its shape, until a cycle holds it.
            if self._greedy is None:
                self._greedy = GreedySolver()
            return self._greedy.next_direction(game)
        best = roomiest_move(game, grid)
        return best if game.is_safe(best) else follow

    def _entry_way(self, game: Game, grid: Grid) -> list[int]:
        """The way onto a cycle being walked, if the game is where it expects; else a new one
        ([] if none is found)."""
        if self._way and self._way_at == (game.steps, game.length):
            return self._way
        retry, wait = self._way_retry
        if game.steps < retry:
            return []
        body = [grid.index(p) for p in game.body]
        food = -1 if game.food is None else grid.index(game.food)
        per = self._off_cycle_limit()  # the closure of each move off the cycle, as it will be
        positions = min(MAX_POSITIONS, max(100, ENTRY_NODES // per.nodes))
        found = way_to_closure(
            grid, body, food, lambda b: self._closure(b, per) is not None, positions=positions
        )
        self._way = found or []
        # A search tries a closure at each position it reaches: not one every move.
        self._way_retry = (0, 1) if found is not None else (game.steps + wait, 2 * wait)
        return self._way

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The cycle as one arrow per cell, pointing to the next cell of the cycle."""
        return self._overlay
