"""Bench's games on a Dask cluster (``--scheduler``): sent a batch at a time, ``neuro:PATH``
weights read here and shipped with them, a plugin missing on a worker said so."""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import tempfile
from collections.abc import Generator, Iterable, Mapping
from pathlib import Path
from typing import Final

from termsnake.bench.games import ERROR_LIMIT, GameRecord, GameTask, play_apart
from termsnake.bench.pool import Watcher
from termsnake.cluster import connect, map_on
from termsnake.formats.fileio import read_capped, write_atomic
from termsnake.formats.text import shorten
from termsnake.solvers.registry import resolve_name

CLUSTER_BATCH: Final = 4096  # games sent to the cluster at a time: its memory stays bounded
NEURO: Final = "neuro:"


def on_cluster(
    address: str, tasks: Iterable[GameTask], watcher: Watcher
) -> Generator[GameRecord, None, None]:
    """The tasks' records, in order, played on the Dask cluster at ``address`` a batch at a
    time; ClusterError if it cannot be reached or used."""
    with connect(address) as client:
        pending = iter(tasks)
        weights: dict[str, bytes | str] = {}
        while batch := list(itertools.islice(pending, CLUSTER_BATCH)):
            for task in batch:
                if task.solver.startswith(NEURO) and task.solver not in weights:
                    weights[task.solver] = read_weights(task.solver[len(NEURO) :])
            wanted = {t.solver: weights[t.solver] for t in batch if t.solver in weights}
            shared = {"weights": wanted} if wanted else {}
            yield from map_on(client, play_shipped, batch, watcher.done, **shared)


def read_weights(path: str) -> bytes | str:
    """The bytes of the weights file at ``path`` (read here, where the user named it: a worker
    could have another file, or none, at that path), or why a local run could not use it."""
    # numpy (the learn extra) is imported only when neuro plays
    from termsnake.solvers.neuro import MAX_WEIGHTS_BYTES, WeightsError, load_network

    try:
        load_network(path)
        return read_capped(path, MAX_WEIGHTS_BYTES)
    except WeightsError as e:
        return str(e)
    except OSError as e:  # changed between the two reads
        return f"{path}: cannot read the weights: {e.strerror or e}"


def play_shipped(task: GameTask, weights: Mapping[str, bytes | str] | None = None) -> GameRecord:
    """``play_one`` on a worker, a ``neuro:PATH`` solver playing the ``weights`` read from PATH
    on the client (kept in a file named by their hash), named in the record as asked."""
    shipped = None if weights is None else weights.get(task.solver)
    if isinstance(shipped, str):
        return GameRecord(unavailable=shipped)
    if shipped is None:
        try:
            resolve_name(task.solver)
        except ValueError as e:
            # Known to the client (it checked), so a plugin this worker has not installed.
            where = "on a Dask worker: a plugin must be installed on every worker too"
            return GameRecord(error=f"{shorten(f'ValueError: {e}', ERROR_LIMIT)} ({where})")
        return play_apart(task)
    path = Path(tempfile.gettempdir(), f"termsnake-neuro-{hashlib.sha256(shipped).hexdigest()}")
    try:
        if not path.is_file():
            write_atomic(path, shipped)
    except OSError as e:
        return GameRecord(error=f"a worker cannot keep the weights in {path}: {e.strerror or e}")
    record = play_apart(dataclasses.replace(task, solver=NEURO + str(path)))
    replay = record.replay
    return dataclasses.replace(
        record,
        label=record.label and task.solver,
        replay=None if replay is None else dataclasses.replace(replay, solver=task.solver),
    )
