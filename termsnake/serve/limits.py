"""Every limit the SSH server puts on what a client controls, in one place: the command line's
defaults and the server's come from here (this module imports no asyncssh, so the command
line can read it without the serve extra)."""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True, slots=True)
class Options:
    """The options of `termsnake serve`, each a field of the same name (`--max-sessions` is
    ``max_sessions``) with its default; the server's Config holds them."""

    host: str = "127.0.0.1"  # this machine only: every interface must be asked for
    port: int = 2222
    max_sessions: int = 64  # players at once (Gate)
    max_per_address: int = 3  # connections from one address (Gate)
    # New connections from one address a minute (Arrivals): that many at once, then one every
    # 60/N s. Each costs the server a key exchange; a person reconnecting needs a few.
    max_connect_rate: int = 30
    idle: float = 600.0  # seconds without a key where nothing moves (Visit)
    max_time: float = 3 * 3600.0  # seconds a connection may last, whatever it does (Visit)
    stall: float = 30.0  # seconds a client may read nothing while max_unsent waits for it
    login_timeout: float = 30.0  # seconds to log in and start a game
    max_unsent: int = 1024 * 1024  # bytes of output a client may leave unread (ChannelOutput)
    # Bytes a connection may send a second, all SSH messages counted (ignore messages, window
    # changes, packets of one byte: none of them keys): past it, it is not read until the
    # second is over. Far above what a player sends, and above what an endless paste gets
    # through.
    max_input_rate: int = 96 * 1024


DEFAULTS: Final = Options()

# Fixed.
# At SIGTERM: seconds the visits get to end and their clients to read their farewells, in all
# (README says "up to 5 s"), so that the server exits within seconds whatever its clients do...
SHUTDOWN_WAIT: Final = 5.0
# The signals that stop the server even where they were ignored as it started (a shell's `&`
# ignores Ctrl-C, and `kill -INT` from a script must still stop it): from its start, while the
# bots are imported, to the end of its exit.
ALWAYS_STOP: Final = (signal.SIGTERM, signal.SIGINT)
SHUTDOWN_STALL: Final = 0.5  # ...and seconds a client behind on its output may read nothing
# ...and its last seconds kept for the visits' leaving: a score or a key preset whose file's lock
# another program holds is given up this long before the wait ends, and said in the log.
SAVE_MARGIN: Final = 0.5
CONNECT_ADDRESSES: Final = 16384  # addresses whose new connections are counted, at most
REFUSED_GRACE: Final = 5.0  # seconds a refused client has to read why before it is cut off
MAX_AUTH_TRIES: Final = 6  # keys a connection may offer that are not authorized (as OpenSSH)...
MAX_FAILED_TRIES: Final = 7  # ...and login tries that may fail, of any kind (ssh's first "none")
KEEPALIVE_INTERVAL: Final = 30  # seconds between keepalives to a silent client...
KEEPALIVE_COUNT_MAX: Final = 3  # ...and how many may go unanswered before it is dropped
MAX_SPEED: Final = 60.0  # moves a second + may reach: faster, a watched bot eats the CPU
MAX_PENDING_INPUT: Final = 4096  # bytes of keys kept unread; a flood beyond is dropped...
INPUT_PAUSE: Final = 0.25  # ...and the client is not read for this many seconds after one...
INPUT_WINDOW: Final = 16 * 1024  # ...when at most this much more may come (its SSH window)
MAX_COLUMNS: Final = 1000  # a client's window is taken as at most this wide...
MAX_ROWS: Final = 500  # ...and this high, whatever it says
RESIZE_SETTLE: Final = 0.05  # seconds a window change waits for more before the redraw
# Refused connections still open beyond max_sessions (Gate.crowded) are dropped unanswered.
# The log's refusals (events.Tally): an address's first of an interval is said at once and the
# rest counted, said in a line as the interval ends; past LOG_ADDRESSES addresses, in one line.
LOG_INTERVAL: Final = 60.0  # seconds
LOG_ADDRESSES: Final = 16
LOG_VISITS: Final = 60  # lines of players logging in and leaving an interval (events.Visits)
# Characters of the server's output kept for a reader that takes none (a pipe nobody reads, a
# terminal paused by Ctrl-S): past them lines are dropped, and counted (output.Writer).
LOG_BACKLOG: Final = 1024 * 1024
# The key presets chosen in the lobby, kept for the next visit (keymemory): the players kept,
# those who chose last (a client logging in under a new name each time cannot grow the file
# without end)...
MAX_KEPT_PRESETS: Final = 5000
KEEP_PRESET_GAP: Final = 2.0  # ...and seconds between a visit's writes of its choice (Visit)
MAX_PLAYER_NAME: Final = 16  # characters of a player's name, made from the ssh user name (Hub)


def span(seconds: float) -> str:
    """A time limit as a person reads it: ``3 h``, ``90 min``, ``4 s``."""
    for unit, size in (("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g} {unit}"
    return f"{seconds:g} s"
