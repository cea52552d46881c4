"""One training run at a time into an --out: a lock beside the files it writes, held to the end."""

from __future__ import annotations

import errno
import fcntl
import os
import stat
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import filelock

from termsnake.formats.fileio import reason
from termsnake.formats.text import printable


def lock_path(out: Path) -> Path:
    """The lock beside the weights file (beside a link's name, as the checkpoint is)."""
    return out.with_name(out.name + ".lock")


def linked_file(out: Path) -> Path | None:
    """The file a link ``out`` leads to (there or not yet), None if ``out`` is no link.

    The weights are written through the link, so a run into that file, or through another link
    to it, writes the same file: the run holds its lock too, not only the one beside its name."""
    try:
        if not out.is_symlink():
            return None
    except OSError as e:
        if e.errno == errno.ENAMETOOLONG:  # the name itself, said as such (not its lock's)
            raise
        return None  # a folder on the way that cannot be looked in: the lock's check says so
    target = Path(os.path.realpath(out))
    return None if lock_path(target) == lock_path(out.absolute()) else target


def check_lock(out: Path, written: Sequence[tuple[Path, str]]) -> None:
    """ValueError unless the files a run into ``out`` writes (``written``, each with what it
    is, and the locks it takes: see ``linked_file``) are all different files, each lock is free
    or the empty file a run leaves there, and no other run holds one. It makes no file, so it
    comes before the other checks: a run into files another run is writing was told they were
    an earlier run's, to be resumed."""
    owners = _owners(out)
    locks = [(lock_path(owner), lock) for owner, _, lock in owners]
    _check_apart(out, [*written, *locks])
    for owner, taken, _ in owners:
        _check_one(owner)
        _check_free(lock_path(owner), taken)


def _owners(out: Path) -> list[tuple[Path, str, str]]:
    """The names whose locks a run into ``out`` holds (``out``, and the file it links to), each
    with what another run holding that lock is doing, and what its lock is to the run."""
    owners = [(out, f"another run is training into {printable(str(out))}", "the lock")]
    target = linked_file(out)
    if target is not None:
        shown, linked = printable(str(target)), printable(str(out))
        taken = f"another run is training into {shown}, which {linked} links to"
        owners.append((target, taken, f"the lock for {shown} (which {linked} links to)"))
    return owners


def _check_apart(out: Path, files: Sequence[tuple[Path, str]]) -> None:
    # Two of them one file, through a link (even a dangling one), and the run wrote one over
    # the other: weights that read as no weights file, after an exit 0; a lock taken on a link
    # to the weights made that file and a lock beside it, both left behind by the refusal.
    seen: dict[str, tuple[Path, str]] = {}
    for path, what in files:
        where = os.path.realpath(path)
        if where in seen:
            first, first_what = seen[where]
            raise ValueError(
                f"{printable(str(first))} and {printable(str(path))}, {first_what} and {what} of "
                f"a run into {printable(str(out))}, are one file (through a link): give "
                "another --out"
            )
        seen[where] = (path, what)


def _check_free(path: Path, taken: str) -> None:
    # Tried, not taken (that would make the file): a flock another holds refuses a shared one.
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:  # none there, or unreadable: taking it says what is wrong
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        raise ValueError(_held(taken, path)) from None
    except OSError:  # no flock on this file system: a run there marks the file (_check_one)
        pass
    finally:
        os.close(fd)  # which lets go of the shared lock


def _held(taken: str, path: Path) -> str:
    return f"{taken} (it holds {printable(str(path))}): wait for it to end, or give another --out"


def _check_one(out: Path) -> None:
    # filelock opens the lock file to lock it, and older filelocks empty it as they do.
    path = lock_path(out)
    shown = printable(str(path))
    try:
        info = os.lstat(path)  # not through a link: the lock is this name's own file
    except FileNotFoundError:
        return
    except OSError as e:
        raise ValueError(f"cannot write {shown}: {reason(e)}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(
            f"{shown} is there and is not the empty lock file termsnake train leaves; training "
            "would use it: give another --out, or delete the file first"
        )
    if info.st_size:  # where flock is missing, a run's lock is a marker file, and it may be live
        raise ValueError(
            f"{shown} is not empty: a run may be training into {printable(str(out))} (where "
            "the file system cannot lock, a run marks this file), or one was killed there, or "
            "the file is not termsnake's; if no run is training there, delete it, or give "
            "another --out"
        )


@contextmanager
def owned(out: Path) -> Iterator[None]:
    """The run's hold on ``out``'s files, and on the file a link ``out`` leads to, until it
    ends; ValueError at once if another run holds them. The lock files stay: deleting one would
    let a run that opened it lock a file that is gone while a third locks a new one."""
    with ExitStack() as held:
        for owner, taken, _ in _owners(out):
            held.enter_context(_holding(owner, taken))
        yield


@contextmanager
def _holding(out: Path, taken: str) -> Iterator[None]:
    """The lock beside ``out`` held; ValueError (``taken`` and what to do) if another holds it."""
    path = lock_path(out)
    lock = filelock.FileLock(path, timeout=0, mode=0o644)
    try:
        with warnings.catch_warnings():
            # Where the file system has no flock, filelock warns and holds a marker file instead.
            warnings.simplefilter("ignore")
            lock.acquire()
    except NotImplementedError:  # an older filelock there: train on, one line says so
        print(
            f"termsnake train: note: {printable(str(path))} cannot be locked on this file "
            "system; two runs into the same --out at once are not kept apart",
            file=sys.stderr,
        )
        yield
        return
    except filelock.Timeout:
        raise ValueError(_held(taken, path)) from None
    except OSError as e:
        raise ValueError(f"cannot write {printable(str(path))}: {reason(e)}") from None
    try:
        yield
    finally:
        lock.release()
