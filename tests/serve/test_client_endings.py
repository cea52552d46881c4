"""Clients that end or wait oddly: keys sent just before an EOF, a client that reads nothing
when the server goes down, a burst of requests cut off by a reset, floods of keys, and a watcher
of another player's game who presses nothing."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
import struct
import time
from pathlib import Path

import asyncssh
import pytest
from asyncssh.packet import String
from pty_harness import steps_shown
from ssh_client import Player, Server, connect, player, running, start_classic
from test_hostile_clients import watch_best


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def test_keys_typed_before_an_eof_are_read(server: Server) -> None:
    # `printf q | ssh -tt host` sends q and an EOF at once: the EOF closed the session before
    # the q was read, and the client saw no lobby and no goodbye.
    async def go(s: Server) -> None:
        async with await connect(s.port, "eof") as conn:
            p = await player(conn)
            p.process.stdin.write(b"q")
            p.process.stdin.write_eof()
            await asyncio.wait_for(p.process.wait_closed(), 10)
            while not p.process.stdout.at_eof():
                await p.pump(0.2)
            assert b"bye!" in p.received

    run(go(server))


@pytest.mark.slow
def test_a_watcher_of_a_live_game_is_not_idle(tmp_path: Path) -> None:
    # The idle limit is for the lobby, summaries and games standing still: a watcher of a bot
    # game another player started was cut off after --idle seconds while it moved.
    async def go(s: Server) -> None:
        async with await connect(s.port, "bo") as c1, await connect(s.port, "cy") as c2:
            bo, cy = await player(c1), await player(c2)
            await watch_best(bo, "bo")
            await cy.wait_for("hello, cy")
            await cy.keys(b"ss\r")  # Watch a game in progress
            await cy.wait_for("best on classic")
            await cy.keys(b"\r")
            await cy.wait_for("watching (q leaves)")
            started = time.monotonic()
            while time.monotonic() - started < 4:  # twice --idle
                await bo.pump(0.1)
                await cy.pump(0.1)
            assert not cy.process.stdout.at_eof()
            assert b"no key for a long while" not in cy.received
            await bo.keys(b"q")  # the game watched ends: cy is told, and has --idle to read it
            await cy.wait_for("That game is over.")
            ended = time.monotonic()
            await asyncio.wait_for(cy.process.wait_closed(), 10)
            await cy.pump()
            assert b"no key for a long while" in cy.received
            assert time.monotonic() - ended > 1.5

    with running(tmp_path, "--idle", "2") as s:
        run(go(s))


@pytest.mark.slow
def test_at_sigterm_a_client_reading_nothing_has_its_game_ended_at_once(tmp_path: Path) -> None:
    # The game's thread waited up to --stall seconds for the client to read; the server
    # exited after its 5 s of grace first, and the game was never ended (nor, then, scored).
    async def go(s: Server) -> None:
        async with await connect(s.port, "ann") as conn:
            p = await player(conn, (200, 60), window=4096)
            await watch_best(p, "ann")
            await p.keys(b"+" * 25)
            p.process.stdout.channel.pause_reading()
            await asyncio.sleep(3)  # far more than --max-unsent waits unread by now
            stopped = time.monotonic()
            s.proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(s.proc.wait, 20)
            assert time.monotonic() - stopped < 4

    with running(tmp_path, "--max-unsent", "2000", "--stall", "30") as s:
        run(go(s))
        assert s.proc.returncode == 0
        ended_at_once(s, tmp_path, "ann")


async def sip(p: Player, seconds: float) -> None:
    """Read slowly for ``seconds``: a window's worth (the channel's) a quarter of a second."""
    channel = p.process.stdout.channel
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        channel.resume_reading()
        await p.pump(0.02)
        channel.pause_reading()  # (asyncssh drops what waits here if the channel closes)
        await asyncio.sleep(0.25)
    channel.resume_reading()


@pytest.mark.slow  # a server and a slow client waited out: CPU-heavy
def test_at_sigterm_a_client_reading_slowly_is_still_told(tmp_path: Path) -> None:
    # A client behind on its output got no farewell: the server exited as soon as the games
    # were scored, with the farewell still waiting behind what the client had not read.
    async def go(s: Server) -> None:
        async with await connect(s.port, "sid") as conn:
            p = await player(conn, (200, 60), window=512)
            await watch_best(p, "sid")
            await p.keys(b"+" * 25)  # more output than it reads: the game waits for it
            p.process.stdout.channel.pause_reading()
            await asyncio.sleep(1.5)
            await sip(p, 1)
            stopped = time.monotonic()
            s.proc.send_signal(signal.SIGTERM)
            await sip(p, 1)
            with contextlib.suppress(asyncssh.Error, ConnectionError):  # the server has gone
                while not p.process.stdout.at_eof() and time.monotonic() - stopped < 8:
                    await p.pump(0.2)
            assert b"the server is shutting down\r\n" in p.received  # a bot's game: not theirs
            await asyncio.to_thread(s.proc.wait, 10)
            assert time.monotonic() - stopped < 7

    with running(tmp_path, "--max-unsent", "4000") as s:
        run(go(s))
        assert s.proc.returncode == 0


@pytest.mark.slow
def test_at_sigterm_a_client_reading_slowly_all_along_has_its_game_ended(tmp_path: Path) -> None:
    # helper-53: a game waited on such a client up to --stall, past the server's 5 s, and
    # was never ended (nor, then, scored).
    async def go(s: Server) -> None:
        async with await connect(s.port, "zed") as conn:
            p = await player(conn, (200, 60), window=128)
            await watch_best(p, "zed")
            await p.keys(b"+" * 25)
            p.process.stdout.channel.pause_reading()
            await asyncio.sleep(1.5)
            for columns in (150, 200, 150, 200):  # whole redraws queued behind
                p.process.change_terminal_size(columns, 60)
                await sip(p, 0.7)
            s.proc.send_signal(signal.SIGTERM)
            with contextlib.suppress(asyncssh.Error, ConnectionError, OSError):
                await sip(p, 8)
            await asyncio.to_thread(s.proc.wait, 20)

    with running(tmp_path, "--max-unsent", "4000", "--stall", "30") as s:
        run(go(s))
        assert s.proc.returncode == 0
        ended_at_once(s, tmp_path, "zed")


def ended_at_once(s: Server, tmp_path: Path, name: str) -> None:
    """The visit of ``name``, watching a bot, ended before the server did: its leaving is
    logged, and the bot's game, which the stop cut short, is not scored."""
    log = s.log()
    assert f"termsnake serve: {name} left after " in log and "still running" not in log
    scores = tmp_path / "data" / "termsnake" / "serve" / "scores.json"
    assert not scores.exists() or '"player": "best"' not in scores.read_text()


@pytest.mark.slow  # a burst of requests, waited out: CPU-heavy
def test_a_reset_after_a_burst_of_requests_writes_a_line_or_two_to_the_log(
    tmp_path: Path,
) -> None:
    # asyncssh answered the requests it had read after the socket was gone, and asyncio
    # logged a warning for each write: thousands of lines a connection, without limit.
    async def burst(p: Player) -> None:
        channel = p.process.channel
        sent = [
            asyncio.ensure_future(channel._make_request(b"nonsense", String(b"z" * 10)))
            for _ in range(2000)
        ]
        await asyncio.sleep(0.01)
        for request in sent:
            request.cancel()  # their answers never come: the connection is reset below

    async def go(s: Server) -> None:
        conn = await connect(s.port, "spam")
        p = await player(conn)
        await p.wait_for("hello, spam")
        await burst(p)
        sock = conn.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport = conn._transport
        assert transport is not None
        transport.abort()  # a reset, at once
        await asyncio.sleep(2)
        async with await connect(s.port, "ada") as again:  # the server serves on
            await (await player(again)).wait_for("hello, ada")

    with running(tmp_path) as s:
        run(go(s))
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(10) == 0
        log = s.log()
    assert "socket.send() raised exception" not in log
    assert len(log.splitlines()) < 20


@pytest.mark.slow  # a client flooding keys for seconds: CPU-heavy
def test_a_flood_of_keys_is_held_back_by_the_window_and_the_player_plays_on(
    tmp_path: Path,
) -> None:
    # Keys over the input cap were dropped, but read as fast as they came: a paste without
    # end (200 MB a second) cost the server a core to decrypt, whoever else was playing.
    async def go(s: Server) -> None:
        async with await connect(s.port, "flo") as conn:
            p = await player(conn)
            await p.wait_for("hello, flo")
            sent, started = 0, time.monotonic()
            while time.monotonic() - started < 2:
                p.process.stdin.write(b"x" * 16384)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(p.process.stdin.drain(), 0.5)
                    sent += 16384  # it went: the server took it, or has room for it
                await p.pump(0.01)
            assert sent < 2**20
            await asyncio.sleep(1)  # what the window let through is read and dropped
            await p.keys(b"ss")
            await p.wait_for("> Watch a game in progress", 10)

    with running(tmp_path) as s:
        run(go(s))


@pytest.mark.slow  # a client flooding keys for seconds: CPU-heavy
def test_a_flood_of_keys_does_not_hold_the_game_even_with_the_input_rate_raised(
    tmp_path: Path,
) -> None:
    # blessed reads all that waits, a character at a time, in one key read: a client read as
    # fast as it sends would hold its game inside one, the snake moving unseen. Its flood
    # overflows the input cap, and the pause in reading it that follows ends that read.
    async def go(s: Server) -> None:
        async with await connect(s.port, "ann") as conn:
            p = await player(conn)
            await start_classic(p, "ann")
            await p.keys(b"d")
            await p.wait_steps(1)
            shown: set[int] = set()
            started = time.monotonic()
            # Until 5 counts were drawn while the flood came: held, it drew none. A loaded
            # machine draws fewer a second, so the flood lasts as long as it takes, up to 10 s.
            while len(shown) < 5 and time.monotonic() - started < 10:
                p.process.stdin.write(b"x" * 16384)  # no key: a paste's leftovers do nothing
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(p.process.stdin.drain(), 0.02)
                await p.pump(0.01)
                shown.add(steps_shown(p.text()))
            assert len(shown) >= 5, p.text()

    with running(tmp_path, "--max-input-rate", "100000000") as s:
        run(go(s))


@pytest.mark.slow
def test_a_client_that_closes_its_channel_in_a_flood_ends_its_visit(tmp_path: Path) -> None:
    # The server had stopped reading the flood, and did not read on once the channel was
    # closing: asyncssh never let go of it, and the bot played on for nobody for hours.
    async def go(s: Server) -> None:
        c1 = await connect(s.port, "bo")
        bo = await player(c1)
        await watch_best(bo, "bo")
        bo.process.stdin.write(b"x" * 60000)
        await asyncio.sleep(0.05)
        bo.process.channel.close()  # the session's channel only: the connection stays
        await asyncio.sleep(2)
        async with await connect(s.port, "cy") as c2:
            cy = await player(c2)
            await cy.wait_for("hello, cy")
            await cy.keys(b"ss\r")  # Watch a game in progress
            await cy.wait_for("Watch which game?")
            await cy.pump(0.5)
            assert "best on classic" not in cy.text()
        c1.close()

    with running(tmp_path) as s:
        run(go(s))
