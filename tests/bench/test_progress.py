"""bench's progress line as a terminal of any width shows it."""

from __future__ import annotations

import io

import pytest

from termsnake.bench.progress import Progress


class Tty(io.StringIO):
    """A terminal in memory: its width is COLUMNS."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("cols", "bar"), [(80, True), (36, False), (24, False)])
def test_a_narrow_terminal_is_shown_the_figures_without_the_bar(
    monkeypatch: pytest.MonkeyPatch, cols: int, bar: bool
) -> None:
    # Cut to the width, the bar (28 columns with its name) hid the figures: at 24 columns
    # "bench [" and spaces.
    monkeypatch.setenv("COLUMNS", str(cols))
    out = Tty()
    with Progress(10, out):
        drawn = out.getvalue().split("\r")[1].removesuffix("\x1b[J")  # the erase after it
    assert len(drawn) < cols and drawn.startswith("bench [" if bar else "bench 0/10 games, 0 ")
