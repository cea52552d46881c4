"""Bots as child processes: the termsnake-engine/1 protocol (JSON lines over stdin/stdout)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Final, NoReturn

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.exits import signals_held
from termsnake.formats.fileio import describe_parse_error
from termsnake.formats.text import shorten
from termsnake.orphans import die_with_parent
from termsnake.solvers.base import Interrupted, SolverFailed, SolverUnavailable
from termsnake.solvers.enginelog import keep_log
from termsnake.solvers.engineproc import close, exit_code, kill_group, wait_reading
from termsnake.solvers.enginetext import (
    BOM,
    PREFIX,
    WINDOWS_LINE_ENDS,
    byte_order_mark,
    cut_off,
    engine_words,
    show_bytes,
    show_value,
    silence,
    why_not_started,
    windows_line_ends,
)

PROTOCOL: Final = "termsnake-engine/1"
HELLO_TIMEOUT: Final = 10.0
MOVE_TIMEOUT: Final = 1.0
EXIT_WAIT: Final = 1.0
# An answer is one short line; anything longer is an engine flooding its stdout.
MAX_LINE: Final = 64 * 1024
# How long close waits for the log's reader to see the end of the engine's stderr, which only
# a process that left the engine's group can hold open.
LOG_WAIT: Final = 0.5
INTERRUPT_SLICE: Final = 0.1  # seconds between looks at ``interrupted`` while waiting
PROGRAM_SHOWN: Final = 160  # characters of its program's path a cause shows, escaped
DROPPED: Final = "its stderr was dropped"  # what a log that could not be written loses
WRITE_EXIT_WAIT: Final = 0.1  # seconds an engine that broke the pipe has to be seen exiting
_MOVES: Final = {d.value: d for d in Direction}


class EngineSolver:
    """A bot that runs as a child process speaking termsnake-engine/1 (README, "Engines")."""

    has_plan = False  # PlanShowing: the help leaves out `c`, as the protocol sends no plan

    def __init__(
        self,
        command: str,
        *,
        move_timeout: float = MOVE_TIMEOUT,
        hello_timeout: float = HELLO_TIMEOUT,
        log_dir: str | os.PathLike[str] | None = None,
    ) -> None:
        self.argv = engine_words(command)
        self.command = command
        self.name = PREFIX + command
        self.engine_name: str | None = None
        self.move_timeout = move_timeout
        self.hello_timeout = hello_timeout
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.log_path: Path | None = None
        # Why this game's log is cut or missing (a full disk), for the user to be told once.
        self.log_problem: str | None = None
        self.interrupted: Callable[[], bool] = lambda: False  # set_interrupt: stop waiting
        self._proc: subprocess.Popen[bytes] | None = None
        self._poll = select.poll()  # kept per engine: a move costs one poll, not a new selector
        self._poll_out = select.poll()  # only used when the engine's stdin is full
        self._buffer = b""
        self._heard = False  # whether it has written anything on its stdout in this game
        self._thinking = False  # stopped while it thought about a move (Interrupted)
        self._log: tuple[threading.Thread, threading.Event] | None = None
        self._broken: str | None = None  # why the engine lost its game at the start, if it did

    # -- the Solver protocol ------------------------------------------------------------------

    def setup(self, game: Game) -> None:
        """Start the engine and send it the game; it must answer with its name in time, else
        it loses the game at its first move (as DESIGN.md says of an engine that exits early or
        misses a time limit). SolverUnavailable only if the program cannot be started."""
        self.close()
        self._broken = None
        board = game.board
        game_message = {
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
        try:
            self._start()
            deadline = self._send(game_message, self.hello_timeout, "the game")
            hello = self._receive(deadline, self.hello_timeout, "its name", first=True)
        except SolverFailed as e:  # the engine is killed already
            self._broken = str(e)
            return
        except BaseException:  # a signal while it starts (Ctrl-C, a hang-up): let it go now
            self.close(wait=0.0)
            raise
        name = hello.get("name")
        if isinstance(name, str) and name.isprintable() and 0 < len(name) <= 64:
            self.engine_name = name

    def next_direction(self, game: Game) -> Direction:
        """Send the step and the food; the engine's move, or SolverFailed saying what it did."""
        if self._broken is not None:
            raise SolverFailed(self._broken)
        step = game.steps
        self._nothing_unasked(f"a move for step {step}")
        deadline = self._send(
            {"step": step, "food": _point(game.food)},
            self.move_timeout,
            f"the message for step {step}",
        )
        answer = self._receive(deadline, self.move_timeout, f"a move for step {step}")
        move = answer.get("move")
        if not isinstance(move, str) or move not in _MOVES:
            self._fail(
                f"answered {show_value(answer)} at step {game.steps}, not a move U, D, L or R"
            )
        return _MOVES[move]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """An engine shows no plan."""
        return {}

    def finish(self, game: Game) -> None:
        """Tell the engine how the game ended, then let it exit (or kill it)."""
        proc = self._proc
        if proc is not None and proc.stdin is not None and game.outcome is not None:
            # One try, no wait: an engine whose stdin is full is not reading it any more.
            with contextlib.suppress(OSError):
                os.write(proc.stdin.fileno(), _encode({"end": game.outcome.value}))
        # One stopped while it thought (q, Ctrl-C), or whose game was dropped unended, is not
        # reading: no grace second for it.
        stopped = self._thinking or game.outcome is None
        self.close(wait=0.0 if stopped else EXIT_WAIT)

    # -- the child process --------------------------------------------------------------------

    def _start(self) -> None:
        # A signal meanwhile is raised once the engine is in ``_proc``, for ``setup`` to close.
        with signals_held():
            self._start_held()

    def _start_held(self) -> None:
        log = self._open_log()
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                preexec_fn=die_with_parent(),
                start_new_session=True,  # a group of its own, killed with all it starts
                close_fds=True,
            )
        except OSError as e:
            log.close()
            if self.log_path is not None:  # nothing will ever be written to it
                self.log_path.unlink(missing_ok=True)
                self.log_path = None
            why = why_not_started(self.argv, e)
            program = shorten(repr(self.argv[0]), PROGRAM_SHOWN)
            raise SolverUnavailable(f"cannot start engine {program}: {why}") from None
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        os.set_blocking(proc.stdin.fileno(), False)  # a write waits in poll, against a deadline
        self._poll = select.poll()
        self._poll.register(proc.stdout.fileno(), select.POLLIN)
        self._poll_out = select.poll()
        self._poll_out.register(proc.stdin.fileno(), select.POLLOUT)
        self._buffer = b""
        self._heard = False
        self._thinking = False
        stop = threading.Event()
        reader = threading.Thread(
            target=keep_log,
            args=(proc.stderr, log, stop, self._log_cut),
            name="engine-log",
            daemon=True,
        )
        reader.start()
        self._log = (reader, stop)

    def _open_log(self) -> IO[bytes]:
        """The engine's stderr goes to a log file of its own, never to the terminal."""
        directory = self.log_dir or Path(tempfile.gettempdir())
        stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(self.argv[0]).name)
        self.log_problem = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, path = tempfile.mkstemp(prefix=f"engine-{stem[:40]}-", suffix=".log", dir=directory)
        except OSError as e:
            where = shorten(repr(str(directory)), PROGRAM_SHOWN)
            if e.errno in (errno.ENOSPC, errno.EDQUOT):
                # A disk that filled during a run ends the logs, not the engine's games (as
                # write_log): the games played before it, a bench row's, would be lost with it.
                self.log_path = None
                why = e.strerror or e
                self.log_problem = f"cannot make the engine's log in {where}: {why}; {DROPPED}"
                return open(os.devnull, "wb", buffering=0)  # keep_log reads its stderr into it
            raise SolverUnavailable(
                f"cannot write the engine's log in {where}: {e.strerror or e}"
            ) from None
        self.log_path = Path(path)
        return os.fdopen(fd, "wb", buffering=0)  # unbuffered: the log can be followed live

    def _log_cut(self, error: OSError) -> None:
        """Said by the log's reader (a thread of its own) when a write to the log failed."""
        where = shorten(repr(str(self.log_path)), PROGRAM_SHOWN)
        why = error.strerror or error
        self.log_problem = f"cannot write the engine's log {where}: {why}; the rest of {DROPPED}"

    def close(self, wait: float = EXIT_WAIT) -> None:
        """Close the engine's stdin, wait up to ``wait`` seconds for it to exit, then kill its
        process group (it and whatever it started)."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        try:
            close(proc.stdin)
            # Its stdout is read meanwhile: a line it writes as it leaves (a goodbye, an answer
            # to the end) must not kill it with a broken pipe before it has saved its work.
            wait_reading(proc, wait)
        finally:  # a signal during the grace second must not leave the group running
            close(proc.stdout)
            kill_group(proc)
            proc.wait()
            self._let_go_of_log()

    def _let_go_of_log(self) -> None:
        log, self._log = self._log, None
        if log is not None:
            reader, stop = log
            reader.join(LOG_WAIT)
            stop.set()  # a process outside the group may hold stderr open; stop reading anyway
            reader.join(LOG_WAIT)  # told to stop, it does within a poll, even on a busy machine
            if not reader.is_alive():  # the log is closed: an empty one tells nothing
                self._drop_empty_log()

    def _drop_empty_log(self) -> None:
        path = self.log_path
        try:
            if path is not None and path.stat().st_size == 0:
                path.unlink()
                self.log_path = None
        except OSError:
            pass

    def _fail(self, what: str) -> NoReturn:
        """End the game for the engine: kill it and raise SolverFailed naming what it did."""
        self.close(wait=0.0)  # a misbehaving engine gets no grace period
        # The log's name is drawn at random: kept out of the cause (which the replay records),
        # so that the same game makes the same file; ``log_path`` tells where it is.
        program = self.engine_name or shorten(self.argv[0], PROGRAM_SHOWN)
        raise SolverFailed(f"engine {program} {what}")

    def _nothing_unasked(self, what: str) -> None:
        """An engine writes only when asked: a line written since its last answer (a second
        answer, a stray print) would be taken for the answer to the next question."""
        proc = self._proc
        if proc is None or proc.stdout is None:
            return
        if not self._buffer and self._poll.poll(0):
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                self._fail(self._exit_story())
            self._buffer = chunk
        if self._buffer:
            early = self._buffer.partition(b"\n")[0]
            self._fail(f"wrote {show_bytes(early)} before it was asked for {what}")

    def _send(self, message: Mapping[str, Any], timeout: float, what: str) -> float:
        """Write ``message`` (``what``) to the engine, which must read it within ``timeout``
        seconds; returns that deadline, which its answer shares."""
        deadline = time.monotonic() + timeout
        proc = self._proc
        if proc is None or proc.stdin is None:
            self._fail("is not running")
        fd = proc.stdin.fileno()
        data = _encode(message)
        try:
            sent = os.write(fd, data)
        except BlockingIOError:
            sent = 0
        except OSError:  # a broken pipe: it has exited, or closed its stdin
            self._fail(self._write_story())
        if sent < len(data):  # its stdin is full: it is slow to read, or not reading at all
            self._send_rest(fd, memoryview(data)[sent:], deadline, f"{what} within {timeout:g} s")
        return deadline

    def _send_rest(self, fd: int, data: memoryview, deadline: float, what: str) -> None:
        while data:
            left = deadline - time.monotonic()
            if left <= 0:
                self._fail(f"did not read {what}")
            # In slices, as _read_line waits: q or a signal must not wait for its time limit.
            if not self._poll_out.poll(min(left, INTERRUPT_SLICE) * 1000):
                if self.interrupted():
                    self._thinking = True
                    raise Interrupted
                self._fail_if_failed()  # a process it started may hold its stdin
                continue
            try:
                data = data[os.write(fd, data) :]
            except BlockingIOError:
                pass
            except OSError:
                self._fail(self._write_story())

    def _receive(
        self, deadline: float, timeout: float, what: str, *, first: bool = False
    ) -> dict[str, Any]:
        """The next line from the engine as a JSON object, by ``deadline`` (``timeout`` seconds
        after its message was sent); the ``first`` of its output may begin with a BOM."""
        line = self._read_line(deadline, timeout, what)
        if first:  # .NET on Mono, its Console.OutputEncoding set to UTF8, writes one
            line = line.removeprefix(BOM)
        try:
            obj = json.loads(line.decode("utf-8"), parse_int=_whole_number)
        except (UnicodeDecodeError, ValueError, RecursionError) as e:  # the last: nested deep
            # JSON Python cannot read (a 5000-digit number, nesting past its recursion limit)
            # is said so: the line may be valid JSON.
            plain = isinstance(e, UnicodeDecodeError | json.JSONDecodeError)
            why = (byte_order_mark(e) or cut_off(e)) if plain else f" ({describe_parse_error(e)})"
            self._fail(f"wrote {show_bytes(line)}, not one JSON object{why}, for {what}")
        if not isinstance(obj, dict):
            self._fail(f"wrote {show_value(obj)}, not a JSON object, for {what}")
        return {str(k): v for k, v in obj.items()}

    def _read_line(self, deadline: float, timeout: float, what: str) -> bytes:
        proc = self._proc
        if proc is None or proc.stdout is None:
            self._fail("is not running")
        fd = proc.stdout.fileno()
        while b"\n" not in self._buffer:
            if len(self._buffer) > MAX_LINE:
                self._fail(f"wrote more than {MAX_LINE} bytes without a newline")
            left = deadline - time.monotonic()
            if left <= 0:
                if exit_code(proc, 0.0) is not None:
                    if self._poll.poll(0):  # it exited since the last look: no child has stdout
                        self._fail(self._exit_story())
                    self._fail(
                        f"{self._exit_story()} without answering {what} within {timeout:g} s "
                        "(a process it started keeps its stdout open)"
                    )
                self._fail(silence(what, timeout, self._buffer, self._heard))
            # Waited for in slices, so that a signal meanwhile (Ctrl-C while watching) ends
            # the wait at once instead of at the engine's time limit.
            if not self._poll.poll(min(left, INTERRUPT_SLICE) * 1000):
                if self.interrupted():
                    self._thinking = True
                    raise Interrupted
                # A process it started may keep its stdout open: its failure is seen here, not
                # at the time limit. What it wrote before it exited is read first.
                if not self._poll.poll(0):
                    self._fail_if_failed()
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self._fail(self._exit_story())
            self._buffer += chunk
            self._heard = True
        line, _, self._buffer = self._buffer.partition(b"\n")
        if len(line) > MAX_LINE:
            self._fail(f"wrote a line of more than {MAX_LINE} bytes")
        return line

    def _fail_if_failed(self) -> None:
        """Lose the game if the engine has exited with a failure (a process it started may hold
        its pipes open, so their ends say nothing). One that exited with status 0 may have
        handed over to that process (a launcher such as ``setsid``), which plays on."""
        code = None if self._proc is None else exit_code(self._proc, 0.0)
        if code is not None and code != 0:
            self._fail(self._exit_story())

    def _write_story(self) -> str:
        """What the engine did when a write to it failed: it exited, or closed its stdin."""
        proc = self._proc
        # Its stdin closes as it exits, a moment before it can be waited for.
        if proc is not None and exit_code(proc, WRITE_EXIT_WAIT) is None:
            return "closed its stdin"
        return self._exit_story()

    def _exit_story(self) -> str:
        proc = self._proc
        if proc is None:
            return "is not running"
        code = exit_code(proc, EXIT_WAIT)
        if code is None:
            return "closed its stdout"
        if code < 0:
            return f"was killed by signal {-code}"
        if code != 0 and windows_line_ends(self.argv[0]):
            return (
                f"exited with status {code}: its first line (#!) ends in a carriage return "
                f"{WINDOWS_LINE_ENDS}"
            )
        return f"exited with status {code}"


def _encode(message: Mapping[str, Any]) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def _point(p: Point | None) -> list[int] | None:
    return None if p is None else [p.x, p.y]


def _whole_number(text: str) -> int | float:
    """A JSON integer; one too long for Python to read as an int is infinite (unknown keys are
    ignored, so a huge number under one must not lose the game; no known key takes a number)."""
    limit = sys.get_int_max_str_digits()  # 0: no limit
    if not limit or len(text) - text.startswith("-") <= limit:
        return int(text)
    return float("-inf") if text.startswith("-") else float("inf")
