"""The game in a real pseudo-terminal as it starts and ends, nothing the player should see lost
or garbled: the terminals it refuses and how it draws on the others (``tui.terminal``'s
``check_terminal`` and ``QuietTerminal``, ``tui.runner``'s glyphs and colours), and how a game
ends when its terminal goes (input ended, hang-ups, signals as the terminal is restored)."""

from __future__ import annotations

import os
import re
import select
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pyte
import pytest
from plugin_folders import wait_for_file
from pty_harness import (
    Pty,
    closed_once_modes_are_read,
    compiled_terminfo,
    full_pipe,
    on_a_pty,
    start_detached,
)

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify
from termsnake.tui import terminal
from termsnake.tui.runner import run as run_game

pytestmark = pytest.mark.terminal

NO_LOCALE = {"LC_ALL": "", "LC_CTYPE": "", "LANG": ""}
QUERIES = (b"\x1b[6n", b"\x1bP+q", b"\x1b[>q", b"\x1b[c")


def test_start_up_asks_the_terminal_nothing(run: Callable[..., Pty]) -> None:
    # A terminal that answers no query: each question would cost the whole timeout, and a late
    # answer would be echoed onto the screen.
    began = time.monotonic()
    t = run("--size", "20x8", "--seed", "1", env={"BLESSED_QUERY_TIMEOUT_SECONDS": "5"})
    t.wait_for("a direction key starts")
    assert time.monotonic() - began < 4.0
    assert not [q for q in QUERIES if q in bytes(t.raw)]
    t.send("q")
    assert t.wait_exit() == 0


def watched_until_cut(
    tmp_path: Path, record: Path, stderr: int | None = None
) -> subprocess.Popen[bytes]:
    """hamilton watched on a pty that is not termsnake's controlling terminal, whose master is
    closed after ten moves: the keyboard reads end of file, and the screen cannot be written.
    Its stderr goes to ``tmp_path/stderr.txt``, or to the file descriptor ``stderr``."""
    args = ["--ai", "hamilton", "--size", "10x10", "--speed", "30", "--record", str(record)]
    child, master = start_detached(args, tmp_path, stderr)
    screen = pyte.Screen(80, 24)
    stream = pyte.ByteStream(screen)
    deadline = time.monotonic() + 10
    while not re.search(r"steps \d\d", "\n".join(screen.display)):
        assert time.monotonic() < deadline, "\n".join(screen.display)
        if select.select([master], [], [], 0.1)[0]:
            stream.feed(os.read(master, 65536))
    os.close(master)
    return child


def assert_kept(tmp_path: Path, record: Path, why: str) -> None:
    said = (tmp_path / "stderr.txt").read_text()
    assert why in said and "Game over: quit" in said and "Traceback" not in said
    game = verify(load_replay(record))
    assert game.outcome is Outcome.QUIT and game.steps >= 10
    # A bot's game stopped before its end is not its result: not scored, and said so.
    assert "not scored: the bot was stopped before its game ended" in said
    assert not (tmp_path / "data" / "termsnake" / "scores.json").exists()


def test_end_of_input_without_a_hang_up_keeps_the_game_and_says_why(tmp_path: Path) -> None:
    record = tmp_path / "cut.json"
    child = watched_until_cut(tmp_path, record)
    assert child.wait(timeout=10) == 1
    assert_kept(tmp_path, record, "input ended")


def test_hang_ups_after_the_input_ended_wait_until_the_game_is_kept(tmp_path: Path) -> None:
    # A closed window: the input ends, then hang-ups come (a shell passes its own on to its
    # jobs). Once the game had left the terminal, the first of them killed termsnake before
    # the score and the replay were kept.
    record = tmp_path / "cut.json"
    with full_pipe() as (read, write):
        child = watched_until_cut(tmp_path, record, stderr=write)
        os.close(write)
        # Its summary waits on the full pipe: with the replay written, the hang-ups come as
        # termsnake is on its way out, however late a busy machine lets this test send them.
        wait_for_file(record)
        child.send_signal(signal.SIGHUP)
        child.send_signal(signal.SIGHUP)  # a closing window sends more than one
        said = b"".join(iter(lambda: os.read(read, 65536), b"")).lstrip(b"x")
    (tmp_path / "stderr.txt").write_bytes(said)
    assert child.wait(timeout=10) == 128 + signal.SIGHUP
    assert_kept(tmp_path, record, "")  # the input's end, or the screen's if met first
    assert b"stopped by SIGHUP" not in said  # the hang-up came before the summary, not after


def test_a_window_closed_as_the_game_begins_ends_it_as_a_gone_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Closed as the keyboard's modes are read (once after the full screen's start, which came
    # first): a traceback, exit 1, where a window closed a moment later ends with a line saying
    # why. Nothing is drawn before the modes are set (a game in the background draws nothing).
    game = Game(open_level(10, 6, 3), 1)
    with closed_once_modes_are_read(monkeypatch) as said:
        played = run_game(game, None, speed=10, who="you", level_name="open-10x6")
    assert said == [b""]
    assert played.errors == ["the terminal can no longer be written; the game was stopped"]
    assert played.code == 1 and game.outcome is Outcome.QUIT


def test_a_signal_as_the_terminal_is_restored_gives_its_exit_code(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The game is over, the handlers that note a signal for it still in place: one that came
    # then was noted and never acted on (exit 0, as if none had come).
    game = Game(open_level(10, 6, 3), 1)
    drop = terminal.drop_typed_ahead

    def signalled() -> None:
        os.kill(os.getpid(), signal.SIGTERM)
        drop()

    with on_a_pty(monkeypatch) as master:
        os.write(master, b"q")  # quits the game as it starts
        monkeypatch.setattr(terminal, "drop_typed_ahead", signalled)
        played = run_game(game, None, speed=10, who="you", level_name="open-10x6")
    assert game.outcome is Outcome.QUIT
    assert played.code == 128 + signal.SIGTERM


def test_a_signal_noted_before_the_games_handlers_took_over_ends_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # play's handlers, set once the bot is set up, note a signal for the game to come: one that
    # came before the game's own took over was never acted on, and the game was played deaf to it.
    game = Game(open_level(10, 6, 3), 1)
    with on_a_pty(monkeypatch) as master:
        os.write(master, b"q")  # quits a game that starts: its exit code would be 0
        played = run_game(
            game, None, speed=10, who="you", level_name="open-10x6", noted=[signal.SIGTERM]
        )
    assert played.code == 128 + signal.SIGTERM
    assert game.outcome is Outcome.QUIT and game.steps == 0


@pytest.mark.parametrize("kind", ["vt100", "linux"])
def test_without_an_alternate_screen_the_summary_starts_on_a_clear_line(
    run: Callable[..., Pty], kind: str
) -> None:
    t = run("--size", "20x8", "--seed", "1", env={"TERM": kind})
    t.wait_for("a direction key starts")
    t.send("q")
    assert t.wait_exit() == 0
    lines = t.text().splitlines()
    assert lines[0] == "Game over: quit" and lines[1].startswith("Level open-20x8")


@pytest.mark.parametrize("kind", ["dumb", "dumb-\x1b]0;pwned\x07"])
def test_a_dumb_terminal_is_refused_in_one_line(run: Callable[..., Pty], kind: str) -> None:
    # TERM may come from an ssh client: its ESC reached the terminal as it was.
    t = run("--size", "20x8", env={"TERM": kind})
    assert t.wait_exit() == 2
    said = bytes(t.raw).decode()
    assert "TERM=dumb" in said and len(said.strip().splitlines()) == 1 and "\x1b" not in said


GLASS_TTY = "am, cols#80, bel=^G, cr=\\r, cub1=^H, cud1=\\n, ind=\\n,"
VT52_CUP = "cup=\\EY%p1%' '%+%c%p2%' '%+%c,"


@pytest.fixture
def terminfo(tmp_path: Path) -> Path:
    """A terminfo folder, for TERMINFO: glasstty, a glass tty that cannot move the cursor,
    glasscup, the same with cursor addressing (cup), and glass52, with vt52's (not ANSI)."""
    return compiled_terminfo(
        tmp_path,
        f"glasstty|a glass tty,\n\t{GLASS_TTY}\n"
        f"glasscup|a glass tty with cursor addressing,\n\t{GLASS_TTY} cup=\\E[%i%p1%d;%p2%dH,\n"
        f"glass52|a glass tty with vt52's addressing,\n\t{GLASS_TTY} {VT52_CUP}\n",
    )


@pytest.mark.parametrize(
    ("kind", "plays"), [("glasstty", False), ("glasscup", True), ("xterm", True)]
)
def test_a_terminal_whose_terminfo_has_no_cursor_addressing_is_refused_in_one_line(
    run: Callable[..., Pty], terminfo: Path, kind: str, plays: bool
) -> None:
    # Only TERM=dumb was refused: blessed, not knowing glasstty, drew xterm's moves on it.
    t = run("--size", "20x8", "--seed", "1", env={"TERM": kind, "TERMINFO": str(terminfo)})
    if plays:
        t.wait_for("a direction key starts")
        t.send("q")
        assert t.wait_exit() == 0
        return
    assert t.wait_exit() == 2
    said = bytes(t.raw).decode()
    assert len(said.strip().splitlines()) == 1 and "\x1b" not in said
    assert said.startswith("termsnake: this terminal (TERM=glasstty) cannot move the cursor")


def test_a_terminal_whose_cursor_moves_are_not_ansi_is_refused_in_one_line(
    run: Callable[..., Pty], terminfo: Path
) -> None:
    # blessed, not knowing a vt52, drew xterm's moves on it, which it shows as text.
    t = run("--size", "20x8", "--seed", "1", env={"TERM": "glass52", "TERMINFO": str(terminfo)})
    assert t.wait_exit() == 2
    said = bytes(t.raw).decode()
    assert len(said.strip().splitlines()) == 1 and "\x1b" not in said
    assert said.startswith("termsnake: this terminal (TERM=glass52) does not take the ANSI")


@pytest.mark.parametrize("locale", [{"LANG": "C"}, {"LANG": "POSIX"}, {"LC_ALL": "C"}])
def test_unicode_tiles_fall_back_to_ascii_when_the_terminal_is_not_utf8(
    run: Callable[..., Pty], locale: dict[str, str]
) -> None:
    t = run("--size", "20x8", "--seed", "1", "--unicode", env={**NO_LOCALE, **locale})
    t.wait_for("a direction key starts")
    assert t.board()[0] == "#" * 42
    t.send("q")
    assert t.wait_exit() == 0
    assert all(b < 0x80 for b in bytes(t.raw).split(b"Game over")[0])
    assert "unicode tiles need a UTF-8 terminal" in t.text()


COLOUR = re.compile(rb"\x1b\[[0-9;]*[34][0-9][;m]")  # a foreground or background colour


@pytest.mark.parametrize(("kind", "coloured"), [("xterm-mono", False), ("xterm", True)])
def test_colours_only_where_the_systems_terminfo_has_them(
    run: Callable[..., Pty], kind: str, coloured: bool
) -> None:
    # blessed knows no xterm-mono and took it for xterm-256color: colours on a mono terminal.
    listed = (
        shutil.which("infocmp")
        and not subprocess.run(["infocmp", kind], capture_output=True).returncode
    )
    if not listed:
        pytest.skip(f"this system's terminfo has no {kind}")  # the game cannot know it either
    t = run("--size", "8x4", "--seed", "1", env={"TERM": kind})
    t.wait_for("a direction key starts")
    t.send("q")
    assert t.wait_exit() == 0
    assert bool(COLOUR.search(bytes(t.raw))) is coloured


def test_unicode_tiles_on_a_utf8_terminal(run: Callable[..., Pty]) -> None:
    t = run("--size", "20x8", "--seed", "1", "--unicode", env={**NO_LOCALE, "LANG": "en_US.UTF-8"})
    t.wait_for("a direction key starts")
    assert t.board()[0].startswith("\u250c")
    t.send("q")
    assert t.wait_exit() == 0


@pytest.mark.slow  # a long game in a pty: CPU-heavy
def test_a_long_move_history_leaves_the_summary_on_screen(
    run: Callable[..., Pty], tmp_path: Path
) -> None:
    args = ["--ai", "best", "--size", "10x10", "--length", "1", "--seed", "1", "--speed", "1000"]
    t = run(*args, cols=80, rows=24)
    t.wait_for("WON", timeout=60)
    t.send(" ")
    assert t.wait_exit() == 0
    lines = t.text().splitlines()
    assert lines[0] == "best won!"
    moves = [i for i, line in enumerate(lines) if line.startswith("Moves (")]
    assert moves and " ... " in "".join(lines[moves[0] : moves[0] + 3])
    assert "letters in all; the whole history: --record FILE" in " ".join(lines)
    assert all(len(line) <= 80 for line in lines) and len([x for x in lines if x]) <= 8
