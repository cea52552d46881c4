"""Child processes that end with termsnake: on Linux the kernel kills them when termsnake
dies, even by SIGKILL (an engine; bench's worker processes)."""

from __future__ import annotations

import ctypes
import functools
import signal
import sys
from collections.abc import Callable

_PR_SET_PDEATHSIG = 1


@functools.cache
def die_with_parent() -> Callable[[], None] | None:
    """What a child runs to be killed when its parent dies (Linux; None elsewhere), resolved
    here: a child between fork and exec must not load libraries."""
    if not sys.platform.startswith("linux"):
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl

    def set_it() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)

    return set_it
