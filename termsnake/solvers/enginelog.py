"""An engine's stderr, copied into its log file by a thread of its own, up to a limit."""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable
from typing import IO, Final

# The most of an engine's stderr its log keeps; the rest is read and dropped.
LOG_LIMIT: Final = 1024 * 1024
LOG_CUT: Final = f"\n[termsnake: the engine's stderr past {LOG_LIMIT} bytes was dropped]\n".encode()
LOG_POLL_MS: Final = 250  # how soon a log reader told to stop notices


def keep_log(
    stderr: IO[bytes], log: IO[bytes], stop: threading.Event, lost: Callable[[OSError], None]
) -> None:
    """Copy the engine's stderr into its log, up to LOG_LIMIT bytes, then read on and drop the
    rest (an engine blocked on a full pipe would miss its time limits); until the end of
    stderr, or soon after ``stop`` is set. ``lost(e)`` hears, once, of a write that failed."""
    fd = stderr.fileno()
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    room = LOG_LIMIT
    with stderr, log:
        while not stop.is_set():
            try:
                if not poller.poll(LOG_POLL_MS):
                    continue
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            if room >= 0:
                room = write_log(log, chunk, room, lost)


def write_log(log: IO[bytes], chunk: bytes, room: int, lost: Callable[[OSError], None]) -> int:
    """Write what fits of ``chunk`` in the ``room`` left; the room left after it, negative once
    the log is cut. A write that fails (a full disk) cuts the log there, told to ``lost``."""
    try:
        _write_all(log, chunk[:room])
        if len(chunk) > room:
            _write_all(log, LOG_CUT)
    except OSError as e:  # a full disk ends the log, not the engine
        lost(e)
        return -1
    return room - len(chunk)


def _write_all(log: IO[bytes], data: bytes) -> None:
    """Write all of ``data`` to the unbuffered ``log``: a write the disk has room for only
    part of writes that part and raises nothing; the next one says why (ENOSPC)."""
    view = memoryview(data)
    while view:
        view = view[log.write(view) :]
