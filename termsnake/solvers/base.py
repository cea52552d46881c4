"""The Solver protocol, its lifecycle's exceptions, and headless play (``play``); the names
solvers go by are in ``registry``."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point


class SolverUnavailable(Exception):
    """The solver cannot play this board (say, no Hamiltonian cycle); the message says why."""


class Interrupted(Exception):
    """A signal asked the program to stop while a bot was thinking (an engine that takes its
    time): the move is dropped, and whoever asked for it ends the game."""


@runtime_checkable
class Interruptible(Protocol):
    """A bot that can wait long (an engine): it asks ``interrupted`` as it waits, and stops
    with Interrupted once that says so (``set_interrupt``)."""

    interrupted: Callable[[], bool]


def set_interrupt(solver: object, check: Callable[[], bool]) -> None:
    """Let an Interruptible bot ask ``check`` as it waits; other bots answer at once."""
    if isinstance(solver, Interruptible):
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
    after ``setup``: the plan to draw under the snake (cell -> one glyph), possibly empty.

    Optional parts, each a protocol here: ``finish(game)``, called when the game has ended,
    for a solver holding a resource (Finishing); a ``played`` string naming the solver that
    plays the board, for one made of others like ``best`` (Composite); ``has_plan = False``,
    for one whose ``overlay`` is always empty, so that the help does not offer `c` to show it
    (PlanShowing); ``interrupted``, for a bot that can wait long (Interruptible); ``log_path``,
    where an engine's stderr went, and ``log_problem``, why not all of it (LogKeeping). They
    are found by ``isinstance``, so define them on the class or set them in ``__init__``: from
    Python 3.12 on, a ``__getattr__`` that supplies them is not looked at.
    """

    name: str

    def setup(self, game: Game) -> None: ...

    def next_direction(self, game: Game) -> Direction: ...

    def overlay(self, game: Game) -> Mapping[Point, str]: ...


@runtime_checkable
class Finishing(Protocol):
    """A solver that holds something (a child process) to let go of when its game ends."""

    def finish(self, game: Game) -> None: ...


@runtime_checkable
class Composite(Protocol):
    """A solver made of others: ``played`` names the one that plays the board, read after
    ``setup`` ("" for none); reports show ``best (tree)`` (``display_name``)."""

    @property
    def played(self) -> str: ...


@runtime_checkable
class PlanShowing(Protocol):
    """A solver that says whether ``overlay`` ever shows a plan: with ``has_plan`` False the
    help leaves out `c` (show the plan). One without it is taken to have a plan."""

    has_plan: bool


def shows_plan(solver: object) -> bool:
    """Whether the help offers `c` for ``solver``'s plan (PlanShowing; yes if it does not say)."""
    return solver.has_plan is not False if isinstance(solver, PlanShowing) else True


@runtime_checkable
class LogKeeping(Protocol):
    """A bot that writes its stderr to a file (an engine): ``log_path``, or None for none;
    ``log_problem``, why the last game's log is cut or missing (a full disk), or None."""

    @property
    def log_path(self) -> Path | None: ...

    @property
    def log_problem(self) -> str | None: ...


class Mover(Protocol):
    """Anything that chooses moves: a solver, or a controller around one."""

    def next_direction(self, game: Game) -> Direction: ...


def decide(mover: Mover, game: Game) -> Direction | None:
    """The next move, or None after a bot broke down (the game is then lost for it); a
    TypeError naming the bot if it answers something other than a Direction (None, say): a
    bug in it, which a quiet None here would hide as a game stopped half-way."""
    try:
        move = mover.next_direction(game)
    except SolverFailed as e:
        game.forfeit(str(e))
        return None
    if type(move) is not Direction:
        who = getattr(mover, "name", type(mover).__name__)
        raise TypeError(
            f"solver {who!r:.60} answered {move!r:.60}, not a direction (Direction.UP, ...)"
        )
    return move


def engine_log(solver: object, game: Game | None = None) -> str | None:
    """Where a bot wrote its stderr (an engine's log, kept if not empty), if anywhere; with
    ``game``, only if it lost that game by breaking down. Kept out of the game's cause, as its
    name is drawn at random."""
    path = solver.log_path if isinstance(solver, LogKeeping) else None
    return str(path) if path is not None and (game is None or game.forfeited) else None


def log_problem(solver: object) -> str | None:
    """Why the stderr a bot wrote in its last game was not all kept (its log could not be
    written, or made), if it was not: for the user, once, as the game goes on regardless."""
    return solver.log_problem if isinstance(solver, LogKeeping) else None


def finish(solver: Solver, game: Game) -> None:
    """Tell the solver its game has ended, if it wants to know."""
    if isinstance(solver, Finishing):
        solver.finish(game)


def display_name(requested: str, solver: Solver) -> str:
    """How reports name a solver asked for as ``requested``: a composite such as ``best`` with
    the solver it played (``best (tree)``), any other by that name."""
    played = solver.played if isinstance(solver, Composite) else ""
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
    after_move: Callable[[float], None] | None = None,
) -> Outcome | None:
    """Let ``solver`` play ``game`` headless until it ends (or ``max_steps`` more moves); a
    solver that breaks down loses the game (SolverFailed: the cause says what it did); one
    that answers something other than a Direction (None, say) is a TypeError naming it.
    It calls ``setup`` first, unless the game is over already (a caller does not), and
    ``finish`` if the game is over when it returns: a game stopped by ``max_steps`` is not
    finished, and another ``play`` on it sets the solver up again.
    ``after_move(t)`` is called after each move with the clock read as its decision came."""
    if not game.over:
        solver.setup(game)
    clock = time.perf_counter
    moves = 0
    try:
        while not game.over and (max_steps is None or moves < max_steps):
            t0 = clock()
            direction = decide(solver, game)
            t1 = clock()
            if stats is not None:
                stats.think_times.append(t1 - t0)
            if direction is None:
                break
            game.step(direction)
            moves += 1
            if after_move is not None:
                after_move(t1)
    except BaseException:
        finish(solver, game)  # Ctrl-C, say: an engine's processes must not outlive the game
        raise
    if game.over:
        finish(solver, game)
    return game.outcome
