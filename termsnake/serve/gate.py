"""Who may come in: so many connections per address, so many waiting to start a game (the
longest waiting of those that have got least far is let go for a newcomer), and so many games at
once."""

from __future__ import annotations

import enum
import threading
from collections import Counter
from collections.abc import Hashable
from typing import Final


class Stage(enum.IntEnum):
    """How far a waiting connection has got: a newcomer pushes out the longest waiting of the
    lowest."""

    SILENT = 0  # has sent nothing (a flood of these must not push out a client that talks)
    HEARD = 1  # has sent something: its SSH version, a key exchange
    AUTHENTICATING = 2  # has asked to log in


# What the connection let go for a newcomer is told (its SSH disconnect's reason).
PUSHED_OUT: Final = "termsnake: too many connections are logging in at once; try again"
LET_GO: Final = "the server had to let you go; try again"  # one pushed out that still asks


class Gate:
    """Counts connections by address and by phase: waiting (from the first byte until the game
    starts) or playing. ``admit`` and ``start`` say why one is refused, or None."""

    def __init__(self, max_sessions: int, max_per_address: int) -> None:
        self.max_sessions = max_sessions
        self.max_per_address = max_per_address
        # As many may wait as may play: a flood of silent connections from many addresses then
        # pushes the longest waiting out instead of filling the players' places.
        self.max_waiting = max_sessions
        self._by_address: Counter[str] = Counter()
        self._address: dict[Hashable, str] = {}  # every connection admitted and not yet closed
        self._waiting: dict[Hashable, Stage] = {}  # those waiting, in the order they came: how far
        self._playing: set[Hashable] = set()
        self.refused = 0  # connections refused and still open (each is told why, then closed)
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """Connections admitted and not yet released."""
        return len(self._address)

    @property
    def playing(self) -> int:
        """Games under way."""
        return len(self._playing)

    def admit(self, who: Hashable, address: str) -> tuple[str | None, Hashable | None]:
        """Admit connection ``who`` from ``address`` to wait for its game, or say why not
        (counted in ``refused`` until ``release_refused``); with it, if too many now wait, the
        one to let go (the caller closes it): the longest waiting of those that have got least
        far (``Stage``)."""
        with self._lock:
            if self._by_address[address] >= self.max_per_address:
                self.refused += 1
                return (
                    f"too many connections from your address (at most {self.max_per_address}); "
                    "close one and try again"
                ), None
            self._by_address[address] += 1
            self._address[who] = address
            if len(self._waiting) < self.max_waiting:
                self._waiting[who] = Stage.SILENT
                return None, None
            # Never the newcomer itself: if every place were held by a client that talked once
            # and then stalled, newcomers would be turned away until the login timeout.
            least = min(self._waiting.values())
            oldest = next(w for w, got in self._waiting.items() if got == least)
            del self._waiting[oldest]
            self._waiting[who] = Stage.SILENT
            return None, oldest

    def advance(self, who: Hashable, got: Stage) -> None:
        """Waiting connection ``who`` has got as far as ``got``."""
        with self._lock:
            if self._waiting.get(who, got) < got:
                self._waiting[who] = got

    def start(self, who: Hashable) -> str | None:
        """Let waiting connection ``who`` start its game, or say why not."""
        with self._lock:
            if who not in self._waiting:
                return LET_GO
            del self._waiting[who]
            if len(self._playing) >= self.max_sessions:
                return f"the server is full ({self.max_sessions} players); try again later"
            self._playing.add(who)
            return None

    def crowded(self) -> bool:
        """Whether so many refused connections are open that the next are dropped unheard."""
        return self.refused > self.max_sessions

    def release_refused(self) -> None:
        """A refused connection has closed."""
        with self._lock:
            self.refused -= 1

    def release(self, who: Hashable) -> None:
        """An admitted connection has closed."""
        with self._lock:
            address = self._address.pop(who, None)
            if address is None:
                return
            self._waiting.pop(who, None)
            self._playing.discard(who)
            self._by_address[address] -= 1
            if self._by_address[address] <= 0:
                del self._by_address[address]
