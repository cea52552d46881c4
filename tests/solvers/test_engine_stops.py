"""However a game with an engine stops (a signal, q, Ctrl-C mid-move), the engine and what it
started go at once; and what it did is said in text a terminal shows as it is."""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from engine_doubles import HELLO, NOT_READING, PY, SPAWNS, dead, engine, gone

from termsnake.bench.games import play_counted
from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.exits import Terminated
from termsnake.solvers import engine as engine_module
from termsnake.solvers.base import Interrupted, PlayStats, SolverFailed, SolverUnavailable, play
from termsnake.solvers.engine import EngineSolver
from termsnake.solvers.enginetext import show_bytes


def test_a_program_named_with_control_characters_is_escaped_in_the_cause(tmp_path: Path) -> None:
    program = tmp_path / "x\x1b[2J\x1b]0;PWNED\x07y"
    program.write_text("#!/bin/sh\nexit 3\n")
    program.chmod(0o755)
    solver = EngineSolver(shlex.quote(str(program)), log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    with pytest.raises(SolverFailed, match="exited with status 3") as info:
        solver.next_direction(game)
    cause = str(info.value)
    assert cause.isprintable() and "\\x1b[2J" in cause


def test_lines_that_differ_are_shown_differently() -> None:
    # An ESC and the four characters \x1b were both shown as '\\x1b'.
    assert show_bytes(b"\x1b") != show_bytes(b"\\x1b")
    assert all(show_bytes(b).isprintable() for b in (b"\x00\x07\x1b\x9b", "é\u202e".encode()))


def test_a_stop_while_the_engine_starts_lets_it_go(tmp_path: Path) -> None:
    # A signal while it was asked for its name left it, and all it started, running.
    pidfile = tmp_path / "child.pid"
    code = SPAWNS + "sys.stdin.readline();import time;time.sleep(30)"
    solver = EngineSolver(
        f"{PY} -c {shlex.quote(code)} {shlex.quote(str(pidfile))}", log_dir=tmp_path
    )
    solver.interrupted = lambda: pidfile.exists() and pidfile.stat().st_size > 0
    with pytest.raises(Interrupted):
        solver.setup(Game(open_level(8, 8, 1), 3))
    assert solver._proc is None and dead(int(pidfile.read_text()))
    assert not list(tmp_path.glob("*.log"))


def test_a_stop_while_the_engine_does_not_read_its_question_comes_at_once(tmp_path: Path) -> None:
    # It answers each question as it comes but never reads one, so its stdin (made small)
    # fills: q, Ctrl-C and signals waited for its move time limit.
    code = NOT_READING
    solver = engine(code, move_timeout=10, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    solver.interrupted = lambda: True
    t0 = time.monotonic()
    with pytest.raises(Interrupted):
        for _ in range(10_000):  # the pipe holds some hundreds of these messages
            solver.next_direction(game)
    assert time.monotonic() - t0 < 5
    game.quit()
    solver.finish(game)
    assert solver._proc is None


def _played_by_bench(game: Game, solver: EngineSolver) -> None:
    play_counted(game, solver, PlayStats(), None)


@pytest.mark.parametrize("player", [play, _played_by_bench], ids=["play", "bench"])
def test_a_game_stopped_mid_move_lets_its_engine_go(
    tmp_path: Path, player: Callable[[Game, EngineSolver], object]
) -> None:
    # Ctrl-C in a bench left the engines of the games under way running, and all they started.
    pidfile = tmp_path / "child.pid"
    code = SPAWNS + HELLO + "sys.stdin.readline();time.sleep(30)"
    solver = EngineSolver(
        f"{PY} -c {shlex.quote(code)} {shlex.quote(str(pidfile))}", log_dir=tmp_path
    )
    # Not before it has named its child: a busy machine may take a while to start it.
    solver.interrupted = lambda: pidfile.exists() and pidfile.stat().st_size > 0
    with pytest.raises(Interrupted):
        player(Game(open_level(8, 8, 1), 3), solver)
    assert solver._proc is None and dead(int(pidfile.read_text()))
    assert gone(int(pidfile.read_text())) or dead(int(pidfile.read_text()))


def test_a_script_whose_interpreter_is_missing_says_so(tmp_path: Path) -> None:
    # It said "No such file or directory" of a script that was there.
    script = tmp_path / "bot.py"
    script.write_text("#!/no/such/python3\n")
    script.chmod(0o755)
    solver = EngineSolver(shlex.quote(str(script)), log_dir=tmp_path)
    with pytest.raises(SolverUnavailable) as info:
        solver.setup(Game(open_level(8, 8, 1), 3))
    assert str(info.value).endswith(
        "the interpreter its first line (#!) names, '/no/such/python3', was not found"
    )


def test_a_script_with_windows_line_ends_is_told_so(tmp_path: Path) -> None:
    # "#!/bin/sh\r\n" names the interpreter "/bin/sh\r": the cause named none, and /bin/sh
    # was there for all the user could see.
    script = tmp_path / "bot.sh"
    script.write_bytes(b"#!/bin/sh\r\necho '{}'\r\n")
    script.chmod(0o755)
    solver = EngineSolver(shlex.quote(str(script)), log_dir=tmp_path)
    with pytest.raises(SolverUnavailable) as info:
        solver.setup(Game(open_level(8, 8, 1), 3))
    assert "names, '/bin/sh\\r', was not found: the line ends in a carriage return" in str(
        info.value
    )
    assert "Windows line ends" in str(info.value)


def test_a_script_for_env_with_windows_line_ends_is_told_so(tmp_path: Path) -> None:
    # "#!/usr/bin/env python3\r\n": env is there, and exits 127 looking for "python3\r". The
    # cause said only "exited with status 127".
    script = tmp_path / "bot.py"
    script.write_bytes(b"#!/usr/bin/env python3\r\nprint('{}')\r\n")
    script.chmod(0o755)
    game = Game(open_level(8, 8, 1), 3)
    assert play(game, EngineSolver(shlex.quote(str(script)), log_dir=tmp_path)) is Outcome.DIED
    assert game.cause is not None and game.cause.endswith(
        "exited with status 127: its first line (#!) ends in a carriage return (the file has "
        "Windows line ends, CRLF: convert them, as dos2unix does)"
    )


def start_failure(command: str, tmp_path: Path) -> str:
    """Why the engine ``command`` could not be started, as its cause says."""
    with pytest.raises(SolverUnavailable) as info:
        EngineSolver(command, log_dir=tmp_path / "logs").setup(Game(open_level(8, 8, 1), 3))
    return str(info.value)


def test_a_path_with_spaces_left_unquoted_is_told_to_be_quoted(tmp_path: Path) -> None:
    # It said "'/tmp/.../my': No such file or directory" of a program that was there.
    folder = tmp_path / "my bots"
    folder.mkdir()
    (folder / "bot one").write_text("#!/bin/sh\n")
    (folder / "bot one").chmod(0o755)
    why = start_failure(f"{folder}/bot one --fast", tmp_path)
    assert why.startswith(f"cannot start engine '{tmp_path}/my': No such file or directory")
    assert why.endswith(
        " (the command is split at spaces: quote a path that has them, "
        f"as in exec:'{folder}/bot one')"
    )


def test_a_file_that_is_not_executable_says_what_to_do(tmp_path: Path) -> None:
    # "Permission denied" and "Exec format error" alone left a beginner guessing.
    script = tmp_path / "bot.js"
    script.write_text("console.log('{}')\n")
    assert start_failure(str(script), tmp_path).endswith(
        "Permission denied (it is not executable: chmod +x it, or put its interpreter before it)"
    )
    script.chmod(0o755)
    assert start_failure(str(script), tmp_path).endswith(
        "Exec format error (a script needs a first line naming its interpreter, such as #!/bin/sh)"
    )
    assert start_failure(str(tmp_path), tmp_path).endswith(
        "Permission denied (it is a folder, not a program)"
    )


def test_a_name_on_path_that_is_no_program_says_which_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # exec looks a name without a slash up on PATH, and a folder or a file it cannot run there
    # got a bare "Permission denied"; `exec:.` names every folder on PATH.
    (tmp_path / "adir").mkdir()
    (tmp_path / "plain").write_text("#!/bin/sh\n")
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    assert start_failure("adir", tmp_path) == (
        f"cannot start engine 'adir': Permission denied (PATH's '{tmp_path}/adir' is a folder, "
        "not a program)"
    )
    assert start_failure("plain --fast", tmp_path) == (
        f"cannot start engine 'plain': Permission denied (PATH's '{tmp_path}/plain' is not "
        "executable)"
    )
    assert start_failure(".", tmp_path) == (
        "cannot start engine '.': Permission denied (it is a folder, not a program)"
    )


def test_a_path_that_is_no_file_says_what_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A device and a FIFO got a bare "Permission denied", where a file gets what to do.
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert start_failure(str(fifo), tmp_path) == (
        f"cannot start engine '{fifo}': Permission denied (it is a FIFO, not a program)"
    )
    assert start_failure("/dev/null --fast", tmp_path) == (
        "cannot start engine '/dev/null': Permission denied (it is a device, not a program)"
    )
    monkeypatch.chdir(tmp_path)  # a socket's path is short: tmp_path may be too long for one
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("sock")
        assert start_failure("./sock", tmp_path).endswith(
            "Permission denied (it is a socket, not a program)"
        )


def test_a_program_named_without_a_path_is_said_to_be_missing_from_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `exec:bot` for a program in this folder blamed the #! line of a program with none (a
    # compiled one): a name without a slash is looked for on PATH only.
    (tmp_path / "bot").write_bytes(b"\x7fELF")
    (tmp_path / "bot").chmod(0o755)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SolverUnavailable) as info:
        EngineSolver("bot", log_dir=tmp_path).setup(Game(open_level(8, 8, 1), 3))
    assert str(info.value) == (
        "cannot start engine 'bot': not found on PATH (the one in this folder is './bot')"
    )
    with pytest.raises(SolverUnavailable, match=r"'nosuch': not found on PATH$"):
        EngineSolver("nosuch", log_dir=tmp_path).setup(Game(open_level(8, 8, 1), 3))
    # One that cannot be run got no word of it at all: it was not executable.
    (tmp_path / "bot").chmod(0o644)
    with pytest.raises(SolverUnavailable) as info:
        EngineSolver("bot", log_dir=tmp_path).setup(Game(open_level(8, 8, 1), 3))
    assert str(info.value) == (
        "cannot start engine 'bot': not found on PATH (the one in this folder, './bot', is not "
        "executable: chmod +x it, then use exec:./bot)"
    )


def test_a_script_on_path_whose_interpreter_is_missing_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "bot").write_text("#!/no/such/python3\n")
    (tmp_path / "bot").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(SolverUnavailable, match=r"its first line \(#!\) names, '/no/such/python3'"):
        EngineSolver("bot", log_dir=tmp_path).setup(Game(open_level(8, 8, 1), 3))


# Engines whose name never arrives as a line: what the cause says of each.
SILENT = {
    # Its output sat in its buffer (C's stdout to a pipe, mawk): "did not answer" alone did
    # not say where the answer was.
    "buffers": ("import time;time.sleep(5)", r"wrote nothing on its stdout \(does it flush"),
    "no newline": (
        'import sys,time;sys.stdin.readline();sys.stdout.write(\'{"name":"x"}\');'
        "sys.stdout.flush();time.sleep(5)",
        r"""did not end its line within 0\.3 s: it wrote '\{"name":"x"\}'""",
    ),
}


@pytest.mark.parametrize("kind", sorted(SILENT))
def test_an_engine_whose_name_never_comes_as_a_line_is_told_why(tmp_path: Path, kind: str) -> None:
    code, cause = SILENT[kind]
    game = Game(open_level(8, 8, 1), 3)
    play(game, engine(code, hello_timeout=0.3, log_dir=tmp_path))
    assert game.forfeited and re.search(cause, game.cause or ""), game.cause


def test_a_signal_in_the_grace_second_of_a_normal_end_still_lets_the_engine_go(
    tmp_path: Path,
) -> None:
    # The group was killed after the wait: a signal raised in it (bench's SIGTERM) skipped the
    # kill, and the engine's children and its log stayed.
    pidfile = tmp_path / "child.pid"
    code = SPAWNS + HELLO + "time.sleep(30)"  # it never reads its end message
    solver = EngineSolver(
        f"{PY} -c {shlex.quote(code)} {shlex.quote(str(pidfile))}", log_dir=tmp_path
    )
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    game.quit()

    def ring(signum: int, frame: object) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    try:
        with pytest.raises(Terminated):
            solver.finish(game)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert solver._proc is None and dead(int(pidfile.read_text()))
    assert not list(tmp_path.glob("*.log"))


# Each exits with status 3 once asked (for its name, or for its first move), leaving a child
# that holds its stdout open; the child's pid goes to the file named by its last argument.
SH_LEAVES_A_CHILD = 'read game; sleep 30 & echo $! >"$1"; exit 3'
LEAVES_A_CHILD = {
    "name": f"sh -c {shlex.quote(SH_LEAVES_A_CHILD)} engine",
    "move": f"{PY} -c {shlex.quote(HELLO + 'sys.stdin.readline();' + SPAWNS + 'sys.exit(3)')}",
}


@pytest.mark.parametrize("asked", sorted(LEAVES_A_CHILD))
def test_an_engine_that_exits_leaving_a_child_on_its_stdout_is_said_to_have_exited_at_once(
    tmp_path: Path, asked: str
) -> None:
    # Its stdout did not end while the child lived: the game waited out the whole time limit
    # (10 s for the name) before it said the engine had exited.
    pidfile = tmp_path / "child.pid"
    command = f"{LEAVES_A_CHILD[asked]} {shlex.quote(str(pidfile))}"
    solver = EngineSolver(command, hello_timeout=60, move_timeout=60, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    t0 = time.monotonic()
    play(game, solver)
    assert time.monotonic() - t0 < 10
    assert game.forfeited and game.steps == 0
    assert game.cause is not None and game.cause.endswith(" exited with status 3")
    assert solver._proc is None and dead(int(pidfile.read_text()))


# Says its name only after a while, then goes right at every move.
SLOW_TO_START = (
    "import time;time.sleep(0.5);"
    + HELLO
    + "\nwhile sys.stdin.readline():\n print(json.dumps({'move':'R'}),flush=True)"
)


def test_an_engine_whose_launcher_exits_0_handing_it_the_pipes_plays(tmp_path: Path) -> None:
    # As `setsid` does when it must fork: the launcher's exit is no failure of the engine.
    # It keeps the pipes, as setsid's child does (sh gives a job started with & /dev/null).
    launched = f"exec 3<&0; {PY} -c {shlex.quote(SLOW_TO_START)} <&3 3<&- & exit 0"
    command = f"sh -c {shlex.quote(launched)}"
    solver = EngineSolver(command, hello_timeout=30, move_timeout=30, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    play(game, solver)
    assert not game.forfeited and game.cause == "left the board", game.cause
    assert game.steps == 4  # right from the middle to the edge, then off it


def _signal_as_it_forks(monkeypatch: pytest.MonkeyPatch, pidfile: Path) -> None:
    """The engine, between fork and exec, names itself in ``pidfile`` and sends its parent
    SIGALRM: it comes while ``subprocess.Popen`` waits for the exec."""

    def child() -> None:
        pidfile.write_text(str(os.getpid()))
        os.kill(os.getppid(), signal.SIGALRM)

    monkeypatch.setattr(engine_module, "die_with_parent", lambda: child)


def _signal_once_started(monkeypatch: pytest.MonkeyPatch, pidfile: Path) -> None:
    """SIGALRM the moment ``subprocess.Popen`` has returned the engine, named in ``pidfile``."""

    class Signalling(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            pidfile.write_text(str(self.pid))
            os.kill(os.getpid(), signal.SIGALRM)

    monkeypatch.setattr(subprocess, "Popen", Signalling)


@pytest.mark.parametrize("when", [_signal_as_it_forks, _signal_once_started], ids=["fork", "start"])
def test_a_signal_while_the_engine_is_started_lets_it_go(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    when: Callable[[pytest.MonkeyPatch, Path], None],
) -> None:
    # Raised before the engine was watched, it left the engine running, and its log: on a busy
    # machine, bench's SIGTERM or SIGHUP (or the Ctrl-C its workers get) can come then.
    pidfile = tmp_path / "engine.pid"
    when(monkeypatch, pidfile)
    solver = engine("import time;time.sleep(30)", log_dir=tmp_path)

    def ring(signum: int, frame: object) -> None:
        raise Terminated(signum)

    previous = signal.signal(signal.SIGALRM, ring)
    try:
        with pytest.raises(Terminated):
            solver.setup(Game(open_level(8, 8, 1), 3))
        assert signal.getsignal(signal.SIGALRM) is ring  # held while it started, and put back
    finally:
        signal.signal(signal.SIGALRM, previous)
    assert solver._proc is None and dead(int(pidfile.read_text()))
    assert not list(tmp_path.glob("*.log"))
