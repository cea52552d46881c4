"""Where the server listens, written as a person reads it and as ssh takes it."""

from __future__ import annotations

import errno
import ipaddress
import os
import socket
from typing import Final


def reached_at(host: str) -> str:
    """The host a client names to connect: this machine's name where the server listens on
    every address (0.0.0.0, ::), which no client can connect to. An IPv6 address stays bare:
    ``ssh -p PORT NAME@::1`` connects, and ssh takes ``NAME@[::1]`` for a host name."""
    try:
        unspecified = ipaddress.ip_address(host).is_unspecified
    except ValueError:  # a host name
        unspecified = host == ""
    return socket.gethostname() if unspecified else host


def with_port(host: str, port: int) -> str:
    """``host:port``, an IPv6 address in brackets (``[::]:2222``): its own colons would run
    into the port's (``:::2222``)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


class CannotListen(Exception):
    """The server's address could not be bound (in use, not this host's ...): the cause."""


# What a person can do of the commonest reasons an address cannot be bound.
_HINTS: Final = {
    errno.EADDRINUSE: "another program listens there: stop it, or choose another --port",
    errno.EADDRNOTAVAIL: "no network interface of this machine has that address",
}


def why_not(error: OSError, host: str, port: int) -> str:
    """Why the server could not listen on ``host`` and ``port``, said by ``error`` (from
    looking the host up, or from binding): asyncio's "error while attempting to bind on address
    ('::1', 2222, 0, 0): ..." quotes its own tuple; the reason alone, and what to do about the
    common ones."""
    if isinstance(error, socket.gaierror) or not error.errno:
        return error.strerror or str(error)
    hint = _HINTS.get(error.errno)
    if error.errno == errno.EACCES and 0 < port < 1024:
        hint = "a port below 1024 needs root, or the capability CAP_NET_BIND_SERVICE"
    elif error.errno == errno.EINVAL and _link_local(host) and "%" not in host:
        hint = f"a link-local address needs its interface, as in {host}%eth0"
    reason = os.strerror(error.errno)
    return f"{reason} ({hint})" if hint else reason


def _link_local(host: str) -> bool:
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_link_local
    except ValueError:  # a host name
        return False
