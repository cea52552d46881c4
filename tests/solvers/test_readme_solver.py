"""The README's "Adding a solver" works as written: its bot is a Solver that plays, its
headless example runs, ``register`` makes it by name, and the lists it sends a new built-in's
name to are where it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from termsnake.core.game import Game
from termsnake.core.level import open_level
from termsnake.solvers import create, play, register, registry
from termsnake.solvers.base import Solver, shows_plan

ROOT = Path(__file__).resolve().parents[2]


def section() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8").split("\n## Adding a solver\n")[1]


def python_blocks() -> list[str]:
    """The section's Python blocks, their list indent taken off."""
    blocks = re.findall(r"\n( *)```python\n(.*?)\n *```", section(), re.DOTALL)
    return ["\n".join(line[len(indent) :] for line in code.split("\n")) for indent, code in blocks]


def the_bot() -> type:
    """The class the section writes, defined as a reader's file would define it."""
    names: dict[str, object] = {}
    exec(compile(python_blocks()[0], "README.md", "exec"), names)
    bot = names["MyBot"]
    assert isinstance(bot, type)
    return bot


def test_the_bot_is_a_solver_that_says_it_has_no_plan() -> None:
    # The section named a MyBot its example played, and never wrote one.
    bot = the_bot()()
    assert isinstance(bot, Solver) and bot.name == "mybot"
    assert not shows_plan(bot)


@pytest.mark.parametrize("seed", range(4))
def test_the_bot_plays_until_the_game_ends_and_eats(seed: int) -> None:
    game = Game(open_level(8, 8), seed)
    play(game, the_bot()())
    assert game.over and game.eaten >= 1


def test_the_headless_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    names: dict[str, object] = {"MyBot": the_bot()}
    exec(compile(python_blocks()[1], "README.md", "exec"), names)
    assert capsys.readouterr().out.startswith("Outcome.")


def test_register_makes_the_bot_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_SOURCES", dict(registry._SOURCES))
    register("mybot", the_bot())
    game = Game(open_level(8, 8), 7)
    play(game, create("mybot"))
    assert game.over and game.eaten >= 1


# Where the section sends a new built-in's name (as it writes the file), and that file.
LISTS = [
    ("tests/solvers/test_solver_registry.py", "NAMES", "tests/solvers/test_solver_registry.py"),
    ("tests/solvers/test_solver_registry.py", "REFUSING", "tests/solvers/test_solver_registry.py"),
    ("tests/same_games.py", "SOLVERS", "tests/same_games.py"),
    ("serve/visit.py", "BOTS", "termsnake/serve/visit.py"),
]


@pytest.mark.parametrize(("written", "name", "path"), LISTS)
def test_the_lists_a_built_in_joins_are_where_the_section_says(
    written: str, name: str, path: str
) -> None:
    assert f"`{written}`" in section() and f"`{name}`" in section()
    assert re.search(rf"^{name}\b.*=", (ROOT / path).read_text(), re.MULTILINE)
