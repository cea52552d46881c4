"""Drive the installed ``termsnake`` in a pseudo-terminal and read the screen as a person would."""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pyte
import pytest

_STEPS = re.compile(r"\bsteps (\d+)")

ENTER_ALT = b"\x1b[?1049h"
LEAVE_ALT = b"\x1b[?1049l"


def steps_shown(screen: str) -> int:
    """The move count on a game's status line (-1 before it shows). Tests wait for a count
    *at least* some number: a busy machine delivers frames in bursts, and one read can skip
    a count."""
    found = _STEPS.findall(screen)
    return int(found[-1]) if found else -1


def default_signals(ignored: Sequence[int] = ()) -> None:
    """In the child: Ctrl-C and Ctrl-\\ act as in a terminal a person opens, even where the tests
    were started in a shell's background, whose commands inherit SIGINT and SIGQUIT ignored;
    the signals ``ignored`` are (SIGHUP, as ``nohup`` starts a command)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    for signum in ignored:
        signal.signal(signum, signal.SIG_IGN)


def start_detached(
    args: Sequence[str], home: Path, stderr: int | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """``termsnake ARGS`` on a new 80x24 pty that is not its controlling terminal (closing the
    master sends it no hang-up), its stderr to ``home/stderr.txt`` or the file descriptor
    ``stderr``; the child and the master."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    with contextlib.ExitStack() as files:
        if stderr is None:
            stderr = files.enter_context(open(home / "stderr.txt", "w")).fileno()
        child = subprocess.Popen(
            [termsnake_command(), *args],
            stdin=slave,
            stdout=slave,
            stderr=stderr,
            env=quiet_env(home),
            start_new_session=True,
        )
    os.close(slave)
    return child, master


@contextlib.contextmanager
def full_pipe() -> Iterator[tuple[int, int]]:
    """A real pipe (its read and write ends) filled up, that nobody reads yet: a write to it
    waits, as one to a pipe whose reader is asleep (`2>&1 | sleep 1000`)."""
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)  # ours alone until a child gets it: set back before
        for chunk in (b"x" * 4096, b"x"):
            with contextlib.suppress(BlockingIOError):
                while True:
                    os.write(w, chunk)
        os.set_blocking(w, True)
        yield r, w
    finally:
        os.close(r)
        with contextlib.suppress(OSError):  # a test may have closed it
            os.close(w)


@contextlib.contextmanager
def on_a_pty(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """This process's stdin and stdout (``sys``'s and the ones blessed takes) on a new 80x24
    pty; yields its master, to type on. Enter it in the test's body, as below."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    streams = open(slave, closefd=False), open(slave, "w", closefd=False)  # noqa: SIM115
    for name, stream in zip(("stdin", "stdout"), streams, strict=True):
        monkeypatch.setattr(sys, name, stream)
        monkeypatch.setattr(sys, f"__{name}__", stream)
    try:
        yield master
    finally:
        for stream in streams:
            stream.close()
        os.close(slave)
        os.close(master)


@contextlib.contextmanager
def closed_once_modes_are_read(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """This process's stdin and stdout (``sys``'s and the ones blessed takes) on a new pty whose
    master is closed once the terminal's modes are first read: a window closed at that moment.
    Yields what was written on the pty by then, once it is. Enter it in the test's body: pytest
    puts its own stdout back after the fixtures are set up."""
    master, slave = os.openpty()
    streams = open(slave, closefd=False), open(slave, "w", closefd=False)  # noqa: SIM115
    for name, stream in zip(("stdin", "stdout"), streams, strict=True):
        monkeypatch.setattr(sys, name, stream)
        monkeypatch.setattr(sys, f"__{name}__", stream)
    said: list[bytes] = []
    read_modes = termios.tcgetattr

    def then_closed(fd: int) -> list[Any]:
        modes = read_modes(fd)
        if not said:
            # Nothing, where nothing is drawn before the modes are set (the game).
            ready, _, _ = select.select([master], [], [], 0.2)
            said.append(os.read(master, 65536) if ready else b"")
            os.close(master)
        return modes

    monkeypatch.setattr(termios, "tcgetattr", then_closed)
    try:
        yield said
    finally:
        for stream in streams:
            with contextlib.suppress(OSError):  # what the gone terminal could not take is dropped
                stream.close()
        os.close(slave)
        if not said:  # else closed already
            os.close(master)


def termsnake_command() -> str:
    """The installed console script (the one the README tells users to run)."""
    found = shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")
    if not Path(found).exists():
        raise RuntimeError("termsnake is not installed in this environment: pip install -e .")
    return found


def compiled_terminfo(folder: Path, entries: str) -> Path:
    """A terminfo folder (for TERMINFO) under ``folder`` with the terminfo source ``entries``
    compiled; the test is skipped where there is no ``tic`` to compile them with."""
    tic = shutil.which("tic")
    if tic is None:
        pytest.skip("no tic (ncurses) to compile terminfo entries with")
    (folder / "entries.ti").write_text(entries)
    subprocess.run([tic, "-o", str(folder / "ti"), str(folder / "entries.ti")], check=True)
    return folder / "ti"


def quiet_env(home: Path) -> dict[str, str]:
    """An environment where blessed asks the terminal nothing and files land under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "NO_COLOR"))}
    env.update(
        BLESSED_QUERY_TIMEOUT_SECONDS="0",
        TERM="xterm-256color",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        LANG="C.UTF-8",
    )
    return env


def run_plain(
    home: Path, *args: str, timeout: float = 60, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The installed command run with ``args`` off any terminal (stdin from /dev/null), in
    ``home`` with ``env`` (default :func:`quiet_env`); its output captured as text."""
    return subprocess.run(
        [termsnake_command(), *args],
        capture_output=True,
        text=True,
        env=quiet_env(home) if env is None else env,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        cwd=home,
        check=False,
    )


class Pty:
    """A program in a pseudo-terminal with a pyte screen fed from its output.

    pyte has one buffer, so leaving the alternate screen is emulated by clearing it: what is
    left afterwards is what the program printed on the normal screen.
    """

    def __init__(
        self,
        args: Sequence[str],
        home: Path,
        *,
        cols: int = 80,
        rows: int = 24,
        command: str | None = None,
        env: dict[str, str] | None = None,
        ignored: Sequence[int] = (),
    ) -> None:
        self.screen = pyte.Screen(cols, rows)
        self.stream = pyte.ByteStream(self.screen)
        self.raw = bytearray()
        self.child = pexpect.spawn(
            command or termsnake_command(),
            list(args),
            dimensions=(rows, cols),
            env={**quiet_env(home), **(env or {})},
            cwd=str(home),
            preexec_fn=lambda: default_signals(ignored),
        )

    def _feed(self, data: bytes) -> None:
        self.raw.extend(data)
        while LEAVE_ALT in data:
            before, _, data = data.partition(LEAVE_ALT)
            self.stream.feed(before)
            self.screen.reset()
        self.stream.feed(data)

    def pump(self, timeout: float = 0.05) -> None:
        """Read whatever the program has written so far."""
        while True:
            try:
                data = self.child.read_nonblocking(65536, timeout=timeout)
            except (pexpect.TIMEOUT, pexpect.EOF):
                return
            self._feed(data)
            timeout = 0.01

    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(line.rstrip() for line in self.screen.display)

    def wait_for(self, check: str | Callable[[], bool], timeout: float = 10.0) -> str:
        """Pump until ``check`` (a substring of the screen, or a predicate) holds."""
        deadline = time.monotonic() + timeout
        while True:
            self.pump()
            ok = check in self.text() if isinstance(check, str) else check()
            if ok:
                return self.text()
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {check!r}; screen:\n{self.text()}")

    def wait_steps(self, at_least: int, timeout: float = 10.0) -> str:
        """Pump until the status line counts ``at_least`` moves."""
        return self.wait_for(lambda: steps_shown(self.text()) >= at_least, timeout)

    def board(self) -> list[str]:
        """The screen's lines from the first that is not blank (the board's top edge), less
        the margin on its left that centring the board leaves."""
        lines = self.text().splitlines()
        while lines and not lines[0].strip():
            lines.pop(0)
        margin = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
        return [x[margin:] for x in lines]

    def find(self, glyph: str) -> tuple[int, int] | None:
        """The (column, row) of the first ``glyph`` on screen."""
        for y, line in enumerate(self.screen.display):
            x = line.find(glyph)
            if x >= 0:
                return x, y
        return None

    def resize(self, cols: int, rows: int) -> None:
        """Resize the terminal (the program gets SIGWINCH) and the screen that reads it."""
        self.screen.resize(rows, cols)
        self.child.setwinsize(rows, cols)

    def send(self, keys: str) -> None:
        """Type ``keys``."""
        self.child.send(keys)

    def wait_exit(self, timeout: float = 10.0) -> int:
        """Read until the program ends; its exit code (128 + n if killed by signal n)."""
        deadline = time.monotonic() + timeout
        while self.child.isalive() and time.monotonic() < deadline:
            self.pump()
        self.pump()
        try:
            self.child.expect(pexpect.EOF, timeout=max(0.1, deadline - time.monotonic()))
        except pexpect.TIMEOUT:
            self.child.terminate(force=True)
            raise AssertionError(f"the program did not end; screen:\n{self.text()}") from None
        self._feed(self.child.before or b"")
        self.child.close()
        if self.child.signalstatus is not None:
            return 128 + int(self.child.signalstatus)
        return int(self.child.exitstatus or 0)

    def restored(self) -> bool:
        """Whether the program left the alternate screen and showed the cursor after entering."""
        raw = bytes(self.raw)
        entered = raw.rfind(ENTER_ALT)
        return entered >= 0 and raw.rfind(LEAVE_ALT) > entered and not self.screen.cursor.hidden

    def close(self) -> None:
        """Make sure the program is gone."""
        if self.child.isalive():
            self.child.terminate(force=True)
