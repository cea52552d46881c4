"""How fast a client may send: its bytes a second, every SSH message counted."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import asyncssh


def meter(
    conn: asyncssh.SSHServerConnection,
    loop: asyncio.AbstractEventLoop,
    rate: int,
    heard: Callable[[], None],
) -> None:
    """Call ``heard`` when the client's first bytes arrive, and stop reading it for the rest
    of a second once it has sent ``rate`` bytes in it (the transport looks its protocol's
    ``data_received`` up at each read, so a hook set on the connection is called)."""
    received = conn.data_received
    second = [0.0, 0]  # when the second began, and the bytes sent in it

    def metered(data: bytes) -> None:
        if second[0] == 0.0:
            heard()
        now = loop.time()
        if now - second[0] >= 1.0:
            second[:] = [now, 0]
        second[1] += len(data)
        received(data)
        if second[1] > rate:  # the transport is looked up only then: this runs at every read
            transport = getattr(conn, "_transport", None)
            if transport is not None:
                transport.pause_reading()
                loop.call_at(second[0] + 1.0, _resume, transport)

    setattr(conn, "data_received", metered)  # noqa: B010


def _resume(transport: asyncio.BaseTransport) -> None:
    if not transport.is_closing() and isinstance(transport, asyncio.ReadTransport):
        transport.resume_reading()
