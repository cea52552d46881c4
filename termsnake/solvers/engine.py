"""Bots as child processes: the termsnake-engine/1 protocol (JSON lines over stdin/stdout)."""

from __future__ import annotations

import ctypes
import json
import os
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, Final, NoReturn

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import SolverFailed, SolverUnavailable

PROTOCOL: Final = "termsnake-engine/1"
PREFIX: Final = "exec:"
HELLO_TIMEOUT: Final = 10.0
MOVE_TIMEOUT: Final = 1.0
EXIT_WAIT: Final = 1.0
# An answer is one short line; anything longer is an engine flooding its stdout.
MAX_LINE: Final = 64 * 1024
_MOVES: Final = {d.value: d for d in Direction}


def _die_with_parent() -> None:
    """In the child before exec: a SIGKILL of termsnake must not leave the engine orphaned."""
    if sys.platform.startswith("linux"):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGKILL)


class EngineSolver:
    """A bot that runs as a child process speaking termsnake-engine/1 (README, "Engines")."""

    def __init__(
        self,
        command: str,
        *,
        move_timeout: float = MOVE_TIMEOUT,
        hello_timeout: float = HELLO_TIMEOUT,
        log_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        try:
            self.argv = shlex.split(command)
        except ValueError as e:
            raise ValueError(f"cannot split the engine command {command!r}: {e}") from None
        if not self.argv:
            raise ValueError("the engine command is empty: --ai exec:COMMAND")
        self.command = command
        self.name = PREFIX + command
        self.engine_name: str | None = None
        self.move_timeout = move_timeout
        self.hello_timeout = hello_timeout
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.log_path: Path | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._poll = select.poll()  # kept per engine: a move costs one poll, not a new selector
        self._buffer = b""

    # -- the Solver protocol ------------------------------------------------------------------

    def setup(self, game: Game) -> None:
        """Start the engine and send it the game; it must answer with its name in time."""
        self.close()
        self._start()
        board = game.board
        self._send(
            {
                "format": PROTOCOL,
                "board": {
                    "name": game.level.name,
                    "width": board.width,
                    "height": board.height,
                    "rows": list(board.rows()),
                    "wrap": board.wrap,
                },
                "body": [[p.x, p.y] for p in game.body],
                "direction": game.direction.value,
                "food": _point(game.food),
                "seed": game.seed,
            }
        )
        try:
            hello = self._receive(self.hello_timeout, "its name")
        except SolverFailed as e:
            self.close()
            raise SolverUnavailable(str(e)) from None
        name = hello.get("name")
        if isinstance(name, str) and name.isprintable() and 0 < len(name) <= 64:
            self.engine_name = name

    def next_direction(self, game: Game) -> Direction:
        """Send the step and the food; the engine's move, or SolverFailed saying what it did."""
        self._send({"step": game.steps, "food": _point(game.food)})
        answer = self._receive(self.move_timeout, f"a move for step {game.steps}")
        move = answer.get("move")
        if not isinstance(move, str) or move not in _MOVES:
            self._fail(f"answered {_show(answer)} at step {game.steps}, not a move U, D, L or R")
        return _MOVES[move]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """An engine shows no plan."""
        return {}

    def finish(self, game: Game) -> None:
        """Tell the engine how the game ended, then let it exit (or kill it)."""
        if self._proc is not None and game.outcome is not None:
            self._send({"end": game.outcome.value}, quiet=True)
        self.close()

    # -- the child process --------------------------------------------------------------------

    def _start(self) -> None:
        log = self._open_log()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=log,
                preexec_fn=_die_with_parent,  # engines start from one thread only
                close_fds=True,
            )
        except OSError as e:
            raise SolverUnavailable(f"cannot start engine {self.argv[0]!r}: {e.strerror}") from None
        finally:
            log.close()
        assert self._proc.stdout is not None
        self._poll = select.poll()
        self._poll.register(self._proc.stdout.fileno(), select.POLLIN)
        self._buffer = b""

    def _open_log(self) -> IO[bytes]:
        """The engine's stderr goes to a log file of its own, never to the terminal."""
        directory = self.log_dir or Path(tempfile.gettempdir())
        directory.mkdir(parents=True, exist_ok=True)
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(self.argv[0]).name)
        fd, path = tempfile.mkstemp(prefix=f"engine-{stem[:40]}-", suffix=".log", dir=directory)
        self.log_path = Path(path)
        return os.fdopen(fd, "wb")

    def close(self, wait: float = EXIT_WAIT) -> None:
        """Close the engine's stdin, wait up to ``wait`` seconds for it to exit, then kill it."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(wait)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def _fail(self, what: str) -> NoReturn:
        """End the game for the engine: kill it and raise SolverFailed naming what it did."""
        self.close(wait=0.0)  # a misbehaving engine gets no grace period
        where = f" (its stderr: {self.log_path})" if self.log_path else ""
        raise SolverFailed(f"engine {self.engine_name or self.argv[0]} {what}{where}")

    def _send(self, message: Mapping[str, Any], *, quiet: bool = False) -> None:
        proc = self._proc
        if proc is None or proc.stdin is None:
            if quiet:
                return
            self._fail("is not running")
        try:
            proc.stdin.write(json.dumps(message, separators=(",", ":")).encode() + b"\n")
            proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            if not quiet:
                self._fail(self._exit_story())

    def _receive(self, timeout: float, what: str) -> dict[str, Any]:
        """The next line from the engine as a JSON object, within ``timeout`` seconds."""
        line = self._read_line(timeout, what)
        try:
            obj = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            self._fail(f"wrote {_show_bytes(line)}, not one JSON object, for {what}")
        if not isinstance(obj, dict):
            self._fail(f"wrote {_show(obj)}, not a JSON object, for {what}")
        return {str(k): v for k, v in obj.items()}

    def _read_line(self, timeout: float, what: str) -> bytes:
        proc = self._proc
        if proc is None or proc.stdout is None:
            self._fail("is not running")
        fd = proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                self._fail(f"wrote more than {MAX_LINE} bytes without a newline")
            left = deadline - time.monotonic()
            if left <= 0 or not self._poll.poll(left * 1000):
                self._fail(f"did not answer with {what} within {timeout:g} s")
            chunk = os.read(fd, 65536)
            if not chunk:
                self._fail(self._exit_story())
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            self._fail(f"wrote a line of more than {MAX_LINE} bytes")
        return line

    def _exit_story(self) -> str:
        proc = self._proc
        if proc is None:
            return "is not running"
        try:
            code = proc.wait(EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return "closed its stdout"
        if code < 0:
            return f"was killed by signal {-code}"
        return f"exited with status {code}"


def _point(p: Point | None) -> list[int] | None:
    return None if p is None else [p.x, p.y]


def _show(obj: object) -> str:
    """A short, printable rendering of what an engine sent."""
    return _show_bytes(json.dumps(obj, ensure_ascii=True).encode())


def _show_bytes(data: bytes) -> str:
    text = data[:60].decode("ascii", "backslashreplace")
    text = "".join(c if c.isprintable() else f"\\x{ord(c):02x}" for c in text)
    return repr(text + ("..." if len(data) > 60 else ""))
