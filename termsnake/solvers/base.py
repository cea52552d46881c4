"""The Solver protocol, the registry of solvers by name, and headless play."""

from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point


class SolverUnavailable(Exception):
    """The solver cannot play this board (say, no Hamiltonian cycle); the message says why."""


@runtime_checkable
class Solver(Protocol):
    """A strategy: it reads the game and returns a direction, never mutating the live game.

    ``setup`` is called once before the first move and may raise SolverUnavailable.
    ``overlay`` returns the plan to draw under the snake (cell -> one glyph), possibly empty.
    """

    name: str

    def setup(self, game: Game) -> None: ...

    def next_direction(self, game: Game) -> Direction: ...

    def overlay(self, game: Game) -> Mapping[Point, str]: ...


# name -> "module:factory". Modules are imported only when a solver is asked for by name.
_REGISTRY: dict[str, str] = {
    "hamilton": "termsnake.solvers.hamilton:HamiltonSolver",
    "greedy": "termsnake.solvers.greedy:GreedySolver",
    "bfs": "termsnake.solvers.shortest:BfsSolver",
    "astar": "termsnake.solvers.shortest:AStarSolver",
    "tree": "termsnake.solvers.celltree:TreeSolver",
    "best": "termsnake.solvers.best:BestSolver",
    "replan": "termsnake.solvers.replan:ReplanSolver",
    "hole-cycle": "termsnake.solvers.holecycle:HoleCycleSolver",
}
# Other names for registered solvers (none now: `best` is a solver of its own).
_ALIASES: dict[str, str] = {}


def known_names() -> list[str]:
    """Every name ``create`` accepts, aliases included, sorted."""
    return sorted([*_REGISTRY, *_ALIASES])


def resolve_name(name: str) -> str:
    """The registered solver a name (or alias) stands for; ValueError listing the known ones."""
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key not in _REGISTRY:
        raise ValueError(f"unknown solver {name!r}; known solvers: {', '.join(known_names())}")
    return key


def create(name: str) -> Solver:
    """A fresh solver by name or alias; ValueError listing the known names if there is none."""
    key = resolve_name(name)
    module_name, _, attr = _REGISTRY[key].partition(":")
    factory: Callable[[], Solver] = getattr(importlib.import_module(module_name), attr)
    return factory()


def display_name(requested: str, solver: Solver) -> str:
    """How reports name a solver asked for as ``requested``: a composite such as ``best`` with
    the solver it played (``best (tree)``), any other by that name."""
    played = getattr(solver, "played", "")
    return f"{requested} ({played})" if played else requested


@dataclass(slots=True)
class PlayStats:
    """Timing gathered by ``play``: solver decision time per move, in seconds."""

    think_times: list[float] = field(default_factory=list)


def play(
    game: Game,
    solver: Solver,
    *,
    max_steps: int | None = None,
    stats: PlayStats | None = None,
) -> Outcome | None:
    """Let ``solver`` play ``game`` headless until it ends (or ``max_steps`` more moves)."""
    if not game.over:
        solver.setup(game)
    clock = time.perf_counter
    moves = 0
    while not game.over and (max_steps is None or moves < max_steps):
        t0 = clock()
        direction = solver.next_direction(game)
        if stats is not None:
            stats.think_times.append(clock() - t0)
        game.step(direction)
        moves += 1
    return game.outcome
