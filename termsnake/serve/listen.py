"""The server's listening: asyncssh's server with the connections of ``server``, until SIGTERM
or SIGINT; then every visit is ended, its client told and waited for a while."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys
import time
from collections.abc import Callable
from types import FrameType
from typing import Final

import asyncssh

from termsnake.exits import Handler, heard
from termsnake.serve import limits
from termsnake.serve.address import CannotListen, reached_at, why_not, with_port
from termsnake.serve.output import Output
from termsnake.serve.server import App, Channel, Config, Connection

log = logging.getLogger("termsnake.serve")

# No chacha20-poly1305 and no umac, which OpenSSH clients would pick first: asyncssh builds
# chacha20 from several cipher objects a packet and umac is slower than HMAC-SHA2, while
# AES-GCM, or AES-CTR with HMAC-SHA2, is one or two calls into OpenSSL (docs/tuning.md).
CIPHERS: Final = (
    "aes128-gcm@openssh.com", "aes256-gcm@openssh.com", "aes128-ctr", "aes192-ctr", "aes256-ctr",
)  # fmt: skip
MACS: Final = ("hmac-sha2-256-etm@openssh.com", "hmac-sha2-512-etm@openssh.com",
               "hmac-sha2-256", "hmac-sha2-512")  # fmt: skip


def stops(stopping: list[int], wake: Callable[[], None] = lambda: None) -> dict[int, Handler]:
    """The server's signal handlers: each notes its signal in ``stopping``, which the server
    looks at, then calls ``wake``, and raises nothing. Every signal that would kill the server
    unscored stops it as SIGTERM does. Others than SIGTERM and SIGINT (``ALWAYS_STOP``) ignored
    already stay so: nohup's SIGHUP (the server outlives the terminal it was started from),
    the SIGQUIT a shell's `&` ignores."""

    def noted(signum: int, frame: FrameType | None) -> None:
        stopping.append(signum)
        wake()

    return dict.fromkeys({*heard(), *limits.ALWAYS_STOP}, noted)


async def serve(
    config: Config,
    ready: asyncio.Event | None = None,
    output: Output | None = None,
    stopping: list[int] | None = None,
) -> None:
    """Run the server until SIGTERM or SIGINT; every player is told, and scores are kept.
    Its lines go to ``output`` (the log's handler writes there too), else to sys.stdout.
    ``stopping``: the signals noted by ``stops``'s handlers, set before the loop started."""
    # Taken now: while a visit's plugin bot runs, sys.stdout is the plugins' sink (which would
    # swallow "stopped" if a bot is still thinking as the server stops).
    output = output if output is not None else Output(sys.stdout, sys.stderr)
    app = App(config)
    options: dict[str, object] = {}
    if config.authorized_keys is not None:
        options["authorized_client_keys"] = config.authorized_keys
    try:
        server = await asyncssh.create_server(
            lambda: Connection(app),
            config.options.host,
            config.options.port,
            server_host_keys=[config.host_key],
            encryption_algs=CIPHERS,
            mac_algs=MACS,
            encoding=None,
            line_editor=False,
            agent_forwarding=False,
            x11_forwarding=False,
            allow_scp=False,
            login_timeout=config.options.login_timeout,
            keepalive_interval=limits.KEEPALIVE_INTERVAL,
            keepalive_count_max=limits.KEEPALIVE_COUNT_MAX,
            window=limits.INPUT_WINDOW,
            **options,
        )
    except OSError as e:  # only here: an OSError later is no failure to listen
        raise CannotListen(why_not(e, config.options.host, config.options.port)) from e
    # A plain handler that notes the signal, then wakes the loop, and a look every 0.2 s, not
    # loop.add_signal_handler: under load the threads' call_soon_threadsafe fill the loop's
    # wake-up pipe, and a signal sent through it would be lost; a wake-up lost there only
    # leaves the note to the next look. Set before "listening" is said, which a supervisor may
    # answer with a signal.
    stopping = [] if stopping is None else stopping
    stirred = asyncio.Event()  # set by the handlers: a signal need not wait for the next look
    for signum, handler in stops(stopping, _waker(stirred)).items():
        signal.signal(signum, handler)
    sockets = server.sockets or []
    port = sockets[0].getsockname()[1] if sockets else config.options.port
    where = config.options.host
    said = [f"listening on {with_port(where, port)}; "
            f"connect with: ssh -p {port} NAME@{reached_at(where)}"]  # fmt: skip
    if config.host_key is not None:  # what ssh shows a client the first time, as ssh-keygen -lf
        key = config.host_key
        said.append(f"host key {key.get_fingerprint()} ({key.get_algorithm()})")
    for line in said:  # never waits for its reader, nor stops the server if it went away
        output.say(f"termsnake serve: {line}")
    for note in config.notes:
        log.info("%s", note)
    if ready is not None:
        ready.set()
    while not stopping:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stirred.wait(), 0.2)
        app.tally.flush()
        app.visits_log.flush()
    await _shut_down(app, server, output)


def _waker(stirred: asyncio.Event) -> Callable[[], None]:
    """What sets ``stirred`` on the running loop from a signal handler, as asyncio's own
    Ctrl-C handler wakes its loop; nothing once the loop has closed."""
    loop = asyncio.get_running_loop()

    def wake() -> None:
        with contextlib.suppress(RuntimeError):  # the loop has closed: nothing waits
            loop.call_soon_threadsafe(stirred.set)

    return wake


async def _shut_down(app: App, server: asyncssh.SSHAcceptor, output: Output) -> None:
    """Stop every visit and let its client be told, within SHUTDOWN_WAIT; the last lines."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limits.SHUTDOWN_WAIT
    app.stop_all(time.monotonic() + limits.SHUTDOWN_WAIT - limits.SAVE_MARGIN)
    server.close()
    while app.threads and loop.time() < deadline:
        await asyncio.sleep(0.05)
    await _farewells(app, deadline)
    app.tally.flush(force=True)
    app.visits_log.flush(force=True)
    # The last line: a visit that has not ended yet (a bot still thinking) would log its leaving
    # after it, as the process exits; it is counted here instead.
    running = app.visits_log.close()
    app.hub.key_presets.close()
    app.hub.score_trouble.close()
    still = (f"; {running} visit still running, its leaving not logged" if running == 1 else
             f"; {running} visits still running, their leaving not logged")  # fmt: skip
    output.say(f"termsnake serve: stopped{still if running else ''}")
    # Written while a reader takes it, within the wait (a moment more if the visits took it
    # all); one that takes nothing, or went away (its terminal hung up), is not waited for.
    left = max(deadline - loop.time(), limits.SHUTDOWN_STALL)
    output.close(time.monotonic() + left, limits.SHUTDOWN_STALL)


async def _farewells(app: App, deadline: float) -> None:
    """Let the farewells reach the clients: until ``deadline``, wait while a client has output
    it has not read and has read some within SHUTDOWN_STALL (one that reads nothing is not
    waited for)."""
    if not app.channels:  # no client whose visit began is still there
        return
    loop = asyncio.get_running_loop()
    await asyncio.sleep(0.1)  # the visits' last writes are handed to the loop
    seen: dict[Channel, tuple[int, float]] = {}  # what each had unsent, and when it last read
    while loop.time() < deadline:
        now, reading = loop.time(), False
        for channel in list(app.channels):
            unsent = channel._unsent()
            before, read_at = seen.get(channel, (unsent + 1, now))
            seen[channel] = (unsent, now if unsent < before else read_at)
            reading |= unsent > 0 and now - seen[channel][1] < limits.SHUTDOWN_STALL
        if not reading:
            return
        await asyncio.sleep(0.05)
