"""Atomic file writes: a temp file beside the target, fsync, rename; never a half-written file."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: str | os.PathLike[str], data: bytes, *, exclusive: bool = False) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, whole.

    An existing file keeps its permissions; a new one gets 0644. With ``exclusive`` the file
    must not exist (FileExistsError), checked at the very moment it appears, so that a file
    made meanwhile by someone else is never overwritten.
    """
    target = Path(path)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        mode = target.stat().st_mode & 0o777 if target.exists() else 0o644
        os.chmod(tmp, mode)
        if exclusive:
            os.link(tmp, target)  # fails with EEXIST instead of replacing
            os.unlink(tmp)
        else:
            os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable; not every platform lets a directory be opened.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
