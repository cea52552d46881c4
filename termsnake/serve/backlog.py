"""How much of a connection's output its client has not taken yet, below the SSH channel: what
asyncio holds for the socket, and what waits in the kernel's send queue.

A client that stops reading at the TCP level (its window closes) leaves the output in the
kernel's queue, which the kernel lets grow far past our limits before asyncio holds back a
byte: counted alone, asyncio's buffer let such a client run past --max-unsent and --stall.
Linux tells the queue (SIOCOUTQ); elsewhere only asyncio's buffer is counted.
"""

from __future__ import annotations

import struct
import sys
from typing import Protocol

OUTQ: int | None = None
try:
    import fcntl
    import termios
except ImportError:  # not a Unix: no queue to ask for
    pass
else:
    # SIOCOUTQ is TIOCOUTQ under another name (linux/sockios.h); other systems give that
    # number another meaning for sockets, or none.
    if sys.platform.startswith("linux"):
        OUTQ = termios.TIOCOUTQ


class Socket(Protocol):
    def fileno(self) -> int: ...


def queued(sock: Socket | None) -> int:
    """Bytes written to ``sock`` that the peer has not acknowledged (sent or not); 0 where
    that cannot be told (not Linux, a socket already closed)."""
    if OUTQ is None or sock is None:
        return 0
    # Asked from a visit's thread while the loop may close the socket: -1 once it has (a
    # number reused in between would give another connection's queue, for one look).
    fd = sock.fileno()
    if fd < 0:
        return 0
    try:
        (count,) = struct.unpack("i", fcntl.ioctl(fd, OUTQ, struct.pack("i", 0)))
    except OSError:  # closed meanwhile, or a kind of socket without a send queue
        return 0
    return max(0, int(count))


def unsent(conn: object) -> int:
    """What connection ``conn`` (asyncssh's) has written below its channels and its client has
    not taken: asyncio's buffer for the socket (a client that grants a huge window has its
    output pass the channel's buffer into it, which asyncssh fills without heed and keeps no
    public handle to) and the kernel's send queue."""
    transport = getattr(conn, "_transport", None)
    if transport is None:  # not connected yet, or closed
        return 0
    return int(transport.get_write_buffer_size()) + queued(transport.get_extra_info("socket"))
