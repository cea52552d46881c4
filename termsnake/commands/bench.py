"""The headless benchmark: many seeded games per solver and board, summed up as a table or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from tqdm import tqdm

from termsnake.bench.games import (
    DEFAULT_GAMES,
    DEFAULT_LENGTH,
    DEFAULT_SEED,
    DEFAULT_SIZE,
    BenchError,
    GameRecord,
    GameTask,
    LevelSpec,
    play_one,
    run_tasks,
)
from termsnake.bench.report import format_table, replay_name, row_name, save_new, summarize
from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.core.level import Level
from termsnake.formats.text import printable
from termsnake.learn.cluster import ClusterError, connect, map_on
from termsnake.solvers.registry import create, resolve_name


def board_size(text: str) -> str:
    """The --size type: ``cliargs.size``'s checks, the value kept as ``"WxH"``."""
    width, height = cliargs.size(text)
    return f"{width}x{height}"


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


DESCRIPTION: Final = (
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
)
EPILOG: Final = (
    "A solver that cannot play a board (say, hamilton on a board with no Hamiltonian "
    "cycle) gets no row: one line on stderr says why, and the rest goes on. Exit "
    "codes: 0 if at least one row was measured, 1 if a solver crashed, 2 for bad "
    "usage, a bad level file, or nothing that could be measured."
)


def _add_board_arguments(parser: argparse.ArgumentParser) -> None:
    """--level, --size and --length: the boards every solver plays."""
    w, h = DEFAULT_SIZE
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


def add_parser(sub: Subparsers) -> None:
    """``termsnake bench``'s options."""
    parser = sub.add_parser(
        "bench",
        help="measure bots headless: a table or JSON of their figures",
        description=DESCRIPTION,
        epilog=EPILOG,
    )
    parser.add_argument(
        "--ai",
        required=True,
        metavar="A[,B...]",
        help="solvers to measure, comma-separated; best is reported with what it played",
    )
    _add_board_arguments(parser)
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
        "--scheduler",
        metavar="ADDRESS",
        help="play the games on the Dask cluster at ADDRESS (the same numbers as here)",
    )
    cliargs.add_engine_timeout(parser)
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
    parser.set_defaults(run=run)


ENGINE: Final = "exec:"


def engine_log_dir(solvers: Sequence[str], record_dir: Path | None) -> str | None:
    """Where engines' stderr goes: the record dir, else a new temporary folder (said on
    stderr); None when no engine plays."""
    if not any(s.startswith(ENGINE) for s in solvers):
        return None
    if record_dir is not None:
        return str(record_dir)
    folder = tempfile.mkdtemp(prefix="termsnake-engines-")
    print(f"termsnake bench: engine logs go to {folder}", file=sys.stderr)
    return folder


def _fail(message: str) -> int:
    print(f"termsnake bench: error: {message}", file=sys.stderr)
    return 2


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


@dataclass(frozen=True, slots=True)
class Setup:
    """What a bench run plays: the solvers, the boards, where replays and engine logs go."""

    solvers: list[str]
    specs: list[LevelSpec]
    levels: list[Level]
    record_dir: Path | None


def prepare(args: argparse.Namespace) -> Setup | int:
    """The run's solvers and boards from the arguments, or the exit code of a bad one."""
    try:
        solvers = _unique(resolve_name(n) for n in args.ai.split(",") if n.strip())
        for name in solvers:
            create(name)  # a plugin that fails to import, a missing extra: said before any game
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
    return Setup(solvers, specs, levels, record_dir)


def play_all(tasks: Sequence[GameTask], jobs: int) -> list[GameRecord] | None:
    """Every task's record, with a progress bar on a terminal; None on Ctrl-C."""
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
            return run_tasks(tasks, jobs, lambda: bar.update(1))
        except KeyboardInterrupt:
            bar.close()
            print("termsnake bench: interrupted", file=sys.stderr)
            return None


def keep_games(
    solver: str, level: Level, first_seed: int, games: Sequence[GameRecord], record_dir: Path
) -> str | None:
    """Save each game's replay in ``record_dir``; the problem, if one cannot be written."""
    for g, record in enumerate(games):
        if record.replay is None:
            continue
        start = len(record.replay.body)
        name = replay_name(solver, level.name, start, first_seed + g)
        try:
            save_new(record.replay, record_dir, name)
        except OSError as e:
            return f"cannot write {record_dir / name}: {e.strerror or e}"
    return None


def run(args: argparse.Namespace) -> int:
    """``termsnake bench ...``: run the benchmark and print it; the exit code."""
    setup = prepare(args)
    if isinstance(setup, int):
        return setup
    # CPU-bound games gain nothing from more processes than cores.
    jobs = min(args.jobs or os.cpu_count() or 1, os.cpu_count() or 1)
    engine_logs = engine_log_dir(setup.solvers, setup.record_dir)
    pairs = [(solver, i) for solver in setup.solvers for i in range(len(setup.specs))]
    tasks = [
        GameTask(
            solver,
            setup.specs[i],
            args.seed + g,
            setup.record_dir is not None,
            args.engine_timeout,
            engine_logs,
        )
        for solver, i in pairs
        for g in range(args.games)
    ]
    if args.scheduler is not None:
        try:
            with connect(args.scheduler) as client:
                records: list[GameRecord] | None = map_on(client, play_one, tasks)
        except ClusterError as e:
            return _fail(str(e))
    else:
        records = play_all(tasks, jobs)
    if records is None:
        return 130
    rows: list[dict[str, Any]] = []
    status = 0
    for n, (solver, i) in enumerate(pairs):
        level = setup.levels[i]
        games = records[n * args.games : (n + 1) * args.games]
        where = printable(f"{solver} on {level.name}")
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
        for g, record in enumerate(games):
            if solver.startswith(ENGINE) and record.cause and record.cause.startswith("engine "):
                print(
                    f"termsnake bench: {where} (seed {args.seed + g}): {record.cause}",
                    file=sys.stderr,
                )
        if setup.record_dir is not None:
            problem = keep_games(solver, level, args.seed, games, setup.record_dir)
            if problem is not None:
                return _fail(problem)
        rows.append(summarize(row_name(solver, games), level, args.seed, games))
    if args.json:
        print("[" + ",\n ".join(json.dumps(row) for row in rows) + "]")
    elif rows:
        print(format_table(rows))
    if not rows and status == 0:
        return _fail("nothing could be measured")
    return status
