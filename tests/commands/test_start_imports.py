"""What a command loads: only what it uses. Loading modules is most of a short command's time,
and the tests start a few hundred of them (docs/tuning.md)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from termsnake.core.game import Game
from termsnake.core.level import open_level
from termsnake.formats.presets import preset_path
from termsnake.formats.replay import replay_from_game
from termsnake.solvers.base import play
from termsnake.solvers.greedy import GreedySolver

# What a command that does not draw, start a pool, run an engine or play neuro never needs.
HEAVY = ("wcwidth", "blessed", "numpy", "multiprocessing", "concurrent.futures", "subprocess")


def loaded(argv: list[str], home: Path) -> list[str]:
    """Those of HEAVY that ``termsnake ARGV`` (``cli.main`` in a fresh Python) has loaded by
    its end; it must succeed."""
    script = (
        "import sys\n"
        "from termsnake.commands import cli\n"
        "code = cli.main(sys.argv[1:])\n"
        f"heavy = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "print('\\nloaded:', *heavy)\n"
        "sys.exit(code)\n"
    )
    env = {**os.environ, "XDG_DATA_HOME": str(home), "XDG_CONFIG_HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", script, *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    last = done.stdout.splitlines()[-1]
    assert last.startswith("loaded:"), done.stdout
    return last.split()[1:]


@pytest.mark.parametrize(
    "argv",
    [
        # wcwidth measured every cell of a table, though ASCII's width is its length.
        ["levels"],
        ["check", preset_path("maze")],
        ["scores"],
        ["solvers"],
        # A bench loaded multiprocessing and concurrent.futures for a pool it did not start,
        # and the engine's module (subprocess) for the prefix of an engine's name.
        ["bench", "--ai", "greedy", "--size", "4x4", "--games", "2"],
    ],
    ids=lambda argv: argv[0],
)
def test_a_command_loads_none_of_the_large_modules_it_does_not_use(
    argv: list[str], tmp_path: Path
) -> None:
    assert loaded(argv, tmp_path) == []


def test_a_server_offers_neuro_without_importing_numpy() -> None:
    # The lobby's check imported numpy as the server started, to see that neuro loads: it
    # is looked for now, and imported when a visitor watches neuro.
    script = (
        "import sys\n"
        "from termsnake.commands.serve import lobby_bots\n"
        "notes = []\n"
        "print(lobby_bots(['neuro', 'best'], notes), notes, 'numpy' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout == "['neuro', 'best'] [] False\n"


def test_checking_a_short_replay_loads_no_tqdm(tmp_path: Path) -> None:
    # replay loaded tqdm for the bar of every check, shown only for one that takes a while.
    game = Game(open_level(4, 4, 1), 3)
    play(game, GreedySolver())
    (tmp_path / "game.json").write_text(replay_from_game(game, "greedy").to_json())
    script = (
        "import sys\n"
        "from termsnake.commands.replay import checked_level\n"
        "from termsnake.formats.replay import load_replay\n"
        "checked_level(load_replay(sys.argv[1]))\n"
        "print('tqdm' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "game.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout == "False\n"
