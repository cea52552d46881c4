"""The headless benchmark: many seeded games per solver and board, summed up as a table or JSON."""

from __future__ import annotations

import argparse
import itertools
import json
import multiprocessing
import os
import re
import signal
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Final

from termsnake.commands import args as cliargs
from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Point
from termsnake.core.level import Level, open_level, with_length
from termsnake.formats.atomic import write_atomic
from termsnake.formats.replay import Replay, replay_from_game
from termsnake.solvers.base import (
    PlayStats,
    SolverUnavailable,
    create,
    display_name,
    play,
    resolve_name,
)

DEFAULT_SIZE: Final = (8, 8)
DEFAULT_LENGTH: Final = 1
DEFAULT_GAMES: Final = 100
DEFAULT_SEED: Final = 1
# spawn, not fork: safe whatever threads the parent runs (tqdm's monitor, the pool's own).
START_METHOD = "spawn"

# The keys of one JSON row, in order (DESIGN.md, "Benchmark output").
ROW_KEYS: Final = (
    "solver", "level", "free_cells", "games", "seed", "wins", "deaths", "stalls", "win_rate",
    "mean_steps", "median_steps", "mean_length", "steps_over_bound", "ms_per_move",
)  # fmt: skip


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


def board_size(text: str) -> str:
    """The --size type: ``cliargs.size``'s checks, the value kept as ``"WxH"``."""
    width, height = cliargs.size(text)
    return f"{width}x{height}"


# -- one game -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameTask:
    """One game to play: plain data, so it can be sent to a worker process."""

    solver: str
    spec: LevelSpec
    seed: int
    record: bool


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
        solver = create(task.solver)
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
        futures: dict[Future[GameRecord], int] = {
            pool.submit(_play_in_worker, task): i for i, task in enumerate(tasks)
        }
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


def _worker_init() -> None:
    # Ctrl-C reaches the whole process group: a worker stops the game it plays (the parent
    # then cancels the rest) but ignores it while idle, where it would only print a traceback.
    signal.signal(signal.SIGINT, _worker_sigint)


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


def row_name(solver: str, records: Sequence[GameRecord]) -> str:
    """How a row names the solver asked for as ``solver``: as its games do (``best (tree)``)."""
    return ", ".join(_unique(r.label for r in records if r.label)) or solver


def summarize(
    solver: str, level: Level, seed: int, records: Sequence[GameRecord]
) -> dict[str, Any]:
    """One row of DESIGN.md "Benchmark output" from the games of one (solver, level), in seed
    order. Steps, lengths and medians cover every game, won or not."""
    outcomes = [r.outcome for r in records]
    steps = [r.steps for r in records]
    games = len(records)
    wins = outcomes.count(Outcome.WON)
    total_bound = sum(r.bound for r in records)
    per_game_ms = [r.ms_per_move for r in records if r.ms_per_move is not None]
    row: dict[str, Any] = {
        "solver": solver,
        "level": level.name,
        "free_cells": level.board.size,
        "games": games,
        "seed": seed,
        "wins": wins,
        "deaths": outcomes.count(Outcome.DIED),
        "stalls": outcomes.count(Outcome.STALLED),
        "win_rate": round(wins / games, 4),
        "mean_steps": round(statistics.fmean(steps), 2),
        "median_steps": float(statistics.median(steps)),
        "mean_length": round(statistics.fmean(r.length for r in records), 2),
        "steps_over_bound": round(sum(steps) / total_bound, 4) if total_bound else None,
        "ms_per_move": round(statistics.median(per_game_ms), 4) if per_game_ms else 0.0,
    }
    return row


# -- output ---------------------------------------------------------------------------------------

_COLUMNS: Final = (
    # header, key, format, left-aligned
    ("solver", "solver", "{}", True),
    ("level", "level", "{}", True),
    ("free", "free_cells", "{}", False),
    ("games", "games", "{}", False),
    ("wins", "wins", "{}", False),
    ("deaths", "deaths", "{}", False),
    ("stalls", "stalls", "{}", False),
    ("win rate", "win_rate", "{:.1%}", False),
    ("mean steps", "mean_steps", "{:.1f}", False),
    ("median", "median_steps", "{:.1f}", False),
    ("mean length", "mean_length", "{:.1f}", False),
    ("steps/bound", "steps_over_bound", "{:.2f}", False),
    ("ms/move", "ms_per_move", "{:.4f}", False),
)


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as aligned text columns, a header first."""
    cells = [[header for header, _, _, _ in _COLUMNS]]
    for row in rows:
        cells.append(
            [fmt.format(row[key]) if row[key] is not None else "-" for _, key, fmt, _ in _COLUMNS]
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(_COLUMNS))]
    lines = []
    for line in cells:
        parts = [
            text.ljust(w) if left else text.rjust(w)
            for text, w, (_, _, _, left) in zip(line, widths, _COLUMNS, strict=True)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def replay_name(solver: str, level: str, length: int, seed: int) -> str:
    """The file name of one recorded benchmark game: ``{solver}-{level}-len{length}-seed{seed}
    .json``, the level name made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "-", level).strip("-.") or "level"
    return f"{solver}-{safe}-len{length}-seed{seed}.json"


def save_new(replay: Replay, directory: Path, name: str) -> Path:
    """Write ``replay`` as ``directory/name``, never replacing a file; the path it is at.

    A file of that name with the very same bytes is this game already and is kept; any other
    file moves the replay on to ``-2``, ``-3``... before ``.json``. OSError if it cannot be
    written.
    """
    data = replay.to_json().encode("utf-8")
    stem = name.removesuffix(".json")
    for n in itertools.count(1):
        path = directory / (name if n == 1 else f"{stem}-{n}.json")
        try:
            write_atomic(path, data, exclusive=True)
            return path
        except FileExistsError:
            try:
                if path.read_bytes() == data:
                    return path
            except OSError:
                pass  # a directory or an unreadable file of that name: try the next name
    raise AssertionError("unreachable")


# -- the command ----------------------------------------------------------------------------------


class _AppendBoard(argparse.Action):
    """Collects --level and --size in command-line order, as (kind, value) pairs."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        boards = list(getattr(namespace, self.dest) or [])
        boards.append((self.const, values))
        setattr(namespace, self.dest, boards)


def directory_name(text: str) -> str:
    """A --record-dir value: any path but the empty one, which names no directory."""
    if not text:
        raise argparse.ArgumentTypeError("expected a directory, not an empty string")
    return text


def build_parser() -> argparse.ArgumentParser:
    """The parser of ``termsnake bench``."""
    w, h = DEFAULT_SIZE
    parser = cliargs.OneLineParser(
        prog="termsnake bench",
        description=(
            "Play many headless games per solver and board and print their figures, one row "
            "per (solver, board): a table, or a JSON array with --json. Game i uses seed S+i, "
            "so the same arguments give the same games and numbers whatever --jobs (timings "
            "aside). mean_steps, median_steps and mean_length cover every game, won or not. "
            "steps_over_bound is total steps / total bound, a game's bound being the sum over "
            "the foods it ate of the walls-only distance from the head (when the food "
            "appeared) to the food; null ('-') if no game ate anything. ms_per_move is the "
            "median over games of the solver's mean decision time per move; it leaves out "
            "the solver's setup (such as the Hamiltonian cycle search), and is 0.0 if no "
            "move was timed."
        ),
        epilog=(
            "A solver that cannot play a board (say, hamilton on a board with no Hamiltonian "
            "cycle) gets no row: one line on stderr says why, and the rest goes on. Exit "
            "codes: 0 if at least one row was measured, 1 if a solver crashed, 2 for bad "
            "usage, a bad level file, or nothing that could be measured."
        ),
    )
    parser.add_argument(
        "--ai",
        required=True,
        metavar="A[,B...]",
        help="solvers to measure, comma-separated; best is reported with what it played",
    )
    parser.add_argument(
        "--level",
        dest="boards",
        action=_AppendBoard,
        const="level",
        metavar="L",
        help="a preset name or level file; repeatable",
    )
    parser.add_argument(
        "--size",
        dest="boards",
        action=_AppendBoard,
        const="size",
        type=board_size,
        metavar="WxH",
        help=(
            f"an open board of W x H cells, at least 2 cells, at most {cliargs.MAX_SIDE} a "
            f"side; repeatable (default, with no --level: {w}x{h})"
        ),
    )
    parser.add_argument(
        "--length",
        type=cliargs.positive_int,
        default=DEFAULT_LENGTH,
        metavar="N",
        help=(
            f"starting length on every board, level files included: a straight body behind "
            f"the level's head (default {DEFAULT_LENGTH}, as benchmarks use)"
        ),
    )
    parser.add_argument(
        "--games",
        type=cliargs.positive_int,
        default=DEFAULT_GAMES,
        metavar="N",
        help=f"games per solver and board (default {DEFAULT_GAMES})",
    )
    parser.add_argument(
        "--seed",
        type=cliargs.seed,
        default=DEFAULT_SEED,
        metavar="S",
        help=f"game i uses seed S+i; S is at least 0 (default {DEFAULT_SEED})",
    )
    parser.add_argument(
        "--jobs",
        type=cliargs.int_at_least(0),
        default=1,
        metavar="J",
        help="worker processes (default 1; 0: one per CPU)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON array, no table")
    parser.add_argument(
        "--record-dir",
        type=directory_name,
        metavar="DIR",
        help=(
            "write every game as a replay file DIR/{solver}-{level}-len{L}-seed{N}.json "
            "(L the start length, N the game's seed). An existing file is never replaced: "
            "one with the same bytes is the same game and is kept, otherwise the name gets "
            "-2, -3... before .json"
        ),
    )
    return parser


def _fail(message: str) -> int:
    print(f"termsnake bench: error: {message}", file=sys.stderr)
    return 2


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


def main(argv: Sequence[str]) -> int:
    """``termsnake bench ...``: run the benchmark and print it; the exit code."""
    args = build_parser().parse_args(list(argv))
    try:
        solvers = _unique(resolve_name(n) for n in args.ai.split(",") if n.strip())
    except ValueError as e:
        return _fail(str(e))
    if not solvers:
        return _fail("--ai names no solver")
    boards = args.boards or [("size", "{}x{}".format(*DEFAULT_SIZE))]
    specs = _unique(LevelSpec(kind, value, args.length) for kind, value in boards)
    levels: list[Level] = []
    for spec in specs:
        try:
            levels.append(spec.load())
        except BenchError as e:
            if e.located:
                print(e, file=sys.stderr)
                return 2
            return _fail(str(e))
    record_dir = Path(args.record_dir) if args.record_dir is not None else None
    if record_dir is not None:
        try:
            record_dir.mkdir(parents=True, exist_ok=True)
        except FileExistsError:  # mkdir's word for "exists, and is not a directory"
            return _fail(f"--record-dir {record_dir}: exists and is not a directory")
        except OSError as e:
            return _fail(f"--record-dir {record_dir}: {e.strerror or e}")
    jobs = args.jobs or os.cpu_count() or 1

    pairs = [(solver, i) for solver in solvers for i in range(len(specs))]
    tasks = [
        GameTask(solver, specs[i], args.seed + g, record_dir is not None)
        for solver, i in pairs
        for g in range(args.games)
    ]
    from tqdm import tqdm

    with tqdm(
        total=len(tasks),
        desc="bench",
        unit="game",
        file=sys.stderr,
        disable=not sys.stderr.isatty(),
        leave=False,
        dynamic_ncols=True,
    ) as bar:
        try:
            records = run_tasks(tasks, jobs, lambda: bar.update(1))
        except KeyboardInterrupt:
            bar.close()
            print("termsnake bench: interrupted", file=sys.stderr)
            return 130

    rows: list[dict[str, Any]] = []
    status = 0
    for n, (solver, i) in enumerate(pairs):
        level = levels[i]
        games = records[n * args.games : (n + 1) * args.games]
        where = f"{solver} on {level.name}"
        unavailable = next((r.unavailable for r in games if r.unavailable is not None), None)
        if unavailable is not None:
            print(f"termsnake bench: {where}: unavailable: {unavailable}", file=sys.stderr)
            continue
        failed = next(((g, r.error) for g, r in enumerate(games) if r.error is not None), None)
        if failed is not None:
            g, error = failed
            print(
                f"termsnake bench: error: {where} failed (seed {args.seed + g}): {error}",
                file=sys.stderr,
            )
            status = 1
            continue
        if record_dir is not None:
            for g, record in enumerate(games):
                if record.replay is not None:
                    start = len(record.replay.body)
                    name = replay_name(solver, level.name, start, args.seed + g)
                    try:
                        save_new(record.replay, record_dir, name)
                    except OSError as e:
                        path = record_dir / name
                        return _fail(f"cannot write {path}: {e.strerror or e}")
        rows.append(summarize(row_name(solver, games), level, args.seed, games))

    if args.json:
        print("[" + ",\n ".join(json.dumps(row) for row in rows) + "]")
    elif rows:
        print(format_table(rows))
    if not rows and status == 0:
        return _fail("nothing could be measured")
    return status
