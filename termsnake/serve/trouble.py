"""A file's trouble in the server's log, said once: a client that logs in or plays again and
again would otherwise repeat the same line each time."""

from __future__ import annotations

import logging
import threading
from typing import Final

log = logging.getLogger("termsnake.serve")

# Lines held back at most: a file's kinds of trouble are few, and lines that differ each time
# (a name of the moment) must not grow the set for as long as the server runs.
MAX_HELD: Final = 16


class Trouble:
    """The lines said of one file since all last went well (``say(None)``): each is left out
    until then, as lines of two kinds taking turns (a file that cannot be read, then cannot be
    written over) would each be said at every visit; the oldest is forgotten past MAX_HELD.
    Nothing is said after ``close`` (the log's last line is "stopped"). Used from every visit's
    thread: locked."""

    def __init__(self) -> None:
        self._said: dict[str, None] = {}  # an ordered set: the oldest first
        self._lock = threading.Lock()
        self._closed = False

    def say(self, line: str | None) -> None:
        """Log ``line`` unless it was said since all last went well; None: all went well."""
        with self._lock:  # held while logging: no line slips in after ``close``
            if line is None:
                self._said.clear()
                return
            if line in self._said:
                return
            self._said[line] = None
            if len(self._said) > MAX_HELD:
                del self._said[next(iter(self._said))]
            if not self._closed:
                log.warning("%s", line)

    def close(self) -> None:
        """Log nothing more: the server's last line, "stopped", is about to be said (a visit
        still running may yet write the file)."""
        with self._lock:
            self._closed = True
