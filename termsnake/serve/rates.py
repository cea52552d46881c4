"""How fast a client may come and send: new connections from its address a minute, its bytes
a second, every SSH message counted, and its failed login tries."""

from __future__ import annotations

import asyncio
import ipaddress
from collections import OrderedDict
from collections.abc import Callable

import asyncssh

from termsnake.serve.limits import CONNECT_ADDRESSES

MINUTE = 60.0
TOO_MANY_TRIES = "termsnake: too many failed login tries"


def client_of(address: str) -> str:
    """Whom the per-address limits count ``address`` as: an IPv6 address by its /64, which one
    client (a home, a host) is given whole, so that it cannot take a fresh allowance with each
    address in it; an IPv4 address mapped into IPv6 as that IPv4 address."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address


class Arrivals:
    """New connections from each address: a bucket of ``per_minute`` that fills again at that
    many a minute. A connection with none left is dropped before its key exchange, which costs
    the server far more than the client; a person reconnecting never comes near it."""

    def __init__(self, per_minute: int, most: int = CONNECT_ADDRESSES) -> None:
        self.burst = float(per_minute)
        self.refill = per_minute / MINUTE  # a second
        self.most = most
        # The addresses seen, least recently first: how much each has left, and when.
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        """Addresses remembered."""
        return len(self._buckets)

    def allow(self, address: str, now: float) -> bool:
        """Whether a new connection from ``address`` at ``now`` (seconds) may go on."""
        left, at = self._buckets.pop(address, (self.burst, now))
        left = min(self.burst, left + (now - at) * self.refill)
        allowed = left >= 1.0
        self._buckets[address] = (left - 1.0 if allowed else left, now)
        # One untouched for a minute is full again, as if never seen: forgotten. Past ``most``
        # the least recent goes too, so that connections from many addresses cannot fill the
        # memory (its count starts again).
        while True:
            _, oldest = next(iter(self._buckets.values()))
            if len(self._buckets) <= self.most and now - oldest < MINUTE:
                break
            self._buckets.popitem(last=False)
        return allowed


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


def cap_failures(
    conn: asyncssh.SSHServerConnection, most: int, cut: Callable[[], None] = lambda: None
) -> None:
    """Disconnect ``conn`` once ``most`` of its login tries have failed, whatever their method,
    and call ``cut``: asyncssh answers tries with no limit, and a try costs it far more than its
    bytes do (every failure goes out through ``send_userauth_failure``, looked up on the
    connection)."""
    send_failure = conn.send_userauth_failure
    failures = [0]

    def failed(partial_success: bool) -> None:
        send_failure(partial_success)
        failures[0] += 1
        if failures[0] == most:
            cut()
            too_many_tries(conn)

    setattr(conn, "send_userauth_failure", failed)  # noqa: B010


def too_many_tries(conn: asyncssh.SSHServerConnection) -> None:
    """Disconnect ``conn`` once the failure in hand has gone out, saying why. Both limits on
    login tries (keys not authorized, failures of any kind) end here, so that the client is
    told either way: ssh, asking "none" first, reaches both on its sixth key."""
    asyncio.get_running_loop().call_soon(_disconnect, conn)


def _disconnect(conn: asyncssh.SSHServerConnection) -> None:
    if not conn.is_closed():  # told once when both limits are reached on one try
        conn.disconnect(asyncssh.DISC_NO_MORE_AUTH_METHODS_AVAILABLE, TOO_MANY_TRIES)


def _resume(transport: asyncio.BaseTransport) -> None:
    if not transport.is_closing() and isinstance(transport, asyncio.ReadTransport):
        transport.resume_reading()
