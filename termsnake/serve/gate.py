"""Who may come in: at most so many sessions in all, and so many per address."""

from __future__ import annotations

import threading
from collections import Counter


class Gate:
    """Counts connections by address; ``admit`` says why one is refused, or None."""

    def __init__(self, max_sessions: int, max_per_address: int) -> None:
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        self._by_address: Counter[str] = Counter()
        self.refused = 0  # connections refused and still open (each is told why, then closed)
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """Connections admitted and not yet released."""
        return sum(self._by_address.values())

    def admit(self, address: str) -> str | None:
        """Admit a connection from ``address``, or say why not (counted in ``refused`` until
        ``release_refused``)."""
        with self._lock:
            if self.total >= self.max_sessions:
                why = f"the server is full ({self.max_sessions} players); try again later"
            elif self._by_address[address] >= self.max_per_address:
                why = (
                    f"too many connections from your address (at most {self.max_per_address}); "
                    "close one and try again"
                )
            else:
                self._by_address[address] += 1
                return None
            self.refused += 1
            return why

    def crowded(self) -> bool:
        """Whether so many refused connections are open that the next are dropped unheard."""
        return self.refused > self.max_sessions

    def release_refused(self) -> None:
        """A refused connection has closed."""
        with self._lock:
            self.refused -= 1

    def release(self, address: str) -> None:
        """A connection admitted from ``address`` has closed."""
        with self._lock:
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]
