"""Ctrl-C at any moment of a long command: exit 130 and at most one line, never a traceback."""

from __future__ import annotations

import dataclasses
import os
import signal
import time
from pathlib import Path

import pytest
from pty_harness import ENTER_ALT, Pty

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.exits import signal_handlers, signals_held
from termsnake.formats.replay import Result, replay_from_game
from termsnake.statusline import ERASE_BELOW

pytestmark = pytest.mark.terminal


def interrupt(home: Path, args: list[str], after: float) -> tuple[int, str]:
    """Start ``termsnake ARGS`` in a terminal, type Ctrl-C after ``after`` seconds; the exit
    code and what it printed after the ^C (the terminal echoes it)."""
    t = Pty(args, home)
    try:
        time.sleep(after)
        t.pump(0)
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    raw = bytes(t.raw)
    assert b"Traceback" not in raw, raw.decode(errors="replace")
    if ENTER_ALT in raw:  # the game had begun: its own Ctrl-C handling, tested elsewhere
        return code, ""
    # The terminal echoes the ^C, but not while a bot sets up (echo is off), whose line
    # ("preparing ...") is erased before anything else is said.
    # The status line's erase (ERASE_BELOW) shows nothing.
    shown = raw.split(b"^C", 1)[-1].replace(ERASE_BELOW.encode(), b"")
    after_c = shown.replace(b"\r", b"\n").decode(errors="replace")
    said = [line for line in after_c.splitlines() if line.strip()]
    return code, "\n".join(line for line in said if not line.startswith("preparing "))


@pytest.mark.parametrize("after", [0.05, 0.8])  # while Python starts; while best sets up
def test_ctrl_c_while_a_solver_sets_up(tmp_path: Path, after: float) -> None:
    code, said = interrupt(tmp_path, ["--ai", "best", "--size", "200x200", "--seed", "1"], after)
    assert code == 130
    assert said in ("", "termsnake: interrupted")


@pytest.mark.parametrize(
    "after", [0.05, *(pytest.param(t, marks=pytest.mark.slow) for t in (0.4, 0.8, 1.5))]
)
def test_ctrl_c_in_a_bench_with_workers(tmp_path: Path, after: float) -> None:
    args = ["bench", "--ai", "bfs", "--size", "200x200", "--games", "4", "--jobs", "2"]
    code, said = interrupt(tmp_path, args, after)
    assert code == 130
    assert said.splitlines()[-1:] in (
        [],
        ["termsnake: interrupted"],
        ["termsnake bench: interrupted"],
    )
    assert len([line for line in said.splitlines() if "interrupted" in line]) <= 1


@pytest.mark.slow  # a training with workers started and stopped: CPU-heavy
def test_ctrl_c_in_a_training_with_workers_is_one_line(tmp_path: Path) -> None:
    # Each worker printed a KeyboardInterrupt traceback before the one line.
    out = tmp_path / "w.json"
    args = ["train", "neuro", "--size", "6x6", "--generations", "100000", "--population", "16"]
    t = Pty([*args, "--games", "4", "--jobs", "2", "--out", str(out)], tmp_path)
    try:
        t.wait_for("3/100000", timeout=60)  # generations done: the workers are playing
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    raw = bytes(t.raw).decode(errors="replace")
    assert code == 130 and "Traceback" not in raw
    assert "termsnake train: interrupted" in raw.split("^C", 1)[-1]


@pytest.mark.slow  # writing the replay of 1.4 million moves takes seconds
def test_ctrl_c_while_a_long_replay_is_checked(tmp_path: Path) -> None:
    level = open_level(600, 600, 1)
    game = Game(level, 3)
    loop = (Direction.RIGHT, Direction.DOWN, Direction.LEFT, Direction.UP)
    replay = dataclasses.replace(
        replay_from_game(game, "circle"),
        moves=loop * (game.stall_limit // 4),
        result=Result(Outcome.STALLED, 1, game.stall_limit),
    )
    path = tmp_path / "long.json"
    path.write_text(replay.to_json())
    code, said = interrupt(tmp_path, ["replay", str(path)], 1.0)
    assert code == 130
    assert said in ("", "termsnake: interrupted")


def test_a_ctrl_c_while_modules_load_is_raised_once_they_have_loaded() -> None:
    # Raised at once, it could land in a callback of the import machinery, which printed
    # "Exception ignored ... KeyboardInterrupt" and dropped it: a bench then ran on.
    # Python's own handler, as where tests start in the foreground: in a shell's background
    # they inherit Ctrl-C ignored, and no handler runs.
    with signal_handlers({signal.SIGINT: signal.default_int_handler}):
        done = []
        with pytest.raises(KeyboardInterrupt), signals_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler has run by now, and raised nothing here
            done.append(True)
        assert done == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with signals_held():
            pass  # no Ctrl-C: nothing raised
