"""``play``, headless: when it sets a solver up and tells it the game has ended."""

from __future__ import annotations

from collections.abc import Mapping

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import open_level
from termsnake.solvers import play


class Logged:
    """Takes the first safe move (any, if none is), its lifecycle's calls logged."""

    name = "logged"

    def __init__(self) -> None:
        self.calls: list[str] = []

    def setup(self, game: Game) -> None:
        self.calls.append("setup")

    def next_direction(self, game: Game) -> Direction:
        return next((d for d in Direction if game.is_safe(d)), game.direction)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        return {}

    def finish(self, game: Game) -> None:
        self.calls.append("finish")


def test_play_sets_up_first_and_finishes_only_an_ended_game() -> None:
    # As its docstring says, which a newcomer reads to know whether to call setup themself.
    game, bot = Game(open_level(4, 3, 1), 1), Logged()
    play(game, bot, max_steps=1)
    assert bot.calls == ["setup"] and not game.over
    play(game, bot)
    assert bot.calls == ["setup", "setup", "finish"] and game.over
    play(game, bot)
    assert bot.calls == ["setup", "setup", "finish", "finish"]
