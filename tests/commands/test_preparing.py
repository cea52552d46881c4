"""A solver's long set-up says what it prepares before the first frame, and Ctrl-C during it
ends cleanly with the terminal as it was."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pyte
import pytest
from pty_harness import (
    ENTER_ALT,
    Pty,
    closed_once_modes_are_read,
    on_a_pty,
    start_detached,
    termsnake_command,
)

from termsnake import statusline
from termsnake.tui.runner import preparing

pytestmark = pytest.mark.terminal


def test_a_long_set_up_is_said_and_ctrl_c_ends_it(tmp_path: Path) -> None:
    # best's set-up on a 200x200 board takes far longer than this test waits.
    t = Pty(["--ai", "best", "--size", "200x200", "--seed", "1"], tmp_path)
    try:
        t.wait_for("preparing best for a 200x200 board...", timeout=30)
        assert ENTER_ALT not in bytes(t.raw)  # said before the game, not in it
        t.send("hello")  # not echoed: it was left on the line after the game or the ^C
        time.sleep(0.2)
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    raw = bytes(t.raw)
    assert code == 130
    assert b"Traceback" not in raw and ENTER_ALT not in raw
    assert t.text().strip() == "termsnake: interrupted"  # the line erased, the ^C echo too
    assert not t.screen.cursor.hidden


def test_a_sigterm_during_the_set_up_erases_the_line(tmp_path: Path) -> None:
    # Its default would end the process mid-line: the shell's "Terminated" came after the text.
    t = Pty(["--ai", "best", "--size", "200x200", "--seed", "1"], tmp_path)
    try:
        t.wait_for("preparing best for a 200x200 board...", timeout=30)
        t.child.kill(signal.SIGTERM)
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    raw = bytes(t.raw)
    assert code == 128 + signal.SIGTERM
    assert b"Traceback" not in raw and ENTER_ALT not in raw
    assert t.text().strip() == "" and t.screen.cursor.x == 0


def test_the_line_is_gone_once_the_game_is_over(tmp_path: Path) -> None:
    t = Pty(["--ai", "hamilton", "--size", "4x4", "--seed", "1", "--speed", "1000"], tmp_path)
    try:
        t.wait_for("plays again", timeout=60)

        def dismissed() -> bool:
            # The final board ignores keys for a moment: press until the summary shows.
            t.send("q")
            time.sleep(0.05)
            return "Level open-4x4" in t.text()

        t.wait_for(dismissed, timeout=30)
        assert t.wait_exit(timeout=30) == 0
    finally:
        t.close()
    assert b"preparing hamilton for a 4x4 board..." in bytes(t.raw)
    assert "preparing" not in t.text()


def off_a_terminal(*args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    """``termsnake ARGS`` with stdin not a terminal, within ``timeout`` seconds; its output."""
    command = [termsnake_command(), *args]
    return subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout
    )


def test_nothing_is_said_when_not_on_a_terminal() -> None:
    proc = off_a_terminal("--ai", "hamilton", "--size", "4x4", timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("termsnake: stdin is not a terminal")


def test_a_dumb_terminal_is_refused_before_the_bot_is_prepared(tmp_path: Path) -> None:
    # best's set-up on 200x200 ran first, for many seconds without a word (TERM=dumb shows no
    # "preparing" line), and only then came the refusal.
    t = Pty(["--ai", "best", "--size", "200x200"], tmp_path, env={"TERM": "dumb"})
    try:
        code = t.wait_exit(timeout=8)
    finally:
        t.close()
    assert code == 2 and t.text().strip().startswith("termsnake: this terminal (TERM=dumb)")


def test_a_bot_refusing_a_level_file_names_the_file(tmp_path: Path) -> None:
    # It named the cell as "line 4 col 6" and the level by its name: of which file, it did
    # not say. Named as `check` names a file's problems, the name's escapes shown as such.
    name = "my\x1b[2J.txt"
    (tmp_path / name).write_text("name: my\n\n#######\n#...>.#\n#.##.##\n#.....#\n#######\n")
    said: list[str] = []
    for level in (name, "dead-end"):
        t = Pty(["--ai", "hamilton", "--level", level], tmp_path)
        try:
            assert t.wait_exit(timeout=10) == 2
        finally:
            t.close()
        # The last line, after the "preparing" line it writes over.
        said.append(bytes(t.raw).decode().removesuffix("\r\n").rpartition("\r")[2])
    assert said == [
        "termsnake: my\\x1b[2J.txt: hamilton cannot play my: the board has no Hamiltonian cycle "
        "(a dead-end cell at line 4 col 6); try --ai best",
        # A preset is named by its name, as it was.
        "termsnake: hamilton cannot play dead-end: the board has no Hamiltonian cycle "
        "(a dead-end cell at line 9 col 12); try --ai best",
    ]


def test_off_a_terminal_the_bot_is_not_prepared() -> None:
    # The same for stdin not a terminal: the refusal came after the whole set-up.
    # Set up first, it ran past the timeout (best on 200x200 takes many seconds).
    proc = off_a_terminal("--ai", "best", "--size", "200x200", timeout=8)
    assert proc.returncode == 2 and proc.stderr.startswith("termsnake: stdin is not a terminal")


def test_a_terminal_gone_during_the_set_up_ends_it_in_one_line(tmp_path: Path) -> None:
    # The window closed while best prepared: the echo could not be put back on the terminal,
    # and that error (a traceback, exit 1) replaced the hang-up's exit 129.
    child, master = start_detached(["--ai", "best", "--size", "200x200", "--seed", "1"], tmp_path)
    said = b""
    while b"preparing" not in said:
        assert select.select([master], [], [], 30)[0], said
        said += os.read(master, 65536)
    os.close(master)
    time.sleep(0.2)
    child.send_signal(signal.SIGHUP)
    code = child.wait(timeout=30)
    said_on_stderr = (tmp_path / "stderr.txt").read_text()
    assert code == 128 + signal.SIGHUP, said_on_stderr
    assert "Traceback" not in said_on_stderr


def test_a_window_closed_while_its_modes_are_changed_lets_the_set_up_go_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The window closed between reading the terminal's modes and setting them, as the test
    # above meets now and then on a busy machine: the set-up ended in a traceback, exit 1.
    done = False
    # This process leads no session: the pty stands in for its controlling terminal.
    monkeypatch.setattr(statusline, "_in_foreground", lambda fd: True)
    with (
        closed_once_modes_are_read(monkeypatch) as said,
        preparing("preparing best for a 200x200 board..."),
    ):
        done = True
    assert done and len(said) == 1
    screen = pyte.Screen(80, 24)
    pyte.ByteStream(screen).feed(said[0])
    assert [line.rstrip() for line in screen.display if line.strip()] == [
        "preparing best for a 200x200 board..."
    ]


def test_the_line_fits_and_is_erased_whole_on_a_terminal_narrowed_meanwhile(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Its erase was spaces as long as the line: on a terminal narrowed since it was drawn they
    # wrapped onto the rows below, and what came next was printed there, under blank rows.
    what = "preparing best for a 200x200 board..."
    with on_a_pty(monkeypatch) as master:
        screen = pyte.Screen(30, 6)  # narrower than the line: it is cut to the width
        fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 6, 30, 0, 0))
        shown = pyte.ByteStream(screen)
        with preparing(what):
            shown.feed(os.read(master, 65536))
            assert screen.display[0] == what[:29] + " "  # never the last column
            fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 6, 12, 0, 0))
            screen.resize(6, 12)  # cut there, as xterm cuts it
        shown.feed(os.read(master, 65536))
    assert screen.display == [" " * 12] * 6
    assert (screen.cursor.x, screen.cursor.y) == (0, 0)  # where the next line starts
