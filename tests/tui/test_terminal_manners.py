"""Manners in a real pseudo-terminal: Ctrl-Z and fg, NO_COLOR, help, key presets, high scores."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pty_harness import Pty, steps_shown, termsnake_command

pytestmark = pytest.mark.terminal

SGR_COLOUR = re.compile(rb"\x1b\[[0-9;]*m")


@pytest.fixture
def started(tmp_path: Path) -> Iterator[list[Pty]]:
    ptys: list[Pty] = []
    yield ptys
    for p in ptys:
        p.close()


def test_ctrl_z_restores_the_terminal_and_fg_resumes_paused(
    tmp_path: Path, started: list[Pty]
) -> None:
    shell = Pty(["--norc", "--noprofile", "-i"], tmp_path, command="/bin/bash")
    started.append(shell)
    shell.send(f"'{termsnake_command()}' --size 20x8 --seed 1\r")
    shell.wait_for("a direction key starts")
    shell.send("d")
    shell.send("\x1a")  # Ctrl-Z
    shell.wait_for("Stopped")
    assert shell.restored()
    shell.send("fg\r")
    shell.wait_for("PAUSED")
    assert shell.find("@") is not None
    shell.send("q")
    shell.wait_for("Game over: quit")
    shell.send("exit\r")
    shell.wait_exit()


def test_a_stopped_game_killed_from_the_shell_is_kept(tmp_path: Path, started: list[Pty]) -> None:
    # `kill %1` sends the stopped job SIGTERM, then SIGCONT: it ended the process at once, the
    # game unsaved (and, once such signals waited for the game to be kept, the game went on).
    shell = Pty(["--norc", "--noprofile", "-i"], tmp_path, command="/bin/bash")
    started.append(shell)
    record = tmp_path / "stopped.json"
    shell.send(f"'{termsnake_command()}' --size 20x8 --seed 1 --record '{record}'\r")
    shell.wait_for("a direction key starts")
    shell.send("d")
    shell.send("\x1a")  # Ctrl-Z
    shell.wait_for("Stopped")
    shell.send("kill %1\r")

    def reported() -> bool:  # bash tells how a job ended before its next prompt
        shell.send("\r")
        time.sleep(0.1)
        return "Exit 143" in shell.text()

    shell.wait_for(reported)
    assert '"outcome": "quit"' in record.read_text()
    shell.send("exit\r")
    shell.wait_exit()


def test_a_game_sent_to_the_background_waits_there_without_drawing(
    tmp_path: Path, started: list[Pty]
) -> None:
    # `bg` after Ctrl-Z (or `&`): the game drew the alternate screen over the shell's prompt
    # before the system stopped it for setting the terminal's modes, and there `kill %1` left
    # it "Stopped (tty output)" (and `fg` then printed a traceback: Interrupted system call).
    shell = Pty(["--norc", "--noprofile", "-i"], tmp_path, command="/bin/bash")
    started.append(shell)
    record = tmp_path / "background.json"
    shell.send(f"'{termsnake_command()}' --size 20x8 --seed 1 --record '{record}'\r")
    shell.wait_for("a direction key starts")
    shell.send("\x1a")  # Ctrl-Z
    shell.wait_for("Stopped")
    shell.send("bg\r")

    def said(words: str) -> Callable[[], bool]:
        def check() -> bool:  # bash tells how a job stands at `jobs -l`, or before a prompt
            shell.send("jobs -l\r")
            time.sleep(0.1)
            return words in shell.text()

        return check

    shell.wait_for(said("Stopped (tty output)"))
    assert shell.restored()  # the shell's screen, the cursor shown
    shell.send("kill %1\r")
    shell.wait_for(said("Exit 143"))
    assert '"outcome": "quit"' in record.read_text()
    assert "Traceback" not in shell.text()
    shell.send("exit\r")
    shell.wait_exit()


def test_no_color_draws_the_board_without_colours(tmp_path: Path, started: list[Pty]) -> None:
    t = Pty(["--size", "12x6", "--seed", "1"], tmp_path, env={"NO_COLOR": "1"})
    started.append(t)
    t.wait_for("a direction key starts")
    assert t.board()[0] == "#" * 26
    assert t.board()[4].startswith("#. . . . o o @")
    assert not SGR_COLOUR.search(bytes(t.raw).replace(b"\x1b[m", b"")), "colour sent"
    t.send("q")
    assert t.wait_exit() == 0


def test_colours_by_default(tmp_path: Path, started: list[Pty]) -> None:
    t = Pty(["--size", "12x6", "--seed", "1"], tmp_path)
    started.append(t)
    t.wait_for("a direction key starts")
    assert SGR_COLOUR.search(bytes(t.raw))
    at = t.find("@")
    assert at is not None
    head = t.screen.buffer[at[1]][at[0]]
    assert head.data == "@" and head.fg != "default" and head.bold
    t.send("q")
    assert t.wait_exit() == 0


def test_help_overlay_pauses_and_any_key_closes(tmp_path: Path, started: list[Pty]) -> None:
    t = Pty(["--size", "24x16", "--seed", "1"], tmp_path)
    started.append(t)
    t.wait_for("a direction key starts")
    t.send("d")
    t.send("?")
    t.wait_for("termsnake keys")
    t.wait_for("PAUSED")
    t.send("x")
    t.wait_for(lambda: "termsnake keys" not in t.text())
    assert "PAUSED" in t.text()
    t.send("q")
    assert t.wait_exit() == 0


def test_azerty_steers_with_zqsd_and_quits_with_x(tmp_path: Path, started: list[Pty]) -> None:
    t = Pty(["--size", "20x10", "--seed", "1", "--keys", "azerty", "--speed", "3"], tmp_path)
    started.append(t)
    t.wait_for("a direction key starts")
    head = t.find("@")
    assert head is not None
    t.send("z")  # up
    t.wait_for(lambda: (p := t.find("@")) is not None and p[1] < head[1])
    t.send("q")  # left on AZERTY: the game goes on
    t.wait_for(lambda: (p := t.find("@")) is not None and p[0] < head[0])
    assert t.child.isalive()
    t.send("x")
    assert t.wait_exit() == 0
    assert "Moves (" in t.text() and "L" in t.text().split("Moves (")[1]


def test_best_score_is_kept_and_shown(tmp_path: Path, started: list[Pty]) -> None:
    args = ["--ai", "hamilton", "--size", "4x4", "--seed", "1", "--length", "1"]
    first = Pty([*args, "--speed", "300"], tmp_path)
    started.append(first)
    first.wait_for("WON")
    first.send(" ")
    assert first.wait_exit() == 0
    assert "hamilton won!" in first.text() and "new best! length 16" in first.text()
    again = Pty([*args, "--speed", "2"], tmp_path)
    started.append(again)
    again.wait_for("best 16")
    # The bot's bare name ended the line beside its best ("hamilton  best 16"), and best's
    # read "best  best 16": a bot is named as one.
    assert "speed 2/s  bot hamilton  best 16" in again.text()
    again.send("q")
    again.wait_exit()
    assert "best so far: length 16" in again.text()
    scores = (tmp_path / "data" / "termsnake" / "scores.json").read_text()
    assert '"player": "hamilton"' in scores


def test_a_bots_game_its_watcher_quits_is_not_scored(tmp_path: Path, started: list[Pty]) -> None:
    # q as a bot had just begun recorded its few moves: `new best! length 2 for best on
    # classic`, on an empty table. A person's quit game is still kept.
    scores = tmp_path / "data" / "termsnake" / "scores.json"
    bot = Pty(["--ai", "best", "--level", "classic", "--seed", "1", "--speed", "20"], tmp_path)
    started.append(bot)
    bot.wait_steps(3)
    bot.send("q")
    assert bot.wait_exit() == 0
    assert "Game over: quit" in bot.text()
    assert "not scored: the bot was stopped before its game ended" in bot.text()
    assert "new best" not in bot.text() and "best so far" not in bot.text()
    assert not scores.exists() or '"player": "best"' not in scores.read_text()
    person = Pty(["--level", "classic", "--seed", "1", "--speed", "20"], tmp_path)
    started.append(person)
    person.wait_for("a direction key starts")
    person.send("d")
    person.wait_steps(2)
    person.send("q")
    assert person.wait_exit() == 0
    assert "best so far: length" in person.text() and "not scored" not in person.text()
    assert '"player": "you"' in scores.read_text()


def test_best_wins_an_odd_board_a_person_can_watch(tmp_path: Path, started: list[Pty]) -> None:
    # 5x5 has no Hamiltonian cycle; best plays it with the moving hole and fills it.
    t = Pty(["--ai", "best", "--size", "5x5", "--seed", "3", "--speed", "1000"], tmp_path)
    started.append(t)
    t.wait_for("WON")
    assert "length 25/25" in t.text()
    t.send(" ")
    assert t.wait_exit() == 0
    assert "best won!" in t.text()


def test_a_long_paste_does_not_freeze_the_game(run: Callable[..., Pty]) -> None:
    # blessed parses all the keys that wait at every key it reads: 8,000 pasted characters
    # froze the game for seconds (the square of the length), q included. The paste is
    # dropped whole: its first key (a, left) does not turn the snake either.
    t = run("--size", "20x16", "--seed", "3", "--speed", "2")
    t.wait_for("a direction key starts")
    t.send("s")
    t.wait_steps(1)
    t.send("a" + "xyzzy" * 1600)
    t.wait_steps(3)  # a move or two since the paste
    sent = time.monotonic()
    t.send("q")
    assert t.wait_exit() == 0
    assert time.monotonic() - sent < 3
    moves = next(line for line in t.text().splitlines() if line.startswith("Moves ("))
    assert "L" not in moves, moves


@pytest.mark.slow  # a game fed a paste for seconds: CPU-heavy
def test_the_game_goes_on_while_a_paste_keeps_coming(run: Callable[..., Pty]) -> None:
    # A terminal sends a long paste as fast as it is read: blessed read it all, a byte at a
    # time, inside one key read (a megabyte held the game for minutes, its moves unseen).
    t = run("--size", "60x10", "--seed", "3", "--speed", "10", cols=130)
    t.wait_for("a direction key starts")
    t.send("d")
    t.wait_steps(1)
    pasting = "import os,sys,time\nend=time.monotonic()+1.5\nwhile time.monotonic()<end:"
    pasting += f" os.write({t.child.child_fd},b'wasd'*1024)"
    writer = subprocess.Popen([sys.executable, "-c", pasting], pass_fds=[t.child.child_fd])
    try:
        shown = {steps_shown(t.wait_steps(1))}
        while writer.poll() is None:
            t.pump()
            shown.add(steps_shown(t.text()))
    finally:
        writer.kill()
        writer.wait()
    assert len(shown) >= 8  # steps drawn while the paste came: about 15 at this speed
    t.send("q")
    assert t.wait_exit() == 0


@pytest.mark.parametrize(
    ("kind", "keys"),
    [("rxvt-unicode-256color", ["\x1b[d", "\x1bOd"]), ("xterm-256color", ["\x1bO5A"])],
)
def test_a_key_whose_sequence_blessed_does_not_know_does_not_steer(
    run: Callable[..., Pty], kind: str, keys: list[str]
) -> None:
    # blessed read rxvt's Shift+Left (ESC [ d) and Ctrl+Left (ESC O d) as the start of a
    # sequence and a `d` (right); an old xterm's Ctrl+Up (ESC O 5 A) as one, `5` and `A` (left,
    # caps lock folded).
    t = run("--size", "20x16", "--seed", "3", "--speed", "2", env={"TERM": kind})
    t.wait_for("a direction key starts")
    t.send("s")
    t.wait_steps(1)
    for key in keys:
        t.send(key)
    t.wait_steps(steps_shown(t.text()) + 2)
    t.send("q")
    assert t.wait_exit() == 0
    moves = next(line for line in t.text().splitlines() if line.startswith("Moves ("))
    assert set(moves.split(": ")[1]) <= set("D0123456789"), moves
