"""Reading a file the user names, whole, but never more than a limit: a huge file, a device or
a pipe is refused instead of filling the memory."""

from __future__ import annotations

import errno
import os
import stat


class TooLarge(Exception):
    """A file over the limit; ``size`` is None when stat could not tell (a device, a pipe)."""

    def __init__(self, size: int | None, limit: int) -> None:
        super().__init__(size, limit)
        self.size = size
        self.limit = limit

    def describe(self, what: str) -> str:
        """The message, for a file meant to be ``what`` (``a level``, ``a replay``)."""
        got = f"{self.size} bytes" if self.size is not None else "more than that"
        mib = self.limit // 1024 // 1024
        return (
            f"the file is too large for {what} ({got}; the limit is {self.limit} bytes, {mib} MiB)"
        )


def read_capped(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` of them.

    TooLarge if it holds more (checked by its size first, unread); IsADirectoryError for a
    directory; any other OSError as it comes.
    """
    info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if info.st_size > limit:
        raise TooLarge(info.st_size, limit)
    with open(path, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:  # a device or pipe, whose size stat cannot tell
        raise TooLarge(None, limit)
    return data
