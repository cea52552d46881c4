"""Child processes, as Linux's /proc shows them, and commands started in a process group of
their own: for tests that signal a command and check its workers and engines go with it."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def wait_until(ready: Callable[[], bool], timeout: float = 30) -> None:
    """Until ``ready()``, for ``timeout`` seconds at most: the test's own assertions then say
    what came of it."""
    deadline = time.monotonic() + timeout
    while not ready() and time.monotonic() < deadline:
        time.sleep(0.05)


def nohup() -> None:
    """In the child: SIGHUP ignored, as ``nohup`` starts a command."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@contextmanager
def own_group(args: Sequence[str], **popen: Any) -> Iterator[subprocess.Popen[str]]:
    """``args`` started in a session of its own, its stdout and stderr piped as text: a signal
    sent to its group reaches its workers too, as a terminal's does. The whole group is killed
    if it is still there when the block ends (a test that failed)."""
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        **popen,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
