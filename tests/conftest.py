"""pytest settings shared by the whole suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
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


@pytest.fixture
def leaping_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    """A clock that leaps an hour at every look, as on a badly loaded machine: what depends
    only on work counted, never on time, must not notice."""
    now = [0.0]

    def leaping() -> float:
        now[0] += 3600.0
        return now[0]

    for name in ("perf_counter", "monotonic", "time"):
        monkeypatch.setattr(time, name, leaping)


@pytest.fixture
def small_tmpfs(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A small tmpfs (``options``: 64 KiB, room for 16 small files, unless the test's
    parametrisation says), if this test may mount one (root on Linux)."""
    options = getattr(request, "param", "size=64k")
    mount = shutil.which("mount")
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or mount is None:
        pytest.skip("mounting a tmpfs needs root on Linux")
    where = tmp_path / "small"
    where.mkdir()
    cmd = [mount, "-t", "tmpfs", "-o", options, "tmpfs", str(where)]
    if subprocess.run(cmd, capture_output=True, check=False).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (a container without the right)")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=False)
