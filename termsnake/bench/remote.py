"""Bench's games on a Dask cluster (``--scheduler``): sent a batch at a time, the boards and
``neuro:PATH`` weights read here shipped once to every worker, a plugin missing on a worker
said so, and a solver a worker cannot make (an extra it lacks) said unavailable there."""

from __future__ import annotations

import itertools
from collections.abc import Generator, Iterable
from dataclasses import replace
from typing import Final

from termsnake.bench.games import ERROR_LIMIT, GameRecord, GameTask, Kit, play_apart, solver_or_why
from termsnake.bench.pool import Watcher
from termsnake.cluster import DataLost, connect, map_on, share
from termsnake.formats.text import shorten
from termsnake.solvers.registry import resolve_name

CLUSTER_BATCH: Final = 4096  # games sent to the cluster at a time: its memory stays bounded
# Times a batch is played whose kit was lost with its workers: a game that kills its worker
# each time would lose it for ever.
BATCH_TRIES: Final = 3


def on_cluster(
    address: str, tasks: Iterable[GameTask], kit: Kit, watcher: Watcher
) -> Generator[GameRecord, None, None]:
    """The tasks' records, in order, played on the Dask cluster at ``address`` a batch at a
    time, ``kit`` (the boards and weights read here) sent to the workers once for them all;
    ClusterError if it cannot be reached or used."""
    with connect(address) as client:
        shared = share(client, kit)
        pending = iter(tasks)
        while batch := list(itertools.islice(pending, CLUSTER_BATCH)):
            done = _Counter(watcher)
            for tries in itertools.count(1):
                if shared.status != "finished":  # every worker that held it has gone since
                    shared = share(client, kit)
                done.again()
                try:
                    records = map_on(client, play_shipped, batch, done, kit=shared)
                    break
                except DataLost:  # the whole batch with it: played again, the same games
                    if tries == BATCH_TRIES:
                        raise
            yield from records


class _Counter:
    """``watcher.done`` for a batch that may be played again: games are told once."""

    def __init__(self, watcher: Watcher) -> None:
        self._watcher = watcher
        self._told = 0  # the most games of the batch told so far
        self._now = 0  # games ended in this try

    def again(self) -> None:
        """A new try begins: its games are told once it passes what the others told."""
        self._now = 0

    def __call__(self, games: int) -> None:
        self._now += games
        if self._now > self._told:
            self._watcher.done(self._now - self._told)
            self._told = self._now


def play_shipped(task: GameTask, kit: Kit) -> GameRecord:
    """``play_apart`` on a worker, with the client's ``kit``; a plugin the worker lacks said so,
    and a solver it cannot make said unavailable on a worker."""
    if task.solver not in kit.networks:
        try:
            resolve_name(task.solver)
        except ValueError as e:
            # Known to the client (it checked), so a plugin this worker has not installed.
            where = "on a Dask worker: a plugin must be installed on every worker too"
            return GameRecord(error=f"{shorten(f'ValueError: {e}', ERROR_LIMIT)} ({where})")
    record = play_apart(task, kit)
    weights = kit.networks.get(task.solver)
    if isinstance(weights, str):  # the client's file, which it could not read: said as such
        return record
    # A ``neuro:PATH`` is made as ``neuro`` is, its file read by the client.
    made_as = task.solver if weights is None else "neuro"
    if record.unavailable is not None and isinstance(solver_or_why(made_as), str):
        # Made by the client (it checked), so this worker lacks what the solver needs (numpy).
        return replace(record, unavailable=f"{record.unavailable} (on a Dask worker)")
    return record
