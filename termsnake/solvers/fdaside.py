"""File descriptors 1 and 2 put aside while a plugin is imported: what it writes past
sys.stdout and sys.stderr (``plugins.quietly``) reaches no terminal either."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Iterator
from typing import ClassVar

from termsnake.exits import signals_held


class _Aside:
    """Where file descriptors 1 and 2 are while a plugin is imported: put aside once, under a
    lock and a count, as ``plugins.quietly`` puts the streams aside."""

    lock = threading.Lock()
    depth = 0
    null = -1  # /dev/null's descriptor while they are aside
    saved: ClassVar[dict[int, int]] = {}  # each fd put aside, and its copy


@contextlib.contextmanager
def descriptors_aside() -> Iterator[None]:
    """File descriptors 1 and 2 on /dev/null for the block, and put back after: what a plugin
    writes there past sys.stdout and sys.stderr as it is imported (``os.write(1, ...)``, C
    code, a child it starts) is dropped, as its prints are; it reached the terminal raw, before
    the server's "listening" line too. /dev/null takes any amount: no pipe to fill and wait on.
    A descriptor that is closed stays closed. Ctrl-C ends the block, not the putting aside or
    back: a signal then is held until they are done (``signals_held``)."""
    try:
        with signals_held():
            _put_aside()
        yield
    finally:
        with signals_held():
            _put_back()


def _put_aside() -> None:
    with _Aside.lock:
        _Aside.depth += 1
        if _Aside.depth > 1:
            return
        for stream in (sys.stdout, sys.stderr):  # termsnake's own output first, to its place
            with contextlib.suppress(OSError, ValueError, AttributeError):  # closed, or none
                stream.flush()
        _Aside.saved = {}
        try:
            _Aside.null = os.open(os.devnull, os.O_WRONLY)  # takes 1 or 2 if closed: aside too
        except OSError:  # no descriptor left: nothing is put aside
            _Aside.null = -1
            return
        for fd in (1, 2):
            with contextlib.suppress(OSError):  # closed: a write to it shows nothing
                if fd != _Aside.null:
                    _Aside.saved[fd] = os.dup(fd)
                    os.dup2(_Aside.null, fd)


def _put_back() -> None:
    with _Aside.lock:
        _Aside.depth -= 1
        if _Aside.depth > 0:
            return
        for fd, copy in _Aside.saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        if _Aside.null >= 0:
            os.close(_Aside.null)
