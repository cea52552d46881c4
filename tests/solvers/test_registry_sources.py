"""register(), plugins found by create(), and the exec:/neuro: names."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_dist import make_dist

from termsnake.core.game import Game
from termsnake.core.level import open_level
from termsnake.solvers import create, known_names, play, register, registry, resolve_name
from termsnake.solvers.engine import EngineSolver
from termsnake.solvers.neuro import NeuroSolver

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "engines" / "greedy_engine.py"


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as it is, restored afterwards; plugins found again."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_SOURCES", dict(registry._SOURCES))
    registry.plugins.cache_clear()
    yield
    registry.plugins.cache_clear()


def test_register_adds_a_solver_by_factory_or_by_path(fresh: None) -> None:
    register("zig", "solver_doubles:ZigZag")
    register("zag", lambda: create("greedy"))
    assert {"zig", "zag"} <= set(known_names())
    assert create("ZIG").name == "zigzag"
    assert create("zag").name == "greedy"
    with pytest.raises(ValueError, match="already a solver called 'greedy'"):
        register("greedy", "x:Y")
    with pytest.raises(ValueError, match="one word"):
        register("a:b", "x:Y")


@pytest.mark.parametrize(
    ("name", "factory", "said"),
    [
        ("x", "json", "a factory is a callable or 'module:attribute'"),
        ("x", 42, "a factory is a callable or 'module:attribute'"),
        (5, "x:Y", "one word"),
        ("a,b", "x:Y", "one word"),  # bench's --ai would split it
        ("my bot", "x:Y", "one word"),  # so is a plugin's name: one rule for both
        ("it's", "x:Y", "one word"),  # bench's --ai "it's,greedy" reads the comma as quoted
        ("a\x1bb", "x:Y", "one word"),
    ],
)
def test_register_refuses_what_create_could_not_use(
    fresh: None, name: object, factory: object, said: str
) -> None:
    # Each was taken, then create raised AttributeError (or register did, for a number).
    with pytest.raises(ValueError, match=said):
        register(name, factory)  # type: ignore[arg-type]


class HalfBot:
    """A solver but for its moves: its next_direction is no method."""

    name = "half"
    next_direction = None

    def setup(self, game: Game) -> None:
        pass

    def overlay(self, game: Game) -> dict[object, str]:
        return {}


@pytest.mark.parametrize(
    ("factory", "said"),
    [
        (lambda: 3, r"made 3, not a solver \(it has no setup, next_direction, overlay\)$"),
        ("builtins:object", r"made <object object at 0x\w+>, not a solver \(it has no setup, "),
        (HalfBot, r"made <.*HalfBot object .*, not a solver \(it has no next_direction\)$"),
    ],
    ids=["a number", "an object", "no moves"],
)
def test_a_factory_that_makes_no_solver_is_a_value_error_when_made(
    fresh: None, factory: object, said: str
) -> None:
    # create("three") gave back the 3, where the command line says a plugin "made 42, not a
    # solver": the bot then failed at its first setup(), far from the register() at fault.
    register("three", factory)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=rf"^solver 'three' {said}"):
        create("three")


def test_a_registered_path_to_nothing_is_a_value_error_when_made(fresh: None) -> None:
    register("ghost", "json:no_such_factory")
    with pytest.raises(ValueError, match="json has no 'no_such_factory'"):
        create("ghost")


def test_a_plugin_is_created_by_name_and_listed_with_its_source(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    make_dist(tmp_path, "circlebot", {"circler": "circlebot_reg:Circler"}, module="circlebot_reg")
    make_dist(tmp_path, "brokenbot", {"broken": "nowhere_to_be_found:Bot"})
    assert "circler" in known_names() and "circlebot_reg" not in sys.modules
    game = Game(open_level(6, 6, 1), 1)
    play(game, create("circler"), max_steps=8)
    assert game.head == Game(open_level(6, 6, 1), 1).head  # round its 2x2 square twice
    with pytest.raises(ValueError, match=r"plugin 'broken'.*failed to import"):
        create("broken")
    rows = {row.name: row for row in registry.listing()}
    assert rows["circler"].source == "circlebot 1.0" and rows["broken"].problem
    assert rows["greedy"].source == "termsnake"


def test_exec_and_neuro_names_make_their_solvers(tmp_path: Path) -> None:
    engine = create(f"exec:{shlex.quote(sys.executable)} {EXAMPLE}", engine_timeout=2.5)
    assert isinstance(engine, EngineSolver) and engine.move_timeout == 2.5
    neuro = create(f"neuro:{tmp_path / 'w.json'}")
    assert isinstance(neuro, NeuroSolver) and neuro.name == f"neuro:{tmp_path / 'w.json'}"
    # It said "e.g. exec:...", which showed nothing of what goes after the colon.
    with pytest.raises(ValueError, match=r"^exec: needs a command to run: exec:COMMAND, as in "):
        create("exec:  ")
    with pytest.raises(ValueError, match=r"^neuro: needs a weights file: neuro:PATH$"):
        create("neuro:")
    # Refused by name, as an unknown solver is: bench and play say so before any game.
    with pytest.raises(ValueError, match=r"names no program: its first word is empty"):
        resolve_name('exec:"" ./bot')
    with pytest.raises(ValueError, match=r"^cannot split the engine command \"'\": No closing"):
        resolve_name("exec:'")


def test_an_unknown_name_lists_the_known_ones_and_the_prefixes() -> None:
    with pytest.raises(
        ValueError, match=r"known solvers: .*best.*\(and exec:\.\.\., neuro:\.\.\.\)"
    ):
        create("nosuch")


def test_a_solver_whose_extra_is_missing_says_how_to_install_it(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "needs_numpy_bot.py").write_text("import numpy_that_is_not_there\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    register("heavy", "needs_numpy_bot:Bot")
    with pytest.raises(ValueError, match="needs numpy_that_is_not_there, which is not installed"):
        create("heavy")


@pytest.fixture
def no_numpy(monkeypatch: pytest.MonkeyPatch, fresh: None) -> None:
    """As after the README's first command (no [learn]): importing numpy fails."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # None there: the import raises
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)


def test_bots_that_do_not_load_are_left_out_and_said(no_numpy: None) -> None:
    # The server's lobby offered neuro without numpy; chosen, it said it could not be used.
    said: list[str] = []
    assert registry.loading(["best", "neuro", "greedy"], said.append) == ["best", "greedy"]
    assert said == ["neuro needs numpy, which is not installed (pip install 'termsnake[learn]')"]


def test_a_bot_whose_package_is_broken_says_so_in_one_line_when_it_is_made(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A numpy whose compiled part fails raises an ImportError naming no module: it ended
    # every visit that opened the lobby's bot menu, and `termsnake solvers` with a traceback.
    # It is installed: the lobby offers neuro (numpy is looked for, not imported, as the
    # server starts), and a game of neuro's is refused in one line.
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text("raise ImportError('numpy is broken')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "numpy")
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)
    said: list[str] = []
    assert registry.loading(["neuro", "bfs"], said.append) == ["neuro", "bfs"]
    assert said == []
    assert {r.name: r for r in registry.listing()}["neuro"].problem == ""  # it is installed
    with pytest.raises(ValueError, match=r"^neuro does not load: ImportError: numpy is broken$"):
        create("neuro")


def test_the_list_of_solvers_says_what_a_built_in_needs(no_numpy: None) -> None:
    rows = {r.name: r for r in registry.listing()}
    assert rows["neuro"].problem == "needs numpy: pip install 'termsnake[learn]'"
    assert rows["best"].problem == ""


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("import sys\nsys.exit(4)\n", "SystemExit: 4"),
        ("class Broken(BaseException):\n    pass\nraise Broken('no BLAS')\n", "Broken: no BLAS"),
        ("raise ModuleNotFoundError('gone', name='np\\x1b[2J')\n", "ModuleNotFoundError: gone"),
        ("print('\\x1b[2Jhello')\nraise RuntimeError('no BLAS')\n", "RuntimeError: no BLAS"),
    ],
    ids=["exits", "its-own-base-exception", "a-name-with-escapes", "prints"],
)
def test_a_numpy_that_fails_in_any_way_is_said_in_one_line_and_prints_nothing(
    fresh: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    code: str,
    said: str,
) -> None:
    # A numpy whose import exited ended the server as it started, without a word (and any
    # command playing neuro); one raising its own BaseException, with a traceback; one naming
    # a module with a terminal's escapes put them in the server's log; one that printed put
    # its line before "listening on", which scripts wait for. The server's start now only
    # looks for numpy (it is there: neuro is offered); a game of neuro's imports it.
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)
    told: list[str] = []
    assert registry.loading(["neuro", "bfs"], told.append) == ["neuro", "bfs"]
    assert told == []
    with pytest.raises(ValueError, match=f"^neuro does not load: {said}$"):
        create("neuro")
    assert capsys.readouterr() == ("", "")  # a visit's game: nothing reaches the server's log


def test_a_missing_module_is_named_escaped(
    fresh: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The name an ImportError carries is whatever its raiser gave.
    (tmp_path / "odd_needs.py").write_text("raise ModuleNotFoundError('x', name='m\\x1b[2J')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    register("odd", "odd_needs:Bot")
    with pytest.raises(ValueError) as info:
        create("odd")
    assert str(info.value) == "odd needs m\\x1b[2J, which is not installed"
