"""The line redrawn in place: within the width, the cursor left at its start, erased whole."""

from __future__ import annotations

from pathlib import Path

import pyte
import pytest
from pty_harness import compiled_terminfo

from termsnake.statusline import ERASE_BELOW, redraw

CUP = "cup=\\E[%i%p1%d;%p2%dH"
ERASES = (
    f"ts-noerase|ANSI's cursor moves and no erase,\n\tcols#80, {CUP},\n"
    f"ts-vt52erase|vt52's erase,\n\tcols#80, {CUP}, ed=\\EJ, el=\\EK,\n"
    f"ts-padded|ANSI's erase with padding, as vt100's,\n\tcols#80, {CUP}, ed=\\E[J$<50>,\n"
    f"ts-ansi|ANSI's erase,\n\tcols#80, {CUP}, ed=\\E[J,\n"
)


def screen_after(writes: list[tuple[str, int]], rows: int = 4) -> pyte.Screen:
    """A screen fed each redraw, the terminal resized to its width first."""
    screen = pyte.Screen(writes[0][1], rows)
    stream = pyte.Stream(screen)
    for text, width in writes:
        screen.resize(rows, width)
        stream.feed(redraw(text, width))
    return screen


def test_the_line_never_reaches_the_last_column_and_waits_at_its_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("TERM", "xterm")
    screen = screen_after([("x" * 50, 40), ("y" * 50, 14)])
    assert screen.display[0] == "y" * 13 + " " and screen.display[1].strip() == ""
    assert (screen.cursor.x, screen.cursor.y) == (0, 0)
    assert redraw("名前" * 10, 6) == "\r名前 " + ERASE_BELOW + "\r"  # wide: cut whole


def test_the_erase_clears_the_rows_a_rewrapped_line_took(monkeypatch: pytest.MonkeyPatch) -> None:
    # As tmux leaves a 30-column line narrowed to 10 columns: on three rows, the cursor at its
    # start (where the redraw left it).
    monkeypatch.setenv("TERM", "xterm")
    screen = pyte.Screen(10, 4)
    stream = pyte.Stream(screen)
    stream.feed("a" * 10 + "b" * 10 + "c" * 10 + "\x1b[H")
    stream.feed(redraw("", 10))
    assert screen.display == [" " * 10] * 4


def test_the_erase_never_starts_at_the_first_column(monkeypatch: pytest.MonkeyPatch) -> None:
    # From the screen's top left corner (a line drawn right after `clear`) tmux takes it for a
    # clear of the screen and keeps what was there in its history: each redraw left a line.
    monkeypatch.setenv("TERM", "tmux-256color")
    for text in ("", "bench [#"):
        assert ERASE_BELOW in redraw(text, 40) and "\r" + ERASE_BELOW not in redraw(text, 40)


def test_a_dumb_terminal_gets_spaces_not_escapes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    assert redraw("bench [###] 1/3 games", 12) == "\rbench [###]\r"
    assert redraw("", 12) == "\r" + " " * 11 + "\r"


@pytest.mark.parametrize(
    ("kind", "erases"),
    [("ts-noerase", False), ("ts-vt52erase", False), ("ts-padded", True), ("ts-ansi", True)],
)
def test_the_erase_is_sent_only_where_terminfo_has_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: str, erases: bool
) -> None:
    # Only TERM=dumb got spaces: a terminal without ESC [ J (vt52's is ESC J) showed it as text.
    monkeypatch.setenv("TERMINFO", str(compiled_terminfo(tmp_path, ERASES)))
    monkeypatch.setenv("TERM", kind)
    if erases:
        assert redraw("bench [###] 1/3 games", 12) == "\rbench [###]" + ERASE_BELOW + "\r"
    else:
        assert redraw("bench [###] 1/3 games", 12) == "\rbench [###]\r"
        assert redraw("", 12) == "\r" + " " * 11 + "\r"


def test_a_terminal_terminfo_does_not_know_is_erased_as_most_are(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TERMINFO", str(compiled_terminfo(tmp_path, ERASES)))
    monkeypatch.setenv("TERMINFO_DIRS", str(tmp_path))  # nowhere else to look
    monkeypatch.setenv("TERM", "ts-nosuch")
    assert redraw("", 12) == "\r " + ERASE_BELOW + "\r"
