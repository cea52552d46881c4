"""What train sends a Dask worker: read there without numpy, it says what the worker lacks;
a cluster lost mid-run says what the checkpoint holds, as Ctrl-C does."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from termsnake.cluster import ClusterError
from termsnake.commands import cli
from termsnake.learn import training
from termsnake.learn.evolve import run_here
from termsnake.learn.remote import Task

TRAIN = ["train", "neuro", "--size", "4x4", "--population", "2", "--games", "1"]
ADDRESS = "tcp://127.0.0.1:1"

# Read as a worker reads it, where numpy cannot be imported: the error's text, or "ran".
WORKER = """
import pickle, sys
sys.modules["numpy"] = None
fn, task = pickle.loads(sys.stdin.buffer.read())
try:
    fn(task)
except RuntimeError as e:
    print(e)
else:
    print("ran")
"""


@contextmanager
def _no_client(address: str) -> Iterator[object]:
    yield object()


def _shipped(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[Callable[..., float], Task]:
    """The function and the first task a run on a cluster sends its workers."""
    sent: list[tuple[Callable[..., float], Sequence[Task]]] = []

    def map_on(client: object, fn: Callable[..., float], tasks: Sequence[Task]) -> list[float]:
        sent.append((fn, tasks))
        return run_here(tasks)

    monkeypatch.setattr(training, "connect", _no_client)
    monkeypatch.setattr(training, "map_on", map_on)
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "1", "--scheduler", ADDRESS, "--out", str(out)]) == 0
    return sent[0][0], sent[0][1][0]


def test_a_worker_without_numpy_reads_the_task_and_says_what_it_lacks(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The task named evolve's score, whose module imports numpy: reading it failed outside any
    # task, the worker closed, and the run said the cluster had had no worker for 20 s.
    fn, task = _shipped(monkeypatch, tmp_path)
    worker = subprocess.run(
        [sys.executable, "-c", WORKER],
        input=pickle.dumps((fn, task)),
        capture_output=True,
        check=False,
    )
    assert worker.stderr == b""
    assert worker.stdout.decode() == (
        "a Dask worker cannot train: numpy is not installed there "
        "(pip install 'termsnake[learn]' on every worker)\n"
    )
    assert fn(task) == run_here([task])[0]  # where numpy is, the network's score


def test_a_cluster_lost_mid_run_says_what_the_checkpoint_holds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    generations: list[int] = []

    def map_on(client: object, fn: Callable[..., float], tasks: Sequence[Task]) -> list[float]:
        generations.append(len(generations))
        if len(generations) == 3:
            raise ClusterError(f"lost the connection to the Dask scheduler at {ADDRESS}")
        return run_here(tasks)

    monkeypatch.setattr(training, "connect", _no_client)
    monkeypatch.setattr(training, "map_on", map_on)
    out = tmp_path / "w.json"
    args = [*TRAIN, "--generations", "5", "--scheduler", ADDRESS, "--out", str(out)]
    assert cli.main(args) == 2
    assert capsys.readouterr().err == (
        f"termsnake train: error: lost the connection to the Dask scheduler at {ADDRESS}; "
        f"{out}.checkpoint.json holds generations 0 to 1: --resume goes on from there\n"
    )
    assert len(Path(f"{out}.curve.csv").read_text().splitlines()) == 3
