"""A Ctrl-C or an ending signal that lands inside the worker pool's own code still ends a bench
with workers at once, as at any other moment."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import subprocess
import sys
import threading
import weakref
from collections.abc import Callable
from multiprocessing import synchronize
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from lock_trap import run_trapped
from process_tree import children, nohup, own_group, wait_until
from pty_harness import termsnake_command

from termsnake.bench import pool
from termsnake.bench.games import GameRecord, GameTask, Kit, LevelSpec
from termsnake.exits import Noted, Terminated, signals_noted
from termsnake.solvers import plugins


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
    with own_group([termsnake_command(), *args]) as proc:  # a terminal's hang-up reaches it all
        wait_until(lambda: len(children(proc.pid)) >= 3)  # tracker, workers
        os.killpg(proc.pid, signal.SIGHUP)
        out, err = proc.communicate(timeout=30)
    assert proc.returncode == 128 + signal.SIGHUP, err
    assert out == "" and err == "termsnake bench: stopped by SIGHUP\n"


@pytest.mark.slow  # a bench with workers through to its end: CPU-heavy
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_bench_started_by_nohup_outlives_the_hang_up_of_its_window() -> None:
    # Its own handler replaced the hang-up nohup ignores: the run ended (129) as the window
    # it was started from closed.
    # Enough games that the workers, once started, play on well past the hang-up sent at once.
    args = ["bench", "--ai", "bfs", "--size", "6x6", "--games", "600", "--jobs", "2"]
    with own_group([termsnake_command(), *args], preexec_fn=nohup) as proc:
        wait_until(lambda: len(children(proc.pid)) >= 3)  # tracker, workers
        assert proc.poll() is None  # the hang-up comes while the games are played
        os.killpg(proc.pid, signal.SIGHUP)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert err == "" and re.search(r"\nbfs +open-6x6 +36 +600 ", out), out


@pytest.mark.parametrize("where", ["just after it is taken", "just before it is let go"])
def test_a_ctrl_c_as_a_worker_counts_its_moves_leaves_their_lock_free(
    where: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Raised inside the lock's __enter__ or __exit__, it left the lock taken: the other worker,
    # telling its last moves as its own Ctrl-C stopped its game, waited for it for ever.
    moves = multiprocessing.get_context("spawn").Value("q", 0)
    enter, leave = synchronize.SemLock.__enter__, synchronize.SemLock.__exit__

    def entered(self: synchronize.SemLock) -> bool:
        got = enter(self)
        if where == "just after it is taken":
            signal.raise_signal(signal.SIGINT)
        return got

    def left(self: synchronize.SemLock, *exc: Any) -> None:
        if where == "just before it is let go":
            signal.raise_signal(signal.SIGINT)
        leave(self, *exc)

    monkeypatch.setattr(synchronize.SemLock, "__enter__", entered)
    monkeypatch.setattr(synchronize.SemLock, "__exit__", left)
    monkeypatch.setattr(pool, "_moves", moves)
    monkeypatch.setattr(pool, "_in_game", True)
    monkeypatch.setattr(pool, "_came", Noted(wake=lambda: None))
    before = signal.signal(signal.SIGINT, pool._worker_sigint)
    try:
        with pytest.raises(KeyboardInterrupt):  # the game stops all the same
            pool._add_moves(3)
    finally:
        signal.signal(signal.SIGINT, before)
    free: list[bool] = []

    def other_worker() -> None:  # a thread, for whom the lock taken here is not its own
        free.append(moves.get_lock().acquire(timeout=2))
        if free[0]:
            moves.get_lock().release()

    other = threading.Thread(target=other_worker)
    other.start()
    other.join()
    assert free == [True], "the lock on the moves made was left taken"


def test_a_ctrl_c_at_any_line_before_a_workers_game_stops_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # One that came just after the worker looked for a Ctrl-C, before it marked its game as
    # under way, was only noted: the game played on to its end.
    started: list[GameTask] = []

    def game(task: GameTask, kit: Kit, moved: Callable[[int], None]) -> GameRecord:
        started.append(task)  # the game would be played from here
        return GameRecord()

    monkeypatch.setattr(pool, "play_one", game)
    before = signal.signal(signal.SIGINT, pool._worker_sigint)
    try:
        line = 0
        while True:
            line += 1
            monkeypatch.setattr(pool, "_came", Noted(wake=lambda: None))
            monkeypatch.setattr(pool, "_in_game", False)
            if not _with_sigint_at(line, started):  # the game started before that line
                break
            assert started == [], f"a Ctrl-C at line {line} of the batch let its game start"
    finally:
        signal.signal(signal.SIGINT, before)
    assert line > 1, "no line was traced"


def test_a_ctrl_c_a_workers_game_lost_ends_it_as_the_next_plugin_call_returns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Raised in a weakref callback (the import machinery's, as the game's modules load), Python
    # printed "Exception ignored" and a traceback and dropped it: the game played on, and the
    # parent's Ctrl-C, a second one, was left to the first's clean-up.
    calls: list[str] = []
    said: list[BaseException | None] = []

    def game(task: GameTask, kit: Kit, moved: Callable[[int], None]) -> GameRecord:
        gone = threading.Event()  # any object a weak reference can point to
        ref = weakref.ref(gone, lambda _: signal.raise_signal(signal.SIGINT))
        del gone
        assert ref() is None
        plugins.quietly(calls.append, "the plugin's call")
        calls.append("played on")
        return GameRecord()

    monkeypatch.setattr(pool, "play_one", game)
    monkeypatch.setattr(pool, "_came", Noted(wake=lambda: None))
    monkeypatch.setattr(sys, "unraisablehook", lambda u: said.append(u.exc_value))
    before = signal.signal(signal.SIGINT, pool._worker_sigint)
    try:
        with pytest.raises(KeyboardInterrupt):
            pool._play_in_worker([GameTask("zigzag", LevelSpec("size", "4x4", 1), 1, False)])
    finally:
        signal.signal(signal.SIGINT, before)
    assert calls == ["the plugin's call"] and said == []


def _with_sigint_at(line: int, started: list[GameTask]) -> bool:
    """Play a batch of one game in ``pool._play_in_worker``, a SIGINT sent at its ``line``-th
    line (as Python traces them) if the game has not ``started`` by then; whether it was sent."""
    seen = 0
    sent = False

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal seen, sent
        if event == "line" and not started:
            seen += 1
            if seen == line:
                sent = True
                signal.raise_signal(signal.SIGINT)
        return local

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code is pool._play_in_worker.__code__ else None

    was = sys.gettrace()
    sys.settrace(trace)
    try:
        pool._play_in_worker([GameTask("zigzag", LevelSpec("size", "4x4", 1), 1, False)])
    except KeyboardInterrupt:
        pass
    finally:
        sys.settrace(was)
    return sent
