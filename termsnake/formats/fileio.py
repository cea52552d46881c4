"""Files the user owns: read whole but capped, written atomically, and never overwritten."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import sys
import tempfile
from collections.abc import Collection
from itertools import count
from pathlib import Path

from termsnake.formats.text import printable


class TooLarge(Exception):
    """A file over the limit; ``size`` is None when stat could not tell (a device, a pipe)."""

    def __init__(self, size: int | None, limit: int) -> None:
        super().__init__(size, limit)
        self.size = size
        self.limit = limit

    def describe(self, what: str) -> str:
        """The message, for a file meant to be ``what`` (``a level``, ``a replay``)."""
        got = f"{self.size} bytes" if self.size is not None else "more than that"
        kib = self.limit // 1024
        short = f"{kib // 1024} MiB" if kib >= 1024 else f"{kib} KiB"
        return f"the file is too large for {what} ({got}; the limit is {self.limit} bytes, {short})"


def describe_parse_error(e: Exception) -> str:
    """A parser's ValueError or RecursionError as a user reads it: Python's own words for a
    huge number or deep nesting name a function the user cannot call."""
    if isinstance(e, RecursionError):
        return "values nested too deeply"
    if "integer string conversion" in str(e):
        digits = re.search(r"value has (\d+) digits", str(e))
        many = f" ({digits.group(1)} digits)" if digits else ""
        limit = sys.get_int_max_str_digits()
        return f"a number too long to read{many}; numbers may have at most {limit} digits"
    return str(e)


def read_capped(path: str | os.PathLike[str], limit: int) -> bytes:
    """The bytes of the file at ``path``, at most ``limit`` of them.

    TooLarge if it holds more (checked by its size first, unread); IsADirectoryError for a
    directory; OSError (EINVAL) for anything else that is not a regular file (a pipe, a socket,
    a device); any other OSError as it comes.
    """
    _check_regular(os.stat(path), path, limit)
    # Not blocking: a pipe put there since the check would otherwise wait for a writer.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    with open(fd, "rb") as f:
        _check_regular(os.fstat(fd), path, limit)
        data = f.read(limit + 1)
    if len(data) > limit:  # it grew since the check
        raise TooLarge(None, limit)
    return data


def _check_regular(info: os.stat_result, path: str | os.PathLike[str], limit: int) -> None:
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
    if not stat.S_ISREG(info.st_mode):
        # A pipe waits for a writer and a terminal or device for input, maybe for ever.
        raise OSError(errno.EINVAL, "a pipe, socket or device, not a file", os.fspath(path))
    if info.st_size > limit:
        raise TooLarge(info.st_size, limit)


def read_if_present(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """read_capped, but None when no file can be there: it is missing, or a directory on the way
    is a regular file (HOME=/dev/null), which the user's own files treat alike."""
    try:
        return read_capped(path, limit)
    except (FileNotFoundError, NotADirectoryError):
        return None


def write_atomic(
    path: str | os.PathLike[str], data: bytes, *, exclusive: bool = False, mode: int = 0o644
) -> None:
    """Replace ``path`` with ``data`` so that readers see the old file or the new one, whole.

    An existing file keeps its permissions; a new one gets ``mode``. With ``exclusive`` the file
    must not exist (FileExistsError), checked at the very moment it appears, so that a file
    made meanwhile by someone else is never overwritten. Without it, a symbolic link is
    written through: the link stays, the file it points to is replaced. An OSError names the
    file being written (that link's target), never the temporary file beside it.
    """
    target = Path(path)
    if not exclusive and target.is_symlink():
        # The user linked the file to somewhere they keep it (a dotfiles repository, a synced
        # folder): replacing the link with a plain file would cut that tie.
        target = Path(os.path.realpath(target))
    # The temporary name is cut: a name near the system's limit (255 bytes) would not fit
    # with the prefix and suffix round it, and the data would be lost at the last moment.
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name[:40]}.", suffix=".tmp")
    except OSError as e:  # a folder that cannot be written: named by the file meant for it
        e.filename, e.filename2 = str(target), None
        raise
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, target.stat().st_mode & 0o777 if target.exists() else mode)
        if exclusive:
            os.link(tmp, target)  # fails with EEXIST instead of replacing
            os.unlink(tmp)
        else:
            os.replace(tmp, target)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        if e.filename in (None, tmp):
            # The temporary file's name is new at each try: a caller that says a trouble once
            # (the server's log) would say it again each time, and it is not the user's file.
            e.filename, e.filename2 = str(target), None
        raise
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(target.parent)


def check_can_write(folder: str | os.PathLike[str]) -> None:
    """Raise the OSError that ``write_atomic`` would meet making its temporary file in
    ``folder``, before there is anything to lose: make one there and remove it. Permission
    bits alone miss /proc, read-only mounts and root's rights."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".termsnake-", suffix=".tmp")
    try:
        os.close(fd)
    finally:  # a Ctrl-C once the file is made leaves none behind
        os.unlink(tmp)


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


def _numbered(first: Path, n: int) -> Path:
    """``NAME-n.EXT``, the name cut short where it would pass the system's limit on a name."""
    try:
        most = os.pathconf(first.parent, "PC_NAME_MAX")
    except (OSError, ValueError):
        most = 255
    stem, tail = first.stem, f"-{n}{first.suffix}"
    while stem and len(f"{stem}{tail}".encode(errors="surrogateescape")) > most:
        stem = stem[:-1]
    return first.with_name(f"{stem}{tail}")


def write_new(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    limit: int = 1000,
    taken: Collection[str | os.PathLike[str]] = (),
) -> Path:
    """Write ``data`` at ``path`` without replacing any file; the path it went to.

    A file already there with the very same bytes is this data already and is kept as it is;
    any other, or a name in ``taken`` (the caller's, written or tried before), moves the data on
    to ``NAME-2.EXT``, ``NAME-3.EXT``... (as a second copy would be named). FileExistsError
    after ``limit`` names; any other OSError as it comes, its ``filename`` the name tried.
    """
    first = Path(path)
    skipped = {Path(name) for name in taken}
    for n in count(1):
        if n > limit:
            raise FileExistsError(errno.EEXIST, f"too many files named like {first}", str(first))
        target = first if n == 1 else _numbered(first, n)
        if target in skipped:
            continue
        try:
            write_atomic(target, data, exclusive=True)
            return target
        except FileExistsError:
            try:
                if read_capped(target, len(data)) == data:
                    return target
            except (OSError, TooLarge):
                pass  # another file, a directory, a pipe or an unreadable file: the next name
        except OSError as e:
            # Not the temporary file's name, nor the folder's: the file that could not be made.
            e.filename, e.filename2 = str(target), None
            raise
    raise AssertionError("unreachable")


def check_can_write_new(folder: str | os.PathLike[str]) -> None:
    """Raise the OSError that ``write_new`` would meet in ``folder``, before there is anything
    to lose: make a file there as it does (a temporary file, then a second name linked to it)
    and remove it. Permission bits alone miss /proc, read-only mounts and root's rights."""
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".termsnake-", suffix=".tmp")
    link = f"{tmp}.link"
    try:
        os.close(fd)
        os.link(tmp, link)
    except FileExistsError:  # someone else's file by that name: links work there all the same
        pass
    finally:  # a Ctrl-C at any point leaves neither name behind
        with contextlib.suppress(OSError):  # no link made
            if os.path.samefile(tmp, link):  # ours, not another file of that name
                os.unlink(link)
        os.unlink(tmp)


def in_the_way(path: str | os.PathLike[str]) -> str | None:
    """What keeps ``path`` from being a folder, said: the first name on the way to it (itself
    included) that is a file, a FIFO... or a link to nowhere; None if each is a folder or the
    first that is not is missing (a folder that is not there says so itself)."""
    whole = Path(path)
    for part in [*reversed(whole.parents), whole]:
        try:
            mode = os.stat(part).st_mode
        except FileNotFoundError:
            if os.path.islink(part):
                target = _quoted(os.readlink(part))
                return f"{_quoted(part)} is a link to {target}, which is not there"
            return None
        except OSError:  # a folder that cannot be looked in, a loop of links: as they come
            return None
        if not stat.S_ISDIR(mode):
            return f"{_quoted(part)} is {kind_of(mode)}, not a folder"
    return None


def blocked(error: OSError) -> str | None:
    """Why a file or a folder could not be made (``error``, naming it), in words that name
    the culprit, where the system's own words mislead; None where they do not.

    A name through a file gets "Not a directory" and one through a link to nowhere "File
    exists", neither naming the culprit; /proc refuses a new file with "No such file or
    directory", of a folder that is there."""
    if not error.filename or error.errno not in (errno.ENOENT, errno.ENOTDIR, errno.EEXIST):
        return None
    if error.strerror != os.strerror(error.errno):  # termsnake's own words, said to a user
        return None
    path = Path(os.fsdecode(error.filename))
    # mkdir's EEXIST: the name itself is in the way; otherwise one on the way to it.
    blocker = in_the_way(path if error.errno == errno.EEXIST else path.parent)
    if blocker is not None:
        return blocker
    if error.errno == errno.ENOENT and path.parent.is_dir() and not os.path.lexists(path):
        return f"the system lets nothing new be made in {_quoted(path.parent)}"
    return None


def reason(error: OSError) -> str:
    """Why ``error`` happened, in words for a user: ``blocked``'s where the system's own
    words mislead, else the system's."""
    return blocked(error) or error.strerror or str(error)


def _quoted(path: str | os.PathLike[str]) -> str:
    return printable(repr(os.fspath(path)))


def kind_of(mode: int) -> str:
    """What a path of ``mode`` is, as a message names it: "a file", "a FIFO"..."""
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a folder" if stat.S_ISDIR(mode) else "something other than a file"
