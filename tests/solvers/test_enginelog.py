"""An engine's log on a full disk: cut where the disk is full, and said, once."""

from __future__ import annotations

import errno
import io
from pathlib import Path

from termsnake.solvers.enginelog import LOG_LIMIT, write_log


class SmallDisk(io.RawIOBase):
    """A raw file on a disk with room for ``room`` bytes: a write takes what fits, as the
    kernel's does, and raises ENOSPC only once nothing does."""

    def __init__(self, room: int) -> None:
        self.room = room
        self.kept = b""

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        chunk = bytes(data)  # type: ignore[call-overload]
        if chunk and not self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        taken = chunk[: self.room]
        self.kept += taken
        self.room -= len(taken)
        return len(taken)


def test_a_write_the_disk_takes_part_of_is_said() -> None:
    # The part written raised nothing: the log was cut there and no one heard of it.
    disk = SmallDisk(100)
    told: list[OSError] = []
    assert write_log(disk, b"x" * 250, LOG_LIMIT, told.append) == -1  # type: ignore[arg-type]
    assert disk.kept == b"x" * 100
    assert [e.errno for e in told] == [errno.ENOSPC]


def test_a_log_with_room_keeps_all_and_says_nothing() -> None:
    disk = SmallDisk(1000)
    told: list[OSError] = []
    room = write_log(disk, b"x" * 250, LOG_LIMIT, told.append)  # type: ignore[arg-type]
    assert room == LOG_LIMIT - 250 and disk.kept == b"x" * 250 and not told


def test_a_real_full_disk_takes_part_of_a_write(small_tmpfs: Path) -> None:
    told: list[OSError] = []
    with open(small_tmpfs / "engine.log", "wb", buffering=0) as log:
        assert write_log(log, b"x" * 200_000, LOG_LIMIT, told.append) == -1
    assert 0 < (small_tmpfs / "engine.log").stat().st_size < 200_000
    assert [e.errno for e in told] == [errno.ENOSPC]
