"""Issue #18 in a real pseudo-terminal: the board sits in the middle of a big terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pty_harness import Pty

pytestmark = pytest.mark.terminal


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Callable[..., Pty]]:
    started: list[Pty] = []

    def start(*args: str, **kw: object) -> Pty:
        p = Pty(args, tmp_path, **kw)  # type: ignore[arg-type]
        started.append(p)
        return p

    yield start
    for p in started:
        p.close()


def test_the_board_is_centred_on_a_big_terminal(run: Callable[..., Pty]) -> None:
    t = run("--size", "12x6", "--seed", "1", cols=120, rows=40)
    t.wait_for("a direction key starts")
    # 12 cells of 2 columns and a frame: 26x8, and the status line under it: 9 rows.
    left, top = (120 - 26) // 2, (40 - 9) // 2
    assert t.find("#") == (left, top)
    assert t.screen.display[top][left:].rstrip() == "#" * 26
    assert t.screen.display[top + 7][left:].rstrip() == "#" * 26
    # The status line is wider than the columns right of the board: it ends at the edge.
    status = t.screen.display[top + 8].rstrip()
    assert len(status) == 120 and status.lstrip().startswith("heading right")
    t.resize(60, 20)  # smaller: centred again, the old copy gone
    left, top = (60 - 26) // 2, (20 - 9) // 2
    t.wait_for(lambda: t.find("#") == (left, top))
    assert sum(line.count("#") for line in t.screen.display) == 2 * 26 + 2 * 6
    t.send("q")
    assert t.wait_exit() == 0
    assert t.restored()
