"""The installed ``termsnake bench`` on runs too long to finish: flat memory, Ctrl-C, workers."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_tree import children, own_group
from pty_harness import default_signals, termsnake_command

ADDRESS_SPACE = 1536 * 1024 * 1024  # far below what a list of every game would take


def limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    default_signals()


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
    # In a group of its own: Ctrl-C reaches the whole group, workers included.
    with own_group([termsnake_command(), *args], preexec_fn=limit_memory) as proc:
        time.sleep(3.0)
        assert proc.poll() is None, proc.communicate()[1]
        early = resident_kib(proc.pid)
        time.sleep(3.0)
        assert proc.poll() is None, proc.communicate()[1]
        late = resident_kib(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    assert late - early < 8 * 1024, (early, late, err[-300:])
    assert proc.returncode == 130, err
    assert out == "" and err == "termsnake bench: interrupted\n"


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (not gone, not a zombie)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_bench_workers_end_with_a_bench_killed_outright() -> None:
    # Each played its game to the end (bfs on 200x200: minutes of a busy core) when the bench
    # was killed with SIGKILL, which it cannot catch.
    args = ["bench", "--ai", "bfs", "--size", "200x200", "--games", "4", "--jobs", "2"]
    proc = subprocess.Popen([termsnake_command(), *args], stderr=subprocess.DEVNULL)
    workers: list[int] = []
    try:
        deadline = time.monotonic() + 30
        while len(workers) < 2:  # the spawned workers (Python's resource tracker is a child too)
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.2)
            workers = [c for c in children(proc.pid) if b"spawn_main" in _cmdline(c)]
        time.sleep(1.0)  # past their start-up: playing
        proc.kill()
        proc.wait()
        deadline = time.monotonic() + 10
        while any(alive(w) for w in workers):
            assert time.monotonic() < deadline, "the workers outlived the bench"
            time.sleep(0.1)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for w in workers:  # left running if the test failed
            if alive(w):
                os.kill(w, signal.SIGKILL)


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""
