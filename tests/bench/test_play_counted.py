"""bench's games tell the progress line of their moves as they are made, and once at the end."""

from __future__ import annotations

import pytest

from termsnake.bench import games
from termsnake.core.game import Game
from termsnake.core.level import open_level
from termsnake.solvers import create
from termsnake.solvers.base import PlayStats


@pytest.mark.parametrize(("every", "most_calls"), [(0.0, None), (3600.0, 1)])
def test_every_move_is_told_once_whatever_the_reporting_interval(
    monkeypatch: pytest.MonkeyPatch, every: float, most_calls: int | None
) -> None:
    monkeypatch.setattr(games, "REPORT_EVERY", every)
    told: list[int] = []
    game = Game(open_level(6, 6, 1), 4)
    stats = PlayStats()
    games.play_counted(game, create("hamilton"), stats, told.append)
    assert game.over and sum(told) == game.steps == len(stats.think_times)
    if most_calls is None:
        assert told == [1] * game.steps  # at each move: the interval has passed
    else:
        assert len(told) == most_calls  # all at the end: it never passed


def test_a_game_stopped_mid_way_still_tells_the_moves_it_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(games, "REPORT_EVERY", 3600.0)
    told: list[int] = []
    solver = create("hamilton")
    real = solver.next_direction

    def interrupted_at_10(game: Game):  # type: ignore[no-untyped-def]
        if game.steps == 10:
            raise KeyboardInterrupt
        return real(game)

    solver.next_direction = interrupted_at_10  # type: ignore[method-assign]
    with pytest.raises(KeyboardInterrupt):
        games.play_counted(Game(open_level(6, 6, 1), 4), solver, PlayStats(), told.append)
    assert told == [10]
