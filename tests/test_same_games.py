"""Every solver plays the same games, move for move, as the recorded golden replays."""

from __future__ import annotations

import pytest
from same_games import FAST_CASES, SLOW_CASES, Case, record


@pytest.mark.parametrize("case", FAST_CASES, ids=lambda c: c.file.stem)
def test_a_solver_plays_the_recorded_game(case: Case) -> None:
    assert record(case) == case.file.read_text()


@pytest.mark.slow
@pytest.mark.parametrize("case", SLOW_CASES, ids=lambda c: c.file.stem)
def test_a_solver_plays_the_recorded_game_on_larger_boards(case: Case) -> None:
    assert record(case) == case.file.read_text()
