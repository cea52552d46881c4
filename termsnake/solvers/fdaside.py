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
    # What each of those (and null, as -1) is, to tell it from what a plugin that closed it
    # opened in its place.
    files: ClassVar[dict[int, tuple[int, int] | None]] = {}


class DescriptorsLost(OSError):
    """The plugin closed the copies fds 1 or 2 were kept in as it was imported (a library's
    ``os.closerange(3, ...)``): what they were is gone, and nothing termsnake writes there
    would be seen."""


@contextlib.contextmanager
def descriptors_aside() -> Iterator[None]:
    """File descriptors 1 and 2 on /dev/null for the block, and put back after: what a plugin
    writes there past sys.stdout and sys.stderr as it is imported (``os.write(1, ...)``, C
    code, a child it starts) is dropped, as its prints are; it reached the terminal raw, before
    the server's "listening" line too. /dev/null takes any amount: no pipe to fill and wait on.
    A descriptor that is closed stays closed. Ctrl-C ends the block, not the putting aside or
    back: a signal then is held until they are done (``signals_held``). DescriptorsLost if
    the block closed a copy: the descriptor is then left refusing writes, not on /dev/null,
    so that the command fails where it would have printed, not exits 0 having shown nothing."""
    aside = False
    try:
        with signals_held():
            _put_aside()
            aside = True  # held: nothing is raised between the two
        yield
    finally:
        # Only what this block put aside: a signal that came as the holding set in, before it,
        # had the last block's copies (closed, or other files since) put on fds 1 and 2.
        if aside:
            back = False
            try:
                with signals_held():
                    back = True  # before: DescriptorsLost must not have it put back twice
                    _put_back()
            finally:
                if not back:  # one came as the holding set in: put back all the same
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
        _Aside.files = {-1: _file(_Aside.null)}
        for fd in (1, 2):
            with contextlib.suppress(OSError):  # closed: a write to it shows nothing
                if fd != _Aside.null:
                    _Aside.saved[fd] = os.dup(fd)
                    _Aside.files[fd] = _file(_Aside.saved[fd])
                    os.dup2(_Aside.null, fd)


def _put_back() -> None:
    with _Aside.lock:
        _Aside.depth -= 1
        if _Aside.depth > 0:
            return
        lost = []
        for fd, copy in _Aside.saved.items():
            if _file(copy) == _Aside.files[fd]:
                os.dup2(copy, fd)
                os.close(copy)
            else:  # its number may be the plugin's own file now: left alone
                lost.append(fd)
                _refusing_writes(fd)
        if _Aside.null >= 0 and _file(_Aside.null) == _Aside.files[-1]:
            os.close(_Aside.null)
    if lost:
        names = " and ".join(("", "standard output", "standard error")[fd] for fd in lost)
        raise DescriptorsLost(f"it closed file descriptors it had not opened: termsnake's {names}")


def _file(fd: int) -> tuple[int, int] | None:
    """Which file ``fd`` is open on (device and inode), None if it is closed."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _refusing_writes(fd: int) -> None:
    """``fd`` open on /dev/null for reading: a write fails (EBADF) as on a closed descriptor,
    while its number is kept from the next file opened, which print() would write into."""
    with contextlib.suppress(OSError):  # no descriptor left: it stays on /dev/null
        spare = os.open(os.devnull, os.O_RDONLY)
        if spare != fd:
            os.dup2(spare, fd)
            os.close(spare)
