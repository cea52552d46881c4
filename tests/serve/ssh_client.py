"""A real `termsnake serve` in a child process, and asyncssh clients that read its screens."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import asyncssh
import pyte
from pty_harness import steps_shown

TERMSNAKE = str(Path(sys.executable).parent / "termsnake")


@dataclass
class Server:
    """A running server: its process, port and log."""

    proc: subprocess.Popen[str]
    port: int
    first_line: str  # "listening on ...; connect with: ..."
    _lines: list[str] = field(default_factory=list, repr=False)  # read by _reader (wait_log)
    _reader: threading.Thread | None = field(default=None, repr=False)

    def log(self) -> str:
        """Everything the server printed after its first line (once it stopped)."""
        assert self.proc.stdout is not None
        if self._reader is None:
            return self.proc.stdout.read()
        self._reader.join(10)
        return "".join(self._lines)

    def wait_log(self, needle: str, seconds: float = 10) -> list[str]:
        """The lines the server printed after its first, once one holds ``needle``, while it
        runs on (AssertionError if none does in time): a server shared by several tests."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read, daemon=True)
            self._reader.start()
        deadline = time.monotonic() + seconds
        while not any(needle in line for line in list(self._lines)):
            if time.monotonic() > deadline or not self._reader.is_alive():
                raise AssertionError(f"{needle!r} never in the log:\n{''.join(self._lines)}")
            time.sleep(0.05)
        return [line.rstrip("\n") for line in self._lines]

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:  # until the server's end
            self._lines.append(line)


@contextmanager
def running(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> Iterator[Server]:
    """`termsnake serve --port 0 ARGS` with its own data directory (and the variables ``env``
    more); stopped afterwards."""
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "HOME": str(tmp_path),
           **(env or {})}  # fmt: skip
    proc = subprocess.Popen(
        [TERMSNAKE, "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"listening on (?:127\.0\.0\.1|\[::1\]):(\d+);", line)
    if not match:
        # A server that did not start (or was killed) is reaped here, not left to warn in
        # whichever test runs next.
        proc.kill()
        rest = proc.stdout.read()
        proc.wait(10)
        proc.stdout.close()
        raise AssertionError(f"termsnake serve did not start: {line}{rest}")
    server = Server(proc, int(match.group(1)), line)
    try:
        yield server
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
        if server._reader is not None:
            server._reader.join(10)  # at the end of the output, before it is closed
        proc.stdout.close()


def openssh_command(
    port: int, destination: str, *args: str, keys: Sequence[Path] = ()
) -> list[str]:
    """OpenSSH's ssh to ``destination`` (no config or agent, any host key; the private key
    files ``keys``, offered in that order, and no others)."""
    options = ("BatchMode=yes", "StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null",
               "IdentityAgent=none", "IdentitiesOnly=yes",
               f"PubkeyAuthentication={'yes' if keys else 'no'}", "LogLevel=error")  # fmt: skip
    identities = [arg for key in keys for arg in ("-i", str(key))]
    return ["ssh", "-F", "/dev/null", *(f"-o{o}" for o in options), *identities,
            "-p", str(port), *args, destination]  # fmt: skip


def openssh(
    port: int, destination: str, *args: str, keys: Sequence[Path] = (), input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """OpenSSH's ssh run as a person would run it (typing ``input``, if given): what it
    printed, and its exit status."""
    command = openssh_command(port, destination, *args, keys=keys)
    return subprocess.run(command, input=input, capture_output=True, text=True, timeout=20,
                          check=False)  # fmt: skip


class Player:
    """One ssh client with a pty; its screen is a pyte terminal fed with what arrives."""

    def __init__(self, process: asyncssh.SSHClientProcess[bytes], size: tuple[int, int]) -> None:
        self.process = process
        self.screen = pyte.Screen(*size)
        self.stream = pyte.ByteStream(self.screen)
        self.received = b""

    async def pump(self, seconds: float = 0.05) -> None:
        """Read what arrived within ``seconds``."""
        try:
            data = await asyncio.wait_for(self.process.stdout.read(65536), seconds)
        except TimeoutError:
            return
        self.received += data
        self.stream.feed(data)

    def text(self) -> str:
        """The screen as lines of text."""
        return "\n".join(self.screen.display)

    async def wait_for(self, needle: str | Callable[[str], bool], seconds: float = 10) -> str:
        """Read until ``needle`` (a substring, or a test of the screen's text) holds
        (AssertionError with the screen if not)."""
        deadline = time.monotonic() + seconds
        while not (needle(self.text()) if callable(needle) else needle in self.text()):
            if time.monotonic() > deadline or self.process.stdout.at_eof():
                raise AssertionError(f"{needle!r} never showed:\n{self.text()}")
            await self.pump()
        return self.text()

    async def wait_steps(self, at_least: int) -> str:
        """Read until the status line counts ``at_least`` moves."""
        return await self.wait_for(lambda text: steps_shown(text) >= at_least)

    def resize(self, columns: int, rows: int) -> None:
        """Resize the window: the client's screen (which, as tmux's, drops lines off the top
        when it shrinks) and the server's idea of it."""
        self.screen.resize(rows, columns)
        self.process.change_terminal_size(columns, rows)

    async def keys(self, data: bytes) -> None:
        """Type ``data``."""
        self.process.stdin.write(data)
        await self.pump(0.05)


async def connect(port: int, name: str, **kwargs: object) -> asyncssh.SSHClientConnection:
    """An ssh connection as ``name`` (no keys unless given, no agent, any host key)."""
    options: dict[str, object] = {"known_hosts": None, "client_keys": None, "agent_path": None}
    return await asyncssh.connect("127.0.0.1", port=port, username=name, **(options | kwargs))


async def player(
    conn: asyncssh.SSHClientConnection,
    size: tuple[int, int] = (80, 24),
    window: int = 2**21,
    env: dict[str, str] | None = None,
    term_type: str = "xterm-256color",
) -> Player:
    """An interactive shell with a pty on ``conn`` (``window``: the bytes it may receive
    unread; ``env``: the variables it asks the server to set; ``term_type``: its TERM)."""
    process = await conn.create_process(
        term_type=term_type, term_size=size, encoding=None, window=window, env=env or {}
    )
    return Player(process, size)


async def start_classic(p: Player, name: str) -> None:
    """From the lobby, start classic: the game then waits for a direction key."""
    await p.wait_for(f"hello, {name}")
    await p.keys(b"\r\r")  # Play a level: classic
    await p.wait_for("a direction key starts")
