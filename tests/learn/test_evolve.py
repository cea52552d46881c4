"""Evolution: deterministic, the same wherever the games run, and resumable from checkpoints."""

from __future__ import annotations

import dataclasses
import json
import multiprocessing
from collections.abc import Sequence

import pytest

from termsnake.core.geometry import Point
from termsnake.core.level import open_level
from termsnake.learn.evolve import Plan, State, run_here, start, step
from termsnake.learn.remote import Task, score

PLAN = Plan(open_level(6, 6, 1), hidden=4, population=6, elite=2, games=2, seed=3)


def in_processes(tasks: Sequence[Task]) -> list[float]:
    with multiprocessing.get_context("spawn").Pool(2) as pool:
        return pool.map(score, tasks)


@pytest.mark.slow  # a training in one process and in many: CPU-heavy
def test_the_result_is_the_same_in_one_process_or_many() -> None:
    here = step(PLAN, step(PLAN, start(PLAN)))
    there = step(PLAN, step(PLAN, start(PLAN), in_processes), in_processes)
    assert here.population == there.population and here.curve == there.curve


def test_the_elite_survive_and_the_curve_grows() -> None:
    s1 = step(PLAN, start(PLAN))
    assert s1.generation == 1 and len(s1.population) == PLAN.population
    assert s1.population[0] == s1.best
    scores = run_here([Task(tuple(v), 4, PLAN.level, (1,)) for v in s1.population[:1]])
    assert scores[0] >= 1
    assert len(s1.curve) == 1 and s1.curve[0]["best"] >= s1.curve[0]["mean"]


def test_a_checkpoint_resumes_exactly() -> None:
    s1 = step(PLAN, start(PLAN))
    text = s1.to_json(PLAN)
    resumed = State.from_json(text, PLAN, "ck.json")
    assert step(PLAN, resumed).population == step(PLAN, s1).population


def test_a_checkpoint_of_another_board_of_the_same_name_is_refused() -> None:
    text = step(PLAN, start(PLAN)).to_json(PLAN)
    walled = open_level(6, 6, 1).board.with_walls([Point(0, 5)])
    other = dataclasses.replace(PLAN, level=dataclasses.replace(PLAN.level, board=walled))
    assert other.level.name == PLAN.level.name
    with pytest.raises(ValueError, match=r"other settings \(level differs\)"):
        State.from_json(text, other, "ck.json")
    # One written before the level was kept too (its name only) is still taken.
    older = json.loads(text)
    del older["plan"]["level"], older["plan"]["wrap"]
    assert State.from_json(json.dumps(older), PLAN, "ck.json").generation == 1


def test_a_checkpoint_of_a_torus_is_refused_for_the_open_board_and_says_wrap() -> None:
    torus = dataclasses.replace(PLAN, level=open_level(6, 6, 1, wrap=True))
    text = step(torus, start(torus)).to_json(torus)
    with pytest.raises(ValueError, match=r"other settings \(board, level, wrap differ\)"):
        State.from_json(text, PLAN, "ck.json")
    # One kept before wrap was said apart still tells them apart by its level.
    older = json.loads(text)
    del older["plan"]["wrap"]
    with pytest.raises(ValueError, match=r"other settings \(board, level differ\)"):
        State.from_json(json.dumps(older), PLAN, "ck.json")
    assert State.from_json(json.dumps(older), torus, "ck.json").generation == 1


def test_a_checkpoint_of_other_settings_is_refused() -> None:
    text = step(PLAN, start(PLAN)).to_json(PLAN)
    other = Plan(PLAN.level, hidden=4, population=6, elite=2, games=3, seed=3)
    with pytest.raises(ValueError, match=r"other settings \(games differs\)"):
        State.from_json(text, other, "ck.json")
    two = dataclasses.replace(PLAN, seed=99, sigma=0.5)
    with pytest.raises(ValueError, match=r"other settings \(sigma, seed differ\)"):
        State.from_json(text, two, "ck.json")
    with pytest.raises(ValueError, match="not a checkpoint"):
        State.from_json("{}", PLAN, "ck.json")
