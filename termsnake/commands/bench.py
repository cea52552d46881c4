"""The headless benchmark: many seeded games per solver and board, summed up as a table or JSON."""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import signal
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from termsnake.bench import pool
from termsnake.bench.games import (
    DEFAULT_GAMES,
    DEFAULT_SEED,
    BenchError,
    GameRecord,
    GameTask,
    Kit,
    LevelSpec,
    solver_or_why,
)
from termsnake.bench.names import resolved_names, solver_names
from termsnake.bench.progress import Progress
from termsnake.bench.remote import on_cluster
from termsnake.bench.report import Recorder, format_table, summarize
from termsnake.bench.tally import Tally
from termsnake.cluster import ClusterError, check_scheduler
from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.core.level import BOT_LENGTH, BOT_SIZE, MAX_SIDE, WRAP_NEEDS_SIZE, Level
from termsnake.exits import (
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    Noted,
    Terminated,
    signals_remembered,
)
from termsnake.formats import presets
from termsnake.formats.fileio import blocked, check_can_write_new, reason
from termsnake.formats.text import printable, shorten
from termsnake.orphans import WorkerDied
from termsnake.solvers.enginetext import PREFIX as ENGINE_PREFIX
from termsnake.workers import note_jobs_unused, processes

NOT_RECORDED: Final = "no more replays are written; the games go on being measured"
# An engine's log that could not be written (a full disk) is said once a run, not once a game.
LOG_LOST: Final = "said of the first log only; the games go on"
MAX_GAMES: Final = 10**12  # per board and solver: years of play; itertools takes no more than 2**63


def size_arg(text: str) -> str:
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
    "cycle), or cannot be made at all (a plugin that fails to import, a missing extra), "
    "gets no row: one line on stderr says why, and the rest goes on. Exit "
    "codes: 0 if at least one row was measured, 1 if a solver crashed, a worker process "
    "died or a replay could not be written (recording stops there, the games go on), 2 for bad "
    "usage, a bad level file, or nothing that could be measured."
)


def _add_board_arguments(parser: argparse.ArgumentParser) -> None:
    """--level, --size and --length: the boards every solver plays."""
    w, h = BOT_SIZE
    parser.add_argument(
        "--level",
        dest="boards",
        action=_AppendBoard,
        const="level",
        type=cliargs.level_name,
        metavar="L",
        help="a preset name or level file; repeatable",
    )
    parser.add_argument(
        "--size",
        dest="boards",
        action=_AppendBoard,
        const="size",
        type=size_arg,
        metavar="WxH",
        help=(
            f"an open board of W x H cells, at least 2 cells, at most {MAX_SIDE} a "
            f"side; repeatable (default, with no --level: {w}x{h})"
        ),
    )
    parser.add_argument(
        "--wrap",
        action="store_true",
        help="the --size boards' edges wrap around (a torus), as the game's --wrap",
    )
    parser.add_argument(
        "--length",
        type=cliargs.positive_int,
        default=BOT_LENGTH,
        metavar="N",
        help=(
            f"starting length on every board, level files included: a straight body behind "
            f"the level's head (default {BOT_LENGTH}, as benchmarks use)"
        ),
    )


def add_parsers(sub: Subparsers) -> None:
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
        action="append",
        metavar="A[,B...]",
        help="solvers to measure, comma-separated (or --ai again); best is reported with what "
        "it played",
    )
    _add_board_arguments(parser)
    parser.add_argument(
        "--games",
        type=cliargs.int_at_least(1, MAX_GAMES),
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
    cliargs.add_jobs_and_scheduler(
        parser, "play the games on the Dask cluster at ADDRESS (the same numbers as here)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON array, no table")
    cliargs.add_engine_timeout(parser)
    parser.add_argument(
        "--record-dir",
        type=cliargs.not_empty("expected a directory, not an empty string"),
        metavar="DIR",
        help=(
            "write every game as a replay file DIR/{solver}-{level}-len{L}-seed{N}.json "
            "(L the start length, N the game's seed). An existing file is never replaced: "
            "one with the same bytes is the same game and is kept, otherwise the name gets "
            "-2, -3... before .json. One that cannot be written (a full disk) stops the "
            "recording, not the games"
        ),
    )
    parser.set_defaults(run=run)


def engine_log_dir(solvers: Sequence[str], record_dir: Path | None) -> str | None:
    """Where engines' stderr goes: the record dir, else a new temporary folder (named at the
    end if a log was kept in it); None when no engine plays."""
    if not any(s.startswith(ENGINE_PREFIX) for s in solvers):
        return None
    if record_dir is not None:
        return str(record_dir)
    return tempfile.mkdtemp(prefix="termsnake-engines-")


@contextlib.contextmanager
def _dropped_if_empty(folder: str | None, record_dir: Path | None) -> Iterator[None]:
    """At the end, remove the temporary folder of the engines' logs if no log was kept in it
    (an engine's log with nothing in it is dropped), else say where the logs are."""
    try:
        yield
    finally:
        if folder is not None and record_dir is None:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
            # Said once known: named at the start, it was a folder removed here whenever no
            # engine wrote on stderr.
            if os.path.isdir(folder):
                print(f"termsnake bench: engine logs are in {printable(folder)}", file=sys.stderr)


def _fail(message: str) -> int:
    print(f"termsnake bench: error: {printable(message)}", file=sys.stderr)  # paths: anything
    return EXIT_USAGE


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


def _can_be_made(solver: str, came: Noted) -> bool:
    """Whether ``solver`` can be made here; if not (a plugin that fails to import, a missing
    extra), one line says why before any game, and the other solvers play on without it. A
    signal that ``came`` as it loaded is raised instead: its failure may be the signal's."""
    why = solver_or_why(solver)
    if not isinstance(why, str):
        return True
    came.check()
    print(f"termsnake bench: {shorten(solver)}: unavailable: {printable(why)}", file=sys.stderr)
    return False


@dataclass(frozen=True, slots=True)
class Setup:
    """What a bench run plays: the solvers, the boards (each read once: ``kit``), where
    replays and engine logs go."""

    solvers: list[str]
    specs: list[LevelSpec]
    kit: Kit
    record_dir: Path | None

    @property
    def levels(self) -> list[Level]:
        """The boards, in the order of ``specs``."""
        return [self.kit.levels[spec] for spec in self.specs]

    def level_file(self, i: int) -> str | None:
        """The file board ``i`` was read from; None for a preset or a --size board."""
        spec = self.specs[i]
        return presets.level_file(spec.value) if spec.kind == "level" else None


def prepare(args: argparse.Namespace, came: Noted) -> Setup | int:
    """The run's solvers and boards from the arguments, or the exit code of a bad one; a
    signal that ``came`` meanwhile is raised before a solver's failure is said."""
    if args.scheduler is not None:  # with the rest: the note on --jobs comes after them
        try:
            check_scheduler(args.scheduler)
        except ClusterError as e:
            return _fail(str(e))
    try:
        solvers = _unique(n for text in args.ai for n in resolved_names(solver_names(text)))
    except ValueError as e:
        return _fail(str(e))
    if not solvers:
        return _fail("--ai names no solver")
    solvers = [name for name in solvers if _can_be_made(name, came)]
    boards = args.boards or [("size", "{}x{}".format(*BOT_SIZE))]
    if args.wrap and not any(kind == "size" for kind, _ in boards):
        return _fail(WRAP_NEEDS_SIZE)
    specs = _unique(
        LevelSpec(kind, value, args.length, wrap=args.wrap and kind == "size")
        for kind, value in boards
    )
    try:
        kit = Kit.read(specs, solvers)
    except BenchError as e:
        if e.located:
            print(e, file=sys.stderr)
            return EXIT_USAGE
        return _fail(str(e))
    record_dir = Path(args.record_dir) if args.record_dir is not None else None
    if record_dir is not None and solvers:  # no folder made for a run that plays no game
        try:
            record_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            return _fail(f"--record-dir {record_dir}: {reason(e)}")
        try:
            # Games and engine logs are written there: say it cannot be before any game.
            check_can_write_new(record_dir)
        except OSError as e:
            why = blocked(e) or f"cannot write in it ({e.strerror or e})"
            return _fail(f"--record-dir {record_dir}: {why}")
    return Setup(solvers, specs, kit, record_dir)


def row_of(
    solver: str,
    level: Level,
    first_seed: int,
    tally: Tally,
    say: Callable[[str], None],
    level_file: str | None = None,
) -> tuple[dict[str, Any] | None, int]:
    """The row of one (solver, level), or None when it has none (the reason said); and the
    exit code it asks for (1 if a game crashed). Each line of a board read from ``level_file``
    names that file first, as play's refusal does: the cells a refusal names are its lines,
    and two files may hold levels of one name."""
    file = f"{printable(level_file)}: " if level_file is not None else ""
    where = f"{file}{shorten(solver)} on {printable(level.name)}"  # an engine's command: long
    if tally.unavailable is not None:
        say(f"termsnake bench: {where}: unavailable: {printable(tally.unavailable)}")
        return None, 0
    if tally.first_error is not None:
        g, error = tally.first_error
        say(f"termsnake bench: error: {where} failed (seed {first_seed + g}): {printable(error)}")
        return None, 1
    for g, cause in tally.forfeits:  # an engine's or a plugin's own failure, game by game
        say(f"termsnake bench: {where} (seed {first_seed + g}): {printable(cause)}")
    if tally.more_forfeits:
        more = tally.more_forfeits
        games = f"{more} more game{'s' * (more != 1)}"
        say(f"termsnake bench: {where}: {games} lost by the bot's own failure, not listed")
    return summarize(solver, level, first_seed, tally), 0


def measure(
    args: argparse.Namespace,
    setup: Setup,
    pairs: Sequence[tuple[str, int]],
    played: Iterator[GameRecord],
    progress: Progress,
    recorder: Recorder | None,
) -> tuple[list[dict[str, Any]], int]:
    """Take the games as they end, in order, a row's worth at a time: keep their replays and
    tally them. The rows and the exit code so far. ``played`` must give ``args.games`` records
    for each of ``pairs`` in turn, as ``run`` makes the tasks from the same ``pairs``."""
    rows: list[dict[str, Any]] = []
    status = 0
    levels = setup.levels
    log_told = False
    for solver, i in pairs:
        level = levels[i]
        tally = Tally()
        for g, record in enumerate(itertools.islice(played, args.games)):
            tally.add(record)
            if record.log_problem is not None and not log_told:
                progress.say(
                    f"termsnake bench: warning: {printable(record.log_problem)} ({LOG_LOST})"
                )
                log_told = True
            # A replay that cannot be written (a full disk) stops the recording, not the run:
            # the games measured are the user's hours. Said at once, so that one who needs the
            # replays can stop the run and start it again elsewhere.
            if recorder is not None and not recorder.keep(record, solver, level, args.seed + g):
                progress.say(f"termsnake bench: error: {recorder.stopped}; {NOT_RECORDED}")
                status = max(status, EXIT_OUTPUT)
        row, code = row_of(solver, level, args.seed, tally, progress.say, setup.level_file(i))
        status = max(status, code)
        if row is not None:
            rows.append(row)
    return rows, status


def run(args: argparse.Namespace) -> int:
    """``termsnake bench ...``: run the benchmark and print it; the exit code."""
    # A signal whose exception was lost as the bots loaded (in the import machinery's callback)
    # ends the run here, not after it.
    with signals_remembered() as came:
        setup = prepare(args, came)
    if isinstance(setup, int):
        return setup
    note_jobs_unused("bench", args.jobs, args.scheduler)
    jobs = processes(args.jobs)
    engine_logs = engine_log_dir(setup.solvers, setup.record_dir)
    pairs = [(solver, i) for solver in setup.solvers for i in range(len(setup.specs))]
    total = len(pairs) * args.games
    recorder = Recorder(setup.record_dir) if setup.record_dir is not None else None
    # A generator: a run of any number of games never holds a list of them. Made as they are
    # handed out, so that the games after a replay failed keep no replay of their own.
    tasks = (
        GameTask(
            solver,
            setup.specs[i],
            args.seed + g,
            recorder is not None and recorder.on,
            args.engine_timeout,
            engine_logs,
        )
        for solver, i in pairs
        for g in range(args.games)
    )
    # SIGTERM and the like end the run as Ctrl-C does: the engines' processes go, and the
    # temporary folder of their logs if nothing was kept in it. Remembered: a bot's move that
    # lost one (a plugin's ``except Exception``) does not play the run on.
    try:
        with (
            signals_remembered(),
            _dropped_if_empty(engine_logs, setup.record_dir),  # its line after progress's
            Progress(total) as progress,
        ):
            if args.scheduler is not None:
                records = on_cluster(args.scheduler, tasks, setup.kit, progress)
            else:
                # Replays are written as their games end: a Ctrl-C then keeps those ended.
                singly = setup.record_dir is not None
                records = pool.records(tasks, total, jobs, progress, setup.kit, singly=singly)
            with contextlib.closing(records) as played:
                rows, status = measure(args, setup, pairs, played, progress, recorder)
    except KeyboardInterrupt:
        print("termsnake bench: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as e:
        print(f"termsnake bench: stopped by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    except ClusterError as e:
        return _fail(str(e))
    except WorkerDied as e:  # no row: as for any other failure that stops the run
        _fail(str(e))
        return 1
    if args.json:
        print("[" + ",\n ".join(json.dumps(row) for row in rows) + "]")
    elif rows:
        print(format_table(rows))
    if not rows and status == 0:
        return _fail("nothing could be measured")
    return status
