"""The neuro bot: its inputs, its weights files (good and bad), and its moves."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.solvers import SolverUnavailable, play
from termsnake.solvers.neuro import (
    INPUTS,
    Network,
    NeuroSolver,
    WeightsError,
    features,
    load_network,
)


def careful(hidden: int = 3) -> Network:
    """A hand-set network: avoid what is blocked, want room and the tail, like the food."""
    w1 = np.zeros((hidden, INPUTS + 1))
    w2 = np.zeros((3, hidden + 1))
    for c in range(3):
        w1[c, c * 4 : c * 4 + 4] = (-5, 0.5, 2, 3)
        w2[c, c] = 1
    return Network(w1, w2)


def test_features_describe_straight_left_and_right() -> None:
    game = Game(open_level(5, 5, 3), 1)  # heading right, head at (2, 2)
    inputs, choices = features(game)
    assert choices == (Direction.RIGHT, Direction.UP, Direction.DOWN)
    assert len(inputs) == INPUTS
    assert inputs[0::4][:3] == [0.0, 0.0, 0.0]  # nothing blocks any of the three
    for _ in range(2):
        game.step(Direction.RIGHT)
    inputs, _ = features(game)  # now at the right edge: straight on is blocked
    assert inputs[0] == 1.0 and inputs[4] == 0.0


def test_a_hand_set_network_plays_well() -> None:
    lengths = []
    for seed in range(1, 9):
        game = Game(open_level(8, 8, 1), seed)
        play(game, NeuroSolver(network=careful()))
        lengths.append(game.length)
    assert sum(lengths) / len(lengths) > 30


def test_weights_near_the_largest_float_play_without_a_warning() -> None:
    # Finite, so the file is good; the sums overflowed and numpy printed warnings over the game.
    big = careful()
    game = Game(open_level(6, 6, 3), 1)
    net = Network(np.sign(big.w1) * 1.7e308, np.sign(big.w2) * 1.7e308)
    play(game, NeuroSolver(network=net))  # warnings are errors in these tests
    assert game.over and game.steps >= 1


def test_weights_too_big_for_decimals_are_written_as_they_are(tmp_path: Path) -> None:
    # Rounding 1e303 to 6 decimals multiplies it by 10^6: inf, which a weights file cannot hold
    # (training wrote such a file from a checkpoint, and then refused to play it).
    net = careful()
    net.w1[0, 0], net.w1[1, 1], net.w2[0, 0] = 1e303, -1.7e308, 0.1234567
    path = tmp_path / "w.json"
    path.write_text(net.to_json())  # warnings are errors in these tests
    loaded = load_network(str(path))
    assert (loaded.w1[0, 0], loaded.w1[1, 1], loaded.w2[0, 0]) == (1e303, -1.7e308, 0.123457)


def test_weights_round_trip_through_a_file(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text("\ufeff" + careful().to_json())  # an editor's BOM is read past
    loaded = load_network(str(path))
    assert np.allclose(loaded.vector(), careful().vector())
    games = []
    for net in (careful(), loaded):
        game = Game(open_level(6, 6, 1), 3)
        play(game, NeuroSolver(network=net))
        games.append(game.moves)
    assert games[0] == games[1]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"", "not JSON"),
        (b'{"format": "termsnake-neuro/1", "hidden": 3, "w1": [[1', "not JSON"),
        (b"\xff\xfe", "not UTF-8"),
        (b'{"format": "other"}', "not a weights file"),
        (b'{"format": "termsnake-neuro/1", "hidden": 0}', "hidden"),
        (b'{"format": "termsnake-neuro/1", "hidden": 2, "w1": [[1]], "w2": []}', "w1"),
    ],
)
def test_a_bad_weights_file_is_one_line_naming_it(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(content)
    with pytest.raises(WeightsError, match=problem) as info:
        load_network(str(path))
    assert str(info.value).startswith(str(path)) and "\n" not in str(info.value)


def test_weights_of_another_shape_are_refused(tmp_path: Path) -> None:
    obj = json.loads(careful(3).to_json())
    obj["hidden"] = 4
    path = tmp_path / "shape.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(WeightsError, match="must be 4 rows"):
        load_network(str(path))


@pytest.mark.parametrize(
    ("inputs", "problem"),
    [
        (lambda names: names[:-1], r'"inputs" must list the 15 inputs this termsnake reads'),
        (lambda names: [*names[:3], "\x1b[2Jbad", *names[4:]], r'"inputs"\[3\] is "\\x1b\[2Jbad"'),
        (lambda names: [names[1], names[0], *names[2:]], r'"inputs"\[0\] is "straight:closer"'),
        (lambda names: None, r'"inputs" must list'),
    ],
)
def test_weights_for_other_inputs_are_refused(
    tmp_path: Path, inputs: Callable[[list[str]], object], problem: str
) -> None:
    obj = json.loads(careful().to_json())
    obj["inputs"] = inputs(obj["inputs"])
    path = tmp_path / "inputs.json"
    path.write_text(json.dumps(obj))
    with pytest.raises(WeightsError, match=problem) as info:
        load_network(str(path))
    assert "\x1b" not in str(info.value)


def test_a_missing_file_makes_the_solver_unavailable(tmp_path: Path) -> None:
    with pytest.raises(SolverUnavailable, match="cannot read the weights"):
        NeuroSolver(str(tmp_path / "nope.json")).setup(Game(open_level(6, 6, 1), 1))


def test_the_shipped_weights_load_and_play() -> None:
    game = Game(open_level(8, 8, 1), 1)
    play(game, NeuroSolver())
    assert game.length > 5
