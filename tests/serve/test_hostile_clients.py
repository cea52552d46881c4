"""Clients that attack the server's limits with what SSH lets them send: env requests by the
thousand, a window so large that the output piles up in the socket, a bot watched for hours."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import re
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import asyncssh
import blessed
import pytest
from asyncssh.packet import String
from ssh_client import Player, Server, connect, openssh, openssh_command, player, running

from termsnake.core.game import Game
from termsnake.core.level import open_level, with_length
from termsnake.serve import backlog
from termsnake.serve.limits import MAX_FAILED_TRIES, Options
from termsnake.serve.rates import meter
from termsnake.serve.server import App, Channel, Config, Connection
from termsnake.serve.visit import set_up

CLEAR = b"\x1b[2J"  # how every whole redraw begins (after the cursor's move home)


def run(coro: object) -> None:
    asyncio.run(coro)  # type: ignore[arg-type]


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * 4096 / 2**20


async def watch_best(p: Player, name: str) -> None:
    """From the lobby, watch best play classic."""
    await p.wait_for(f"hello, {name}")
    await p.keys(b"s\r")  # Watch a bot
    await p.wait_for("Watch which bot?")
    await p.keys(b"\r")
    await p.wait_for("plays which level?")
    await p.keys(b"\r")
    await p.wait_for("speed 8/s")


@pytest.mark.slow  # many SSH clients, one per request: CPU-heavy
def test_env_requests_are_refused_not_kept(tmp_path: Path) -> None:
    # asyncssh keeps every env request a session gets: 30 MB of them stayed in the server.
    async def go(s: Server) -> None:
        async with await connect(s.port, "eve") as conn:
            p = await player(conn)
            await p.wait_for("hello, eve")
            before = rss_mib(s.proc.pid)
            channel = p.process.channel
            value = String(b"v" * 30_000)
            for i in range(1000):
                channel._send_request(b"env", String(b"K%d" % i), value)
                if i % 100 == 99:
                    await asyncio.sleep(0.01)  # let the server keep up
            await p.keys(b"\x1b[B")  # the lobby still answers: all of them were handled
            await p.wait_for("> Watch a bot")
            assert rss_mib(s.proc.pid) - before < 15

    with running(tmp_path, "--max-input-rate", "100000000") as s:  # the rate cap aside
        run(go(s))


@pytest.mark.slow  # a visit played out to its time limit
def test_a_visit_ends_at_the_time_limit_and_bots_go_no_faster_than_60(tmp_path: Path) -> None:
    async def go(s: Server) -> None:
        async with await connect(s.port, "tim") as conn:
            p = await player(conn)
            await watch_best(p, "tim")
            await p.keys(b"+" * 30)
            await p.wait_for("speed 60/s")
            await asyncio.wait_for(p.process.wait_closed(), 20)
            await p.pump()
            assert b"this server ends a visit after 6 s\r\n" in p.received  # a bot's game

    with running(tmp_path, "--max-time", "6") as s:  # time for the menus on a slow machine
        run(go(s))


def test_output_waiting_in_the_socket_counts_as_unsent(tmp_path: Path) -> None:
    # With a window of 2 GiB the server's output passes the channel's buffer straight into the
    # socket's, where it piled up unnoticed by --max-unsent while the client read nothing.
    class Transport:
        def get_write_buffer_size(self) -> int:
            return 5_000_000

        def get_extra_info(self, name: str) -> None:
            return None  # no socket to ask the kernel about: asyncio's buffer alone

    class Conn:
        _transport = Transport()

    async def go() -> None:
        app = App(Config(scores=tmp_path / "scores.json"))
        connection = Connection(app)
        connection.conn = Conn()  # type: ignore[assignment]
        assert Channel(app, connection)._unsent() == 5_000_000

    run(go())


@pytest.mark.skipif(backlog.OUTQ is None, reason="the kernel's send queue is told on Linux")
def test_the_kernels_send_queue_is_counted() -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    peer = socket.create_connection(listener.getsockname())
    sock, _ = listener.accept()
    with listener, peer, sock:
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        sent = 0
        with contextlib.suppress(BlockingIOError):  # until the kernel takes no more
            for _ in range(1000):
                sent += sock.send(b"x" * 65536)
        # What the peer's small buffer holds is acknowledged: the rest waits in the queue.
        assert sent - 64 * 1024 < backlog.queued(sock) <= sent
        sock.close()
        assert backlog.queued(sock) == 0  # closed: nothing to ask


@pytest.mark.slow  # a client that stalls, waited out: CPU-heavy
@pytest.mark.skipif(backlog.OUTQ is None, reason="the kernel's send queue is told on Linux")
def test_a_client_that_stops_reading_at_the_tcp_level_is_dropped_after_stall(
    tmp_path: Path,
) -> None:
    # Its output piled up in the kernel's send queue (hundreds of KiB with --max-unsent at
    # 32 KiB), where only asyncio's buffer counted: its game ran on and it was never dropped.
    async def go(s: Server) -> None:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before the handshake
        sock.connect(("127.0.0.1", s.port))
        async with await connect(s.port, "tcp", sock=sock) as conn:
            p = await player(conn, window=2**31 - 1)
            await watch_best(p, "tcp")
            getattr(conn, "_transport").pause_reading()  # noqa: B009
            for n in range(50):  # each a whole redraw: far past 32 KiB, far short of the queue
                p.process.change_terminal_size(300 + n % 2, 100)
                await asyncio.sleep(0.06)
            await asyncio.sleep(3)  # the bot's next move waits for room --stall, then gives up

    with running(tmp_path, "--max-unsent", "32768", "--stall", "1") as s:
        run(go(s))
        s.proc.send_signal(signal.SIGTERM)
        log = s.log()
    assert re.search(r"tcp left after \d+ s: stalled", log), log


def test_a_storm_of_window_changes_wakes_the_game_once_per_settle(tmp_path: Path) -> None:
    # Each wake draws the whole screen: a client changing its window thousands of times a
    # second took the CPU the other players' frames needed.
    class Term:
        def __init__(self) -> None:
            self.wakes = 0
            self.size = (0, 0)

        def resize(self, width: int, height: int, *, wake: bool = True) -> None:
            self.size = (width, height)
            self.wakes += wake

        def wake(self) -> None:
            self.wakes += 1

    async def go() -> None:
        app = App(Config(scores=tmp_path / "scores.json"))
        channel = Channel(app, Connection(app))
        term = Term()
        channel.term = term  # type: ignore[assignment]
        for i in range(1000):
            channel.terminal_size_changed(100 + i % 2, 30, 0, 0)
        await asyncio.sleep(0.2)
        assert term.wakes == 1 and term.size == (101, 30)
        channel.terminal_size_changed(80, 24, 0, 0)  # a later change is drawn too
        await asyncio.sleep(0.2)
        assert term.wakes == 2 and term.size == (80, 24)

    run(go())


@pytest.mark.slow  # a client resizing for seconds: CPU-heavy
@pytest.mark.parametrize("where", [pytest.param("lobby", marks=pytest.mark.slow), "game"])
def test_window_changes_with_a_key_after_each_are_drawn_at_most_20_times_a_second(
    tmp_path: Path, where: str
) -> None:
    # The new size was the terminal's at once, so a key right after a window change drew the
    # screen whole at that size: resize and key pairs got a redraw each, not one per settle.
    async def go(s: Server) -> None:
        async with await connect(s.port, "rex") as conn:
            p = await player(conn)
            await p.wait_for("hello, rex")
            if where == "game":
                await p.keys(b"\r\r")  # Play a level: classic, waiting for a direction key
                await p.wait_for("a direction key starts")
            await p.pump(0.3)
            before, started = p.received.count(CLEAR), time.monotonic()
            for i in range(150):
                p.process.change_terminal_size(60 + i, 24)  # each settle finds a new size
                p.process.stdin.write(b"x")  # a key no screen takes: only a redraw
                await asyncio.sleep(0.005)
            seen = -1
            while seen != len(p.received):  # read until the redraws stop coming
                seen = len(p.received)
                await p.pump(0.3)
            redraws = p.received.count(CLEAR) - before
            assert 2 <= redraws <= 20 * (time.monotonic() - started) + 1

    with running(tmp_path) as s:
        run(go(s))


def test_a_window_change_before_the_shell_sets_the_size_the_visit_starts_at(
    tmp_path: Path,
) -> None:
    # helper-47: a change between the pty request and the shell was dropped, and the menu was
    # drawn for the first size until the next change.
    async def go() -> None:
        app = App(Config(scores=tmp_path / "scores.json"))
        channel = Channel(app, Connection(app))
        channel.terminal_size_changed(120, 40, 0, 0)  # no pty yet: nothing to size
        assert channel.size is None
        assert channel.pty_requested("xterm", (40, 12, 0, 0), None)
        channel.terminal_size_changed(120, 40, 0, 0)
        assert channel.size == (120, 40)

    run(go())


def test_a_connection_sending_too_much_is_not_read_for_the_rest_of_the_second() -> None:
    # helper-47: ignore messages, window changes and one-byte packets are no keys, so the
    # input cap never saw them: a flood of them took half a core and slowed every game.
    class Transport(asyncio.ReadTransport):
        def __init__(self) -> None:
            super().__init__()
            self.paused = self.resumed = 0

        def pause_reading(self) -> None:
            self.paused += 1

        def resume_reading(self) -> None:
            self.resumed += 1

        def is_closing(self) -> bool:
            return False

    class Conn:
        def __init__(self) -> None:
            self._transport = Transport()
            self.got = 0

        def data_received(self, data: bytes) -> None:
            self.got += len(data)

    async def go() -> None:
        conn, heard = Conn(), []
        loop = asyncio.get_running_loop()
        meter(conn, loop, 50_000, lambda: heard.append(True))  # type: ignore[arg-type]
        conn.data_received(b"x" * 1000)
        assert heard == [True] and conn._transport.paused == 0
        while conn.got <= 50_000:
            conn.data_received(b"x" * 1000)
        assert heard == [True] and conn._transport.paused >= 1  # what came is still read
        assert conn._transport.resumed == 0
        await asyncio.sleep(1.1)
        assert conn._transport.resumed >= 1

    run(go())


class Peer:
    """An asyncssh connection from 10.1.2.3 as far as ``Connection.connection_made`` uses
    one: it counts the bytes it receives (past the meter hooked in front of it)."""

    def __init__(self) -> None:
        self.got = 0

    def get_extra_info(self, name: str) -> tuple[str, int]:
        return ("10.1.2.3", 5555)

    def data_received(self, data: bytes) -> None:
        self.got += len(data)

    def send_userauth_failure(self, partial_success: bool) -> None:
        pass

    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def test_a_refused_connection_is_metered_too(tmp_path: Path) -> None:
    # helper-48: only admitted connections were; a refused one may talk for 5 s before it is
    # cut off, and up to --max-sessions of them at once.
    async def go() -> None:
        app = App(Config(Options(max_per_address=1), scores=tmp_path / "scores.json"))
        Connection(app).connection_made(Peer())  # type: ignore[arg-type]
        refused, conn = Connection(app), Peer()
        refused.connection_made(conn)  # type: ignore[arg-type]
        assert refused.refusal is not None
        assert conn.data_received.__name__ == "metered"  # the hook, not the method
        conn.data_received(b"x")
        assert conn.got == 1

    run(go())


def test_a_connection_dropped_for_its_rate_is_not_counted_as_refused(tmp_path: Path) -> None:
    # Dropped before the gate saw it: its end must not take a refusal off the gate's count.
    async def go() -> None:
        app = App(Config(Options(max_connect_rate=1), scores=tmp_path / "scores.json"))
        Connection(app).connection_made(Peer())  # type: ignore[arg-type]
        dropped = Connection(app)
        dropped.connection_made(Peer())  # type: ignore[arg-type]
        assert dropped.dropped and app.gate.total == 1
        dropped.connection_lost(None)
        assert app.gate.refused == 0 and app.gate.total == 1

    run(go())


def test_the_private_hooks_these_limits_use_are_still_there() -> None:
    # asyncssh and blessed offer no public way to do these; if an upgrade renames one, the
    # limit would silently stop holding.
    assert callable(asyncssh.SSHServerChannel._process_env_request)
    assert "self._transport = " in inspect.getsource(asyncssh.SSHServerConnection.connection_made)
    userauth = inspect.getsource(asyncssh.SSHServerConnection._process_userauth_request)
    assert "if username != self._username:" in userauth
    # Every failed login try is answered through the connection's send_userauth_failure.
    assert "conn.send_userauth_failure(" in inspect.getsource(asyncssh.auth.lookup_server_auth)
    assert "send_userauth_failure(" in inspect.getsource(asyncssh.auth.ServerAuth.send_failure)
    assert callable(blessed.Terminal._apply_errant_response)
    assert "self._keyboard_buf" in inspect.getsource(blessed.Terminal.__init__)


async def _silent(port: int, prefix: str, count: int) -> list[asyncio.StreamWriter]:
    """``count`` TCP connections that send nothing, each from its own address under
    ``prefix`` (127.x.y)."""
    writers = []
    for i in range(1, count + 1):
        _, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(f"{prefix}.{i}", 0)
        )
        writers.append(writer)
    return writers


@pytest.mark.parametrize(
    "player_first",
    [pytest.param(False, marks=pytest.mark.slow), True],  # both orders: one in the default run
    ids=["silent-first", "player-first"],
)
def test_silent_connections_from_many_addresses_do_not_keep_a_player_out(
    tmp_path: Path, player_first: bool
) -> None:
    # TCP connections that never send a byte, three from each of 22 addresses, held every
    # place for the login time: a player was told the server was full. Then (helper-47) a
    # stream of them pushed out the longest waiting, a player in the middle of logging in among
    # them: they push out only each other now.
    async def go(s: Server) -> None:
        silent = [] if player_first else await _silent(s.port, "127.0.1", 6)
        try:
            async with await connect(s.port, "ada") as conn:  # logged in, no game yet
                if player_first:
                    silent = await _silent(s.port, "127.0.2", 8)
                    await asyncio.sleep(0.3)
                p = await player(conn)
                await p.wait_for("hello, ada")
        finally:
            for writer in silent:
                writer.close()

    with running(tmp_path, "--max-sessions", "3", "--max-per-address", "1") as s:
        run(go(s))


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")
def test_a_connection_pushed_out_for_a_newcomer_is_told_why(tmp_path: Path) -> None:
    # It was reset with no word: ssh said "Connection to 127.0.0.1 closed by remote host."
    with running(tmp_path, "--max-sessions", "1") as s:
        # Logged in, no game yet (-N): it waits, and is the one let go for the next.
        ssh = subprocess.Popen(
            openssh_command(s.port, "ada@127.0.0.1", "-N", "-v"),
            stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        assert ssh.stderr is not None
        killer = threading.Timer(20, ssh.kill)  # if it never logs in, or is never let go
        killer.start()
        try:
            while "Authenticated to" not in (line := ssh.stderr.readline()):
                assert line, "ssh never logged in"
            newcomer = socket.create_connection(("127.0.0.1", s.port))
            said = ssh.stderr.read()
            newcomer.close()
        finally:
            killer.cancel()
            ssh.stderr.close()
        assert ssh.wait(10) == 255
        assert "Received disconnect from 127.0.0.1 port" in said
        assert "too many connections are logging in at once; try again" in said
        s.proc.send_signal(signal.SIGTERM)
        assert s.proc.wait(10) == 0
        log = s.log().splitlines()
    # The operator's log says it too (the first refusal or cut off of 127.0.0.1).
    cut = [line for line in log if "127.0.0.1" in line]
    assert cut[0] == (
        "termsnake serve: 127.0.0.1 (ada) cut off: pushed out while logging in (too many at once)"
    )


async def _probe(port: int) -> tuple[bytes, bool]:
    """A client's version sent to the server (its KEXINIT, the key exchange's start, is
    next): what comes back, and whether the server closed within 3 s."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"SSH-2.0-probe\r\n")
    got = b""
    try:
        while chunk := await asyncio.wait_for(reader.read(4096), 3):
            got += chunk
        return got, True
    except ConnectionError:
        return got, True
    except TimeoutError:
        return got, False
    finally:
        writer.close()


@pytest.mark.parametrize(
    "limit",
    [None, pytest.param(3, marks=pytest.mark.slow)],  # the option's own: the slow step
    ids=["default", "max-connect-rate-3"],
)
def test_an_address_opening_connection_after_connection_is_dropped_before_key_exchange(
    tmp_path: Path, limit: int | None
) -> None:
    # One address could open connection after connection (each closed in turn, so that
    # --max-per-address never saw many at once), and the server paid for a key exchange each.
    async def go(s: Server) -> None:
        for i in range(100 if limit is None else limit):  # far past the default, in a moment
            if i < 3:
                async with await connect(s.port, f"kit{i}"):  # logged in, then closed
                    pass
            else:
                (await asyncio.open_connection("127.0.0.1", s.port))[1].close()
        got, closed = await _probe(s.port)
        assert closed and not got.partition(b"\r\n")[2]  # its version at most, no key exchange
        with pytest.raises((asyncssh.Error, OSError)):
            await connect(s.port, "kit")
        async with await connect(s.port, "kit", local_addr=("127.0.4.1", 0)) as conn:
            p = await player(conn)  # another address has its own count
            await p.wait_for("hello, kit")

    args = () if limit is None else ("--max-connect-rate", str(limit))
    with running(tmp_path, *args) as s:
        run(go(s))


def test_a_connection_offering_key_after_key_is_closed(tmp_path: Path) -> None:
    # asyncssh sets no limit on tries; each unknown key cost the loop a check.
    closed: list[str] = []

    class Conn:
        def is_closed(self) -> bool:
            return bool(closed)

        def disconnect(self, code: int, reason: str) -> None:
            closed.append(reason)

    async def go() -> None:
        connection = Connection(App(Config(scores=tmp_path / "scores.json")))
        connection.conn = Conn()  # type: ignore[assignment]
        key = asyncssh.generate_private_key("ssh-ed25519")
        for _ in range(5):
            assert connection.validate_public_key("eve", key) is False
        await asyncio.sleep(0)
        assert not closed  # a client may try a few keys of its agent
        assert connection.validate_public_key("eve", key) is False
        await asyncio.sleep(0)
        assert closed == ["termsnake: too many failed login tries"]

    run(go())


@dataclasses.dataclass(frozen=True)
class Keyed:
    """A server that admits one key (--authorized-keys), and that key's private file."""

    server: Server
    key: Path


@pytest.fixture(scope="module")
def keyed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Keyed]:
    """The module's server that wants a key: its tests are each a connection or two that fail
    to log in, or log in and leave, and no test's limit or log is another's."""
    tmp = tmp_path_factory.mktemp("keyed")
    key = tmp / "held"
    asyncssh.generate_private_key("ssh-ed25519").write_private_key(key)
    key.chmod(0o600)  # ssh uses no private key others may read
    (tmp / "authorized").write_bytes(asyncssh.read_private_key(key).export_public_key())
    with running(tmp, "--authorized-keys", str(tmp / "authorized")) as s:
        yield Keyed(s, key)


@pytest.mark.skipif(shutil.which("ssh") is None, reason="no OpenSSH client here")
def test_ssh_offering_keys_the_server_does_not_hold_is_told_at_the_sixth(
    tmp_path: Path, keyed: Keyed
) -> None:
    # At the sixth, the keys' limit and that on failures of any kind (ssh's "none" first) were
    # reached together, and the keys' bare close won: "11: Disconnected by application".
    keys = []
    for i in range(6):
        key = asyncssh.generate_private_key("ssh-ed25519")
        keys.append(tmp_path / f"key{i}")
        key.write_private_key(keys[-1])
        keys[-1].chmod(0o600)
    keys.append(keyed.key)  # the one held, last
    port = keyed.server.port
    cut = openssh(port, "ada@127.0.0.1", "-T", keys=keys)  # 6 unknown, then it
    assert cut.returncode == 255
    assert "Received disconnect from 127.0.0.1 port" in cut.stderr
    assert "too many failed login tries" in cut.stderr
    within = openssh(port, "ada@127.0.0.1", "-T", keys=keys[1:])  # 5 unknown, then it
    assert "termsnake needs a terminal" in within.stdout, within.stderr


def refused(
    keyed: Keyed, client: type[asyncssh.SSHClient], error: type[Exception], match: str
) -> None:
    """``client``, logging in as "ada" with no keys to a server that wants one (--authorized-keys),
    is refused with ``error`` saying ``match``."""

    async def go() -> None:
        with pytest.raises(error, match=match):
            await asyncssh.create_connection(
                client, "127.0.0.1", keyed.server.port, username="ada", known_hosts=None,
                client_keys=None, agent_path=None,
            )  # fmt: skip

    run(go())


def try_none(conn: asyncssh.SSHClientConnection, user: bytes) -> None:
    """Send a login try with no key and no password ("none") as ``user``, as ssh's first."""
    conn.send_packet(
        asyncssh.constants.MSG_USERAUTH_REQUEST,
        String(user), String(b"ssh-connection"), String(b"none"),
    )  # fmt: skip


def test_a_connection_changing_its_user_name_while_logging_in_is_closed(keyed: Keyed) -> None:
    # asyncssh asked begin_auth again at each new name, rebuilding the connection's options in
    # a thread each time: one client changing names at each try kept a core half busy.
    class Renaming(asyncssh.SSHClient):
        def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
            self.conn = conn

        async def public_key_auth_requested(self) -> None:
            # Its first try, as "ada", has failed: it tries again as "bob".
            try_none(self.conn, b"bob")
            await asyncio.sleep(5)  # the server's answer ends the connection (or not)

    refused(keyed, Renaming, asyncssh.IllegalUserName, "may not change while logging in")


def test_a_connection_failing_try_after_try_is_disconnected(keyed: Keyed) -> None:
    # asyncssh answered "none" tries (no key, no password) without end: at the rate cap, one
    # connection sending them kept a third of a core busy for the login time.
    class Trying(asyncssh.SSHClient):
        def connection_made(self, conn: asyncssh.SSHClientConnection) -> None:
            self.conn = conn
            self.sent = False

        async def public_key_auth_requested(self) -> None:
            # Asked again at each failure; its first try, as "ada", has failed already. Just
            # enough tries for the limit: one more would meet the closed socket (a broken pipe
            # here, on a busy machine, before the server's word is read).
            for _ in range(0 if self.sent else MAX_FAILED_TRIES - 1):
                self.sent = True
                try_none(self.conn, b"ada")
            await asyncio.sleep(5)  # the server's answer ends the connection (or not)

    refused(keyed, Trying, asyncssh.PermissionDenied, "too many failed login tries")


def test_visits_setting_a_bot_up_on_one_board_at_once_do_it_one_at_a_time() -> None:
    # 21 visits choosing best on pillars together each did the set-up's work (15 s of CPU in
    # the one interpreter that also draws every player's frames).
    running_now, most = [0], [0]
    lock = threading.Lock()
    meet = threading.Barrier(2, timeout=10)

    class Slow:
        def setup(self, game: Game) -> None:
            if game.board.name != "pillars":
                meet.wait()  # both boards' set-ups run at once, or this breaks
                return
            with lock:
                running_now[0] += 1
                most[0] = max(most[0], running_now[0])
            time.sleep(0.05)
            with lock:
                running_now[0] -= 1

    def visit(board: str) -> None:
        game = Game(with_length(open_level(8, 8, 1), 1), 1)
        game.board = dataclasses.replace(game.board, name=board)
        set_up(Slow(), game, "slow")  # type: ignore[arg-type]

    threads = [threading.Thread(target=visit, args=("pillars",)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert most[0] == 1
    threads = [threading.Thread(target=visit, args=(b,)) for b in ("maze", "rooms")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert not meet.broken  # other boards did not wait for each other
