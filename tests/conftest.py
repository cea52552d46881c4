"""pytest settings shared by the whole suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from pty_harness import Pty

if TYPE_CHECKING:
    from ssh_client import Server


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


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A `termsnake serve` shared by the tests of tests/serve that only connect to it and read
    (one a worker process: a start costs as much CPU as many of those tests). They set no
    option of their own, send it no signal and leave nothing behind that another's assertions
    read: they close their connections, and a name whose key preset or score a test looks at is
    its own. Three connections from an address at once, as by default (test_server.py tells
    the fourth why), an idle visit ended after 3 s (the slow
    test_an_idle_player_is_told_and_disconnected), new connections from one address as often
    as the tests make them. Here, not in a conftest.py of tests/serve, which mypy would take
    for this one."""
    # tests/serve is on the path once a test there is collected; this module is loaded first.
    from ssh_client import running

    limits = ("--max-per-address", "3", "--idle", "3", "--max-connect-rate", "1000")
    with running(tmp_path_factory.mktemp("serve"), *limits) as s:
        yield s
