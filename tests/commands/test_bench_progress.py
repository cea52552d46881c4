"""The installed ``termsnake bench``'s progress line: games and moves on a terminal, live even
in one long game, erased at the end; nothing at all when stderr is not a terminal."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pty_harness import Pty, compiled_terminfo, termsnake_command

pytestmark = pytest.mark.terminal

MOVES = re.compile(r"bench \[[# ]+\] (\d+)/(\d+) games, ([\d,]+) moves")


def moves_shown(t: Pty) -> int:
    found = MOVES.search(t.text())
    return int(found.group(3).replace(",", "")) if found else -1


@pytest.mark.parametrize("jobs", ["1", pytest.param("2", marks=pytest.mark.slow)])
def test_a_long_game_shows_its_moves(tmp_path: Path, jobs: str) -> None:
    # One game on a board this big lasts minutes: the line shows it is alive meanwhile.
    games = "1" if jobs == "1" else "2"
    args = ["bench", "--ai", "bfs", "--size", "200x200", "--games", games, "--jobs", jobs]
    t = Pty(args, tmp_path)
    try:
        t.wait_for(lambda: moves_shown(t) > 0, timeout=60)
        first = moves_shown(t)
        assert f"0/{games} games" in t.text()
        t.wait_for(lambda: moves_shown(t) > first, timeout=30)
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    assert code == 130
    assert t.text().strip() == "termsnake bench: interrupted"  # the line erased, ^C too


def test_the_line_is_erased_when_the_run_ends(tmp_path: Path) -> None:
    args = ["bench", "--ai", "hamilton", "--size", "6x6", "--games", "8", "--jobs", "2"]
    t = Pty(args, tmp_path, cols=160)  # the table is wider than 120 columns
    try:
        code = t.wait_exit(timeout=120)
    finally:
        t.close()
    assert code == 0
    assert b"bench [" in bytes(t.raw)
    lines = t.text().strip().splitlines()
    assert [line.split()[:2] for line in lines] == [["solver", "level"], ["hamilton", "open-6x6"]]


def test_a_terminal_without_ansi_s_erase_gets_none(tmp_path: Path) -> None:
    # Only TERM=dumb was spared ESC [ J: vt52, whose erase is ESC J, showed "[J" after the line.
    folder = compiled_terminfo(
        tmp_path,
        "ts-vt52erase|vt52's erase,\n\tcols#80, cup=\\EY%p1%' '%+%c%p2%' '%+%c, ed=\\EJ,\n",
    )
    args = ["bench", "--ai", "hamilton", "--size", "6x6", "--games", "8", "--jobs", "1"]
    t = Pty(args, tmp_path, cols=160, env={"TERM": "ts-vt52erase", "TERMINFO": str(folder)})
    try:
        code = t.wait_exit(timeout=120)
    finally:
        t.close()
    assert code == 0
    assert b"bench [" in bytes(t.raw) and b"\x1b" not in bytes(t.raw)
    assert t.text().split()[:2] == ["solver", "level"]  # spaces over the line, then the table


def test_nothing_but_the_figures_when_stderr_is_not_a_terminal() -> None:
    proc = subprocess.run(
        [termsnake_command(), "bench", "--ai", "bfs", "--size", "20x20", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0 and proc.stderr == ""
    assert proc.stdout.splitlines()[1].split()[:2] == ["bfs", "open-20x20"]


@pytest.mark.slow  # a bench in a pty, redrawn at each width: CPU-heavy
def test_a_narrowed_terminal_leaves_nothing_of_the_line(tmp_path: Path) -> None:
    # The line was padded to its old width, which wrapped once the terminal was narrower, and
    # the erase cleared only the row the cursor was on: pieces of it stayed above the table.
    args = ["bench", "--ai", "bfs", "--size", "30x30", "--games", "4", "--jobs", "1"]
    t = Pty(args, tmp_path, cols=40)
    try:
        t.wait_for("games,", timeout=60)  # at 40 columns without its bar, which would not fit
        # The cursor waits at the line's start: a terminal that wraps the line anew when it is
        # narrowed (tmux does) puts the rest of it below, where the next redraw erases it.
        assert (t.screen.cursor.x, t.screen.cursor.y) == (0, 0)
        t.resize(14, 24)
        t.pump()
        before = t.text()
        t.wait_for(lambda: t.text() != before, timeout=60)  # redrawn: a game more, or the table
        code = t.wait_exit(timeout=120)
    finally:
        t.close()
    assert code == 0
    lines = t.text().splitlines()
    assert lines[0].split()[:2] == ["solver", "level"]  # where the line was, no row left above
    assert "bench" not in t.text() and "]" not in t.text()


# Runs a command as a shell runs a job (in the foreground, or with `&` in a process group of its
# own), then says whether the terminal echoes keys after it.
JOB = """import subprocess, sys, termios
child = subprocess.Popen(sys.argv[2:], process_group=0 if sys.argv[1] == "&" else None)
try:
    code = child.wait()
except KeyboardInterrupt:  # the job's Ctrl-C, which it says it was ended by
    code = child.wait()
print("echo on" if termios.tcgetattr(0)[3] & termios.ECHO else "echo off")
sys.exit(code)
"""


def job(tmp_path: Path, how: str, args: list[str], cols: int = 80) -> Pty:
    """``termsnake ARGS`` run as a job (``how``: "" in the foreground, "&" in the background)."""
    return Pty(["-c", JOB, how, termsnake_command(), *args], tmp_path, cols=cols,
               command=sys.executable)  # fmt: skip


def test_keys_typed_during_a_bench_do_not_write_over_its_line(tmp_path: Path) -> None:
    # The cursor waits at the line's start (a narrowed terminal's erase needs it there): the
    # terminal echoed the keys there, over "bench [", until the next redraw.
    args = ["bench", "--ai", "bfs", "--size", "200x200", "--games", "1", "--jobs", "1"]
    t = job(tmp_path, "", args)
    try:
        t.wait_for(lambda: moves_shown(t) > 0, timeout=60)
        t.send("hello")
        time.sleep(0.1)
        t.pump()
        assert t.text().startswith("bench [") and b"hello" not in bytes(t.raw)
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    assert code == 130
    assert t.text().strip().splitlines() == ["termsnake bench: interrupted", "echo on"]


def test_a_bench_in_the_background_leaves_the_terminals_modes_alone(tmp_path: Path) -> None:
    # A job in the background that sets its terminal's modes is stopped (SIGTTOU) until it is
    # brought to the foreground: a bench started with `&` would never end by itself.
    args = ["bench", "--ai", "hamilton", "--size", "6x6", "--games", "4", "--jobs", "1"]
    t = job(tmp_path, "&", args, cols=160)
    try:
        code = t.wait_exit(timeout=60)
    finally:
        t.close()
    assert code == 0
    lines = t.text().strip().splitlines()
    heads = [line.split()[:2] for line in lines[:2]]
    assert heads == [["solver", "level"], ["hamilton", "open-6x6"]]
    assert lines[2:] == ["echo on"]
