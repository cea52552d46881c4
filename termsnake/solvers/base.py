"""The Solver protocol, its lifecycle's exceptions, and headless play (``play``); the names
solvers go by are in ``registry``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point


class SolverUnavailable(Exception):
    """The solver cannot play this board (say, no Hamiltonian cycle); the message says why."""


class Interrupted(Exception):
    """A signal asked the program to stop while a bot was thinking (an engine that takes its
    time): the move is dropped, and whoever asked for it ends the game."""


def set_interrupt(solver: object, check: Callable[[], bool]) -> None:
    """Let a bot that can wait long (an engine) ask ``check`` as it waits, and stop with
    Interrupted once it says so."""
    if hasattr(solver, "interrupted"):
        solver.interrupted = check


class SolverFailed(Exception):
    """The solver broke down mid-game (an engine that exited or misbehaved); the game is lost
    for it, and the message says what it did."""


@runtime_checkable
class Solver(Protocol):
    """A strategy: it reads the game and returns a direction, never mutating the live game.

    The lifecycle: an instance plays one game at a time. ``setup(game)`` is called once per
    game before its first move (and again to start another game); it may raise
    SolverUnavailable, saying why. ``next_direction(game)`` is called once per move on the live
    game, which it must not change (``game.copy()`` is there for look-ahead); SolverFailed says
    the solver broke down, and loses it the game. ``overlay(game)`` may be called any time
    after ``setup``: the plan to draw under the snake (cell -> one glyph), possibly empty. A
    solver holding a resource (an engine's process) may also have ``finish(game)`` (see
    Finishing), called when the game has ended. A solver made of others (``best``) may say
    which one plays the board in a ``played`` string, read after ``setup`` (display_name).
    """

    name: str

    def setup(self, game: Game) -> None: ...

    def next_direction(self, game: Game) -> Direction: ...

    def overlay(self, game: Game) -> Mapping[Point, str]: ...


@runtime_checkable
class Finishing(Protocol):
    """A solver that holds something (a child process) to let go of when its game ends."""

    def finish(self, game: Game) -> None: ...


class Mover(Protocol):
    """Anything that chooses moves: a solver, or a controller around one."""

    def next_direction(self, game: Game) -> Direction: ...


def decide(mover: Mover, game: Game) -> Direction | None:
    """The next move, or None after a bot broke down (the game is then lost for it)."""
    try:
        return mover.next_direction(game)
    except SolverFailed as e:
        game.forfeit(str(e))
        return None


def engine_log(solver: object, game: Game) -> str | None:
    """Where a bot that lost ``game`` by breaking down wrote its stderr (an engine's log), if
    anywhere: kept out of the game's cause, as its name is drawn at random."""
    path = getattr(solver, "log_path", None)
    return str(path) if path is not None and game.forfeited else None


def finish(solver: Solver, game: Game) -> None:
    """Tell the solver its game has ended, if it wants to know."""
    if isinstance(solver, Finishing):
        solver.finish(game)


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
    """Let ``solver`` play ``game`` headless until it ends (or ``max_steps`` more moves); a
    solver that breaks down loses the game (SolverFailed: the cause says what it did)."""
    if not game.over:
        solver.setup(game)
    clock = time.perf_counter
    moves = 0
    try:
        while not game.over and (max_steps is None or moves < max_steps):
            t0 = clock()
            direction = decide(solver, game)
            if stats is not None:
                stats.think_times.append(clock() - t0)
            if direction is None:
                break
            game.step(direction)
            moves += 1
    finally:
        if game.over:
            finish(solver, game)
    return game.outcome
