"""Training runs of `termsnake train`: where the games go, checkpoints, and the curve."""

from __future__ import annotations

import argparse
import multiprocessing
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

from tqdm import tqdm

from termsnake.core.level import Level, open_level, with_length
from termsnake.formats.fileio import TooLarge, read_capped, write_atomic
from termsnake.formats.levelfile import LevelError
from termsnake.formats.presets import load_level
from termsnake.learn.cluster import ClusterError, connect, map_on
from termsnake.learn.curve import chart, csv_text
from termsnake.learn.evolve import Plan, Runner, State, run_here, score, start, step
from termsnake.solvers.neuro import Network

MAX_CHECKPOINT: Final = 64 * 1024 * 1024


def checkpoint_path(out: Path) -> Path:
    """The checkpoint beside the weights file."""
    return out.with_name(out.name + ".checkpoint.json")


def board(args: argparse.Namespace) -> Level:
    """The board to train on, start length 1 (as bots are compared)."""
    if args.level is not None:
        return with_length(load_level(args.level), 1)
    width, height = args.size or (8, 8)
    return open_level(width, height, 1)


@contextmanager
def runner(args: argparse.Namespace) -> Iterator[Runner]:
    """Where the games run: here, in worker processes, or on a cluster."""
    if args.scheduler is not None:
        with connect(args.scheduler) as client:
            yield lambda tasks: map_on(client, score, tasks)
        return
    jobs = args.jobs or multiprocessing.cpu_count()
    if jobs == 1:
        yield run_here
        return
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield lambda tasks: pool.map(score, tasks)


def resume(plan: Plan, path: Path) -> State:
    """The state saved in the checkpoint at ``path``; ValueError naming it on any problem."""
    try:
        text = read_capped(path, MAX_CHECKPOINT).decode("utf-8")
    except TooLarge as e:
        raise ValueError(e.describe(str(path))) from None
    except OSError as e:
        raise ValueError(f"{path}: cannot read the checkpoint: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path}: not a checkpoint (not UTF-8 text)") from None
    return State.from_json(text, plan, str(path))


def save(plan: Plan, state: State, out: Path) -> None:
    """The weights of the best network so far, its checkpoint and the curve, each atomic."""
    network = Network.from_vector(state.best, plan.hidden)
    write_atomic(out, (network.to_json() + "\n").encode())
    write_atomic(checkpoint_path(out), state.to_json(plan).encode())
    write_atomic(out.with_name(out.name + ".curve.csv"), csv_text(state.curve).encode())


def train(plan: Plan, state: State, generations: int, out: Path, go: Runner) -> State:
    """Evolve until ``generations``, saving after each one, with a progress bar."""
    with tqdm(total=generations, initial=state.generation, desc="train", unit="gen",
              file=sys.stderr, disable=not sys.stderr.isatty()) as bar:  # fmt: skip
        while state.generation < generations:
            state = step(plan, state, go)
            save(plan, state, out)
            point = state.curve[-1]
            bar.set_postfix(best=f"{point['best']:.1f}", mean=f"{point['mean']:.1f}")
            bar.update(1)
    return state


def main(args: argparse.Namespace) -> int:
    """``termsnake train neuro ...``: 0 when trained, 2 on bad input, 130 on Ctrl-C."""
    out = Path(args.out)
    try:
        plan = Plan(board(args), population=args.population, games=args.games, seed=args.seed,
                    elite=max(2, args.population * 3 // 16))  # fmt: skip
        state = resume(plan, checkpoint_path(out)) if args.resume else start(plan)
    except (LevelError, ValueError) as e:
        print(f"termsnake train: error: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    try:
        with runner(args) as go:
            state = train(plan, state, args.generations, out, go)
    except KeyboardInterrupt:
        print(f"termsnake train: interrupted; {checkpoint_path(out)} holds generation "
              f"{state.generation}: --resume goes on from there", file=sys.stderr)  # fmt: skip
        return 130
    except OSError as e:
        print(f"termsnake train: error: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    except ClusterError as e:
        print(f"termsnake train: error: {e}", file=sys.stderr)
        return 2
    print("\n".join(chart(state.curve)))
    print(f"weights: {out} (best network of generation {state.generation}); "
          f"play them: termsnake --ai neuro:{out}")  # fmt: skip
    return 0
