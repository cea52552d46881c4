"""The server's output, its log on stderr and its lines on stdout, written by threads of their
own: a reader that takes nothing (a pipe nobody reads, a terminal paused by Ctrl-S) must not
hold the server up, which would then neither serve its visitors nor stop at a signal. What such
a reader leaves unread past a bound is dropped, counted, and said where it would have been."""

from __future__ import annotations

import codecs
import contextlib
import errno
import logging
import os
import select
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Final, TextIO

from termsnake.formats.text import SHOWN_ERRORS, printable, shorten
from termsnake.serve.limits import LOG_BACKLOG

PREFIX: Final = "termsnake serve: "


class Sink:
    """One of the streams a line goes to: through its file descriptor, if it has one, so that
    no lock of Python's stream is held while a write waits for the reader (as the process
    exits, Python would wait for that lock, and then fail). A copy of it (``of``): fds 1 and 2
    are put aside while a plugin is imported (``solvers.fdaside``), and the lines a thread of
    the log writes meanwhile, the plugin's own logging's too, went there."""

    def __init__(self, stream: TextIO | None, fd: int | None) -> None:
        self.stream = stream  # None: closed as the program started (2>&-), written nowhere
        self.fd = fd
        self.midline = False  # a write failed within a line: the next starts a line of its own
        self.encoding = (getattr(stream, "encoding", None) or "utf-8") if fd is not None else None
        # One encoder for every line, as Python's stream has: a line encoded alone would start
        # with its own byte order mark (UTF-16).
        self.encoder = codecs.getincrementalencoder(self.encoding or "utf-8")(SHOWN_ERRORS)
        if fd is not None:
            with contextlib.suppress(OSError):  # a pipe, a terminal: no position
                if os.lseek(fd, 0, os.SEEK_CUR) > 0:  # as Python's stream: the mark is there
                    self.encoder.setstate(0)

    @classmethod
    def of(cls, stream: TextIO | None) -> Sink:
        """``stream``, what Python holds of it written first."""
        if stream is None:
            return cls(None, None)
        try:
            stream.flush()
            return cls(stream, os.dup(stream.fileno()))
        except (OSError, ValueError, AttributeError):  # in memory (a test's), or closed
            return cls(stream, None)

    def release(self) -> None:
        """Close the copy of the file descriptor, once no thread writes through it."""
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None
            self.stream = None

    def place(self) -> object:
        """Where it writes: one pipe, terminal or file for stdout and stderr (``2>&1``) is
        one place, whose lines are written by one thread, in order."""
        if self.fd is not None:
            try:
                st = os.fstat(self.fd)
                return (st.st_dev, st.st_ino)
            except OSError:
                pass
        return id(self.stream)

    def write(self, text: str) -> None:
        """Write ``text`` whole, waiting as long as the reader takes; an error is raised as it
        comes, what was written of ``text`` left as it is."""
        if self.stream is None:
            return
        if self.fd is None:
            self.stream.write(text)
            self.stream.flush()
            return
        data = memoryview(self.encoder.encode("\n" + text if self.midline else text))
        whole = len(data)
        try:
            while data:
                try:
                    data = data[os.write(self.fd, data) :]
                except BlockingIOError:  # made non-blocking by another program that shares it
                    select.select([], [self.fd], [])
        finally:
            self.midline = bool(data) and (self.midline or len(data) < whole)


@dataclass(slots=True)
class Gap:
    """Where lines were dropped, in a Writer's queue: ``count`` of them, said on ``sink``."""

    sink: Sink
    count: int = 1


def _note(lines: int, why: str) -> str:
    """The line said where ``lines`` lines were dropped."""
    many = "1 line" if lines == 1 else f"{lines} lines"
    return f"{PREFIX}{many} of the log dropped here: {why}\n"


def _gone(error: Exception, sink: Sink) -> bool:
    """Whether ``error``, writing on ``sink``, says its reader has gone for good: a pipe's
    reader exited, a terminal hung up (EIO), the descriptor or the stream was closed."""
    if isinstance(error, OSError):
        return error.errno in (errno.EPIPE, errno.EIO, errno.EBADF)
    return isinstance(error, ValueError) and bool(getattr(sink.stream, "closed", False))


def _why(error: Exception) -> str:
    """``error`` as a note says why lines were dropped."""
    if isinstance(error, OSError) and error.strerror:
        return printable(error.strerror)
    return printable(f"{type(error).__name__}: {error}")


class Writer:
    """The lines for one place, written in order by a thread of its own. At most ``most``
    characters wait: a line past them is dropped, and so are the next until half of them are
    free (a reader taking lines slowly gets a note now and then, not between every two); a
    line says how many were dropped, where they would have been."""

    def __init__(self, most: int) -> None:
        self.most = most
        self.queue: deque[tuple[Sink, str] | Gap] = deque()
        self.size = 0  # the characters of the lines waiting
        self.writing_since: float | None = None  # when the write under way began
        self.gone = False  # the reader went away (EPIPE), or the thread ended: no more written
        self.closed = False
        self.last: Sink | None = None  # the sink of the last text taken
        self.cond = threading.Condition()
        threading.Thread(target=self._run, name="termsnake-output", daemon=True).start()

    def put(self, sink: Sink, text: str) -> None:
        """Write ``text`` to ``sink`` in turn (or drop it, counted, if too much waits)."""
        with self.cond:
            if self.gone or self.closed:
                return
            last = self.queue[-1] if self.queue else None
            dropping = isinstance(last, Gap) and self.size > self.most // 2
            if dropping or self.size + len(text) > self.most:
                if isinstance(last, Gap):
                    last.count += 1
                else:
                    self.queue.append(Gap(sink))
                return
            self.queue.append((sink, text))
            self.size += len(text)
            self.cond.notify_all()

    def _run(self) -> None:
        failed, why = 0, ""  # lines whose write failed since one was written, and the last error
        try:
            while (taken := self._take(failed)) is not None:
                sink, text, lines = taken
                if failed:  # said before the next written, where they would have been
                    text = _note(failed, f"writing failed ({why})") + text
                try:
                    sink.write(text)
                    failed = 0
                except Exception as e:  # the next may be written: a disk full has room again
                    if _gone(e, sink):
                        return
                    failed, why = failed + lines, _why(e)
                with self.cond:
                    self.writing_since = None
                    self.cond.notify_all()
        finally:  # whatever ended it: nothing more is written, nor waited for
            with self.cond:
                self.gone = True
                self.writing_since = None
                self.queue.clear()
                self.size = 0
                self.cond.notify_all()

    def _take(self, failed: int) -> tuple[Sink, str, int] | None:
        """The next text to write, and how many lines it stands for; None once closed and all
        are written (a note of ``failed`` lines, if any, is tried last)."""
        with self.cond:
            while not self.queue and not self.closed:
                self.cond.wait()
            if self.queue:
                item = self.queue.popleft()
                if isinstance(item, Gap):
                    sink, lines = item.sink, item.count
                    text = _note(lines, "its reader took none")
                else:
                    (sink, text), lines = item, 1
                    self.size -= len(text)
                self.last = sink
            elif failed and self.last is not None:  # closed: the note alone, once
                sink, text, lines, self.last = self.last, "", 0, None
            else:
                return None
            self.writing_since = time.monotonic()
            return sink, text, lines

    def close(self) -> None:
        """Take no more lines; the thread ends once those waiting are written."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()

    def drain(self, deadline: float, stall: float) -> bool:
        """Wait until every line is written, until ``deadline`` (``time.monotonic``) at most
        and not for a write that has waited ``stall`` seconds for its reader: whether all
        were (or the reader went away). Once closed, until the thread has ended: it may have
        a note to write after the last line."""
        with self.cond:
            while not self.gone and (self.queue or self.writing_since is not None or self.closed):
                now = time.monotonic()
                stuck = self.writing_since is not None and now - self.writing_since >= stall
                if now >= deadline or stuck:
                    return False
                self.cond.wait(min(deadline - now, stall))
            return True


class Output:
    """The server's stdout (``say``) and stderr (the log's ``handler``), each a Writer's; one
    Writer for both where they are one place."""

    def __init__(
        self, stdout: TextIO | None, stderr: TextIO | None, most: int = LOG_BACKLOG
    ) -> None:
        # Every sink made now, before the server starts: making one flushes what Python holds
        # of its stream, which waits for the reader; at first use it would have held the
        # thread saying the line, and every other waiting on the log's lock.
        self.sinks: list[tuple[Sink, Writer]] = []  # stdout's, stderr's
        self.closed: bool | None = None  # once closed: whether every line was written
        self.writers: dict[object, Writer] = {}  # by place
        made: dict[object, Sink] = {}
        for stream in (stdout, stderr):
            sink = Sink.of(stream)
            # Both in one encoding to one place share its encoder: one byte order mark (2>&1).
            sink = made.setdefault((sink.place(), sink.encoding), sink)
            writer = self.writers.get(sink.place())
            if writer is None:
                writer = self.writers[sink.place()] = Writer(most)
            self.sinks.append((sink, writer))

    def say(self, line: str) -> None:
        """Write ``line`` on stdout, as the log's lines are written."""
        sink, writer = self.sinks[0]
        writer.put(sink, _cut(line, writer.most // 2) + "\n")

    def log(self, text: str) -> None:
        """Write ``text`` (one record of the log, formatted) on stderr."""
        sink, writer = self.sinks[1]
        writer.put(sink, _cut(text, writer.most // 2) + "\n")

    def handler(self) -> logging.Handler:
        """A logging handler whose records go to stderr through here."""
        return _Handler(self)

    def close(self, deadline: float, stall: float) -> bool:
        """Take no more lines, and let those waiting be written until ``deadline``
        (``time.monotonic``), not waiting for a reader that took nothing for ``stall``
        seconds: whether all were. Closed again, it waits no more and says the same."""
        if self.closed is None:
            writers = list(self.writers.values())
            for writer in writers:
                writer.close()
            self.closed = all([writer.drain(deadline, stall) for writer in writers])
            if self.closed:  # every thread has ended: else one may still be in a write
                for sink in {id(s): s for s, _ in self.sinks}.values():
                    sink.release()
        return self.closed


def _cut(line: str, most: int) -> str:
    """``line``, cut to fit in ``most`` characters with its newline if it is longer, and saying
    so: one past a Writer's bound would be dropped even with nothing waiting (half of it: so
    that it fits while others wait)."""
    if len(line) < most:
        return line
    tail = f"… (cut: the line had {len(line)} characters)"
    return line[: max(most - 1 - len(tail), 0)] + tail


class _Handler(logging.Handler):
    """Each record, formatted, to the Output's stderr: never waits for the reader."""

    def __init__(self, output: Output) -> None:
        super().__init__()
        self.output = output

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception as e:  # a plugin's log.info("%d", "x"): logging's handleError would
            # write a traceback straight to sys.stderr, and wait for its reader
            text = PREFIX + _unformatted(record, e)
        self.output.log(text)


def _unformatted(record: logging.LogRecord, error: Exception) -> str:
    """What the log says of ``record``, whose formatting failed: the error, the message and
    its arguments (a plugin's objects, whose str or repr may fail too)."""
    what = f"a line of the log could not be made ({type(error).__name__}"
    try:
        msg, args = shorten(repr(record.msg), 200), shorten(repr(record.args), 200)
        said = f"{what}: {error}): {msg} % {args}"
    except Exception:
        said = f"{what})"
    return printable(f"{said}, logged by {record.name}")
