"""A Ctrl-C or an ending signal that lands inside the worker pool's own code still ends a bench
with workers at once, as at any other moment."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lock_trap import run_trapped
from process_tree import children
from pty_harness import termsnake_command

from termsnake.exits import Terminated, signals_noted


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("SIGINT", "termsnake bench: interrupted"),
        ("SIGTERM", "termsnake bench: stopped by SIGTERM"),
    ],
)
def test_a_signal_just_after_the_pool_takes_a_lock_ends_the_run(name: str, said: str) -> None:
    # Raised there, it left the future's lock taken: the pool's shutdown waited for ever.
    args = ["bench", "--ai", "bfs", "--size", "6x6", "--games", "400", "--jobs", "2"]
    code, out, err = run_trapped(name, args)
    assert code == 128 + getattr(signal, name), err
    assert out == "" and err == said + "\n"


def test_a_signal_noted_is_raised_at_the_end_in_place_of_another_error() -> None:
    woken: list[int] = []
    with pytest.raises(Terminated), signals_noted(lambda: woken.append(1)) as noted:
        os.kill(os.getpid(), signal.SIGTERM)
        assert woken == [1] and noted.signum == signal.SIGTERM  # noted, not raised
        raise ValueError("a worker died of the same signal")


def test_a_process_started_after_a_hang_up_was_noted_still_ends_by_one() -> None:
    # A worker started then inherited SIGHUP ignored, and outlived the bench's hang-up.
    before = signal.signal(signal.SIGHUP, signal.SIG_DFL)
    child = None
    try:
        with pytest.raises(Terminated), signals_noted(lambda: None):
            os.kill(os.getpid(), signal.SIGHUP)
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN  # more hang-ups, from now
        assert child is not None
        child.send_signal(signal.SIGHUP)
        assert child.wait(timeout=10) == -signal.SIGHUP
    finally:
        signal.signal(signal.SIGHUP, before)
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()


def test_a_ctrl_c_ignored_stays_ignored() -> None:
    # A shell starts a command in the background with Ctrl-C ignored: bench ran on, as before.
    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with signals_noted(lambda: None) as noted:
            os.kill(os.getpid(), signal.SIGINT)
        assert noted.signum is None
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_hang_up_to_the_whole_group_is_one_line() -> None:
    # It killed multiprocessing's resource tracker too: the pool's clean-up started another,
    # which printed a warning and a KeyError traceback for each of the pool's semaphores.
    args = ["bench", "--ai", "bfs", "--size", "6x6", "--games", "100000", "--jobs", "2"]
    proc = subprocess.Popen(
        [termsnake_command(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a terminal's hang-up reaches its whole group
    )
    try:
        deadline = time.monotonic() + 30
        while len(children(proc.pid)) < 3 and time.monotonic() < deadline:  # tracker, workers
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGHUP)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + signal.SIGHUP, err
    assert out == "" and err == "termsnake bench: stopped by SIGHUP\n"


def nohup() -> None:
    """In the child: SIGHUP ignored, as ``nohup`` starts a command."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_bench_started_by_nohup_outlives_the_hang_up_of_its_window() -> None:
    # Its own handler replaced the hang-up nohup ignores: the run ended (129) as the window
    # it was started from closed.
    args = ["bench", "--ai", "bfs", "--size", "6x6", "--games", "2000", "--jobs", "2"]
    proc = subprocess.Popen(
        [termsnake_command(), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=nohup,
    )
    try:
        deadline = time.monotonic() + 30
        while len(children(proc.pid)) < 3 and time.monotonic() < deadline:  # tracker, workers
            time.sleep(0.05)
        assert proc.poll() is None  # the hang-up comes while the games are played
        os.killpg(proc.pid, signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 0, err
    assert err == "" and re.search(r"\nbfs +open-6x6 +36 +2000 ", out), out
