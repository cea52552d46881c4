"""What bench ships a Dask worker: read there without numpy, a ``neuro:PATH``'s games say what
the worker lacks, as plain ``neuro``'s do, and the other solvers play."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import numpy as np

from termsnake.bench.games import GameTask, Kit, LevelSpec
from termsnake.bench.remote import play_shipped
from termsnake.solvers.neuro import Network

# Read as a worker reads the kit and the games, where numpy cannot be imported: each game's
# unavailable line, or its final length.
WORKER = """
import pickle, sys
sys.modules["numpy"] = None
fn, kit, tasks = pickle.loads(sys.stdin.buffer.read())
for task in tasks:
    record = fn(task, kit)
    print(record.unavailable or record.length)
"""


def test_a_worker_without_numpy_reads_the_weights_and_says_what_it_lacks(
    tmp_path: Path,
) -> None:
    # The kit held neuro:PATH's network as numpy's arrays: the worker could not read it, and
    # the run stopped with "cannot send the games' data ...: ModuleNotFoundError(...)".
    network = Network.from_vector(np.random.default_rng(3).normal(size=Network.size(4)), 4)
    weights = tmp_path / "w.json"
    weights.write_text(network.to_json())
    spec = LevelSpec("size", "6x6", 3)
    solvers = [f"neuro:{weights}", "greedy"]
    kit = Kit.read([spec], solvers)
    tasks = [GameTask(solver, spec, 1, record=False) for solver in solvers]
    worker = subprocess.run(
        [sys.executable, "-c", WORKER],
        input=pickle.dumps((play_shipped, kit, tasks)),
        capture_output=True,
        check=False,
    )
    assert worker.stderr == b""
    here = [play_shipped(task, kit) for task in tasks]
    assert worker.stdout.decode() == (
        "neuro needs numpy, which is not installed (pip install 'termsnake[learn]') "
        f"(on a Dask worker)\n{here[1].length}\n"
    )
    assert here[0].unavailable is None and here[0].length >= 3  # where numpy is, it plays
