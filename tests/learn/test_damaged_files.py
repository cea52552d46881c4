"""Damaged weights files and checkpoints: one line naming the file, never a traceback, and a
checkpoint checked whole before training writes anything."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from termsnake.commands import cli
from termsnake.core.level import open_level
from termsnake.learn.evolve import Plan, State
from termsnake.solvers.neuro import Network

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "2", "--games", "1"]


def weights_with(value: str) -> str:
    """A weights file for 6x6 whose first weight is the JSON text ``value``."""
    text = Network.from_vector([0.5] * Network.size(2), 2).to_json()
    return text.replace("[[0.5,", f"[[{value},", 1)


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (weights_with("9" * 400), "finite numbers"),
        (weights_with("9" * 5000), "a number too long to read (5000 digits)"),
        ("[" * 100_000, "nested too deeply"),
    ],
)
def test_bad_weights_make_neuro_unavailable_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, problem: str
) -> None:
    path = tmp_path / "w.json"
    path.write_text(content)
    bench = ["bench", "--ai", f"neuro:{path}", "--size", "6x6", "--games", "1"]
    assert cli.main(bench) == 2
    err = capsys.readouterr().err
    line = next(x for x in err.splitlines() if "unavailable" in x)
    assert str(path) in line and problem in line and "Error" not in err


def test_a_weights_path_reaches_the_terminal_escaped(capsys: pytest.CaptureFixture[str]) -> None:
    bench = ["bench", "--ai", "neuro:x\x1b]0;pwn\x07\x1b[2J", "--size", "6x6", "--games", "1"]
    assert cli.main(bench) == 2
    out, err = capsys.readouterr()
    assert "\x1b" not in out + err and "\x07" not in out + err
    assert "x\\x1b]0;pwn\\x07\\x1b[2J: cannot read the weights" in err


def edit(obj: dict[str, Any], key: str, value: Any) -> None:
    obj[key] = value


def set_point(obj: dict[str, Any], point: Any) -> None:
    obj["curve"][0] = point


DAMAGE: list[tuple[Callable[[dict[str, Any]], None], str]] = [
    (lambda o: edit(o, "population", [["x"] * len(o["best"])] * 2), "population holds other"),
    (lambda o: edit(o, "population", [[float("nan")] * len(o["best"])] * 2), "population holds"),
    (lambda o: edit(o, "best", [10**400] * len(o["best"])), "best network holds other than"),
    (lambda o: edit(o, "best", [float("inf")] * len(o["best"])), "best network holds other than"),
    (lambda o: edit(o, "best", o["best"][1:]), "best network does not fit its settings"),
    (lambda o: edit(o, "population", o["population"][1:]), "population does not fit"),
    (lambda o: edit(o, "generation", -3), "generation"),
    (lambda o: edit(o, "generation", True), "generation"),
    (lambda o: edit(o, "generation", 10**30), "curve"),
    (lambda o: set_point(o, 1), "curve"),
    (lambda o: set_point(o, {}), "curve"),
    (lambda o: set_point(o, {"generation": "a", "best": "b", "mean": 1, "elite": 1}), "curve"),
    (lambda o: edit(o, "curve", "x"), "curve"),
]


def trained_then_damaged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[dict[str, Any]], None]
) -> tuple[Path, Path, dict[str, bytes]]:
    """A run of two generations into ``tmp_path``/w.json whose checkpoint ``damage`` then
    edits: the --out, the checkpoint, and the folder's files as they are then (its output
    taken)."""
    out = tmp_path / "w.json"
    assert cli.main([*TRAIN, "--generations", "2", "--out", str(out)]) == 0
    checkpoint = tmp_path / "w.json.checkpoint.json"
    obj = json.loads(checkpoint.read_text())
    damage(obj)
    checkpoint.write_text(json.dumps(obj))
    capsys.readouterr()
    return out, checkpoint, {p.name: p.read_bytes() for p in tmp_path.iterdir()}


@pytest.mark.parametrize(("damage", "problem"), DAMAGE)
def test_a_damaged_checkpoint_is_refused_before_anything_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    damage: Callable[[dict[str, Any]], None],
    problem: str,
) -> None:
    out, checkpoint, before = trained_then_damaged(tmp_path, capsys, damage)
    assert cli.main([*TRAIN, "--generations", "4", "--out", str(out), "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(checkpoint) in err and problem in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def set_scores(obj: dict[str, Any], generation: int, **scores: float) -> None:
    obj["curve"][generation].update(scores)


def tiny_bests(obj: dict[str, Any]) -> None:
    # helper-137's: both bests 5e-324, under a mean of 1.0 (the chart overflowed).
    set_scores(obj, 0, best=5e-324, mean=1.0)
    set_scores(obj, 1, best=5e-324)


IMPOSSIBLE: list[Callable[[dict[str, Any]], None]] = [
    tiny_bests,
    lambda o: set_scores(o, 0, best=1e308, mean=1e308, elite=1e308),  # a 300-digit label
    lambda o: set_scores(o, 1, best=-3.0, mean=-3.0, elite=-3.0),
    lambda o: set_scores(o, 0, best=0.0, mean=0.0, elite=0.0),
    lambda o: set_scores(o, 1, best=37.0, mean=37.0, elite=37.0),  # more than 36 cells
    lambda o: set_scores(o, 0, best=2.0, mean=3.0, elite=2.0),
    lambda o: set_scores(o, 1, best=2.0, mean=2.0, elite=3.0),
    lambda o: set_scores(o, 0, best=4.0, mean=3.5, elite=3.0),
]


@pytest.mark.parametrize(
    "damage",
    IMPOSSIBLE,
    ids=["tiny", "1e308", "negative", "zero", "over-the-cells", "mean-over-best",
         "elite-over-best", "mean-over-elite"],
)  # fmt: skip
def test_a_curve_with_scores_no_game_gives_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], damage: Callable[[dict[str, Any]], None]
) -> None:
    # Checked only for finite numbers: 5e-324 as the best made the chart an OverflowError
    # traceback, 1e308 a label of 300 digits, once the run had written its files again.
    out, checkpoint, before = trained_then_damaged(tmp_path, capsys, damage)
    for generations in ("2", "3"):  # nothing left to play, and a generation more
        argv = [*TRAIN, "--generations", generations, "--out", str(out), "--resume"]
        assert cli.main(argv) == 2
        said = capsys.readouterr()
        assert said.out == "" and said.err.count("\n") == 1
        assert said.err.startswith(
            f"termsnake train: error: {checkpoint}: the checkpoint's curve holds scores no games "
            "give (generation "
        )
        assert said.err.endswith(
            "): each is a mean length from 1 to 36, the mean at most the elite's, that at most "
            "the best\n"
        )
        assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_curve_a_run_wrote_is_resumed_with_scores_a_rounding_off() -> None:
    # The mean of the best few is rounded as the mean of all is: equal scores may come out an
    # ulp apart, and the checkpoint is the run's own.
    plan = Plan(open_level(6, 6, 3), population=3, elite=2, games=3)
    zeros = [0.0] * Network.size(plan.hidden)
    state = State(1, [zeros] * 3, zeros)
    third = 1 / 3 + 5
    state.curve = [{"generation": 0.0, "best": third, "mean": third * (1 + 2e-16), "elite": third}]
    resumed = State.from_json(state.to_json(plan), plan, "c")
    assert resumed.curve == state.curve


@pytest.mark.parametrize("text", ["[" * 100_000, '{"generation": ' + "9" * 5000 + "}"])
def test_a_checkpoint_too_deep_or_with_a_huge_number_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    (tmp_path / "w.json.checkpoint.json").write_text(text)
    assert (
        cli.main([*TRAIN, "--generations", "1", "--out", str(tmp_path / "w.json"), "--resume"]) == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a checkpoint" in err and "sys." not in err
