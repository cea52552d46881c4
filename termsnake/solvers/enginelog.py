"""An engine's stderr, copied into its log file by a thread of its own, up to a limit."""

from __future__ import annotations

import os
import select
import threading
from typing import IO, Final

# The most of an engine's stderr its log keeps; the rest is read and dropped.
LOG_LIMIT: Final = 1024 * 1024
LOG_CUT: Final = f"\n[termsnake: the engine's stderr past {LOG_LIMIT} bytes was dropped]\n".encode()
LOG_POLL_MS: Final = 250  # how soon a log reader told to stop notices


def keep_log(stderr: IO[bytes], log: IO[bytes], stop: threading.Event) -> None:
    """Copy the engine's stderr into its log, up to LOG_LIMIT bytes, then read on and drop the
    rest (an engine blocked on a full pipe would miss its time limits); until the end of
    stderr, or soon after ``stop`` is set."""
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
                room = write_log(log, chunk, room)


def write_log(log: IO[bytes], chunk: bytes, room: int) -> int:
    """Write what fits of ``chunk`` in the ``room`` left; the room left after it, negative once
    the log is cut."""
    try:
        log.write(chunk[:room])
        if len(chunk) > room:
            log.write(LOG_CUT)
    except OSError:  # a full disk ends the log, not the engine
        return -1
    return room - len(chunk)
