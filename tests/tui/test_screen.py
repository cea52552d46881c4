"""The screen writer counts terminal columns: wide and combining characters land where meant."""

from __future__ import annotations

import io

import pyte
import pytest
from blessed import Terminal

from termsnake.formats.text import clip, columns
from termsnake.tui.screen import Screen, cells, changed_spans


def show(frames: list[list[str]], width: int = 60) -> list[str]:
    """Draw ``frames`` one after the other on a pyte screen; what it shows at the end."""
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    screen = Screen(term, out)
    for frame in frames:
        screen.draw(frame)
    display = pyte.Screen(width, 4)
    pyte.Stream(display).feed(out.getvalue())
    return [line.rstrip() for line in display.display[: max(len(f) for f in frames)]]


@pytest.mark.parametrize("name", ["蛇の迷路🐍", "é\u0301\u0301x"])
def test_a_changed_counter_after_a_wide_name_is_drawn_in_its_place(name: str) -> None:
    lines = [f"{name}  length 3/200  steps {n}  speed 8/s" for n in (0, 7, 12, 9)]
    assert show([[line] for line in lines]) == [lines[-1]]


def test_wide_characters_replaced_by_narrow_ones_leave_nothing_behind() -> None:
    frames = [["ab蛇の迷路cd"], ["abxyzwvucd"], ["a🐍bcdefghi"], ["short"]]
    assert show(frames) == ["short"]


def test_cells_are_columns() -> None:
    assert cells("a蛇b") == ["a", "蛇", "", "b"]
    assert cells("e\u0301x") == ["e\u0301", "x"]
    assert changed_spans("a蛇b", "a路b") == [(1, "路")]
    assert changed_spans("abcd", "a蛇d") == [(1, "蛇")]


def test_clip_and_columns_count_columns() -> None:
    assert columns("蛇の迷路🐍") == 10 and columns("é\u0301\u0301x") == 2
    assert clip("蛇の迷路", 5) == "蛇の " and clip("abc", 5) == "abc"


def test_a_frame_at_a_new_origin_is_drawn_whole_there() -> None:
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    screen = Screen(term, out)
    screen.draw(["ab", "cd"], (3, 1))
    screen.draw(["ab", "cX"], (3, 1))
    screen.draw(["ab", "cX"], (1, 2))  # a resize moved the board: the old copy is cleared
    display = pyte.Screen(8, 4)
    pyte.Stream(display).feed(out.getvalue())
    assert [line.rstrip() for line in display.display] == ["", "", " ab", " cX"]


def test_what_the_stream_cannot_encode_is_escaped_in_the_columns_laid_out() -> None:
    out = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    screen = Screen(term, out)
    screen.draw(["Zürich 名前 ab", "#" * 14])
    out.flush()
    display = pyte.Screen(20, 3)
    pyte.Stream(display).feed(out.buffer.getvalue().decode("latin-1"))
    # 名前 took four columns: its escape is cut there, and the line keeps its fourteen.
    assert [line.rstrip() for line in display.display[:2]] == ["Zürich \\u540d\\", "#" * 14]
