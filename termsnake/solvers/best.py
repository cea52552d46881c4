"""``best``: the strongest solver termsnake has for each board, a composite of the others.

The first of these that takes the board plays the whole game:

- the cell tree (``tree``) where the board can be cut into its blocks; but ``replan`` first on
  small boards, and on walled boards where every Hamiltonian cycle is much the same (one long
  corridor), where it plays as ``hamilton`` would;
- on boards one cell short of a cycle (odd open boards), the cell tree round a hole
  (``holetree``) where it cuts the rest;
- a Hamiltonian cycle rebuilt at each food (``replan``), or on boards one cell short, a cycle
  through every cell but a hole;
- a cycle through every cell but a moving hole (``hole-cycle``);
- the first of those on the board with its dead ends walled in (``deadends``: blind alleys and
  pockets, where a long snake that goes in cannot get out);
- ``greedy``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import Composite, Solver, SolverUnavailable
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.deadends import DeadEndSolver
from termsnake.solvers.greedy import GreedySolver
from termsnake.solvers.holecycle import HoleCycleSolver
from termsnake.solvers.holetree import HoleTreeSolver
from termsnake.solvers.lastfood import after_laps, last_chance, way_arrows
from termsnake.solvers.replan import ReplanSolver

# The solvers that never die on a board they take at the start of a game, in this order.
SAFE: Final[tuple[Callable[[], Solver], ...]] = (
    TreeSolver,
    HoleTreeSolver,
    ReplanSolver,
    HoleCycleSolver,
)
# On boards of at most this many free cells replan's lanes beat the tree (docs/tuning.md), so
# replan is tried first there.
SMALL_BOARD: Final = 80
# Where replan has its lanes it beats the tree round a hole too, so hole-tree is left out on
# boards above SMALL_BOARD and below this many free cells (the tree refuses boards a cell short
# of a cycle, so replan plays those); on smaller ones replan, tried first, plays every board it
# would take.
HOLE_TREE_MIN_CELLS: Final = ReplanSolver.lane_cells + 1


class BestSolver:
    """The first of the ``SAFE`` solvers that takes the board, else the same round its dead
    ends, else ``greedy``; ``played`` names it after ``setup``."""

    name = "best"

    def __init__(self, *, safe_only: bool = False) -> None:
        """``safe_only``: only the ``SAFE`` solvers, on the board as it is."""
        self.safe_only = safe_only
        self._solver: Solver | None = None
        self._eating_anyway = False  # whether the last move walked the way to a food no safe
        # way reached (``after_laps``, ``last_chance``), not the solver's

    @property
    def played(self) -> str:
        """The name of the solver playing this board, once set up ("" before)."""
        solver = self._solver
        if solver is None:
            return ""
        return (solver.played if isinstance(solver, Composite) else "") or solver.name

    def setup(self, game: Game) -> None:
        """Set up the first solver that takes the board; SolverUnavailable if none does."""
        self._solver = None
        self._eating_anyway = False
        reasons = []
        choices = SAFE if self.safe_only else (*SAFE, _round_dead_ends, GreedySolver)
        if game.board.free_count <= SMALL_BOARD:
            choices = (ReplanSolver, *(c for c in choices if c is not ReplanSolver))
        elif game.board.free_count < HOLE_TREE_MIN_CELLS:
            choices = tuple(c for c in choices if c is not HoleTreeSolver)
        for make in choices:
            solver = make()
            try:
                solver.setup(game)
            except SolverUnavailable as exc:
                reasons.append(str(exc))
                continue
            if isinstance(solver, TreeSolver) and solver.tiled:
                solver = _rigid_replan(game) or solver
            self._solver = solver
            return
        raise SolverUnavailable("no solver can play this board: " + "; ".join(reasons))

    def next_direction(self, game: Game) -> Direction:
        """The move of the solver playing this board; but where no safe way reaches the food
        (in a hole once a board two short is filled to all but two, in a pocket, or where
        greedy finds none), the shortest way to it all the same: the game could only stall.
        After three laps without food (``after_laps``); with ``greedy``, which may find a safe
        way later, just before the stall (``last_chance``)."""
        assert self._solver is not None, "setup first"
        if self.safe_only:
            return self._solver.next_direction(game)
        move = last_chance(game) if self.played == "greedy" else after_laps(game)
        self._eating_anyway = move is not None
        return move if move is not None else self._solver.next_direction(game)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The plan of the solver playing this board; the way to the food while that rule
        walks it (until the food is eaten)."""
        if self._eating_anyway and game.since_food > 0:
            return way_arrows(game)
        return {} if self._solver is None else self._solver.overlay(game)


def _round_dead_ends() -> Solver:
    """The safe solvers on the board less its dead ends (``deadends``)."""
    return DeadEndSolver(lambda: BestSolver(safe_only=True))


def _rigid_replan(game: Game) -> ReplanSolver | None:
    """``replan`` set up on the board if it finds no other cycle to rebuild toward the food
    (then it plays ``hamilton``'s game, which on such a board the tree cannot beat)."""
    replan = ReplanSolver()
    try:
        replan.setup(game)
    except SolverUnavailable:
        return None
    return None if replan.rebuilds else replan
