"""The SSH server's connections and sessions (``listen.serve`` runs them): asyncssh on one event
loop, one thread per visit drawing on its channel; what they do is logged (``events``).

Only interactive shells with a pty get in (a command is told so, in a line); subsystems
(sftp), forwarding and X11 are refused. Each limit a client controls is bounded here:
connections in all and per address (Gate), new connections an address opens a minute and bytes
a connection sends a second (rates), login time, keepalives, unread output (ChannelOutput),
pending input and window size (ChannelTerminal), time without a key (Visit); their values are
all in ``termsnake.serve.limits``.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import asyncssh
from asyncssh.packet import SSHPacket

from termsnake.formats.places import data_dir
from termsnake.formats.scores import ScoreStore
from termsnake.serve import backlog, events, limits
from termsnake.serve.farewell import FAILED, QUIT, Ending, ended_by
from termsnake.serve.gate import LET_GO, PUSHED_OUT, Gate, Stage
from termsnake.serve.hostkey import note_login_key
from termsnake.serve.hub import Hub
from termsnake.serve.rates import Arrivals, cap_failures, client_of, meter, too_many_tries
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.serve.visit import Visit
from termsnake.tui.controllers import KEY_PRESETS

NO_PTY: Final = "termsnake needs a terminal and runs no commands: use ssh -t, no command\r\n"
NAME_CHANGED: Final = "termsnake: the user name may not change while logging in"
KEYS_VARIABLE: Final = b"TERMSNAKE_KEYS"


@dataclass(frozen=True, slots=True)
class Config:
    """How the server runs: the command line's options, the keys they name, the scores file
    and what to say once listening."""

    options: limits.Options = limits.DEFAULTS
    host_key: asyncssh.SSHKey | None = None
    authorized_keys: asyncssh.SSHAuthorizedKeys | None = None
    scores: Path = field(default_factory=lambda: data_dir() / "serve" / "scores.json")
    notes: tuple[str, ...] = ()  # said once listening (the "listening on" line comes first)
    bots: tuple[str, ...] = ()  # the lobby's bots: those that load (commands/serve finds them)


class App:
    """The server's state: the gate, the hub, and every visit under way."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.gate = Gate(config.options.max_sessions, config.options.max_per_address)
        self.arrivals = Arrivals(config.options.max_connect_rate)
        self.hub = Hub(ScoreStore(config.scores))
        self.tally = events.Tally()
        self.visits_log = events.Visits()
        self.visits: set[Visit] = set()
        self.threads: set[threading.Thread] = set()
        self.channels: set[Channel] = set()  # those whose visit began, until they close
        self.lock = threading.Lock()
        self.stopping = False  # the server is going down: a visit that begins now ends at once

    def stop_all(self, saves_by: float) -> None:
        """Tell every visit the server is going down, and every one that begins from now on;
        their scores and key presets are given up if their files stay locked till ``saves_by``
        (``time.monotonic``)."""
        self.hub.give_up_saving_at(saves_by)
        with self.lock:
            self.stopping = True
            for visit in self.visits:
                visit.stop(signal.SIGTERM)


class Connection(asyncssh.SSHServer):
    """One client connection: admitted by the gate, authenticated as configured, and closed
    unless it starts its one game within the login time (or, refused, once it is told why)."""

    def __init__(self, app: App) -> None:
        self.app = app
        self.address = ""  # as the limits count it (an IPv6 client by its /64)
        self.peer = "?"  # as the log names it when it logs in
        self.told = False  # its refusal, or its end before a game, is in the log's tally
        self.began = False  # its game has started
        self.refusal: str | None = None
        self.admitted = False
        self.dropped = False  # unanswered, the gate never asked
        self.failed_keys = 0
        self.username: str | None = None  # the name it logs in as, once it has asked
        self.key: str | None = None  # the key it logged in with, as the log names it
        self.conn: asyncssh.SSHServerConnection | None = None
        self.sessions = 0
        self.timer: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        # asyncssh asks begin_auth only for a name other than the last, which starts as '':
        # an empty name (ssh -l '') was refused unasked. No client can send NUL (saslprep).
        setattr(conn, "_username", "\0")  # noqa: B010
        peer = conn.get_extra_info("peername")
        self.peer = str(peer[0]) if peer else "?"
        self.address = client_of(self.peer)
        self.conn = conn
        loop = asyncio.get_running_loop()
        if not self.app.arrivals.allow(self.address, loop.time()):
            # Before the key exchange, which is what an address opening connection after
            # connection makes the server pay for. No word: a disconnect message here is mostly
            # lost, as ssh writes its key exchange first and meets the reset (README).
            self.dropped = True
            self.tell(events.TOO_FAST)
            loop.call_soon(conn.abort)
            return
        gate = self.app.gate
        self.refusal, pushed_out = gate.admit(self, self.address)
        self.admitted = self.refusal is None  # counted by the gate until it closes
        if self.refusal is not None:
            self.tell(events.TOO_MANY_HERE)
        if isinstance(pushed_out, Connection) and pushed_out.conn is not None:
            # Waited longest of those that got least far. Told why in one packet (no key
            # exchange; before one, not even encrypted), which ssh prints if it was waiting
            # for the server (logged in, in the handshake); closed at once all the same.
            pushed_out.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, PUSHED_OUT)
            pushed_out.tell(events.PUSHED_OUT)
        # Refused ones too: they may talk until they are cut off.
        rate = self.app.config.options.max_input_rate
        meter(conn, loop, rate, lambda: gate.advance(self, Stage.HEARD))
        cap_failures(conn, limits.MAX_FAILED_TRIES, lambda: self.tell(events.FAILED_LOGINS))
        if self.app.config.authorized_keys is not None:
            note_login_key(conn, self._logged_in_with)
        if self.refusal is not None and gate.crowded():
            loop.call_soon(conn.abort)  # a flood of refused connections: no word for each
            return
        # A client that logs in and opens nothing (ssh -N) would hold its place for ever.
        wait = self.app.config.options.login_timeout
        if self.refusal is not None:
            wait = min(wait, limits.REFUSED_GRACE)
        self.timer = loop.call_later(wait, self._time_up)

    def _logged_in_with(self, key: str) -> None:
        self.key = key

    def _time_up(self) -> None:
        self.tell(events.LOGIN_TIMEOUT)
        if self.conn is not None:
            self.conn.close()

    def tell(self, why: events.Why) -> None:
        """Count the connection's refusal, or its end before a game, in the log (once)."""
        if not self.told:
            self.told = True
            self.app.tally.add(self.address, why, self.username)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.timer is not None:
            self.timer.cancel()
        if not self.began:
            self.tell(events.NO_GAME)
        if self.admitted:
            self.app.gate.release(self)
        elif not self.dropped:
            self.app.gate.release_refused()

    def start(self) -> str | None:
        """Start the connection's game, which may then last past the login time; or why not
        (the server is full: the places count games, not connections waiting for one)."""
        if self.refusal is not None:
            return self.refusal
        self.refusal = self.app.gate.start(self)
        self.began = self.refusal is None
        if self.refusal is not None:
            self.tell(events.PUSHED_OUT if self.refusal == LET_GO else events.FULL)
        elif self.timer is not None:
            self.timer.cancel()
            self.timer = None
        return self.refusal

    def begin_auth(self, username: str) -> bool:
        # asyncssh asks again at each new name and rebuilds the connection's options in a
        # thread first: a client changing it at every try kept that up all the login time.
        if self.username is not None:
            self.tell(events.NAME_CHANGED)
            raise asyncssh.IllegalUserName(NAME_CHANGED)
        self.username = username
        self.app.gate.advance(self, Stage.AUTHENTICATING)
        return self.app.config.authorized_keys is not None  # False: anyone, any name

    def public_key_auth_supported(self) -> bool:
        return self.app.config.authorized_keys is not None

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # asyncssh asks only for keys not in --authorized-keys. Each costs the loop a check,
        # and asyncssh sets no limit: a client may try as many as OpenSSH allows. (cap_failures
        # counts ssh's first "none" too; this holds one that skips it to 6 keys as well.)
        self.failed_keys += 1
        if self.failed_keys >= limits.MAX_AUTH_TRIES and self.conn is not None:
            self.tell(events.FAILED_LOGINS)
            too_many_tries(self.conn)
        return False

    def password_auth_supported(self) -> bool:
        return False

    def server_requested(self, listen_host: str, listen_port: int) -> bool:
        return False

    def session_requested(self) -> asyncssh.SSHServerSession[bytes] | bool:
        # One session a connection: the gate counts connections, and each session is a game.
        self.sessions += 1
        return Channel(self.app, self) if self.sessions == 1 else False


class Channel(asyncssh.SSHServerSession[bytes]):
    """One SSH session: a pty shell running a Visit in a thread of its own."""

    def __init__(self, app: App, conn: Connection) -> None:
        self.app = app
        self.conn = conn
        self.chan: asyncssh.SSHServerChannel[bytes] | None = None
        self.size: tuple[int, int] | None = None  # the last the client gave (from its pty)
        self.term: ChannelTerminal | None = None
        self.loop = asyncio.get_running_loop()
        # Frames handed over by the visit's thread and not yet written: under load the loop
        # writes several at once, in one packet, and is woken once for them.
        self.pending: list[bytes] = []
        self.queued = 0  # their bytes
        self.flushing = False  # a flush is scheduled on the loop
        self.pending_lock = threading.Lock()
        self.resizing = False  # a wake for the window's new size is scheduled
        self.lost = False  # the channel is gone (asyncssh has let go of it)
        self.keys: str | None = None  # the key preset the client asked for (TERMSNAKE_KEYS)
        self.kind = ""  # the client's terminal type (TERM), cut short: read by the visit

    def connection_made(self, chan: asyncssh.SSHServerChannel[bytes]) -> None:
        self.chan = chan
        # asyncssh keeps every env request a client sends, with no cap (a client could fill the
        # memory with them), and offers no option against it; the game reads one variable.
        setattr(chan, "_process_env_request", self._env_request)  # noqa: B010

    def _env_request(self, packet: SSHPacket) -> bool:
        """TERMSNAKE_KEYS naming a key preset (ssh -o SetEnv=TERMSNAKE_KEYS=azerty) is kept;
        any other variable is refused."""
        name, value = packet.get_string(), packet.get_string()
        packet.check_end()
        keys = value.decode("ascii", "replace").lower()
        if name != KEYS_VARIABLE or keys not in KEY_PRESETS:
            return False
        self.keys = keys
        return True

    def pty_requested(
        self, term_type: str, term_size: tuple[int, int, int, int], term_modes: object
    ) -> bool:
        self.size = (term_size[0] or 80, term_size[1] or 24)
        # Cut to bound what is kept: still longer than terminfo.NAME allows, so never looked up.
        self.kind = term_type[:80]
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.size = None  # told in words, as a client without a pty is, not "request failed"
        return True

    def subsystem_requested(self, subsystem: str) -> bool:
        return False

    def session_started(self) -> None:
        assert self.chan is not None
        refusal = self.conn.refusal if self.size is None else self.conn.start()
        if self.size is None or refusal is not None:
            self.conn.tell(events.NO_TERMINAL)  # a refusal is told already: counted once
            self.chan.write((NO_PTY if refusal is None else f"termsnake: {refusal}\r\n").encode())
            self.chan.exit(1)
            return
        options = self.app.config.options
        out = ChannelOutput(self._send, self._unsent, options.max_unsent, options.stall)
        self.term = ChannelTerminal(out, self.size)
        thread = threading.Thread(target=self._visit, args=(out,), daemon=True)
        with self.app.lock:
            self.app.threads.add(thread)
        self.app.channels.add(self)
        thread.start()

    def data_received(self, data: bytes, datatype: int | None) -> None:
        if self.term is not None and not self.term.feed(data) and self.chan is not None:
            # A flood: stop reading a while, so that the client's SSH window holds it back
            # instead of the server decrypting, at a core's cost, what it would drop.
            self.chan.pause_reading()
            self.loop.call_later(limits.INPUT_PAUSE, self._resume_reading)

    def _resume_reading(self) -> None:
        # Even on a closing channel: asyncssh lets go of it (connection_lost, which ends the
        # visit) only once what it holds back has been read.
        if self.chan is not None and not self.lost:
            self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        # A new size draws the screen whole on any draw (a key's, a move's): the visit gets
        # one per RESIZE_SETTLE, the last, however many changes and keys come between.
        if self.term is None:
            if self.size is not None:  # after the pty, before the shell: the size to start at
                self.size = (width or 80, height or 24)
            return
        self.size = (width, height)
        if not self.resizing:
            self.resizing = True
            self.loop.call_later(limits.RESIZE_SETTLE, self._resized)

    def _resized(self) -> None:
        self.resizing = False
        if self.term is not None and self.size is not None:
            self.term.resize(*self.size)

    def eof_received(self) -> bool:
        # Half-open: the keys sent before the EOF are still read and answered (``printf q |
        # ssh -tt``); the visit ends, and closes the channel, once they are.
        if self.term is not None:
            self.term.close()
            return True
        return False

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self.app.channels.discard(self)
        if self.term is not None:
            self.term.close()

    # -- called from the visit's thread ------------------------------------------------------

    def _send(self, text: str) -> None:
        data = text.replace("\n", "\r\n").encode("utf-8", "replace")
        with self.pending_lock:
            self.pending.append(data)
            self.queued += len(data)
            if self.flushing:
                return
            self.flushing = True
        self.loop.call_soon_threadsafe(self._flush)

    def _flush(self) -> None:
        with self.pending_lock:
            data = b"".join(self.pending)
            self.pending.clear()
            self.queued = 0
            self.flushing = False
        if self.chan is not None and not self.chan.is_closing():
            self.chan.write(data)

    def _unsent(self) -> int:
        chan = self.chan
        unsent = self.queued + (chan.get_write_buffer_size() if chan is not None else 0)
        return unsent + backlog.unsent(self.conn.conn)  # the socket's, and the kernel's

    def _visit(self, out: ChannelOutput) -> None:
        """The visit's thread, in three stages: it arrives (named, counted, in the log), runs
        (the lobby and its games, until the player quits or a limit, the client or the server
        ends it: ``farewell.ended_by`` says how) and leaves (in the log, told why, closed)."""
        assert self.term is not None
        visit = self._arrive(out)
        ending, drawn = QUIT, False  # drawn: what the screen is set to must be undone at the end
        try:
            self.term.suit(self.kind)  # reads terminfo: here, not on the event loop
            drawn = True
            out.write(self.term.enter_fullscreen + self.term.hide_cursor)
            visit.run()
        except Exception as e:
            known = ended_by(e, visit, out, self.app.config.options.max_time)
            if known is None:
                self.app.visits_log.failed(visit.name, traceback.format_exc())
            ending = known or FAILED
            if ending.drop:
                self.loop.call_soon_threadsafe(self._abort)
        finally:
            self._leave(visit, ending, drawn)

    def _arrive(self, out: ChannelOutput) -> Visit:
        """The client's Visit under a name of its own, counted among those under way and said
        in the log; stopped at once if the server has begun to stop."""
        assert self.term is not None
        name = self.app.hub.claim_name(self.conn.username or "")
        config = self.app.config
        visit = Visit(self.app.hub, self.term, out, name, config.options, config.bots, self.keys)
        conn = self.conn
        with self.app.lock:
            self.app.visits.add(visit)
            # Counted here, not as its line is said: "stopped" may come between the two.
            self.app.visits_log.arrived()
            # Said under the lock the count is taken under, as is its leaving: the lines'
            # counts then go in the log's order.
            self.app.visits_log.logged_in(
                name, conn.username, conn.peer, len(self.app.visits), conn.key
            )
            if self.app.stopping:  # logged in as the server began to stop: told so at once
                visit.stop(signal.SIGTERM)
        return visit

    def _leave(self, visit: Visit, ending: Ending, drawn: bool) -> None:
        """Let the visit's name go and say in the log that it left; then, whatever failed in
        that, tell the client ``ending``'s farewell, close the channel, let the thread go."""
        assert self.term is not None
        try:
            try:
                self.app.hub.release_name(visit.name)
            finally:
                # Before the thread is let go: at shutdown the server waits for it, and its
                # line (said even if the name could not be let go).
                with self.app.lock:
                    self.app.visits.discard(visit)
                    took, playing = time.monotonic() - visit.started, len(self.app.visits)
                    self.app.visits_log.left(visit.name, took, ending.why, playing)
        except Exception:
            # In the log, escaped, as any failure of a session: the thread's own hook would
            # print a raw traceback on the operator's terminal.
            self.app.visits_log.failed(visit.name, traceback.format_exc())
        finally:
            # Whatever failed above: the client is still told and closed, and shutdown
            # does not wait its whole time for a thread that is done.
            undone = self.term.leaving() if drawn else ""
            text = undone + (f"{ending.farewell}\r\n" if ending.farewell else "")
            try:
                with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                    self.loop.call_soon_threadsafe(self._close, text, ending.status)
            finally:
                with self.app.lock:
                    self.app.threads.discard(threading.current_thread())

    def _abort(self) -> None:
        if self.chan is not None:
            self.chan.abort()

    def _close(self, text: str, status: int) -> None:
        if self.chan is not None and not self.chan.is_closing():
            self.chan.write(text.encode())
            self.chan.exit(status)
        if self.conn.conn is not None:  # the game was the connection's one session
            self.loop.call_later(
                min(limits.REFUSED_GRACE, self.app.config.options.login_timeout),
                self.conn.conn.close,
            )
