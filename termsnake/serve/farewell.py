"""How an SSH visit ended, told twice: to the client (its last line and exit status) and to
the log (why, in a few words). ``serve.server``'s visit thread asks as the visit ends."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from termsnake.exits import Terminated
from termsnake.serve import limits
from termsnake.serve.terminal import CannotMoveCursor, ChannelOutput, Closed
from termsnake.serve.visit import Idle, TimeUp, Visit

SHUTTING_DOWN: Final = "the server is shutting down"


@dataclass(frozen=True, slots=True)
class Ending:
    """A visit's end: the channel's exit status, the client's last line ("" for a client
    gone, which would not read it) and the log's word for why."""

    status: int
    farewell: str
    why: str
    # The client read nothing for --stall: what it left unread is dropped (the channel
    # aborted), not waited for.
    drop: bool = False


QUIT: Final = Ending(0, "bye!", "quit")
FAILED: Final = Ending(1, "termsnake hit an error and ends this session (it is logged)", "error")


def ended_by(error: Exception, visit: Visit, out: ChannelOutput, max_time: float) -> Ending | None:
    """The Ending of a visit that ``error`` ended, one of the ways a visit ends (a limit, the
    client, the server stopping); None for any other error, a fault of termsnake's own."""
    if isinstance(error, CannotMoveCursor):
        return Ending(1, str(error), error.why)
    if isinstance(error, Idle):
        return Ending(1, "no key for a long while: disconnected", "idle")
    if isinstance(error, TimeUp):
        return Ending(
            1, f"this server ends a visit after {limits.span(max_time)}{visit.scored}", "max-time"
        )
    if isinstance(error, Terminated):
        return Ending(1, SHUTTING_DOWN + visit.scored, "shutdown")
    if isinstance(error, Closed):
        # At shutdown a client behind on its output is still told, after what it has not
        # read; the server waits for that only while it reads (listen._farewells).
        if out.ending:
            return Ending(1, SHUTTING_DOWN + visit.scored, "shutdown")
        if out.behind():  # it reads nothing
            return Ending(1, "", "stalled (read nothing for --stall)", drop=True)
        return Ending(1, "", "closed")
    return None
