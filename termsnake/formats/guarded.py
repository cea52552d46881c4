"""What a file termsnake keeps and rewrites (the scores, the server's key presets) needs round
it: a lock beside it, a damaged one set aside instead of overwritten, an OSError said in words."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Final

from termsnake.formats.fileio import blocked, describe_parse_error
from termsnake.formats.text import printable

# Seconds between looks at a lock's deadline while it is waited for.
DEADLINE_LOOK: Final = 0.1


class BadJSON(Exception):
    """Bytes that are not UTF-8 JSON, said as the file's reader reads it."""


def json_of(data: bytes) -> object:
    """The JSON value of a kept file's bytes (an editor's BOM allowed); BadJSON saying where
    it is not one."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise BadJSON(f"not UTF-8 (byte {data[e.start]:#04x} at offset {e.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise BadJSON(f"bad JSON at line {e.lineno}, column {e.colno}: {e.msg}") from None
    except (ValueError, RecursionError) as e:  # a 5000-digit number, nesting 10,000 deep
        raise BadJSON(f"bad JSON: {describe_parse_error(e)}") from None


class LockTimeout(Exception):
    """The lock stayed held by another past the time given, or (``cut``) past the deadline,
    which came first."""

    def __init__(self, cut: bool = False) -> None:
        super().__init__()
        self.cut = cut


def lock_path(path: Path) -> Path:
    """The lock file beside ``path`` (kept, never deleted: deleting a lock file races)."""
    return path.with_name(path.name + ".lock")


class Cutoff:
    """The deadline a store's waits for its lock are given once its owner stops (a server's
    shutdown wait), and what a record not kept then says after the lock's name; ``locked``
    calls it as it waits."""

    def __init__(self) -> None:
        self.at: float | None = None
        self.said = ""

    def give_up_at(self, deadline: float, said: str) -> None:
        """From now on a wait for the lock ends at ``deadline`` (``time.monotonic``) at most,
        a wait under way too; ``said``: why, after the lock's name, a record was not kept."""
        self.at, self.said = deadline, said

    def __call__(self) -> float | None:
        return self.at

    def why(self, error: LockTimeout, timeout: float) -> str:
        """Why ``error`` kept a record from its file, after the lock's name."""
        return (
            self.said if error.cut and self.at is not None else f"stayed locked for {timeout:g} s"
        )


def _no_deadline() -> float | None:
    return None


@contextlib.contextmanager
def locked(
    path: Path, timeout: float, deadline: Callable[[], float | None] = _no_deadline
) -> Iterator[None]:
    """Hold the lock of the file at ``path`` (its folder made if missing); LockTimeout if
    another holds it past ``timeout`` seconds, or past ``deadline()`` (``time.monotonic``),
    looked at as it waits (the server stopping sets one), after one try at least. Each call
    is a lock of its own: threads of one process exclude each other as processes do."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # filelock: an OS lock on every platform; the lock file stays (deleting one races).
    # Imported here: it loads asyncio, which a game that keeps no score never needs.
    import filelock

    lock = filelock.FileLock(lock_path(path), timeout=timeout, mode=0o644)
    ends = time.monotonic() + timeout
    while True:
        cut = deadline()
        last = ends if cut is None else min(ends, cut)
        try:  # in slices: a deadline set meanwhile ends a wait under way
            lock.acquire(timeout=max(0.0, min(DEADLINE_LOOK, last - time.monotonic())))
            break
        except filelock.Timeout:
            if time.monotonic() >= last:
                raise LockTimeout(cut is not None and cut < ends) from None
    try:
        yield
    finally:
        lock.release()


def set_aside(path: Path) -> Path:
    """Rename the file at ``path`` to ``NAME.corrupt-STAMP`` (``-2``, ``-3``... if taken): the
    new name. Called under the file's lock, so that no other termsnake can take the name
    between the check and the rename."""
    stamp = datetime.now().strftime("%Y%m%dT%H%M%S")
    base = path.with_name(f"{path.name}.corrupt-{stamp}")
    target, n = base, 1
    while target.exists() or target.is_symlink():
        n += 1
        target = base.with_name(f"{base.name}-{n}")
    os.rename(path, target)
    return target


def describe_os_error(err: OSError) -> str:
    """``err`` as a user reads it: "Permission denied: /home/x/.local/share/termsnake" rather
    than "[Errno 13] ...", the file's name escaped (it comes from XDG_DATA_HOME or HOME)."""
    name = printable(str(err.filename)) if err.filename else ""
    if err.errno == errno.ELOOP and name:  # "too many levels of symbolic links"
        try:  # the lock's O_NOFOLLOW refuses any link; a loop fails to be followed too
            os.stat(err.filename)
        except OSError as e:
            if e.errno == errno.ELOOP:
                return f"{name} is a symbolic link that leads round in a loop"
        return f"{name} is a symbolic link, which is not followed"
    if (said := blocked(err)) is not None:  # a folder made on the way, a file through /proc
        return said
    reason = printable(err.strerror or str(err))
    return f"{reason}: {name}" if name else reason
