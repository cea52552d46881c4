"""The server in this process (``listen.serve``), so that a test can make a part of it fail and
see what shutdown then does."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import asyncssh
import pytest
from ssh_client import connect, player, start_classic

from termsnake.commands.serve import Escaped
from termsnake.exits import ENDING_SIGNALS
from termsnake.serve import events, limits, listen
from termsnake.serve.hub import Hub
from termsnake.serve.limits import SHUTDOWN_WAIT, Options
from termsnake.serve.server import Config
from termsnake.serve.visit import Visit
from termsnake.solvers.plugins import quietly


@contextlib.contextmanager
def handlers_kept() -> Iterator[None]:
    """The signal handlers ``serve`` sets are put back as they were after the block."""
    before = {s: signal.getsignal(s) for s in ENDING_SIGNALS}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler)


@dataclass
class Served:
    """A server serving in this process, on a free port of 127.0.0.1."""

    port: int
    task: asyncio.Task[None]

    async def stop(self) -> float:
        """SIGTERM, as an operator stops it: how long it then took to stop."""
        started = time.monotonic()
        signal.raise_signal(signal.SIGTERM)
        await asyncio.wait_for(self.task, 10)
        return time.monotonic() - started


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> AsyncIterator[Served]:
    """A server in this process (stopped after the block, if the test did not stop it)."""
    key = asyncssh.generate_private_key("ssh-ed25519")
    config = Config(Options(port=0), host_key=key, scores=tmp_path / "scores.json")
    ready = asyncio.Event()
    task = asyncio.create_task(listen.serve(config, ready))
    await asyncio.wait_for(ready.wait(), 10)
    said = ""
    for _ in range(200):  # written by the server's output thread, a moment after
        said += capsys.readouterr().out
        if match := re.search(r"listening on 127\.0\.0\.1:(\d+);", said):
            break
        await asyncio.sleep(0.01)
    assert match, said
    served = Served(int(match.group(1)), task)
    try:
        yield served
    finally:
        if not task.done():
            await served.stop()


def test_a_server_with_no_visitor_stops_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # It looked at the signals noted every 0.2 s, then gave farewells a tenth of a second
    # with no client there to read them. The fastest of three: a loaded machine may hold one.
    async def go() -> list[float]:
        took = []
        for _ in range(3):
            async with serving(tmp_path, capsys) as served:
                took.append(await served.stop())
        return took

    with handlers_kept():
        took = asyncio.run(go())
    assert min(took) < 0.1, took
    assert capsys.readouterr().out.endswith("termsnake serve: stopped\n")


@pytest.mark.parametrize("broken", ["left", "release_name"])
def test_a_visit_whose_leaving_fails_still_closes_and_is_not_waited_for_at_shutdown(
    broken: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The visit's thread was let go only after its "left" line: had the log (or the release of
    # its name) raised, its client was never closed and shutdown waited its whole 5 s. Then the
    # error reached the thread's hook: a raw traceback on stderr, its escapes unescaped.
    def fails(*args: object) -> None:
        raise RuntimeError("the log failed \x1b[2J")

    failed: list[type[BaseException] | None] = []
    monkeypatch.setattr(events.Visits if broken == "left" else Hub, broken, fails)
    monkeypatch.setattr(threading, "excepthook", lambda hook: failed.append(hook.exc_type))

    async def go() -> tuple[float, bytes]:
        async with serving(tmp_path, capsys) as served, await connect(served.port, "ada") as c:
            ada = await player(c)
            await ada.wait_for("hello, ada")
            await ada.keys(b"q")  # the lobby's quit
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ada.process.wait_closed(), 3)
            await ada.pump()
            took = await served.stop()
        return took, ada.received

    with handlers_kept(), caplog.at_level(logging.INFO, "termsnake.serve"):
        took, received = asyncio.run(go())
    assert failed == []
    (error,) = [r for r in caplog.records if r.levelno >= logging.ERROR]
    said = Escaped("%(message)s").format(error)
    assert said.startswith("a session of ada failed:\n") and "RuntimeError: the log failed" in said
    assert "\x1b" not in said
    # A name that could not be let go does not keep the player's leaving out of the log.
    assert any(m.startswith("ada left after ") for m in caplog.messages) == (broken != "left")
    assert took < SHUTDOWN_WAIT / 2
    assert received.endswith(b"bye!\r\n")  # told and closed as ever


class Stuck:
    """Makes the lobby's High scores hold its visit's thread until ``release`` (as a bot that
    thinks on past the shutdown wait): the threads held."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.release = threading.Event()
        self.held: list[threading.Thread] = []
        monkeypatch.setattr(Visit, "high_scores", lambda visit: self.hold_thread())

    def hold_thread(self) -> None:
        self.held.append(threading.current_thread())
        self.release.wait(10)

    async def hold(self, port: int, name: str) -> asyncssh.SSHClientConnection:
        """A visit that holds its thread: its connection."""
        conn = await connect(port, name)
        p = await player(conn)
        await p.wait_for(f"hello, {name}")
        await p.keys(b"sss\r")  # High scores
        for _ in range(100):
            if self.held:
                break
            await asyncio.sleep(0.05)
        assert self.held, p.text()
        return conn

    def end(self) -> None:
        """Let the threads held go, and wait for them."""
        self.release.set()
        for thread in self.held:
            thread.join(5)
            assert not thread.is_alive()


@pytest.mark.parametrize("in_plugin", [False, True], ids=["held", "held-in-a-plugin"])
def test_the_stopped_line_is_the_last_and_counts_the_visits_still_running(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
    in_plugin: bool,
) -> None:
    # A visit that had not ended by the end of the shutdown wait logged its leaving after the
    # server said "stopped", which an operator takes for the last line. Held in a plugin bot's
    # call (its set-up thinking on), sys.stdout was the plugins' sink, and "stopped" went there.
    monkeypatch.setattr(limits, "SHUTDOWN_WAIT", 0.5)
    stuck = Stuck(monkeypatch)
    if in_plugin:
        monkeypatch.setattr(Visit, "high_scores", lambda visit: quietly(stuck.hold_thread))

    async def go() -> None:
        async with serving(tmp_path, capsys) as served, await stuck.hold(served.port, "ada"):
            await served.stop()

    with handlers_kept(), caplog.at_level(logging.INFO, "termsnake.serve"):
        asyncio.run(go())
        said = capsys.readouterr().out.splitlines()
        stuck.end()
    assert said[-1] == "termsnake serve: stopped; 1 visit still running, its leaving not logged"
    assert [m for m in caplog.messages if " logged in " in m or " left " in m] == [
        "ada logged in from 127.0.0.1; 1 playing"
    ]


def test_a_visit_that_begins_as_the_server_stops_is_told_and_closed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session opened after SIGTERM (while the server waited for its visits) got the lobby and
    # was never told to stop: it held the shutdown its whole time and was cut off unwarned.
    stuck = Stuck(monkeypatch)  # keeps the server waiting

    async def go() -> bytes:
        async with (
            serving(tmp_path, capsys) as served,
            await stuck.hold(served.port, "ada"),
            await connect(served.port, "bo") as c,
        ):
            signal.raise_signal(signal.SIGTERM)
            await asyncio.sleep(0.5)  # the server has seen it, and waits for ada's visit
            assert not served.task.done()
            bo = await player(c)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(bo.process.wait_closed(), 2)
            await bo.pump()
            stuck.release.set()
        return bo.received

    with handlers_kept():
        received = asyncio.run(go())
    stuck.end()
    assert received.endswith(b"the server is shutting down\r\n")
    assert b"hello, bo" not in received  # told instead of the lobby, not after it


def test_the_playing_counts_go_in_the_logs_order_however_a_thread_is_held_before_its_line(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The count was taken under the server's lock and the line said after it was let go: a
    # thread held between the two (here, the first to say each kind of line) had its line come
    # after others', at shutdown "5 playing", "3 playing", "2 playing", "4 playing".
    held: set[str] = set()

    def slowed(kind: str) -> None:
        said = getattr(events.Visits, kind)

        def say(log: events.Visits, name: str, *args: object) -> None:
            if kind not in held:
                held.add(kind)
                time.sleep(0.5)
            said(log, name, *args)

        monkeypatch.setattr(events.Visits, kind, say)

    slowed("logged_in")
    slowed("left")

    async def go() -> None:
        async with serving(tmp_path, capsys) as served:
            conns = [await connect(served.port, name) for name in ("ada", "bo", "cy")]
            players = await asyncio.gather(*(player(c) for c in conns))
            for p, name in zip(players, ("ada", "bo", "cy"), strict=True):
                await p.wait_for(f"hello, {name}")
            await served.stop()
            for c in conns:
                c.close()

    with handlers_kept(), caplog.at_level(logging.INFO, "termsnake.serve"):
        asyncio.run(go())
    counts = [
        (m.split()[1], int(m.rsplit("; ", 1)[1].split()[0]))
        for m in caplog.messages
        if " logged in " in m or " left " in m
    ]
    assert counts == [("logged", 1), ("logged", 2), ("logged", 3), ("left", 2), ("left", 1),
                      ("left", 0)], caplog.messages  # fmt: skip


@contextlib.contextmanager
def locked_elsewhere(path: Path) -> Iterator[None]:
    """The lock of the file at ``path`` held by another process for the block."""
    hold = ("import fcntl, sys\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\nsys.stdin.read()\n")  # fmt: skip
    holder = subprocess.Popen([sys.executable, "-c", hold, f"{path}.lock"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert holder.stdin is not None and holder.stdout is not None
    try:
        assert holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.stdin.close()  # its read ends: it exits, and the lock goes with it
        holder.wait(10)
        holder.stdout.close()


def test_a_score_whose_file_another_process_holds_locked_is_given_up_within_the_wait(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The scores wait 10 s for their lock: a game scored at shutdown outlasted the server's
    # wait for its visit, which was then "still running", the game lost without a word. The
    # score is given up 1 s after SIGTERM here, and the visits have 3 s more to end, which no
    # load takes, while the lock's wait would outlast the server's.
    monkeypatch.setattr(limits, "SHUTDOWN_WAIT", 4.0)
    monkeypatch.setattr(limits, "SAVE_MARGIN", 3.0)

    told: list[bytes] = []

    async def go() -> float:
        async with serving(tmp_path, capsys) as served:
            conns = [await connect(served.port, name) for name in ("ada", "bo")]
            players = [await player(c) for c in conns]
            for p, name in zip(players, ("ada", "bo"), strict=True):
                await start_classic(p, name)
                await p.keys(b"s")  # down: it moves, a game to score
                await p.wait_steps(1)
            took = await served.stop()
            for p in players:
                await asyncio.wait_for(p.process.wait_closed(), 10)
                await p.pump()
                told.append(p.received)
            for c in conns:
                c.close()
        return took

    with (
        handlers_kept(),
        caplog.at_level(logging.INFO, "termsnake.serve"),
        locked_elsewhere(tmp_path / "scores.json"),
    ):
        took = asyncio.run(go())
        said = capsys.readouterr().out.splitlines()
    assert took < limits.SHUTDOWN_WAIT, took
    assert said[-1] == "termsnake serve: stopped"  # both visits ended: none still running
    lock = tmp_path / "scores.json.lock"
    trouble = [m for m in caplog.messages if "not saved" in m]
    assert trouble == [f"scores not saved: {lock} was still locked as the server stopped"]
    # They were told "your game was scored": the farewell says what became of their games.
    farewell = b"the server is shutting down; your game's score could not be saved\r\n"
    assert [t.endswith(farewell) and b"scored" not in t for t in told] == [True, True], told
    assert sorted(m.split(":")[1] for m in caplog.messages if " left " in m) == [
        " shutdown; 0 playing",
        " shutdown; 1 playing",
    ]
