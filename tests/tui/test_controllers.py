"""The turn queue and the key maps of the keyboard and AI controllers."""

from __future__ import annotations

from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import open_level
from termsnake.tui.controllers import (
    AGAIN_KEY,
    CTRL_C,
    DIRECTION_KEYS,
    KEY_PRESETS,
    AIController,
    Command,
    KeyboardController,
    TurnQueue,
    help_lines,
    hints_for,
    make_controller,
)

R, L, U, D = Direction.RIGHT, Direction.LEFT, Direction.UP, Direction.DOWN


def test_two_quick_turns_are_both_kept_and_never_reverse() -> None:
    g = Game(open_level(10, 10), seed=1)  # heading right
    kb = KeyboardController()
    kb.on_key("w", g)  # up
    kb.on_key("a", g)  # then left: a U-turn in two ticks, legal
    assert len(kb.queue) == 2
    assert g.step(kb.next_direction(g)).outcome is None
    assert g.step(kb.next_direction(g)).outcome is None
    assert g.moves == [U, L]


def test_a_third_quick_turn_is_dropped() -> None:
    q = TurnQueue()
    assert q.push(U, R) and q.push(L, R)
    assert not q.push(D, R)
    assert [q.pop(R), q.pop(R), q.pop(R)] == [U, L, R]


def test_a_turn_equal_or_opposite_to_the_last_queued_is_dropped() -> None:
    q = TurnQueue()
    assert not q.push(L, R)  # reversal into the neck
    assert not q.push(R, R)  # no change
    assert q.push(U, R)
    assert not q.push(D, R)  # opposite of the queued UP
    assert q.pop(R) is U


@given(st.lists(st.sampled_from(sorted(DIRECTION_KEYS)), max_size=6), st.integers(0, 1000))
def test_keys_pressed_within_one_tick_never_kill_a_snake_in_the_open(
    keys: list[str], seed: int
) -> None:
    g = Game(open_level(15, 15), seed)
    kb = KeyboardController()
    for key in keys:
        kb.on_key(key, g)
    assert len(kb.queue) <= 2
    for _ in range(3):
        assert g.step(kb.next_direction(g)).outcome in (None, Outcome.WON)


def test_letters_and_arrows_and_vi_keys_steer() -> None:
    g = Game(open_level(10, 10), seed=1)
    for key, expected in [("W", U), ("KEY_DOWN", D), ("k", U), ("j", D), ("h", L), ("l", R)]:
        kb = KeyboardController()
        kb.on_key(key, g)
        want = g.direction if expected in (g.direction, g.direction.opposite) else expected
        assert kb.next_direction(g) is want


@pytest.mark.parametrize(
    ("key", "turn"),
    [
        ("KEY_ALT_UP", U),
        ("KEY_SHIFT_DOWN", D),
        ("KEY_CTRL_ALT_SHIFT_UP", U),
        ("KEY_ALT_CTRL_UP", U),
    ],
)
def test_an_arrow_with_a_modifier_held_still_steers(key: str, turn: Direction) -> None:
    # xterm's Alt+Up, ESC [ 1 ; 3 A, is KEY_ALT_UP to blessed: with Alt held by accident the
    # snake did not turn. rxvt's (ESC ESC [ A) is read as the same name, Ctrl before Alt or not.
    g = Game(open_level(10, 10), seed=1)  # heading right
    kb = KeyboardController()
    assert kb.on_key(key, g) is Command.STEP
    assert kb.next_direction(g) is turn
    for name in ("KEY_ALT_F1", "KEY_ALT_HOME", "KEY_UPPER", "KEY_ALT_"):  # not arrows
        assert kb.on_key(name, g) is None


def test_command_keys_and_ignored_keys() -> None:
    g = Game(open_level(10, 10), seed=1)
    kb = KeyboardController()
    assert kb.on_key("q", g) is Command.QUIT
    assert kb.on_key(" ", g) is Command.PAUSE
    assert kb.on_key("+", g) is Command.FASTER
    assert kb.on_key("-", g) is Command.SLOWER
    assert kb.on_key("x", g) is None
    assert kb.on_key("KEY_F1", g) is None
    assert kb.on_key("w", g) is Command.STEP


class _Fixed:
    """A solver that always answers the same direction."""

    name = "fixed"

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        return U

    def overlay(self, game: Game) -> Mapping[Point, str]:
        return {game.head: "^"}


def test_ai_controller_asks_its_solver_and_listens_to_bot_keys() -> None:
    g = Game(open_level(10, 10), seed=1)
    ai = AIController(_Fixed())
    assert ai.who == "fixed"
    assert ai.next_direction(g) is U
    assert ai.on_key("n", g) is Command.STEP
    assert ai.on_key("KEY_LEFT", g) is Command.STEP
    assert ai.on_key("c", g) is Command.OVERLAY
    assert ai.on_key("q", g) is Command.QUIT
    assert ai.overlay(g) == {g.head: "^"}


def test_config_toml_offers_exactly_the_key_presets_and_glyph_sets_there_are() -> None:
    # settings names them without importing the terminal side; a name in one list only would
    # be refused in config.toml, or crash the game when chosen there.
    from termsnake.formats import settings
    from termsnake.tui import controllers, view

    assert sorted(settings.KEY_PRESETS) == sorted(controllers.KEY_PRESETS)
    assert sorted(settings.GLYPHS) == sorted(view.GLYPH_SETS)


def _typed(label: str) -> str:
    """The key a name on screen stands for: the inverse of the help's names."""
    named = {"space": " ", "ctrl-c": CTRL_C}
    return named.get(label, label if len(label) == 1 else "KEY_" + label.upper())


@pytest.mark.parametrize("preset", sorted(KEY_PRESETS))
@pytest.mark.parametrize("bot", [False, True])
def test_every_key_a_hint_or_the_help_names_does_what_it_says_in_every_preset(
    preset: str, bot: bool
) -> None:
    # The too-small message said "q to quit" in every preset, and on AZERTY q steers left.
    g = Game(open_level(10, 10), seed=1)
    keys = KEY_PRESETS[preset]
    controller = make_controller(_Fixed() if bot else None, "ada", preset)
    hints = hints_for(keys)
    said = {Command.QUIT: hints.quit, Command.PAUSE: hints.pause, Command.HELP: hints.help}
    for command, label in said.items():
        assert controller.on_key(_typed(label), g) is command, (preset, label)
    quit_line = next(line for line in help_lines(keys, bot) if line.split()[:1] == ["quit"])
    for label in quit_line.split()[1:]:
        assert controller.on_key(_typed(label), g) is Command.QUIT, (preset, label)
    # The final board's `r` is read as itself: no preset may give it a meaning of its own.
    assert AGAIN_KEY not in keys.directions and AGAIN_KEY not in keys.commands


def test_azerty_hints_name_x_to_quit_and_the_others_q() -> None:
    assert hints_for(KEY_PRESETS["azerty"]).quit == "x"
    assert hints_for(KEY_PRESETS["default"]).quit == "q"
    assert hints_for(KEY_PRESETS["dvorak"]).quit == "q"


def test_every_preset_has_a_key_for_each_command_a_hint_names() -> None:
    # hints_for takes each command's first key: a preset without one would fail as a game starts.
    for preset in KEY_PRESETS.values():
        assert {Command.QUIT, Command.PAUSE, Command.HELP} <= set(preset.commands.values())
