"""`termsnake train neuro`: weights, checkpoint and curve; resuming and --jobs change nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from termsnake.commands import cli
from termsnake.solvers.neuro import load_network

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "4", "--games", "1", "--seed", "2"]


def test_resuming_or_more_jobs_give_the_same_weights(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    straight = tmp_path / "straight.json"
    assert cli.main([*TRAIN, "--generations", "3", "--out", str(straight)]) == 0
    out = capsys.readouterr().out
    assert "* best" in out and f"termsnake --ai neuro:{straight}" in out
    halves = tmp_path / "halves.json"
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(halves), "--jobs", "2"]) == 0
    assert cli.main([*TRAIN, "--generations", "3", "--out", str(halves), "--resume"]) == 0
    assert straight.read_text() == halves.read_text()
    load_network(str(straight))  # a weights file neuro:PATH plays
    curve = (tmp_path / "straight.json.curve.csv").read_text().splitlines()
    assert curve[0] == "generation,best,mean,elite" and len(curve) == 4
    # The last line names the generation whose best network was kept as the curve numbers it.
    assert curve[-1].startswith("2,") and "(the best network of generation 2)" in out


def test_a_bad_checkpoint_is_one_line_and_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "w.json"
    checkpoint = tmp_path / "w.json.checkpoint.json"
    checkpoint.write_bytes(b"\xff not a checkpoint")
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a checkpoint" in err
    assert checkpoint.read_bytes() == b"\xff not a checkpoint"
    # Not one training wrote, so a new run will not replace it either until it is deleted.
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 2
    assert "delete" in capsys.readouterr().err
    assert checkpoint.read_bytes() == b"\xff not a checkpoint"
    checkpoint.unlink()
    assert cli.main([*TRAIN, "--generations", "1", "--out", str(out)]) == 0
    assert cli.main(["train", "neuro", "--size", "6x6", "--population", "6", "--generations",
                     "2", "--out", str(out), "--resume"]) == 2  # fmt: skip
    assert "other settings (population, games, seed differ)" in capsys.readouterr().err


def test_resuming_with_nothing_left_writes_deleted_weights_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The last line named the weights to play, which were not there.
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out)]) == 0
    trained = out.read_bytes()
    out.unlink()
    capsys.readouterr()
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 0
    said = capsys.readouterr()
    assert out.read_bytes() == trained
    assert f"{out} was missing: written again from the checkpoint" in said.err
    assert f"weights: {out} (the best network of generation 1)" in said.out
    before = out.stat().st_mtime_ns
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 0
    assert out.stat().st_mtime_ns == before and "missing" not in capsys.readouterr().err


def test_wrap_trains_on_a_torus_and_resuming_without_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The game and bench took --size WxH --wrap; train refused it, so no bot learnt a torus.
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--wrap", "--generations", "1", "--out", str(out)]) == 0
    checkpoint = tmp_path / "w.json.checkpoint.json"
    plan = json.loads(checkpoint.read_text())["plan"]
    assert plan["board"] == "torus-6x6" and plan["wrap"] is True
    kept = {p: p.read_bytes() for p in tmp_path.iterdir()}
    capsys.readouterr()
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other settings (board, level, wrap differ)" in err
    assert {p: p.read_bytes() for p in tmp_path.iterdir()} == kept
    assert cli.main([*TRAIN, "--wrap", "--generations", "2", "--out", str(out), "--resume"]) == 0


@pytest.mark.parametrize("board", [[], ["--level", "maze"]])
def test_wrap_without_a_size_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], board: list[str]
) -> None:
    out = tmp_path / "w.json"
    assert cli.main(["train", "neuro", *board, "--wrap", "--out", str(out)]) == 2
    said = "--wrap goes with --size (a level file says `wrap: yes`)"
    assert capsys.readouterr().err == f"termsnake train: error: {said}\n"
    assert list(tmp_path.iterdir()) == []
