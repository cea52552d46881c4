"""A file's trouble in the server's log, said once: a client that logs in or plays again and
again would otherwise repeat the same line each time."""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("termsnake.serve")


class Trouble:
    """The last line said of one file: the same line again is left out until all went well
    (``say(None)``), and nothing is said after ``close`` (the log's last line is "stopped").
    Used from every visit's thread: locked."""

    def __init__(self) -> None:
        self._said: str | None = None
        self._lock = threading.Lock()
        self._closed = False

    def say(self, line: str | None) -> None:
        """Log ``line`` unless it was the last said; None: all went well, say the next."""
        with self._lock:  # held while logging: no line slips in after ``close``
            if line == self._said:
                return
            self._said = line
            if line is not None and not self._closed:
                log.warning("%s", line)

    def close(self) -> None:
        """Log nothing more: the server's last line, "stopped", is about to be said (a visit
        still running may yet write the file)."""
        with self._lock:
            self._closed = True
