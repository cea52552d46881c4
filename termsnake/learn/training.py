"""Training runs of `termsnake train`: where the games go, checkpoints, and the curve."""

from __future__ import annotations

import argparse
import errno
import multiprocessing
import os
import queue
import signal
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Final

from termsnake.cluster import ClusterError, check_scheduler, connect, map_on
from termsnake.core.level import BOT_LENGTH, BOT_SIZE, WRAP_NEEDS_SIZE, Level, open_level
from termsnake.exits import (
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    Terminated,
    signals_noted,
    terminating,
)
from termsnake.formats.diagnostics import LevelError
from termsnake.formats.fileio import (
    TooLarge,
    check_can_write,
    in_the_way,
    kind_of,
    read_capped,
    reason,
    write_atomic,
)
from termsnake.formats.presets import load_level
from termsnake.formats.text import printable
from termsnake.learn.curve import chart, csv_text, is_csv
from termsnake.learn.evolve import Plan, Runner, State, parse_checkpoint, run_here, start, step
from termsnake.learn.owner import check_lock, owned
from termsnake.learn.remote import Task, score
from termsnake.orphans import (
    WorkerDied,
    dead_worker,
    die_with,
    spawning,
    start_resource_tracker,
)
from termsnake.progressbar import Bar
from termsnake.solvers.neuro import MAX_WEIGHTS_BYTES, Network
from termsnake.statusline import columns, unechoed
from termsnake.workers import note_jobs_unused, processes

MAX_CHECKPOINT: Final = 64 * 1024 * 1024
MAX_CURVE: Final = 16 * 1024 * 1024
BATCHES_A_WORKER: Final = 4  # a generation's networks are handed out in this many a worker


def checkpoint_path(out: Path) -> Path:
    """The checkpoint beside the weights file."""
    return out.with_name(out.name + ".checkpoint.json")


def curve_path(out: Path) -> Path:
    """The learning curve's CSV beside the weights file."""
    return out.with_name(out.name + ".curve.csv")


def board(args: argparse.Namespace) -> Level:
    """The board to train on, the snake BOT_LENGTH long (as bots are compared)."""
    if args.wrap and args.size is None:
        raise ValueError(WRAP_NEEDS_SIZE)
    if args.level is not None:
        return load_level(args.level, length=BOT_LENGTH)
    width, height = args.size or BOT_SIZE
    return open_level(width, height, BOT_LENGTH, wrap=args.wrap)


@contextmanager
def runner(args: argparse.Namespace) -> Iterator[Runner]:
    """Where the games run: here, in worker processes, or on a cluster."""
    if args.scheduler is not None:
        with connect(args.scheduler) as client:
            yield lambda tasks: map_on(client, score, tasks)
        return
    jobs = min(processes(args.jobs), args.population)  # no more processes than networks
    if jobs == 1:
        yield run_here
        return
    with _in_workers(jobs) as go:
        yield go


@contextmanager
def _in_workers(jobs: int) -> Iterator[Runner]:
    ended: queue.SimpleQueue[Future[list[float]] | None] = queue.SimpleQueue()
    # A signal is raised only at came.check(), between steps, as in bench's pool: raised
    # inside the pool's own code it could leave a future's lock taken, and the pool's
    # shutdown then waited for ever.
    with signals_noted(wake=lambda: ended.put(None)) as came:
        # An executor, not multiprocessing.Pool: a Pool replaces a worker that dies and waits
        # for ever for the games it had; an executor says that one died.
        start_resource_tracker()  # before the pool's queues start it
        pool = ProcessPoolExecutor(
            jobs,
            multiprocessing.get_context("spawn"),
            initializer=_worker_init,
            initargs=(os.getpid(),),
        )
        started: set[BaseProcess] = set()

        def go(tasks: Sequence[Task]) -> list[float]:
            # More batches than workers: one whose networks die early takes another batch
            # instead of idling while the slowest plays its games out.
            size = -(-len(tasks) // (BATCHES_A_WORKER * jobs))
            futures = []
            try:
                with spawning():  # the workers start as the first tasks are handed out
                    for i in range(0, len(tasks), size):
                        came.check()  # no worker started after a signal: it would miss it
                        futures.append(pool.submit(run_here, tasks[i : i + size]))
                        futures[-1].add_done_callback(ended.put)
                    started.update(multiprocessing.active_children())
                left = set(futures)
                while left:
                    came.check()
                    left.discard(ended.get())  # a future that ended, or None for a signal
                return [s for f in futures for s in f.result()]
            except BrokenProcessPool:  # raised by submit too, if one died between generations
                pool.shutdown(wait=True, cancel_futures=True)
                raise WorkerDied(dead_worker(started)) from None

        try:
            yield go
        except BaseException:
            # Ctrl-C or a signal: the workers (which leave Ctrl-C to this process) are ended
            # now, not once they have played the generation's games.
            for worker in started:
                if worker.is_alive():
                    worker.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()


def _worker_init(parent: int) -> None:
    # Ctrl-C reaches the whole process group and is the parent's to handle: it ends the pool
    # and says so in one line, where each worker printed a traceback. A worker whose parent
    # went while it wrote a result ends by SIGPIPE instead of printing BrokenPipeError.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a hang-up too: the terminal's whole group
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    die_with(parent)


def resume(plan: Plan, path: Path) -> State:
    """The state saved in the checkpoint at ``path``; ValueError naming it on any problem."""
    shown = printable(str(path))
    try:
        text = read_capped(path, MAX_CHECKPOINT).decode("utf-8-sig")
    except TooLarge as e:
        raise ValueError(f"{shown}: {e.describe('a checkpoint')}") from None
    except OSError as e:
        raise ValueError(f"{shown}: cannot read the checkpoint: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{shown}: not a checkpoint (not UTF-8 text)") from None
    return State.from_json(text, plan, shown)


def _is_weights(text: str) -> bool:
    try:
        Network.from_json(text, "")
    except ValueError:
        return False
    return True


def _is_checkpoint(text: str) -> bool:
    try:
        parse_checkpoint(text, "")
    except ValueError:
        return False
    return True


_OUTPUTS: Final[tuple[tuple[Callable[[Path], Path], str, int, Callable[[str], bool]], ...]] = (
    (lambda out: out, "a weights file", MAX_WEIGHTS_BYTES, _is_weights),
    (checkpoint_path, "a checkpoint", MAX_CHECKPOINT, _is_checkpoint),
    (curve_path, "a learning curve", MAX_CURVE, is_csv),
)


def _written(out: Path) -> list[tuple[Path, str]]:
    """The files a run into ``out`` writes, its locks aside, each with what it is."""
    return [(out, "the weights"), (checkpoint_path(out), "the checkpoint"),
            (curve_path(out), "the learning curve")]  # fmt: skip


def check_outputs(out: Path, resume: bool) -> None:
    """ValueError unless training may write all its files, in a folder that takes new files:
    each is new or, with ``resume``, a regular file that termsnake wrote as what it will write
    there (the run resumed). Anything else stays as it is: a file training did not write, and
    an earlier run's files, which a new run would replace after its first generation."""
    found: list[str] = []
    for where, what, limit, ours in _OUTPUTS:
        path = where(out)
        shown = printable(str(path))
        try:
            info = os.stat(path)  # through a link: its target is what gets replaced
        except FileNotFoundError:
            _check_folder(path, shown)
            continue
        except OSError as e:
            raise ValueError(f"cannot write {shown}: {reason(e)}") from None
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{shown} is {kind_of(info.st_mode)}, not a file: give another --out")
        try:
            text = read_capped(path, limit).decode("utf-8-sig")
        except (OSError, TooLarge, UnicodeDecodeError):
            text = ""
        if not ours(text):
            raise ValueError(
                f"{shown} is there and is not {what} termsnake wrote; training would replace "
                "it: give another --out, or delete the file first"
            )
        found.append(shown)
        _check_folder(path, shown)
    if found and not resume:
        raise ValueError(_earlier_run(out, found))


def _earlier_run(out: Path, found: list[str]) -> str:
    """Why a new run into ``out`` is refused, and what to do instead."""
    if len(found) == 1:
        files, them = f"{found[0]} is an earlier run's file", "it"
    else:
        files, them = f"{', '.join(found[:-1])} and {found[-1]} are an earlier run's files", "them"
    go_on = "--resume to go on with that run, or " if checkpoint_path(out).exists() else ""
    return (
        f"{files}, which a new run would replace: give {go_on}another --out, or delete {them} first"
    )


def _check_still_new(out: Path) -> None:
    # A new run checked its files were new as it started; another run into the same --out holds
    # the lock beside them, but one that took none (an older termsnake, a lock that does not
    # hold on that file system) may have saved its own since.
    for where, _, _, _ in _OUTPUTS:
        if os.path.exists(where(out)):
            raise FileExistsError(
                errno.EEXIST,
                "another run has written it since this one started; nothing was written",
                str(where(out)),
            )


def _check_folder(path: Path, shown: str) -> None:
    # Where write_atomic makes the file (a link is written through: its target's folder),
    # tried now: a read-only folder was found out only as the first generation, minutes of
    # games, was saved.
    folder = os.path.dirname(os.path.realpath(path) if path.is_symlink() else path) or "."
    if not os.path.isdir(folder):
        why = in_the_way(folder) or f"no folder {printable(folder)}"
        raise ValueError(f"cannot write {shown}: {why}")
    try:
        check_can_write(folder)
    except OSError as e:
        raise ValueError(f"cannot write {shown}: {reason(e)}") from None


@dataclass
class Run:
    """A run as it goes: its state, and the generation the checkpoint on disk holds (None
    while this run has none: nothing resumed and nothing saved yet)."""

    state: State
    saved: int | None


def save(plan: Plan, run: Run, out: Path) -> None:
    """The weights of the best network so far, its checkpoint and the curve, each atomic;
    OSError naming the file that could not be written."""
    state = run.state
    if run.saved is None:  # a new run's first save
        _check_still_new(out)
    _save_weights(plan, state, out)
    _write(checkpoint_path(out), state.to_json(plan))
    run.saved = state.generation
    _write(curve_path(out), csv_text(state.curve))


def _save_weights(plan: Plan, state: State, out: Path) -> None:
    network = Network.from_vector(state.best, plan.hidden)
    _write(out, network.to_json() + "\n")


def _write(path: Path, text: str) -> None:
    try:
        write_atomic(path, text.encode())
    except OSError as e:  # its own name may be the temporary file's, or none
        raise OSError(e.errno, e.strerror or str(e), str(path)) from None


def train(plan: Plan, run: Run, generations: int, out: Path, go: Runner) -> None:
    """Evolve until ``generations``, saving after each one, with a progress bar; weights
    deleted since the checkpoint was saved are written again from it."""
    with unechoed(sys.stderr), Bar(total=generations, initial=run.state.generation,
             desc="train", unit="gen", file=sys.stderr,
             disable=not sys.stderr.isatty()) as bar:  # fmt: skip
        while run.state.generation < generations:
            run.state = step(plan, run.state, go)
            save(plan, run, out)
            point = run.state.curve[-1]
            bar.set_postfix(best=f"{point['best']:.1f}", mean=f"{point['mean']:.1f}")
            bar.update(1)
    if not out.exists():  # a --resume with no generation left to play: the last line names it
        _save_weights(plan, run.state, out)
        shown = printable(str(out))
        print(f"termsnake train: {shown} was missing: written again from the checkpoint",
              file=sys.stderr)  # fmt: skip


def interrupted(out: Path, saved: int | None) -> str:
    """What Ctrl-C leaves: the checkpoint's generation, or nothing written at all."""
    return stopped("interrupted", out, saved)


def stopped(why: str, out: Path, saved: int | None) -> str:
    """What a run that stopped (``why``) leaves: the checkpoint's generations, or nothing."""
    if saved is None:
        return f"{why} before a generation was done; nothing was written"
    return f"{why}; {_held(out, saved)}"


def _held(out: Path, saved: int) -> str:
    where = printable(str(checkpoint_path(out)))
    return f"{where} holds {_first(saved)}: --resume goes on from there"


def _first(done: int) -> str:
    """The first ``done`` generations, numbered as the curve numbers them (from 0)."""
    return "generation 0" if done == 1 else f"generations 0 to {done - 1}"


def _error(message: str, code: int = EXIT_USAGE) -> int:
    print(f"termsnake train: error: {printable(' '.join(message.split()))}", file=sys.stderr)
    return code


def _checked(plan: Plan, out: Path, resuming: bool) -> State:
    """The state to start from, once the run may write its files (ValueError if not)."""
    state = resume(plan, checkpoint_path(out)) if resuming else start(plan)
    check_outputs(out, resuming)
    return state


def main(args: argparse.Namespace) -> int:
    """``termsnake train neuro ...``: 0 when trained, 2 on bad input, 1 when a file cannot be
    written, 130 on Ctrl-C."""
    out = Path(args.out)
    with ExitStack() as held:
        try:
            if args.scheduler is not None:  # with the rest: the note on --jobs comes after them
                check_scheduler(args.scheduler)
            plan = Plan(board(args), population=args.population, games=args.games,
                        seed=args.seed, elite=max(2, args.population * 3 // 16))  # fmt: skip
            # Not again once held: where flock is missing, the run's lock is a marker file.
            check_lock(out, _written(out))
            state = _checked(plan, out, args.resume)  # before the lock: a refused run makes none
            held.enter_context(owned(out))
            # Again, now that no other run can save: one that held the lock until a moment
            # ago may have saved since the files were checked.
            state = _checked(plan, out, args.resume)
        except LevelError as e:  # its lines say where and "error:" already, as `check` prints
            print(e, file=sys.stderr)
            return EXIT_USAGE
        except (ValueError, ClusterError) as e:
            return _error(str(e))
        except OSError as e:  # a name the system refuses (too long), met before the checks say it
            where = e.filename if isinstance(e.filename, str) else str(out)
            return _error(f"cannot write {printable(where)}: {e.strerror or e}")
        return _run(args, plan, state, out)


def _run(args: argparse.Namespace, plan: Plan, state: State, out: Path) -> int:
    """Train from ``state``, the files' owner; the exit code."""
    shown = printable(str(out))
    # Once the run's files and address are known to be right.
    note_jobs_unused("train", args.jobs, args.scheduler)
    run = Run(state, state.generation if args.resume else None)
    if state.generation >= args.generations:  # --generations counts from 0, not from here
        held = f"{printable(str(checkpoint_path(out)))} holds {_first(state.generation)}"
        asked = f"--generations {args.generations}"
        print(f"termsnake train: {held}: {asked} asks for no more", file=sys.stderr)
    # SIGTERM, SIGHUP and the like end the run as Ctrl-C does, saying what the checkpoint holds.
    try:
        with terminating(), runner(args) as go:
            train(plan, run, args.generations, out, go)
    except KeyboardInterrupt:
        print(f"termsnake train: {interrupted(out, run.saved)}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as e:
        why = f"stopped by {signal.Signals(e.signum).name}"
        print(f"termsnake train: {stopped(why, out, run.saved)}", file=sys.stderr)
        return 128 + e.signum
    except WorkerDied as e:
        print(f"termsnake train: error: {stopped(str(e), out, run.saved)}", file=sys.stderr)
        return 1
    except OSError as e:
        where = printable(e.filename) if isinstance(e.filename, str) else shown
        held = "" if run.saved is None else f"; {_held(out, run.saved)}"
        # A full disk ends every command so (exit 1); another run's files found are refused
        # as at the start (exit 2).
        code = EXIT_USAGE if isinstance(e, FileExistsError) else EXIT_OUTPUT
        return _error(f"cannot write {where}: {reason(e)}{held}", code)
    except ClusterError as e:  # the scheduler or the workers lost mid-run: the files stay
        held = "" if run.saved is None else f"; {_held(out, run.saved)}"
        return _error(f"{e}{held}")
    # Fitted to the terminal as it is now, not as it was when the run began; into a file as ever.
    print("\n".join(chart(run.state.curve, columns(sys.stdout) if sys.stdout.isatty() else None)))
    last = max(0, run.state.generation - 1)  # numbered as in the curve, from 0
    print(f"weights: {shown} (the best network of generation {last}); "
          f"play them: termsnake --ai neuro:{shown}")  # fmt: skip
    return 0
