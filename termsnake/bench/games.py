"""One benchmark game after another: seeded tasks, played headless, in worker processes."""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import signal
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from multiprocessing import resource_tracker
from typing import Final

from termsnake.commands import args as cliargs
from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Point
from termsnake.core.level import Level, open_level, with_length
from termsnake.formats.replay import Replay, replay_from_game
from termsnake.solvers.base import PlayStats, SolverUnavailable, display_name, play
from termsnake.solvers.registry import create

DEFAULT_SIZE: Final = (8, 8)
DEFAULT_LENGTH: Final = 1
DEFAULT_GAMES: Final = 100
DEFAULT_SEED: Final = 1
# spawn, not fork: safe whatever threads the parent runs (tqdm's monitor, the pool's own).
START_METHOD = "spawn"


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

    def load(self) -> Level:
        """The level this spec names, the snake ``length`` long; BenchError if there is none."""
        return _load_level(self)


@lru_cache(maxsize=64)
def _load_level(spec: LevelSpec) -> Level:
    if spec.kind == "size":
        try:
            width, height = cliargs.size(spec.value)
        except argparse.ArgumentTypeError as e:
            raise BenchError(f"--size: {e}") from None
        try:
            return open_level(width, height, spec.length)
        except ValueError as e:
            raise BenchError(f"--size {spec.value}: {e}") from None
    try:
        from termsnake.formats.levelfile import LevelError
        from termsnake.formats.presets import load_level
    except ImportError:
        raise BenchError("--level: this termsnake has no level files") from None
    try:
        level = load_level(spec.value)
    except LevelError as e:
        raise BenchError(str(e).rstrip("\n"), located=True) from None
    except (OSError, ValueError) as e:
        raise BenchError(f"--level {spec.value}: {e}") from None
    try:
        # As play does: a straight body behind the level's head, a covered first food dropped.
        return with_length(level, spec.length)
    except ValueError as e:
        raise BenchError(f"level {level.name}: length {spec.length}: {e}") from None


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


def play_one(task: GameTask) -> GameRecord:
    """Play one benchmark game headless; never raises, so a worker always answers."""
    try:
        level = task.spec.load()
        solver = create(
            task.solver, engine_timeout=task.engine_timeout, engine_logs=task.engine_logs
        )
        game = Game(level, task.seed)
        stats = PlayStats()
        try:
            play(game, solver, stats=stats)
        except SolverUnavailable as e:
            return GameRecord(unavailable=str(e) or "the solver cannot play this board")
        times = stats.think_times
        return GameRecord(
            outcome=game.outcome,
            steps=game.steps,
            length=game.length,
            bound=food_bound(game),
            ms_per_move=1000.0 * sum(times) / len(times) if times else None,
            replay=replay_from_game(game, task.solver) if task.record else None,
            cause=game.cause,
            label=display_name(task.solver, solver),
        )
    except Exception as e:
        return GameRecord(error=f"{type(e).__name__}: {e}")


# -- many games -----------------------------------------------------------------------------------


def run_tasks(
    tasks: Sequence[GameTask], jobs: int, on_done: Callable[[], None] = lambda: None
) -> list[GameRecord]:
    """Play every task, in ``jobs`` processes if more than one; the records in task order."""
    if jobs <= 1 or len(tasks) <= 1:
        records = []
        for task in tasks:
            records.append(play_one(task))
            on_done()
        return records
    results: list[GameRecord | None] = [None] * len(tasks)
    context = multiprocessing.get_context(START_METHOD)
    pool = ProcessPoolExecutor(
        max_workers=min(jobs, len(tasks)), mp_context=context, initializer=_worker_init
    )
    try:
        futures: dict[Future[GameRecord], int] = {}
        for i, task in enumerate(tasks):
            with _spawning(i < jobs):
                futures[pool.submit(_play_in_worker, task)] = i
        for future in as_completed(futures):
            results[futures[future]] = future.result()
            on_done()
    except BaseException:
        # Ctrl-C: drop the games not started instead of waiting for all of them.
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown()
    return [r for r in results if r is not None]


_in_game = False
_interrupted = False


@contextlib.contextmanager
def _spawning(spawns: bool) -> Iterator[None]:
    """While ``spawns`` (a submit that may start a worker), SIGINT is blocked: the new worker
    inherits the mask and gets a Ctrl-C only once _worker_init has its handler (one caught
    while it loads prints a traceback); here the signal waits, and comes when unblocked."""
    if not spawns or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    # The resource tracker unblocks SIGINT when it starts: start it before, not inside.
    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: a worker stops the game it plays (the parent
    # then cancels the rest) but ignores it while idle, where it would only print a traceback.
    signal.signal(signal.SIGINT, _worker_sigint)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _worker_sigint(signum: int, frame: object) -> None:
    global _interrupted
    _interrupted = True
    if _in_game:
        raise KeyboardInterrupt


def _play_in_worker(task: GameTask) -> GameRecord:
    global _in_game
    if _interrupted:  # a game queued before the parent could cancel it
        raise KeyboardInterrupt
    _in_game = True
    try:
        return play_one(task)
    finally:
        _in_game = False
