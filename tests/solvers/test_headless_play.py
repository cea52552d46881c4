"""``play``, headless: when it sets a solver up and tells it the game has ended."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

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


class Answers:
    """Answers ``move`` to every move: a bot with a bug, when that is no Direction."""

    name = "answers"

    def __init__(self, move: object) -> None:
        self.move = move

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        return self.move  # type: ignore[return-value]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        return {}


@pytest.mark.parametrize("move", [None, "U", 0])
def test_an_answer_that_is_no_direction_is_a_type_error_naming_the_solver(move: object) -> None:
    # play() stopped without a word on None: the game not over, nothing raised, as if it had
    # ended; a plugin answering None loses the game, and Game.step refuses "U" as a TypeError.
    game = Game(open_level(8, 8), seed=7)
    with pytest.raises(TypeError, match=rf"^solver 'answers' answered {move!r}, not a direction"):
        play(game, Answers(move))
    assert game.steps == 0
