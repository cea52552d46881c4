"""Aligned text: columns line up as a terminal shows them, wide characters taking two."""

from __future__ import annotations

import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest
import wcwidth
from hypothesis import given
from hypothesis import strategies as st
from plugin_folders import signals_in_a_callback

from termsnake.formats.text import align, clip, columns, terminal_encoding


def shown(text: str) -> int:
    """The columns a terminal gives ``text``, counted here apart from the code under test."""
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def where(line: str, cell: str) -> int:
    """The terminal column ``cell`` starts at in ``line``."""
    return shown(line[: line.index(cell)])


def test_a_wide_name_keeps_the_next_column_in_line() -> None:
    # A level named in CJK or with an emoji, as a board's author may name one.
    lines = align([("level", "size"), ("蛇 🐍", "8x5"), ("small", "6x5")])
    assert [where(line, line.split()[-1]) for line in lines] == [7, 7, 7]
    assert lines[1] == "蛇 🐍  8x5"


def test_right_aligned_columns_end_together_after_wide_cells() -> None:
    lines = align([("name", "free"), ("日本語の説明", "18"), ("a", "120")], right={1})
    ends = [where(line, line.split()[-1]) + shown(line.split()[-1]) for line in lines]
    assert ends == [18, 18, 18]


def test_combining_marks_take_no_column() -> None:
    decomposed = "Zoe\u0308"  # e and a combining diaeresis: three columns on a terminal
    assert align([(decomposed, "x"), ("abc", "y")]) == [f"{decomposed}  x", "abc  y"]


def test_clip_counts_columns_and_leaves_half_a_wide_character_a_space() -> None:
    assert clip("日本語", 5) == "日本 "
    assert clip("日本語", 6) == "日本語"
    assert clip("ab日", 3) == "ab "


@given(st.text(st.sampled_from([*map(chr, range(128)), "é", "日", "\u0301"])), st.integers(-1, 12))
def test_ascii_is_measured_and_clipped_as_wcwidth_does(text: str, width: int) -> None:
    # Printable ASCII is measured without wcwidth (its width is its length): the same numbers,
    # a control character or a non-ASCII one among them included.
    assert columns(text) == wcwidth.width(text)
    whole = wcwidth.width(text) <= width
    assert clip(text, width) == (text if whole else wcwidth.clip(text, 0, width))


@pytest.mark.parametrize(
    ("locale", "encoding", "written"),
    [
        ({"LANG": "C"}, "utf-8", "ascii"),  # Python's UTF-8 mode: the terminal is not UTF-8
        ({"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, "UTF-8", "ascii"),
        ({}, "utf-8", "ascii"),  # no locale at all is C's
        ({"LANG": "C.UTF-8"}, "utf-8", "utf-8"),
        ({"LANG": "en_GB.utf8"}, "utf-8", "utf-8"),
        ({"LANG": "C"}, "latin-1", "latin-1"),  # a stream already narrow escapes as it is
    ],
)
def test_a_stream_is_written_as_the_locale_says_the_terminal_shows(
    monkeypatch: pytest.MonkeyPatch, locale: dict[str, str], encoding: str, written: str
) -> None:
    # Under LANG=C Python writes UTF-8, and an ellipsis came out as three bytes of garbage.
    for var in ("LC_ALL", "LC_CTYPE", "LANG"):
        monkeypatch.delenv(var, raising=False)
    for var, value in locale.items():
        monkeypatch.setenv(var, value)
    assert terminal_encoding(encoding) == written


def test_a_ctrl_c_as_wcwidth_loads_at_its_first_use_is_not_lost(tmp_path: Path) -> None:
    # wcwidth loads when the first text that is not printable ASCII is measured, as a command
    # runs: a Ctrl-C whose exception Python drops in its import machinery would be lost.
    (tmp_path / "wcwidth.py").write_text(
        signals_in_a_callback(2) + "def width(text):\n    return 7\n"
    )
    script = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "from termsnake.formats.text import columns\n"
        "try:\n"
        "    print(columns('\u00e9'))\n"
        "except KeyboardInterrupt:\n"
        "    print('interrupted')\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60
    )
    assert (done.stdout, done.stderr) == ("interrupted\n", "")
