"""What a plugin's calls find of the process is theirs, not termsnake's: a working directory it
changes is its own (the relative paths the user gave, ``--record-dir``, ``--record``, an
engine's ``./bot``, still name what they named), and its stdin is empty (the keys are the
game's)."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_dist import make_dist
from plugin_folders import finished, termsnake_with

from termsnake.commands import cli
from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.solvers import play, registry
from termsnake.solvers.base import SolverFailed
from termsnake.solvers.plugins import Guarded

MOVER = """
import os

from termsnake.core.geometry import Direction


class Mover:
    name = "mover"

    def setup(self, game):
        os.chdir({away!r})  # as a plugin that loads its data from its own folder might

    def next_direction(self, game):
        return [Direction.DOWN, Direction.LEFT, Direction.UP, Direction.RIGHT][game.steps % 4]

    def overlay(self, game):
        return {{}}
"""


@pytest.fixture
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, Path]]:
    """The folder termsnake runs in and the one the plugin goes to; the plugins looked up
    afresh, and the working directory put back after (the guard keeps the plugin's for it)."""
    work, away = tmp_path / "work", tmp_path / "away"
    work.mkdir()
    away.mkdir()
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(work)
    registry.plugins.cache_clear()
    yield work, away
    registry.plugins.cache_clear()
    sys.modules.pop("mover_mod", None)
    os.chdir(work)  # a failing test may leave the plugin's: monkeypatch then goes back


def test_bench_replays_go_to_the_record_dir_given_whatever_a_plugin_does(
    folders: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    work, away = folders
    make_dist(work.parent, "moverdist", {"mover": "mover_mod:Mover"})
    (work.parent / "mover_mod.py").write_text(MOVER.format(away=str(away)))
    args = ["bench", "--ai", "mover,greedy", "--size", "4x4", "--games", "2"]
    # It went to games/ in the plugin's folder, which is not there: no replay was kept, exit 1.
    assert cli.main([*args, "--record-dir", "games"]) == 0, capsys.readouterr().err
    kept = sorted(p.name for p in (work / "games").iterdir())
    names = [f"{bot}-open-4x4-len1-seed{s}.json" for bot in ("greedy", "mover") for s in (1, 2)]
    assert kept == names
    assert list(away.iterdir()) == [] and Path.cwd() == work


def test_a_plugin_has_its_own_working_directory_back_in_its_next_call(
    folders: tuple[Path, Path],
) -> None:
    work, away = folders
    seen: list[Path] = []

    class Roamer:
        name = "roamer"

        def setup(self, game: Game) -> None:
            os.chdir(away)

        def next_direction(self, game: Game) -> Direction:
            seen.append(Path.cwd())
            if game.steps == 2:
                os.chdir(work)  # back where termsnake is: its next calls run there
            return [Direction.DOWN, Direction.LEFT, Direction.UP, Direction.RIGHT][game.steps % 4]

        def overlay(self, game: Game) -> dict[object, str]:
            return {}

    game = Game(open_level(4, 4, 1), 1)
    solver = Guarded(Roamer(), "roamer")
    solver.setup(game)
    assert Path.cwd() == work
    for _ in range(4):
        game.step(solver.next_direction(game))
        assert Path.cwd() == work
    assert seen == [away, away, away, work]
    play(Game(open_level(4, 4, 1), 1), solver)
    assert Path.cwd() == work


@pytest.mark.parametrize("reads", ["input", "read"])
def test_a_plugin_reads_nothing_of_the_keys(reads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A breakpoint() or input() waited, unseen (its prompt went to the sink), for the keys: the
    # game stood still, q and Ctrl-C typed to pdb, and bench on a terminal hung.
    keys = io.StringIO("q\nc\n")
    monkeypatch.setattr(sys, "stdin", keys)

    class Asker:
        name = "asker"

        def setup(self, game: Game) -> None:
            pass

        def next_direction(self, game: Game) -> Direction:
            answer = input("move? ") if reads == "input" else sys.stdin.read()
            return Direction.UP if answer else Direction.DOWN

        def overlay(self, game: Game) -> dict[object, str]:
            return {}

    game = Game(open_level(4, 4, 1), 1)
    solver = Guarded(Asker(), "asker")
    solver.setup(game)
    if reads == "input":
        with pytest.raises(SolverFailed, match="plugin asker raised EOFError"):
            solver.next_direction(game)
    else:
        assert solver.next_direction(game) is Direction.DOWN
    assert sys.stdin is keys and keys.read() == "q\nc\n"  # the keys left where they were


EXITS_AWAY = """
import atexit, os

DONE = set()


def once(name):
    if name not in DONE:
        DONE.add(name)
        atexit.register(lambda: open(name, "w").write("kept"))


class Bot(Bot):
    def setup(self, game):
        os.chdir({away!r})  # its own folder
        once("setup.txt")
        return super().setup(game)

    def next_direction(self, game):
        if game.steps == 1:  # one registered in a later call: it too runs where the plugin is
            once("move.txt")
        return super().next_direction(game)
"""


def test_a_plugins_atexit_handlers_run_where_it_left_the_working_directory(
    tmp_path: Path,
) -> None:
    # As the process's own working directory was, until termsnake went back to its own after
    # each call: a plugin's handler writing its stats by a relative path wrote them in the
    # user's folder.
    away = tmp_path / "away"
    away.mkdir()
    proc = termsnake_with(
        tmp_path, {"exits": EXITS_AWAY.format(away=str(away))},
        "bench", "--ai", "zzexits", "--size", "4x4", "--games", "2",
    )  # fmt: skip
    out, err = finished(proc)
    assert proc.returncode == 0 and "zzexits" in out, err
    assert sorted(p.name for p in away.iterdir()) == ["move.txt", "setup.txt"]
    assert not (tmp_path / "setup.txt").exists() and not (tmp_path / "move.txt").exists()
