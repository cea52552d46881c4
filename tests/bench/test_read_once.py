"""Bench reads each level file and ``neuro:PATH`` weights once, at its start, in its own process,
and every game plays what it read: a file changed during the run changes nothing in it, and a
file changed between two runs is read again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from termsnake.commands import bench as bench_command
from termsnake.commands import cli
from termsnake.solvers.neuro import Network

# Two boards of one name: 28 and 27 free cells.
A = "name: swap\n#########\n#.......#\n#.>.....#\n#.......#\n#.......#\n#########\n"
B = "name: swap\n###########\n#.........#\n#.>.......#\n#.........#\n###########\n"


def bench_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert cli.main(["bench", *args, "--json"]) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    for row in rows:
        row.pop("ms_per_move")
    return rows


def swap_once_read(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> None:
    """Write ``text`` at ``path`` after bench has checked its arguments, before any game."""
    original = bench_command.engine_log_dir

    def swapping(*args: Any) -> str | None:
        path.write_text(text)
        return original(*args)

    monkeypatch.setattr(bench_command, "engine_log_dir", swapping)


@pytest.mark.slow  # a bench with a file changed under it: CPU-heavy
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_level_file_changed_during_the_run_changes_nothing(
    jobs: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each worker process read the file at its first game: they played the new board.
    level = tmp_path / "lv.txt"
    level.write_text(A)
    args = ["--ai", "greedy", "--level", str(level), "--games", "6", "--jobs", jobs]
    before = bench_json(capsys, *args)
    swap_once_read(monkeypatch, level, B)
    assert bench_json(capsys, *args) == before
    assert before[0]["free_cells"] == 28 and before[0]["mean_length"] <= 28


@pytest.mark.slow  # benches run one after another: CPU-heavy
def test_a_level_file_changed_between_runs_is_read_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A process kept the board it had read for the path (a Dask worker does, run after run).
    level = tmp_path / "lv.txt"
    level.write_text(A)
    args = ["--ai", "greedy", "--level", str(level), "--games", "4"]
    assert bench_json(capsys, *args)[0]["free_cells"] == 28
    level.write_text(B)
    (row,) = bench_json(capsys, *args)
    assert row["free_cells"] == 27 and row["mean_length"] <= 27


def test_neuro_weights_changed_during_the_run_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The file was read again at every game.
    a, b = (
        Network.from_vector(np.random.default_rng(seed).normal(size=Network.size(4)), 4).to_json()
        for seed in (3, 4)
    )
    weights = tmp_path / "w.json"
    args = ["--ai", f"neuro:{weights}", "--size", "6x6", "--games", "6"]
    weights.write_text(b)
    other = bench_json(capsys, *args)
    weights.write_text(a)
    before = bench_json(capsys, *args)
    assert before != other  # the two networks play differently
    swap_once_read(monkeypatch, weights, b)
    assert bench_json(capsys, *args) == before
