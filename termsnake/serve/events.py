"""What the server's log says of its visitors: a line for each player who comes and goes, and
the connections refused or cut off, counted by address so that no client can flood the log.

Every line goes through the ``termsnake.serve`` logger, whose formatter escapes it; what a
client chose (its user name) is cut short here as well.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Final

from termsnake.formats.text import shorten
from termsnake.serve.limits import LOG_ADDRESSES, LOG_INTERVAL, LOG_VISITS

log = logging.getLogger("termsnake.serve")

# Why a connection was refused or cut off: (what the log calls it, the verb of its first line).
TOO_FAST: Final = ("too fast", "dropped: it opened connections too fast (--max-connect-rate)")
TOO_MANY_HERE: Final = ("too many from the address", "refused: too many connections from its "
                        "address (--max-per-address)")  # fmt: skip
FULL: Final = ("server full", "refused: the server is full (--max-sessions)")
FAILED_LOGINS: Final = ("too many failed logins", "cut off: too many failed login tries")
NAME_CHANGED: Final = ("name changed", "cut off: it changed its user name while logging in")
PUSHED_OUT: Final = ("pushed out", "cut off: pushed out while logging in (too many at once)")
NO_TERMINAL: Final = ("no terminal", "refused: no terminal, or a command (needs ssh -t)")
LOGIN_TIMEOUT: Final = ("login timeout", "cut off: no game started within --login-timeout")
NO_GAME: Final = ("left before a game", "left before starting a game")
Why = tuple[str, str]


def shown(text: str, limit: int = 40) -> str:
    """A name or an address a client chose, escaped and cut short for the log."""
    return shorten(text, limit)


def took(seconds: float) -> str:
    """How long a visit lasted, as a person reads it: ``45 s``, ``12 min 3 s``, ``2 h 5 min``."""
    whole = int(seconds)
    hours, minutes, secs = whole // 3600, whole // 60 % 60, whole % 60
    if hours:
        return f"{hours} h {minutes} min"
    return f"{minutes} min {secs} s" if minutes else f"{secs} s"


class Tally:
    """Connections refused or cut off, by address: the first of an address in an interval is
    logged at once, with why; the rest are counted and said in one line when the interval
    ends. Past ``most`` addresses in an interval, the others' are counted together: a client
    opening connection after connection, from one address or many, gets a bounded number of
    lines a minute."""

    def __init__(
        self,
        interval: float = LOG_INTERVAL,
        most: int = LOG_ADDRESSES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.most = most
        self.clock = clock
        self.since: float | None = None  # when the interval began: at its first refusal
        self.counts: dict[str, Counter[str]] = {}  # by address: those after its first line
        self.others: Counter[str] = Counter()  # of the addresses past ``most``
        self.other_addresses = 0  # how many (each counted once an interval)
        self._seen_others: set[str] = set()  # at most ``most`` kept, to count them

    def add(self, address: str, why: Why, name: str | None = None) -> None:
        """Connection from ``address`` (logging in as ``name``, if it asked) was refused or cut
        off, for ``why``."""
        self.flush()
        if self.since is None:
            self.since = self.clock()
        counted = self.counts.get(address)
        if counted is not None:
            counted[why[0]] += 1
        elif len(self.counts) < self.most:
            self.counts[address] = Counter()
            who = shown(address) + (f" ({shown(name, 24)})" if name is not None else "")
            log.info("%s %s", who, why[1])
        else:
            self.others[why[0]] += 1
            if address not in self._seen_others and len(self._seen_others) < self.most:
                self._seen_others.add(address)
                self.other_addresses += 1

    def flush(self, force: bool = False) -> None:
        """Say what was counted, once the interval is over (or now, if ``force``)."""
        if self.since is None or (self.clock() - self.since < self.interval and not force):
            return
        span = f"in the last {took(self.clock() - self.since)}"
        for address, counted in self.counts.items():
            if counted:
                log.info("%s: %d more refused or cut off %s (%s)", shown(address),
                         counted.total(), span, _listed(counted))  # fmt: skip
        if self.others:
            many = f"{self.other_addresses}{'+' if self.other_addresses >= self.most else ''}"
            log.info("%d refused or cut off from %s other addresses %s (%s)",
                     self.others.total(), many, span, _listed(self.others))  # fmt: skip
        self.since = None
        self.counts.clear()
        self.others.clear()
        self._seen_others.clear()
        self.other_addresses = 0


def _listed(counted: Counter[str]) -> str:
    return ", ".join(f"{what}: {n}" for what, n in counted.most_common())


class Visits:
    """The lines of players who come and go: at most ``most`` an interval, the rest counted and
    said in one line as it ends, so that logging in and out again and again, from one address
    or many, cannot flood the log either. Visits run in threads of their own: locked."""

    def __init__(
        self,
        interval: float = LOG_INTERVAL,
        most: int = LOG_VISITS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.interval = interval
        self.most = most
        self.clock = clock
        self._lock = threading.Lock()
        self.since: float | None = None
        self.said = 0
        self.unsaid: Counter[str] = Counter()  # "logged in", "left"
        self.present = 0  # visits logged in that have not left
        self.closed = False  # the server has said it stopped: nothing more is logged

    def say(self, kind: str, message: str, *args: object) -> None:
        """Log ``message`` (a line of ``kind``) if this interval has room, else count it."""
        self.flush()
        with self._lock:  # held while logging: no line slips in after ``close``
            if self.closed:
                return
            if self.since is None:
                self.since = self.clock()
            if self.said >= self.most:
                self.unsaid[kind] += 1
                return
            self.said += 1
            log.info(message, *args)

    def close(self) -> int:
        """Log nothing more (the server's last line, "stopped", is about to be said): how many
        visits have not left, whose lines are then left out."""
        with self._lock:
            self.closed = True
            return self.present

    def failed(self, name: str, trace: str) -> None:
        """A visit's session failed with ``trace`` (said whole, whatever the interval's room)."""
        with self._lock:
            if not self.closed:
                log.error("a session of %s failed:\n%s", name, trace)

    def flush(self, force: bool = False) -> None:
        """Say how many lines were left out, once the interval is over (or now, if ``force``)."""
        with self._lock:
            if self.since is None or (self.clock() - self.since < self.interval and not force):
                return
            span, unsaid = took(self.clock() - self.since), self.unsaid.copy()
            self.since, self.said = None, 0
            self.unsaid.clear()
            if unsaid and not self.closed:
                log.info("%d more players' lines not shown in the last %s (%s)", unsaid.total(),
                         span, _listed(unsaid))  # fmt: skip

    def arrived(self) -> None:
        """A visit has begun: counted by ``close`` until it has left, whether or not its line
        was said (the caller counts it as it adds the visit, under the same lock)."""
        with self._lock:
            self.present += 1

    def logged_in(
        self, name: str, asked: str | None, peer: str, playing: int, key: str | None = None
    ) -> None:
        """A player's game session has begun (``key``: the key it logged in with, if one)."""
        as_asked = "" if asked is None or asked == name else f" (asked for {shown(asked, 24)})"
        with_key = "" if key is None else f" with key {key}"
        self.say("logged in", "%s logged in from %s%s%s; %d playing", name, shown(peer),
                 as_asked, with_key, playing)  # fmt: skip

    def left(self, name: str, seconds: float, why: str, playing: int) -> None:
        """A player's session has ended, after ``seconds``, for ``why`` (quit, idle...)."""
        with self._lock:
            self.present -= 0 if self.closed else 1  # once closed, counted as not left
        self.say("left", "%s left after %s: %s; %d playing", name, took(seconds), why, playing)
