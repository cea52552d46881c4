"""The server's output to a reader that takes none of it (a pipe nobody reads, a terminal paused
by Ctrl-S): the server serves and stops all the same; what waits is bounded, what is dropped is
counted and said once the reader reads again."""

from __future__ import annotations

import asyncio
import io
import logging
import os
import re
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

import asyncssh
import pytest
from pty_harness import full_pipe
from ssh_client import TERMSNAKE, connect, player

from termsnake.serve.limits import LOG_BACKLOG, SHUTDOWN_WAIT
from termsnake.serve.output import Output

# What the faults here were is "never" (the server never served, never stopped): waited for
# this long, far past the shutdown wait and a start under load, which load alone cannot reach.
NEVER = SHUTDOWN_WAIT * 6


def read_all(fd: int, into: list[bytes]) -> threading.Thread:
    """A thread reading ``fd`` into ``into`` until its end."""

    def read() -> None:
        while data := os.read(fd, 65536):
            into.append(data)

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def lobby(port: int, seconds: float) -> None:
    """Log in as ada and see the lobby, the server listening within ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            conn = await asyncio.wait_for(connect(port, "ada"), deadline - time.monotonic())
            break
        except OSError:  # not listening yet
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.05)
    async with conn:
        ada = await asyncio.wait_for(player(conn), deadline - time.monotonic())
        await ada.wait_for("hello, ada", deadline - time.monotonic())


@pytest.mark.parametrize(
    "together",
    [False, pytest.param(True, marks=pytest.mark.slow)],  # both streams: the slow step
    ids=["stderr", "stdout-and-stderr"],
)
def test_a_log_nobody_reads_neither_freezes_the_server_nor_keeps_it_from_stopping(
    tmp_path: Path, together: bool
) -> None:
    # The log was written by whichever thread said a line: with its pipe full, the event loop
    # and every visit's thread waited on it for ever. No one got in, and SIGTERM was noted
    # but never acted on. With stdout on that pipe too, the server never even listened.
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path)}
    port = free_port() if together else 0
    log: list[bytes] = []
    with full_pipe() as (r, w):
        command = [TERMSNAKE, "serve", "--port", str(port)]
        out = w if together else subprocess.PIPE
        proc = subprocess.Popen(command, stdout=out, stderr=w, env=env)
        os.close(w)  # the server's alone
        try:
            if not together:
                assert proc.stdout is not None
                line = proc.stdout.readline().decode()
                match = re.search(r"listening on 127\.0\.0\.1:(\d+);", line)
                assert match, line
                port = int(match.group(1))
            try:
                asyncio.run(lobby(port, NEVER))  # together: its start (unannounced) too
            except (TimeoutError, OSError, asyncssh.Error) as e:
                pytest.fail(f"the server did not serve while its log was not read: {e!r}")
            if not together:  # the reader reads at last: what waited is written
                reader = read_all(r, log)
            proc.send_signal(signal.SIGTERM)
            try:
                assert proc.wait(NEVER) == 0
            except subprocess.TimeoutExpired:
                pytest.fail("SIGTERM did not stop the server while its log was not read")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            if proc.stdout is not None:
                rest = proc.stdout.read().decode()
                proc.stdout.close()
    if not together:
        reader.join(5)
        said = b"".join(log).lstrip(b"x").decode()
        assert said.startswith("termsnake serve: made a new host key at "), said
        assert "termsnake serve: ada logged in from 127.0.0.1; 1 playing\n" in said
        assert rest.endswith("termsnake serve: stopped\n")


def test_lines_past_the_bound_are_dropped_and_counted_where_they_would_have_been() -> None:
    with full_pipe() as (r, w), open(w, "w", closefd=False) as stream:
        output = Output(stream, stream, most=100)
        for n in range(50):  # ten characters each: ten wait, one is being written
            output.say(f"a {n:07d}")
        received: list[bytes] = []
        reader = read_all(r, received)
        deadline = time.monotonic() + 5
        while b"dropped" not in b"".join(received) and time.monotonic() < deadline:
            time.sleep(0.01)
        for n in range(3):  # the reader reads again: written after the count
            output.say(f"b {n:07d}")
        assert output.close(time.monotonic() + 5, 1)
        os.close(w)
        reader.join(5)
    lines = b"".join(received).lstrip(b"x").decode().splitlines()
    kept = [line for line in lines if line.startswith("a ")]
    assert 10 <= len(kept) <= 12 and kept == [f"a {n:07d}" for n in range(len(kept))]
    dropped = 50 - len(kept)
    assert lines[len(kept) :] == [
        f"termsnake serve: {dropped} lines of the log dropped here: its reader took none",
        "b 0000000",
        "b 0000001",
        "b 0000002",
    ]


def test_the_last_lines_are_not_waited_for_past_a_stall_nor_after_the_reader_went() -> None:
    with full_pipe() as (r, w), open(w, "w", closefd=False) as stream:
        output = Output(stream, stream)
        output.say("termsnake serve: stopped")
        began = time.monotonic()
        assert output.close(began + 5, 0.2) is False
        assert 0.2 <= time.monotonic() - began < 1
    r, w = os.pipe()
    os.close(r)  # its reader went away (`| head -1` that has read its line)
    with open(w, "w") as stream:
        output = Output(stream, stream)
        output.say("termsnake serve: listening")
        output.say("termsnake serve: stopped")
        began = time.monotonic()
        assert output.close(began + 5, 5) is True  # gone: nothing left to wait for
        assert time.monotonic() - began < 1


def test_closed_again_it_waits_no_more() -> None:
    # The command closes it however the server ends, after the shutdown did: a reader asleep
    # must not hold the exit a second wait longer.
    with full_pipe() as (_, w), open(w, "w", closefd=False) as stream:
        output = Output(stream, stream)
        output.say("termsnake serve: stopped")
        assert output.close(time.monotonic() + 5, 0.2) is False
        began = time.monotonic()
        assert output.close(time.monotonic() + 5, 5) is False
        assert time.monotonic() - began < 0.2


class SlowFlush(io.StringIO):
    """A stream in memory whose flush, once ``slow`` is set, waits until ``go`` is: as Python's
    stream over a full pipe does while it holds something unwritten."""

    def __init__(self) -> None:
        super().__init__()
        self.slow = False
        self.go = threading.Event()

    def flush(self) -> None:
        if self.slow:
            self.go.wait(10)


def test_the_first_line_said_does_not_wait_for_its_stream_to_be_flushed() -> None:
    # The stream was flushed as it was first used, by the thread saying the line and under
    # the log's lock: with what Python held of it unwritten, the server froze at its first line.
    stream = SlowFlush()
    output = Output(stream, stream)
    stream.slow = True
    say = threading.Thread(target=output.say, args=("listening",), daemon=True)
    say.start()
    say.join(2)
    stream.go.set()
    assert not say.is_alive()
    assert output.close(time.monotonic() + 5, 5)
    assert stream.getvalue() == "listening\n"


def test_a_file_in_utf_16_gets_one_byte_order_mark(tmp_path: Path) -> None:
    # PYTHONIOENCODING=utf-16: each line was encoded alone, and began with a mark of its own.
    log = tmp_path / "log"
    with (
        open(log, "w", encoding="utf-16") as out,
        open(out.fileno(), "w", encoding="utf-16", closefd=False) as err,
    ):  # >log 2>&1
        output = Output(out, err)
        output.say("listening")
        output.log("ada logged in")
        output.say("stopped")
        assert output.close(time.monotonic() + 5, 5)
    assert log.read_bytes().decode("utf-16") == "listening\nada logged in\nstopped\n"


class Held(io.StringIO):
    """A stream in memory whose writes wait until let through: a reader that takes nothing
    until told to."""

    def __init__(self) -> None:
        super().__init__()
        self.cond = threading.Condition()
        self.waiting = 0  # writes waiting now
        self.free = 0  # writes let through and not made yet

    def write(self, text: str) -> int:
        with self.cond:
            self.waiting += 1
            self.cond.notify_all()
            self.cond.wait_for(lambda: self.free > 0, 10)
            self.free -= 1
            self.waiting -= 1
        return super().write(text)

    def held(self) -> None:
        """Wait until a write waits, and none is let through."""
        with self.cond:
            assert self.cond.wait_for(lambda: self.waiting > 0 and self.free == 0, 5)

    def let(self, writes: int) -> None:
        with self.cond:
            self.free += writes
            self.cond.notify_all()


def test_a_note_of_lines_dropped_is_where_they_were() -> None:
    # The note was queued when the writer next took a line: after lines said later, as a
    # short one that found room where a longer one had not.
    stream = Held()
    output = Output(stream, stream, most=40)
    output.say("first")  # being written, while the reader takes nothing
    stream.held()
    for line in "abcdef":
        output.say(line * 9)  # a to d fill the 40 characters; e and f are dropped
    stream.let(2)  # first and a written, b being written: c and d wait, 20 characters
    stream.held()
    output.say("g")
    stream.let(100)
    assert output.close(time.monotonic() + 5, 5)
    note = "termsnake serve: 2 lines of the log dropped here: its reader took none"
    assert stream.getvalue().split() == ["first", *(c * 9 for c in "abcd"), *note.split(), "g"]


def test_a_line_longer_than_the_bound_is_cut_not_dropped() -> None:
    # It was dropped even with nothing waiting, and its note blamed the reader.
    stream = io.StringIO()
    output = Output(stream, stream)
    output.log("before")
    output.log("x" * (LOG_BACKLOG + 1))
    output.log("after")
    assert output.close(time.monotonic() + 5, 5)
    lines = stream.getvalue().splitlines()
    assert [lines[0], lines[2:]] == ["before", ["after"]]
    assert lines[1].endswith(f"x… (cut: the line had {LOG_BACKLOG + 1} characters)")
    assert len(lines[1]) + 1 == LOG_BACKLOG // 2


def test_a_line_cut_in_an_ascii_log_ends_with_three_dots(tmp_path: Path) -> None:
    # Under the C locale (stderr in ASCII) the ellipsis came out as \u2026.
    log = tmp_path / "log"
    with open(log, "w", encoding="ascii") as err:
        output = Output(None, err)
        output.log("x" * (LOG_BACKLOG + 1))
        assert output.close(time.monotonic() + 5, 5)
    assert log.read_text().endswith(f"x... (cut: the line had {LOG_BACKLOG + 1} characters)\n")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("then", [["stopped"], []], ids=["a-line-then", "closed-then"])
def test_a_write_that_fails_drops_its_line_not_the_rest_of_the_log(
    tmp_path: Path, then: list[str]
) -> None:
    # A disk full (ENOSPC) was taken for a reader gone: nothing more was written, not even
    # once the disk had room again. The note is said before the next line, or alone at the end.
    full = os.open("/dev/full", os.O_WRONLY)
    try:
        with open(full, "w", closefd=False) as stream:
            output = Output(stream, stream)
            output.log("ada logged in")
            output.log("bob logged in")
            (writer,) = output.writers.values()
            assert writer.drain(time.monotonic() + 5, 5)  # both tried, and failed
            # The disk has room again, under the descriptor the output writes through (its own
            # copy of the stream's).
            ((sink, _), _) = output.sinks
            assert sink.fd is not None
            with open(tmp_path / "log", "w") as room:
                os.dup2(room.fileno(), sink.fd)
            for line in then:
                output.say(line)
            assert output.close(time.monotonic() + 5, 5)
    finally:
        os.close(full)
    why = "writing failed (No space left on device)"
    assert (tmp_path / "log").read_text().splitlines() == [
        f"termsnake serve: 2 lines of the log dropped here: {why}",
        *then,
    ]


def test_the_log_goes_to_its_place_while_fds_1_and_2_are_put_aside(tmp_path: Path) -> None:
    # They are, while a plugin is imported (solvers.fdaside): the lines a thread of the log
    # wrote meanwhile, the plugin's own logging's among them, went to /dev/null.
    with open(tmp_path / "log", "w") as stream:
        output = Output(stream, stream)
        saved = os.dup(stream.fileno())
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, stream.fileno())
            output.log("logged as a plugin loads")
            (writer,) = output.writers.values()
            assert writer.drain(time.monotonic() + 5, 5)
        finally:
            os.dup2(saved, stream.fileno())
            os.close(saved)
            os.close(null)
        assert output.close(time.monotonic() + 5, 5)
    assert (tmp_path / "log").read_text() == "logged as a plugin loads\n"


class Failing(io.StringIO):
    """A stream in memory whose first write fails as nothing foresees."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    def write(self, text: str) -> int:
        if not self.failed:
            self.failed = True
            raise RuntimeError("\x1b[2Jboom")
        return super().write(text)


def test_the_writer_outlives_an_error_it_did_not_foresee_and_a_stream_not_there() -> None:
    # `termsnake serve 2>&-`: sys.stderr is None, its writer died of an AttributeError, and
    # the shutdown waited for the write it had begun; any error but a reader gone killed it.
    out = Failing()
    output = Output(out, None)
    output.log("ada logged in")
    output.say("listening")
    output.say("stopped")
    assert output.close(time.monotonic() + 5, 5)
    why = r"writing failed (RuntimeError: \x1b[2Jboom)"  # escaped: it may hold anything
    assert out.getvalue().splitlines() == [
        f"termsnake serve: 1 line of the log dropped here: {why}",
        "stopped",
    ]


def test_a_record_that_cannot_be_formatted_is_one_line_of_the_log(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # logging's handleError wrote a traceback straight to sys.stderr, waiting for its reader.
    stream = io.StringIO()
    output = Output(stream, stream)
    log = logging.Logger("a_plugin")  # apart from the others: none but the Output's handler
    log.addHandler(output.handler())
    log.warning("%d points\x1b[2J", "x")
    log.warning("%d points", Unshown())
    assert output.close(time.monotonic() + 5, 5)
    assert capsys.readouterr().err == ""
    made = "termsnake serve: a line of the log could not be made"
    assert stream.getvalue().splitlines() == [
        f"{made} (TypeError: %d format: a real number is required, not str): "
        r"'%d points\x1b[2J' % ('x',), logged by a_plugin",
        f"{made} (TypeError), logged by a_plugin",
    ]


class Unshown:
    def __repr__(self) -> str:
        raise RuntimeError("no repr")
