"""Every solver plays the same games, move for move, as the recorded golden replays."""

from __future__ import annotations

import pytest
from same_games import FAST_CASES, SLOW_CASES, TREE_REFUSES, Case, record


def _assert_same_game(case: Case) -> None:
    golden = case.file.read_text()
    if case.solver == "tree" and case.board in TREE_REFUSES:
        # Recorded when `tree` handed these boards on: it refuses them now, and `best`, which
        # does the handing, plays the recorded game.
        assert record(case).startswith("unavailable: tree cannot play ")
        assert record(case, played_by="best") == golden
    else:
        assert record(case) == golden


@pytest.mark.parametrize("case", FAST_CASES, ids=lambda c: c.file.stem)
def test_a_solver_plays_the_recorded_game(case: Case) -> None:
    _assert_same_game(case)


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=lambda c: c.file.stem)
def test_a_solver_plays_the_recorded_game_on_larger_boards(case: Case) -> None:
    _assert_same_game(case)
