"""`termsnake train` on a terminal: its bar and its chart within the width, when the window is
narrowed during the run too."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from pty_harness import Pty

from termsnake.learn.curve import chart

pytestmark = pytest.mark.terminal

TRAIN = ["train", "neuro", "--size", "6x6", "--population", "8", "--games", "2"]


@pytest.mark.slow  # a training in a pty, redrawn at each width: CPU-heavy
def test_a_window_narrowed_during_training_gets_one_bar_and_a_chart_that_fits(
    tmp_path: Path,
) -> None:
    # tqdm kept the width it started with: narrowed from 60 columns to 10, every redraw
    # wrapped onto rows of their own; and the chart was drawn 60 generations wide.
    out = ["--generations", "40", "--out", str(tmp_path / "w.json")]
    t = Pty([*TRAIN, *out], tmp_path, cols=60, rows=80)
    try:
        t.wait_for("train:", timeout=60)
        t.resize(10, 80)
        code = t.wait_exit(timeout=180)
    finally:
        t.close()
    assert code == 0
    rows = t.text().splitlines()
    assert sum(row.startswith("train:") for row in rows) == 1, t.text()  # the last, kept
    said = bytes(t.raw).decode().replace("\r\n", "\n")
    drawn = said[said.index("|", said.index("\n", said.rindex("train:"))) - 7 :]
    drawn = drawn[: drawn.index("weights:")]
    assert [len(line) <= 9 for line in drawn.splitlines()] == [True] * len(drawn.splitlines())


def test_keys_typed_during_training_do_not_write_over_its_bar(tmp_path: Path) -> None:
    # The bar's cursor waits at its start: the terminal echoed the keys there, over "train:".
    out = ["--generations", "100000", "--out", str(tmp_path / "w.json")]
    t = Pty([*TRAIN, *out], tmp_path)
    try:
        t.wait_for("train:", timeout=60)
        t.send("hello")
        time.sleep(0.1)
        t.pump()
        assert t.text().startswith("train:") and b"hello" not in bytes(t.raw)
        t.send("\x03")
        assert t.wait_exit(timeout=30) == 130
    finally:
        t.close()


# Before a generation is done, and after two (a second training of generations: slow).
@pytest.mark.parametrize("done", ["0/", pytest.param("2/", marks=pytest.mark.slow)])
def test_ctrl_c_erases_the_bar_before_the_line_that_says_what_is_kept(
    tmp_path: Path, done: str
) -> None:
    # tqdm left its bar on the screen above "interrupted", as a run that went on would be.
    out = ["--generations", "100000", "--out", str(tmp_path / "w.json")]
    t = Pty([*TRAIN, *out], tmp_path)
    try:
        t.wait_for(f"{done}100000", timeout=60)
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    assert code == 130 and b"train:  " in bytes(t.raw)
    rows = [row for row in t.text().splitlines() if row.strip()]
    assert rows[0].startswith("termsnake train: interrupted"), t.text()
    assert not any("100000" in row for row in rows), t.text()


def test_the_chart_fits_the_columns_it_is_given() -> None:
    curve = [{"generation": g, "best": 3.0 + g, "mean": 2.0, "elite": 2.5} for g in range(100)]
    assert max(len(line) for line in chart(curve)) == 64  # not a terminal: 60 generations
    for columns in (80, 40, 12, 10):
        lines = chart(curve, columns)
        assert max(len(line) for line in lines) < columns, columns
        assert "".join(lines).count("generation") == 1  # the legend, wrapped if need be
