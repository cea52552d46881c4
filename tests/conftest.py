"""pytest settings shared by the whole suite."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pty_harness import Pty


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: one worker more than cores. Many tests wait on child processes and
    pseudo-terminals, and the extra worker keeps the cores busy meanwhile."""
    return (os.cpu_count() or 1) + 1


@pytest.fixture
def run(tmp_path: Path) -> Iterator[Callable[..., Pty]]:
    """Start the installed ``termsnake`` in pseudo-terminals (``run(*args, cols=, rows=)``);
    each is closed when the test ends."""
    started: list[Pty] = []

    def start(*args: str, **kw: object) -> Pty:
        p = Pty(args, tmp_path, **kw)  # type: ignore[arg-type]
        started.append(p)
        return p

    yield start
    for p in started:
        p.close()
