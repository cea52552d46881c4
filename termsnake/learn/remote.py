"""A network's games, as a Dask worker reads and plays them: this module imports no numpy, so
that a worker without it can read the task and say what it lacks, in the run's one line.
Reading a task of ``evolve``'s made the worker import numpy outside any task, which failed
there and took the worker down."""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from termsnake.core.game import Game
from termsnake.core.level import Level
from termsnake.solvers.base import play


@dataclass(frozen=True, slots=True)
class Task:
    """One network to score on some games; small and picklable for workers and clusters."""

    vector: tuple[float, ...]
    hidden: int
    level: Level
    seeds: tuple[int, ...]


def score(task: Task) -> float:
    """The mean final length of the network over the task's games; RuntimeError saying what
    is missing where numpy (the learn extra) is not installed: a Dask worker's."""
    try:
        from termsnake.solvers.neuro import Network, NeuroSolver
    except ImportError as e:
        missing = e.name or "numpy"
        raise RuntimeError(
            f"a Dask worker cannot train: {missing} is not installed there "
            "(pip install 'termsnake[learn]' on every worker)"
        ) from None
    network = Network.from_vector(task.vector, task.hidden)
    lengths = []
    for seed in task.seeds:
        game = Game(task.level, seed)
        play(game, NeuroSolver(network=network))
        lengths.append(game.length)
    return statistics.fmean(lengths)
