"""The installed ``termsnake bench`` on runs too long to finish: flat memory, Ctrl-C, workers."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest
from pty_harness import termsnake_command

ADDRESS_SPACE = 1536 * 1024 * 1024  # far below what a list of every game would take


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # not ignored, as a shell's background has it


def resident_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
@pytest.mark.slow  # six seconds of a busy core
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_huge_run_streams_its_games_in_flat_memory(jobs: str) -> None:
    args = ["bench", "--ai", "bfs", "--size", "2x2", "--games", "100000000", "--jobs", jobs]
    proc = subprocess.Popen(
        [termsnake_command(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit_memory,
        start_new_session=True,  # Ctrl-C reaches the whole group, workers included
    )
    try:
        time.sleep(3.0)
        assert proc.poll() is None, proc.communicate()[1]
        early = resident_kib(proc.pid)
        time.sleep(3.0)
        assert proc.poll() is None, proc.communicate()[1]
        late = resident_kib(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert late - early < 8 * 1024, (early, late, err[-300:])
    assert proc.returncode == 130, err
    assert out == "" and err == "termsnake bench: interrupted\n"
