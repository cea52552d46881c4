"""One benchmark game: a seeded task, played headless, and the record of what it gave."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Point
from termsnake.core.level import Level, open_level, parse_size
from termsnake.exits import Signalled
from termsnake.formats.replay import Replay, replay_from_game
from termsnake.formats.text import printable, shorten
from termsnake.solvers.base import (
    PlayStats,
    Solver,
    SolverUnavailable,
    display_name,
    engine_log,
    log_problem,
    play,
)
from termsnake.solvers.registry import create

DEFAULT_GAMES: Final = 100
DEFAULT_SEED: Final = 1
# How often a game under way reports its moves, for the progress line of a long game.
REPORT_EVERY: Final = 0.2
ERROR_LIMIT: Final = 300  # the longest error text of a game shown whole


class BenchError(Exception):
    """A bad benchmark request (bad board, bad level file); the message is for the user."""

    def __init__(self, message: str, *, located: bool = False) -> None:
        """``located``: the message is already ``path:line:col: error: ...`` lines."""
        super().__init__(message)
        self.located = located


@dataclass(frozen=True, slots=True)
class LevelSpec:
    """A board as asked for on the command line; plain data, so it can cross to a worker."""

    kind: str  # "size" or "level"
    value: str  # "8x8", or a preset name or path
    length: int
    wrap: bool = False  # an open board's edges wrap around (--wrap); a level file says its own

    def load(self) -> Level:
        """The level this spec names, the snake ``length`` long, read now (a file may have
        changed since the last call); BenchError if there is none."""
        if self.kind == "size":
            try:
                width, height = parse_size(self.value)
            except ValueError as e:
                raise BenchError(f"--size: {e}") from None
            try:
                return open_level(width, height, self.length, wrap=self.wrap)
            except ValueError as e:
                raise BenchError(f"--size {self.value}: {e}") from None
        from termsnake.formats.diagnostics import LevelError
        from termsnake.formats.presets import load_level

        try:
            # As play does: a straight body behind the level's head, fitted in place of the
            # level's own (which may not fit where this one does), a covered first food dropped.
            return load_level(self.value, length=self.length)
        except LevelError as e:
            raise BenchError(str(e).rstrip("\n"), located=True) from None
        except (OSError, ValueError) as e:
            raise BenchError(f"--level {self.value}: {e}") from None


# solvers.neuro.PREFIX, not imported from there: that module imports numpy, which a Dask
# worker may lack.
NEURO: Final = "neuro:"


@dataclass(frozen=True, slots=True)
class Weights:
    """A ``neuro:PATH`` network as plain numbers, made a network where it plays: a worker
    without numpy reads them and says, game by game, that neuro needs it. Shipped as numpy's
    arrays, they failed to reach such a Dask worker at all, and the run stopped with Dask's
    ModuleNotFoundError."""

    vector: tuple[float, ...]
    hidden: int


@dataclass(frozen=True, slots=True)
class Kit:
    """What the games take from the user's files, read once in the bench's own process and
    shipped to wherever they play: a worker re-reading them could find another file, or none
    (a Dask worker has its own disk and folder), or a file changed since, mid-run."""

    levels: Mapping[LevelSpec, Level]
    # ``neuro:PATH`` -> its network, or why it cannot play (the game's ``unavailable``)
    networks: Mapping[str, Weights | str] = field(default_factory=dict)

    @classmethod
    def read(cls, specs: Iterable[LevelSpec], solvers: Iterable[str]) -> Kit:
        """Each board and ``neuro:PATH`` network, read now; BenchError for a bad board."""
        levels = {spec: spec.load() for spec in specs}
        return cls(levels, {s: read_network(s) for s in solvers if s.startswith(NEURO)})


def read_network(solver: str) -> Weights | str:
    """The weights of ``neuro:PATH``'s file, or why they cannot be played."""
    # numpy (the learn extra) is imported only when neuro plays
    from termsnake.solvers.neuro import WeightsError, load_network

    try:
        network = load_network(solver[len(NEURO) :])
    except WeightsError as e:
        return str(e)
    return Weights(tuple(network.vector().tolist()), network.hidden)


def solver_or_why(
    solver: str, *, engine_timeout: float | None = None, engine_logs: str | None = None
) -> Solver | str:
    """``create``'s solver, or why it cannot be made here (a plugin that fails to import or to
    be made, an extra not installed): bench's check of each solver before any game, and each
    game's where it is played (a Dask worker may lack what the bench's own process has)."""
    try:
        return create(solver, engine_timeout=engine_timeout, engine_logs=engine_logs)
    except ValueError as e:
        return str(e)


def _task_solver(task: GameTask, kit: Kit) -> Solver | str:
    """The task's solver, or why it cannot play: a ``neuro:PATH`` from the weights ``kit``
    holds (or why they could not be read; where numpy is missing, what ``neuro`` says), any
    other made by name (``solver_or_why``)."""
    weights = kit.networks.get(task.solver)
    if isinstance(weights, str):
        return weights
    if weights is not None:
        # Plain neuro, made only to learn whether neuro can play here (numpy), in its words; it
        # reads no weights until it is set up, and this game's are the kit's.
        made = solver_or_why("neuro")
        if isinstance(made, str):
            return made
        from termsnake.solvers.neuro import Network, NeuroSolver

        network = Network.from_vector(weights.vector, weights.hidden)
        return NeuroSolver(task.solver[len(NEURO) :], network=network)
    return solver_or_why(
        task.solver, engine_timeout=task.engine_timeout, engine_logs=task.engine_logs
    )


# -- one game -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameTask:
    """One game to play: plain data, so it can be sent to a worker process."""

    solver: str
    spec: LevelSpec
    seed: int
    record: bool
    engine_timeout: float | None = None
    engine_logs: str | None = None


@dataclass(frozen=True, slots=True)
class GameRecord:
    """What one game gave: its figures, or why it could not be played."""

    outcome: Outcome | None = None
    steps: int = 0
    length: int = 0
    bound: int = 0
    ms_per_move: float | None = None
    replay: Replay | None = None
    unavailable: str | None = None
    error: str | None = None
    label: str = ""  # how the row names the solver: ``best (tree)`` for a composite
    cause: str | None = None
    forfeited: bool = False  # lost by the bot's own failure (``cause``), not by a move
    log: str | None = None  # where an engine that lost its game wrote its stderr
    log_problem: str | None = None  # why an engine's log was cut or not made (a full disk)


def food_bound(game: Game) -> int:
    """The sum, over every food eaten, of the walls-only distance from where the head was when
    the food appeared to the food: no solver can eat those foods in fewer steps."""
    board = game.board
    eaten = game.foods[: game.eaten]
    if not eaten:
        return 0
    head = game.level.body[0]
    heads: dict[int, Point] = {0: head}
    wanted = {step for step, _ in eaten}
    last = max(wanted)
    for step, direction in enumerate(game.moves[:last], start=1):
        nxt = board.step(head, direction)
        if nxt is None:
            break
        head = nxt
        if step in wanted:
            heads[step] = head
    maps = _distance_maps(board)
    total = 0
    for step, food in eaten:
        source = heads[step]
        if source not in maps:
            maps[source] = board.distance_map(source)
        total += maps[source][food]
    return total


@lru_cache(maxsize=16)
def _distance_maps(board: Board) -> dict[Point, dict[Point, int]]:
    # Filled lazily and shared by every game on the board: at most one BFS per source cell.
    return {}


Moved = Callable[[int], None]


def play_one(task: GameTask, kit: Kit, moved: Moved | None = None) -> GameRecord:
    """Play one benchmark game headless, its board and weights taken from ``kit``; raises
    nothing but KeyboardInterrupt (a Ctrl-C; a plugin's own is its lost game) and Signalled
    (a signal; a plugin's own Terminated is its lost game too), so a worker always answers.
    ``moved(n)``, if given, hears of the moves as they are made (see ``play_counted``)."""
    try:
        level = kit.levels[task.spec]
        solver = _task_solver(task, kit)
        if isinstance(solver, str):
            return GameRecord(unavailable=printable(solver))
        game = Game(level, task.seed)
        stats = PlayStats()
        try:
            play_counted(game, solver, stats, moved)
        except SolverUnavailable as e:
            return GameRecord(unavailable=printable(str(e)) or "the solver cannot play this board")
        # A decision that made no move (a bot that broke down) is not a move's time.
        times = stats.think_times[: game.steps]
        return GameRecord(
            outcome=game.outcome,
            steps=game.steps,
            length=game.length,
            bound=food_bound(game),
            ms_per_move=1000.0 * sum(times) / len(times) if times else None,
            # The name the solver goes by, as a watched game's replay has it (a plugin's own).
            replay=replay_from_game(game, solver.name) if task.record else None,
            cause=game.cause,
            forfeited=game.forfeited,
            label=display_name(task.solver, solver),
            log=engine_log(solver, game),
            log_problem=log_problem(solver),
        )
    except Signalled:  # SIGTERM and the like end the run, as Ctrl-C does; a bot's own does not
        raise
    except Exception as e:
        # Escaped: the message may be a plugin's, and it is printed on the user's terminal.
        return GameRecord(error=shorten(f"{type(e).__name__}: {e}", ERROR_LIMIT))


# What a game ends with if a KeyboardInterrupt comes where no Ctrl-C can (a worker): a backstop,
# as a plugin's own ends its game behind the plugin's guard.
BOT_INTERRUPT: Final = "KeyboardInterrupt, raised by the bot (no Ctrl-C was pressed)"


def play_apart(task: GameTask, kit: Kit) -> GameRecord:
    """``play_one`` where no Ctrl-C raises KeyboardInterrupt (a Dask worker plays in a thread):
    one raised is the bot's, and ends its game as an error instead of the worker."""
    try:
        return play_one(task, kit)
    except KeyboardInterrupt:
        return GameRecord(error=BOT_INTERRUPT)


def play_counted(game: Game, solver: Solver, stats: PlayStats, moved: Moved | None) -> None:
    """``solvers.base.play`` to the end of the game, and ``moved(n)`` told of the n moves made
    since it was last told: at most every REPORT_EVERY seconds, and once at the end (stopped
    by Ctrl-C too). The clock read after each decision serves both, so the report costs a move
    nothing more."""
    if moved is None:
        play(game, solver, stats=stats)
        return
    tell = moved
    unreported, reported_at = 0, time.perf_counter()

    def one_more(now: float) -> None:
        nonlocal unreported, reported_at
        unreported += 1
        if now - reported_at >= REPORT_EVERY:
            tell(unreported)
            unreported, reported_at = 0, now

    try:
        play(game, solver, stats=stats, after_move=one_more)
    finally:
        if unreported:
            moved(unreported)
