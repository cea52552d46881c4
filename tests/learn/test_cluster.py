"""A real local Dask cluster gives exactly the numbers of a local run; a dead address is quick."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from distributed import LocalCluster

from termsnake.commands import cli
from termsnake.core.level import open_level
from termsnake.learn.cluster import ClusterError, connect, map_on
from termsnake.learn.evolve import Plan, score, start, step

PLAN = Plan(open_level(6, 6, 1), hidden=4, population=6, elite=2, games=2, seed=5)


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        yield cluster.scheduler_address


def test_training_on_a_cluster_gives_the_local_result(scheduler: str) -> None:
    with connect(scheduler) as client:
        remote = step(
            PLAN,
            step(PLAN, start(PLAN), lambda t: map_on(client, score, t)),
            lambda t: map_on(client, score, t),
        )
    local = step(PLAN, step(PLAN, start(PLAN)))
    assert remote.population == local.population and remote.curve == local.curve


def test_an_unreachable_scheduler_is_one_line_within_seconds() -> None:
    began = time.monotonic()
    with (
        pytest.raises(
            ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9"
        ),
        connect("tcp://127.0.0.1:9", timeout=1.0),
    ):
        pass
    assert time.monotonic() - began < 5


def test_bench_and_train_on_a_cluster_print_the_local_numbers(
    scheduler: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["bench", "--ai", "greedy,hamilton", "--size", "6x6", "--games", "3", "--json"]
    assert cli.main(args) == 0
    here = json.loads(capsys.readouterr().out)
    assert cli.main([*args, "--scheduler", scheduler]) == 0
    there = json.loads(capsys.readouterr().out)
    for row in (*here, *there):
        row.pop("ms_per_move")
    assert here == there
    train = ["train", "neuro", "--size", "6x6", "--generations", "2", "--population", "4"]
    train += ["--games", "1", "--seed", "3"]
    assert cli.main([*train, "--out", str(tmp_path / "a.json")]) == 0
    assert cli.main([*train, "--out", str(tmp_path / "b.json"), "--scheduler", scheduler]) == 0
    assert (tmp_path / "a.json").read_text() == (tmp_path / "b.json").read_text()
