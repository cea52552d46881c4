"""Where the server listens, written as a person reads it and as ssh takes it."""

from __future__ import annotations

import ipaddress
import socket


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
