"""An engine's process from outside: its exit code, its last output, its process group."""

from __future__ import annotations

import contextlib
import os
import select
import signal
import subprocess
import time
from typing import IO, Final

# What an engine may write in its grace second after the end before its stdout is closed: a
# goodbye or an answer to the end is read and dropped, while one that writes on without end
# breaks its pipe, as it did when stdout was closed at once.
MAX_LAST_WORDS: Final = 64 * 1024


def exit_code(proc: subprocess.Popen[bytes], timeout: float) -> int | None:
    """The engine's exit code (minus the signal that ended it) if it ends within ``timeout``
    seconds, else None. Where it can, this leaves the engine unreaped: until it is reaped its
    pid, which is its group's id, cannot be reused, so killing the group cannot hit another."""
    if proc.returncode is not None or not hasattr(os, "waitid"):  # macOS before Python 3.13
        try:
            return proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None
    deadline = time.monotonic() + timeout
    delay = 0.0005  # doubling, as Popen.wait polls
    while True:
        try:
            info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:  # reaped already, by something else
            return proc.wait()
        if info is not None:
            return info.si_status if info.si_code == os.CLD_EXITED else -info.si_status
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        time.sleep(min(delay, left))
        delay = min(2 * delay, 0.05)


def wait_reading(proc: subprocess.Popen[bytes], timeout: float) -> None:
    """Wait up to ``timeout`` seconds for the engine to exit, reading and dropping what it writes
    on its stdout meanwhile, up to MAX_LAST_WORDS bytes; past that, or at its end, stdout is
    closed."""
    deadline = time.monotonic() + timeout
    out, read = proc.stdout, 0
    if out is not None and not out.closed:
        poll = select.poll()  # not select.select, which takes no descriptor above 1023
        poll.register(out.fileno(), select.POLLIN)
        delay = 0.0005  # doubling, as exit_code's: it may exit while a child holds its stdout
        while read <= MAX_LAST_WORDS:
            left = deadline - time.monotonic()
            if left <= 0 or exit_code(proc, 0.0) is not None:
                break
            if poll.poll(1000 * min(delay, left)):
                try:
                    chunk = os.read(out.fileno(), 65536)
                except OSError:
                    break
                if not chunk:
                    break
                read += len(chunk)
            delay = min(2 * delay, 0.05)
    close(out)
    exit_code(proc, max(0.0, deadline - time.monotonic()))


def close(stream: IO[bytes] | None) -> None:
    if stream is not None:
        with contextlib.suppress(OSError):
            stream.close()


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the engine's process group, so that the processes it started go with it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:  # it has left its group: the engine itself, at least
        proc.kill()
