"""Streamed games: records in task order whatever the processes, a bounded number of games
taken ahead, never more workers than CPUs, and Ctrl-C or an early stop dropping the rest."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from solver_doubles import ZigZag

from termsnake.bench import pool
from termsnake.bench.games import GameRecord, GameTask, Kit, LevelSpec
from termsnake.commands import cli
from termsnake.core.game import Game
from termsnake.solvers import registry

PIDS = "TERMSNAKE_TEST_PIDS"


class WhereZigZag(ZigZag):
    """ZigZag that notes which process plays each game, in the folder $TERMSNAKE_TEST_PIDS."""

    name = "where"

    def setup(self, game: Game) -> None:
        (Path(os.environ[PIDS]) / f"{os.getpid()}-{game.seed}").touch()
        super().setup(game)


class Killer(ZigZag):
    """ZigZag whose game of seed 5 kills the worker process that plays it, as the kernel's
    out-of-memory killer would."""

    name = "killer"

    def setup(self, game: Game) -> None:
        if game.seed == 5 and multiprocessing.parent_process() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        super().setup(game)


@pytest.fixture(autouse=True)
def forked(monkeypatch: pytest.MonkeyPatch) -> None:
    """The test solvers, seen by workers too: they are forked."""
    for name, cls in (("zigzag", ZigZag), ("where", WhereZigZag), ("killer", Killer)):
        monkeypatch.setitem(registry._REGISTRY, name, f"{cls.__module__}:{cls.__name__}")
    monkeypatch.setattr(pool, "START_METHOD", "fork")


class Seen(pool.Watcher):
    def __init__(self) -> None:
        self.games = 0
        self.made = 0

    def done(self, games: int) -> None:
        self.games += games

    def moves(self, total: int) -> None:
        self.made = max(self.made, total)


SPEC = LevelSpec("size", "4x4", 1)
KIT = Kit.read([SPEC], [])


def tasks(n: int, taken: list[int] | None = None) -> Iterator[GameTask]:
    for seed in range(n):
        if taken is not None:
            taken.append(seed)
        yield GameTask("zigzag", SPEC, seed, False)


def figures(records: list[GameRecord]) -> list[tuple[object, ...]]:
    return [(r.outcome, r.steps, r.length, r.bound, r.label) for r in records]


def test_records_come_in_task_order_whatever_the_jobs() -> None:
    here, there = Seen(), Seen()
    one = list(pool.records(tasks(40), 40, 1, here, KIT))
    two = list(pool.records(tasks(40), 40, 2, there, KIT))
    assert figures(one) == figures(two)
    assert len({r.steps for r in one}) > 1  # the seeds give different games
    assert here.games == there.games == 40
    assert here.made == there.made == sum(r.steps for r in one)


def test_only_a_bounded_number_of_games_is_taken_ahead() -> None:
    taken: list[int] = []
    total = 10_000
    workers = 2
    with contextlib.closing(
        pool.records(tasks(total, taken), total, workers, Seen(), KIT)
    ) as played:
        next(played)
        ahead = len(taken)
    # Stopping early drops the rest: nothing more is taken.
    assert len(taken) == ahead
    assert ahead <= workers * pool.IN_FLIGHT * pool.batch_size(total, workers)
    assert ahead < total


def test_singly_each_game_comes_back_alone() -> None:
    # With replays, batches of up to 16 games came back together: a Ctrl-C lost the replays
    # of games that had ended in a batch still under way.
    class Counts(Seen):
        def __init__(self) -> None:
            super().__init__()
            self.sizes: list[int] = []

        def done(self, games: int) -> None:
            super().done(games)
            self.sizes.append(games)

    batched, singly = Counts(), Counts()
    total = 400  # batches of 16 on two workers
    assert figures(list(pool.records(tasks(total), total, 2, batched, KIT))) == figures(
        list(pool.records(tasks(total), total, 2, singly, KIT, singly=True))
    )
    assert max(batched.sizes) == pool.MAX_BATCH and set(singly.sizes) == {1}


def test_batches() -> None:
    assert pool.batch_size(1, 2) == 1
    assert pool.batch_size(100, 2) == 6
    assert pool.batch_size(10**8, 2) == pool.MAX_BATCH


def test_workers_are_never_more_than_the_cpus(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(PIDS, str(tmp_path))
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    args = ["bench", "--ai", "where", "--size", "4x4", "--games", "60", "--jobs", "10000"]
    assert cli.main([*args, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["games"] == row["wins"] == 60
    notes = [p.name.split("-") for p in tmp_path.iterdir()]
    assert sorted(int(seed) for _, seed in notes) == list(range(1, 61))
    assert 1 <= len({pid for pid, _ in notes} - {str(os.getpid())}) <= 2


def test_a_worker_that_dies_is_one_line_naming_the_games_under_way(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # It was a traceback of concurrent.futures.process.BrokenProcessPool.
    args = ["bench", "--ai", "killer", "--size", "4x4", "--games", "8", "--jobs", "2"]
    assert cli.main(args) == 1
    out, err = capsys.readouterr()
    assert out == ""  # no row, as for any failure that stops the run
    said = re.fullmatch(
        r"termsnake bench: error: a worker process died \(killed by SIGKILL\) during killer "
        r"on open-4x4 \((?:seed 5|one of seeds ([1-5]) to ([5-8]))\)\n",
        err,
    )
    assert said is not None, err
