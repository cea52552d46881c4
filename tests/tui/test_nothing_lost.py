"""Issue #18 in a real pseudo-terminal: nothing the player should see is lost or garbled."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pty_harness import Pty

pytestmark = pytest.mark.terminal

QUERIES = (b"\x1b[6n", b"\x1bP+q", b"\x1b[>q", b"\x1b[c")


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
