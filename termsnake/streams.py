"""The command's own output streams as a user's shell may leave them: stdout to a reader that
went away, stderr to a pipe closed early (``2>&1 | head -1``); and every open file's unwritten
lines and its temporary files, at an exit that skips Python's teardown."""

import contextlib
import gc
import io
import os
import sys
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


def silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not fail a second time."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


class _Unread(io.FileIO):
    """A file whose writes a reader that went away did not take are dropped, not raised."""

    def write(self, data: "ReadableBuffer", /) -> int:
        try:
            return super().write(data)
        except BrokenPipeError:
            return memoryview(data).nbytes


def drop_unread_stderr() -> None:
    """This process's stderr drops what a reader that went away (``2>&1 | head -1``) does not
    take, instead of raising BrokenPipeError: losing the lines that say what went wrong must
    not change how the command ends (a usage error's 2, not a closed pipe's 1). Not where
    stderr is not the process's own (a test's capture)."""
    old = sys.stderr
    if old is not sys.__stderr__ or not isinstance(old, io.TextIOWrapper):
        return
    try:
        old.flush()
        raw = _Unread(old.fileno(), "w", closefd=False)
    except (OSError, ValueError):  # closed, or no file under it: left as it is
        return
    buffered = io.BufferedWriter(raw)
    sys.stderr = io.TextIOWrapper(
        buffered, encoding=old.encoding, errors=old.errors, line_buffering=True
    )


# The open files a flush writes out: text ones first, whose flush passes what they hold to
# the binary buffer under them.
_BUFFERED: Final = (io.TextIOWrapper, io.BufferedWriter, io.BufferedRandom, io.BufferedRWPair)


def finish_files() -> None:
    """Write out what every file open in this process holds unwritten, and delete every named
    temporary file still open whose delete is on, as Python's teardown did as it freed them: a
    process that ends without it (``os._exit``) lost the lines a plugin wrote to a log it keeps
    open in a global, or opened in its atexit handler, and left its temporary files on disk."""
    # tempfile's own closer, which deletes the file as it is freed: a private name, so looked
    # up, not imported (nor tempfile, which no one may have loaded).
    closer = getattr(sys.modules.get("tempfile"), "_TemporaryFileCloser", None)
    found: list[io.IOBase] = []
    temps: list[Any] = []
    for f in gc.get_objects():
        if isinstance(f, _BUFFERED):
            found.append(f)
        elif type(f) is closer and getattr(f, "delete", False):  # not isinstance: cheaper
            temps.append(f)
    found.sort(key=lambda f: not isinstance(f, io.TextIOWrapper))
    for f in found:
        with contextlib.suppress(Exception):  # closed, detached, or its reader gone
            f.flush()
    for t in temps:
        with contextlib.suppress(Exception):  # its file gone already, or its folder
            _delete(t)


def _delete(closer: Any) -> None:
    """What the teardown's freeing of a named temporary file's ``closer`` did, but the close:
    the teardown had stopped the daemon threads first, and one still writing to the file (a
    plugin's) printed a traceback as it was closed under it. The process's end closes it."""
    # 3.12 on: cleanup_called, which also covers a file closed but kept (delete_on_close off);
    # before, close_called, set as the file was closed and deleted.
    done = getattr(closer, "cleanup_called", None)
    if done is None:
        done = closer.close_called
    if closer.delete and not done:
        closer.delete = False  # its close, if any comes, must not delete what has the name next
        os.unlink(closer.name)
