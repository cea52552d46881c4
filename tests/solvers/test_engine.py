"""Engines as real child processes: a good one plays, every kind of bad one loses with a cause."""

from __future__ import annotations

import errno
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from engine_doubles import EXAMPLES, HELLO, NOT_READING, PY, SPAWNS, dead, engine, gone

from termsnake.commands import cli
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.solvers.base import Interrupted, SolverFailed, SolverUnavailable, play
from termsnake.solvers.engine import EngineSolver
from termsnake.solvers.enginelog import LOG_LIMIT
from termsnake.solvers.enginetext import cut_off, show_value

# Each bad engine answers its name, then misbehaves at its first move.
BAD = {
    "exits": (HELLO + "sys.exit(3)", "exited with status 3"),
    "garbage": (
        HELLO + "sys.stdin.readline();print('hello there',flush=True);time.sleep(5)",
        "not one JSON object",
    ),
    "illegal": (
        HELLO + "sys.stdin.readline();print(json.dumps({'move':'X'}),flush=True);time.sleep(5)",
        "not a move U, D, L or R",
    ),
    "slow": (
        HELLO + "sys.stdin.readline();time.sleep(5)",
        "did not answer with a move for step 0 within",
    ),
    "flood": (
        HELLO + "sys.stdin.readline();sys.stdout.write('x'*300000);sys.stdout.flush();"
        "time.sleep(5)",
        "without a newline",
    ),
    "array": (
        HELLO + "sys.stdin.readline();print('[1,2]',flush=True);time.sleep(5)",
        "not a JSON object",
    ),
    "early": (  # its name and a move in one write, before it is asked for the move
        "import sys,time;sys.stdin.readline();"
        'sys.stdout.write(\'{"name":"bad"}\\n{"move":"R"}\\n\');sys.stdout.flush();'
        "time.sleep(5)",
        'wrote \'{"move":"R"}\' before it was asked for a move for step 0',
    ),
    "killed": (HELLO + "import os;os.kill(os.getpid(),15)", "was killed by signal 15"),
    # Its stdout stays open while a process it started lives: said at once all the same.
    "exits, its child keeps stdout": (
        HELLO + "import subprocess;subprocess.Popen(['sleep','30']);sys.exit(3)",
        "exited with status 3",
    ),
    # It said "closed its stdout", a second later: a write to it broke the pipe.
    "closes stdin": (
        "import json,os,sys,time;sys.stdin.readline();os.close(0);"
        "print(json.dumps({'name':'bad'}),flush=True);time.sleep(5)",
        "closed its stdin",
    ),
    # Pretty-printed: it lost with "wrote '{', not one JSON object", not a word of the lines.
    "pretty": (
        HELLO + "sys.stdin.readline();print(json.dumps({'move':'R'},indent=2),flush=True);"
        "time.sleep(5)",
        "wrote '{', not one JSON object (unfinished at the line's end: each object must be on "
        "one line), for a move for step 0",
    ),
    "split after a comma": (
        HELLO + "sys.stdin.readline();"
        "sys.stdout.write(json.dumps({'move':'R','why':'food'}).replace(',',',\\n')+'\\n');"
        "sys.stdout.flush();time.sleep(5)",
        'wrote \'{"move": "R",\', not one JSON object (unfinished at the line\'s end: each',
    ),
    "deep": (  # nested past the JSON decoder's recursion limit, yet a short line
        HELLO + "sys.stdin.readline();print('['*5000+']'*5000,flush=True);time.sleep(5)",
        "not one JSON object (values nested too deeply)",
    ),
}


def test_the_example_engine_plays_a_whole_game_and_exits(tmp_path: Path) -> None:
    game = Game(open_level(8, 8, 1), 3)
    solver = EngineSolver(f"{PY} {EXAMPLES / 'greedy_engine.py'}", log_dir=tmp_path)
    solver.setup(game)
    assert solver.engine_name == "greedy-engine"
    proc = solver._proc
    assert proc is not None
    while not game.over:
        game.step(solver.next_direction(game))
    solver.finish(game)
    assert game.length > 10  # it ate its way along, by its own rules in step with ours
    assert proc.returncode == 0  # it read the end message and left by itself
    # It wrote nothing on stderr (not even a traceback at its last move): no log is left.
    assert solver.log_path is None and not any(tmp_path.iterdir())


def one_move_then_quit(solver: EngineSolver) -> subprocess.Popen[bytes]:
    """Play ``solver`` one move of a game on 8x8, then quit it; the engine's process."""
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    proc = solver._proc
    assert proc is not None
    game.step(solver.next_direction(game))
    game.quit()
    solver.finish(game)
    return proc


def test_an_engine_may_write_in_its_grace_second(tmp_path: Path) -> None:
    # Its stdout was closed as the end was sent: one that answered the end too (as one that
    # answers every line does) or said goodbye died of a broken pipe before it could save
    # anything, and its log kept the traceback.
    saved = tmp_path / "saved"
    code = HELLO + (
        "sys.stdin.readline();print(json.dumps({'move':'R'}),flush=True);"
        "sys.stdin.readline();time.sleep(0.2);print('bye',flush=True);"
        f"open({str(saved)!r},'w').write('kept')"
    )
    solver = engine(code, log_dir=tmp_path / "logs")
    proc = one_move_then_quit(solver)
    assert proc.returncode == 0
    assert saved.read_text() == "kept"
    assert solver.log_path is None  # nothing on its stderr


def test_an_engine_that_writes_on_after_the_end_is_not_waited_for(tmp_path: Path) -> None:
    # Kept open and unread, its stdout filled, and such an engine (a shell loop that never
    # checks its read) was killed only at the end of the grace second, each game.
    ended = tmp_path / "ended"
    code = HELLO + (
        "sys.stdin.readline();print(json.dumps({'move':'R'}),flush=True);"
        "sys.stdin.readline()\ntry:\n    while True: sys.stdout.write('bye ' * 1000)\n"
        f"except BrokenPipeError:\n    open({str(ended)!r},'w').write('broken')"
    )
    one_move_then_quit(engine(code, log_dir=tmp_path / "logs"))
    assert ended.read_text() == "broken"  # not killed at the grace second's end


def test_an_engine_whose_pipes_are_past_descriptor_1023_ends_as_any(tmp_path: Path) -> None:
    # The grace second's read used select.select, which refuses such a descriptor (ValueError).
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip("cannot open 1100 files here")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        solver = engine(HELLO + "sys.stdin.readline();print(json.dumps({'move':'R'}),flush=True)")
        game = Game(open_level(8, 8, 1), 3)
        solver.setup(game)
        assert solver._proc is not None and solver._proc.stdout is not None
        assert solver._proc.stdout.fileno() > 1023
        game.step(solver.next_direction(game))
        game.quit()
        solver.finish(game)
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.mark.skipif(not Path("/proc/sys").is_dir(), reason="needs /proc/sys (Linux)")
def test_a_log_that_cannot_be_written_is_said_and_no_engine_is_started() -> None:
    solver = EngineSolver(f"{PY} {EXAMPLES / 'greedy_engine.py'}", log_dir="/proc/sys")
    with pytest.raises(SolverUnavailable, match=r"cannot write the engine's log in '/proc/sys'"):
        solver.setup(Game(open_level(8, 8, 1), 3))
    assert solver._proc is None


def test_a_number_too_long_for_python_under_an_unknown_key_is_ignored(tmp_path: Path) -> None:
    # Unknown keys are ignored (DESIGN); one holding 5,000 digits lost the game: Python will not
    # read such a number as an int.
    code = HELLO + "sys.stdin.readline();print('{\"move\":\"L\",\"n\":'+'9'*5000+'}',flush=True)"
    solver = engine(code, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    assert solver.next_direction(game) is Direction.LEFT
    solver.close()


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_misbehaving_engine_fails_with_what_it_did(kind: str, tmp_path: Path) -> None:
    code, cause = BAD[kind]
    solver = engine(code, move_timeout=0.5, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    proc = solver._proc
    assert proc is not None
    with pytest.raises(SolverFailed, match=re.escape(cause)) as info:
        solver.next_direction(game)
    assert proc.returncode is not None and gone(proc.pid)
    assert "stderr" not in str(info.value)  # its log's random name: not in what replays keep
    assert ("on one line" in str(info.value)) is (kind in ("pretty", "split after a comma"))


@pytest.mark.parametrize(
    ("line", "told"),
    [
        ("{", True),
        (" [ ", True),
        ('{"move":', True),
        ('{"move": "R"', True),
        ('{"move": R}', False),  # wrong where it stands, not cut off
        ("hello there", False),
        ('{"move": "R"}}', False),
        ('{"move": "R', False),  # a string never spans lines: not pretty-printing
    ],
)
def test_only_a_line_cut_off_mid_object_is_told_to_keep_each_on_one_line(
    line: str, told: bool
) -> None:
    with pytest.raises(json.JSONDecodeError) as info:
        json.loads(line)
    assert (cut_off(info.value) != "") is told


def starts_with_a_bom(hello: bytes, move: bytes) -> str:
    """An engine that writes ``hello`` for its name, then ``move`` for each move: .NET, with
    Console.OutputEncoding = UTF8, begins its output with a byte-order mark."""
    return (
        "import sys\nsys.stdin.readline()\nout=sys.stdout.buffer\n"
        f"out.write({hello!r});out.flush()\n"
        f"for _ in sys.stdin:\n out.write({move!r});out.flush()"
    )


def test_a_byte_order_mark_where_the_engines_output_starts_is_accepted(tmp_path: Path) -> None:
    # It lost at once: "wrote '\xef\xbb\xbf{"name":"bom"}', not one JSON object".
    code = starts_with_a_bom(b'\xef\xbb\xbf{"name":"dotnet"}\n', b'{"move":"L"}\n')
    solver = engine(code, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    assert solver.engine_name == "dotnet"
    assert solver.next_direction(game) is Direction.LEFT
    solver.close()


@pytest.mark.parametrize(
    ("hello", "move", "what"),
    [
        (b'{"name":"x"}\n', b'\xef\xbb\xbf{"move":"L"}\n', "a move for step 0"),
        (b'\xef\xbb\xbf{"name":"x"}\n', b'\xef\xbb\xbf{"move":"L"}\n', "a move for step 0"),
        (b'{"name":"x"}\n', b'{"move":"L"}\xef\xbb\xbf\n', "a move for step 0"),
        (b'{"name":"x"}\n', b'{"move": \xef\xbb\xbf"L"}\n', "a move for step 0"),
        (b'\xef\xbb\xbf\xef\xbb\xbf{"name":"x"}\n', b'{"move":"L"}\n', "its name"),
    ],
)
def test_a_byte_order_mark_anywhere_else_loses_and_is_named(
    tmp_path: Path, hello: bytes, move: bytes, what: str
) -> None:
    # Said as bytes only ('\xef\xbb\xbf'), which a reader cannot place.
    game = Game(open_level(8, 8, 1), 3)
    play(game, engine(starts_with_a_bom(hello, move), log_dir=tmp_path))
    assert game.forfeited and game.steps == 0
    assert game.cause is not None and game.cause.endswith(
        "not one JSON object (it holds a byte-order mark, U+FEFF, accepted only where the "
        f"engine's output starts), for {what}"
    ), game.cause


def test_an_engine_that_exits_as_its_time_runs_out_is_said_to_have_exited(tmp_path: Path) -> None:
    # Its end of file came after the last look for an answer, as on a busy machine: it was said
    # to have started a process that kept its stdout open, which it had not.
    solver = engine(HELLO + "sys.stdin.readline();sys.exit(3)", move_timeout=1.0, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    real = solver._poll

    class Late:
        """Each wait for an answer sees nothing (the process is not run meanwhile)."""

        def poll(self, ms: float = 0) -> list[tuple[int, int]]:
            if ms:
                time.sleep(ms / 1000)
                return []
            return real.poll(0)

    solver._poll = Late()  # type: ignore[assignment]
    with pytest.raises(SolverFailed, match=r"exited with status 3$"):
        solver.next_direction(game)


def test_an_answer_written_later_but_before_the_question_loses(tmp_path: Path) -> None:
    # Each move is answered twice, the second a moment later: it would be taken for the
    # answer to the next question, whatever the engine then thinks of it.
    written = tmp_path / "written"
    code = HELLO + (
        "\nfor _ in sys.stdin:\n print(json.dumps({'move':'R'}),flush=True)\n time.sleep(0.05)"
        f"\n print(json.dumps({{'move':'D'}}),flush=True)\n open({str(written)!r},'w').close()"
    )
    solver = engine(code, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    game.step(solver.next_direction(game))
    deadline = time.monotonic() + 10
    while not written.exists() and time.monotonic() < deadline:
        time.sleep(0.01)  # until the second answer has been written
    with pytest.raises(SolverFailed, match=re.escape("before it was asked for a move for step 1")):
        solver.next_direction(game)


def test_an_engine_stopped_while_it_thinks_gets_no_grace_second(tmp_path: Path) -> None:
    # q or Ctrl-C while it thinks: the end message is not read by an engine busy with its
    # move, so waiting a second for it to exit only held up the summary.
    solver = engine(HELLO + "sys.stdin.readline();time.sleep(30)", log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    asked = time.monotonic()
    solver.interrupted = lambda: time.monotonic() - asked > 0.2
    with pytest.raises(Interrupted):
        solver.next_direction(game)
    game.quit()
    began = time.monotonic()
    solver.finish(game)
    assert time.monotonic() - began < 0.5
    assert solver._proc is None


def test_the_same_lost_game_is_kept_once_and_its_log_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    script = tmp_path / "illegal.py"  # --ai splits on commas, which the code has
    # It says why on stderr: a log with something in it is kept, and said; an empty one is not.
    said = "sys.stderr.write('thinking');sys.stderr.flush();"
    script.write_text(BAD["illegal"][0].replace(HELLO, HELLO + said, 1))
    quiet = tmp_path / "quiet.py"
    quiet.write_text(BAD["illegal"][0])
    argv = ["bench", "--size", "4x4", "--games", "1", "--json", "--record-dir", str(tmp_path)]
    for _ in range(2):
        assert cli.main([*argv, "--ai", f"exec:{PY} {shlex.quote(str(script))}"]) == 0
    assert len(list(tmp_path.glob("*.json"))) == 1  # the same bytes twice: one file
    err = capsys.readouterr().err
    assert err.count("not a move U, D, L or R (its stderr: ") == 2
    logs = list(tmp_path.glob("*.log"))
    assert len(logs) == 2 and all(log.read_text() == "thinking" for log in logs)
    assert cli.main([*argv, "--ai", f"exec:{PY} {shlex.quote(str(quiet))}"]) == 0
    err = capsys.readouterr().err
    assert "not a move U, D, L or R" in err and "its stderr" not in err
    assert len(list(tmp_path.glob("*.log"))) == 2


def test_a_bench_whose_engines_wrote_no_log_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Each bench with an engine left an empty termsnake-engines-* folder in /tmp.
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    command = f"exec:{PY} {shlex.quote(str(EXAMPLES / 'greedy_engine.py'))}"
    argv = ["bench", "--ai", command, "--size", "5x5", "--games", "2", "--json"]
    assert cli.main(argv) == 0
    assert "engine logs" not in capsys.readouterr().err  # no folder named that is gone
    assert not any(tmp_path.iterdir())


def test_a_bench_whose_engine_wrote_on_stderr_says_at_the_end_where_its_log_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # It goes up into the wall, by the rules: no game's line names its log.
    talks = HELLO + (
        "\nfor line in sys.stdin:\n if 'end' in line: break\n"
        " print('thinking', file=sys.stderr, flush=True)\n"
        " print(json.dumps({'move': 'U'}), flush=True)\n"
    )
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    command = f"exec:{PY} -c {shlex.quote(talks)}"
    assert cli.main(["bench", "--ai", command, "--size", "5x5", "--games", "1", "--json"]) == 0
    (folder,) = tmp_path.iterdir()
    (log,) = folder.iterdir()
    assert log.read_text().startswith("thinking")
    assert capsys.readouterr().err.splitlines() == [f"termsnake bench: engine logs are in {folder}"]


@pytest.mark.parametrize(
    ("source", "limit", "cause"),
    [
        ("import time; time.sleep(5)", 0.3, r"did not answer with its name within 0\.3 s"),
        # A limit that a slow machine's Python start-up cannot miss: the exit is the cause.
        ("import sys; sys.exit(3)", 10.0, "exited with status 3"),
    ],
)
def test_an_engine_that_does_not_say_its_name_loses_the_game(
    tmp_path: Path, source: str, limit: float, cause: str
) -> None:
    # DESIGN.md: an engine that exits early or misses a time limit loses the game (died).
    game = Game(open_level(8, 8, 1), 3)
    solver = engine(source, hello_timeout=limit, log_dir=tmp_path)
    assert play(game, solver) is Outcome.DIED
    assert game.steps == 0 and game.forfeited and re.search(cause, game.cause or "")
    assert solver._proc is None


def test_a_missing_program_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(SolverUnavailable, match="cannot start engine"):
        EngineSolver("/no/such/engine --flag", log_dir=tmp_path).setup(Game(open_level(8, 8, 1), 3))
    assert not list(tmp_path.iterdir())  # no empty log left behind


def test_an_engine_that_ignores_the_end_is_killed(tmp_path: Path) -> None:
    code = HELLO + "import signal;signal.signal(signal.SIGPIPE,signal.SIG_IGN);time.sleep(30)"
    solver = engine(code, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    proc = solver._proc
    assert proc is not None
    game.quit()
    solver.finish(game)
    assert proc.returncode is not None and proc.returncode < 0  # killed after the wait
    assert gone(proc.pid)


def test_the_engine_stderr_goes_to_its_log(tmp_path: Path) -> None:
    solver = engine(HELLO + "sys.stderr.write('thinking hard\\n');sys.exit(0)", log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    with pytest.raises(SolverFailed, match="exited with status 0"):
        solver.next_direction(game)
    assert solver.log_path is not None
    assert "thinking hard" in solver.log_path.read_text()


def test_an_empty_or_unsplittable_command_is_refused() -> None:
    with pytest.raises(ValueError, match="empty"):
        EngineSolver("   ")
    with pytest.raises(ValueError, match="cannot split"):
        EngineSolver("python3 'unclosed")
    # exec could only say "Permission denied" of a program named ''.
    with pytest.raises(ValueError, match=r"^the engine command \"'' -x\" names no program: "):
        EngineSolver("'' -x")


def test_a_forfeited_game_is_lost_with_the_cause() -> None:
    game = Game(open_level(8, 8, 1), 3)
    game.forfeit("engine x exited with status 3")
    assert game.outcome is Outcome.DIED
    assert game.cause == "engine x exited with status 3"


@pytest.fixture(scope="module")
def c_engine(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The C example, built with the machine's C compiler."""
    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if cc is None:
        pytest.skip("no C compiler on this machine")
    out = tmp_path_factory.mktemp("engine") / "greedy_engine"
    subprocess.run([cc, "-O2", "-o", str(out), str(EXAMPLES / "greedy_engine.c")], check=True)
    return str(out)


@pytest.mark.parametrize("seed", [1, 2])
def test_the_c_and_python_examples_play_the_same_game(
    c_engine: str, seed: int, tmp_path: Path
) -> None:
    moves = []
    for command in (shlex.quote(c_engine), f"{PY} {EXAMPLES / 'greedy_engine.py'}"):
        game = Game(open_level(7, 6, 2), seed)
        solver = EngineSolver(command, log_dir=tmp_path)
        solver.setup(game)
        while not game.over:
            game.step(solver.next_direction(game))
        solver.finish(game)
        assert game.cause in (
            None,
            "ran into itself",
            "turned back into its neck",
            "hit a wall",
            "left the board",
        )
        moves.append(game.moves)
    assert moves[0] == moves[1]
    assert len(moves[0]) > 20


def test_a_value_nested_too_deep_to_render_is_still_shown() -> None:
    deep: list[Any] = []
    for _ in range(5000):
        deep = [deep]
    assert show_value(deep) == "a value nested too deep to show"


def test_an_engine_that_stops_reading_fails_within_the_move_limit(tmp_path: Path) -> None:
    # It answers each question as it comes (it watches its stdin grow) but never reads one,
    # so its stdin (made small) fills up.
    code = NOT_READING
    solver = engine(code, move_timeout=0.5, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    proc = solver._proc
    assert proc is not None
    with pytest.raises(SolverFailed, match=r"did not read the message for step 0 within 0\.5 s"):
        for _ in range(10_000):  # the pipe holds some hundreds of these messages
            solver.next_direction(game)
    assert proc.returncode is not None and gone(proc.pid)


@pytest.mark.slow  # about a second of child processes
def test_an_engine_that_does_not_read_a_big_board_loses_in_time(tmp_path: Path) -> None:
    game = Game(open_level(400, 200, 3), 1)  # its first message is more than a pipe holds
    solver = engine("import time; time.sleep(30)", hello_timeout=0.3, log_dir=tmp_path)
    t0 = time.monotonic()
    solver.setup(game)
    assert time.monotonic() - t0 < 5
    assert solver._proc is None
    with pytest.raises(SolverFailed, match=r"did not read the game within 0\.3 s"):
        solver.next_direction(game)


@pytest.mark.slow  # about a second of child processes
def test_a_board_bigger_than_a_pipe_reaches_an_engine_that_reads_it(tmp_path: Path) -> None:
    game = Game(open_level(400, 200, 3), 1)
    code = 'import sys;n=len(sys.stdin.readline());print(\'{"name":"%d"}\'%n,flush=True)'
    solver = engine(code + ";sys.stdin.read()", log_dir=tmp_path)
    solver.setup(game)
    assert solver.engine_name is not None and int(solver.engine_name) > 80_000  # all of it
    game.quit()
    solver.finish(game)


def test_the_engine_log_is_capped_and_its_stderr_still_drained(tmp_path: Path) -> None:
    # The engine writes its stderr before it answers: undrained, it would miss the hello limit.
    flood = "import sys;sys.stderr.buffer.write(b'x'*(3*2**20));sys.stderr.flush();"
    solver = engine(flood + HELLO + "sys.exit(0)", hello_timeout=5, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    with pytest.raises(SolverFailed, match="exited with status 0"):
        solver.next_direction(game)
    assert solver.log_path is not None
    log = solver.log_path.read_bytes()
    assert log.startswith(b"x" * LOG_LIMIT)
    assert len(log) < LOG_LIMIT + 200
    assert b"dropped" in log[LOG_LIMIT:]


# The example engine, saying something on stderr before each game: its log.
TALKING_GREEDY = (
    "import runpy,sys\nsys.stderr.write('thinking\\n'*50);sys.stderr.flush()\n"
    f"runpy.run_path({str(EXAMPLES / 'greedy_engine.py')!r},run_name='__main__')\n"
)


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_log_with_no_room_is_said_and_the_engine_plays_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A full disk cut the log without a word: whoever looked for the engine's stderr later
    # found nothing, and no reason.
    real_mkstemp = tempfile.mkstemp
    log = tmp_path / "engine-full.log"

    def on_a_full_disk(*args: object, **kwargs: object) -> tuple[int, str]:
        log.touch()
        return os.open("/dev/full", os.O_WRONLY), str(log)  # every write: ENOSPC

    monkeypatch.setattr(tempfile, "mkstemp", on_a_full_disk)
    solver = engine(TALKING_GREEDY, log_dir=tmp_path)
    game = Game(open_level(6, 6, 1), 3)
    play(game, solver)
    assert game.outcome is not None and not game.forfeited  # played to its end, as before
    assert solver.log_problem == (
        f"cannot write the engine's log {str(log)!r}: {os.strerror(errno.ENOSPC)}; "
        "the rest of its stderr was dropped"
    )
    monkeypatch.setattr(tempfile, "mkstemp", real_mkstemp)
    again = Game(open_level(6, 6, 1), 4)
    play(again, solver)  # room again: the next game's log is whole, and nothing is said
    assert again.outcome is not None and solver.log_problem is None
    assert solver.log_path is not None and "thinking" in solver.log_path.read_text()


def test_many_engines_leave_no_threads_or_descriptors_behind(tmp_path: Path) -> None:
    script = 'read l; echo thinking >&2; echo \'{"name":"sh"}\'; cat >/dev/null'
    solver = EngineSolver(f"sh -c {shlex.quote(script)}", log_dir=tmp_path)

    def one_game() -> None:
        game = Game(open_level(8, 8, 1), 3)
        solver.setup(game)
        game.quit()
        solver.finish(game)

    one_game()
    fds = len(os.listdir("/dev/fd"))
    for _ in range(10):
        one_game()
    assert not [t for t in threading.enumerate() if t.name == "engine-log"]
    assert len(os.listdir("/dev/fd")) <= fds  # other tests' garbage may close some meanwhile
    assert solver.log_path is not None and solver.log_path.read_text() == "thinking\n"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("ending", ["finished", "failed"])
def test_the_engine_children_go_with_it(ending: str, tmp_path: Path) -> None:
    rest = "sys.stdin.read()" if ending == "finished" else "sys.stdin.readline();time.sleep(30)"
    code = SPAWNS + HELLO + rest
    pidfile = tmp_path / "child.pid"
    solver = EngineSolver(
        f"{PY} -c {shlex.quote(code)} {shlex.quote(str(pidfile))}",
        move_timeout=0.2,
        log_dir=tmp_path,
    )
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    child = int(pidfile.read_text())
    if ending == "finished":  # it exits by itself at the end, leaving its child behind
        game.quit()
        solver.finish(game)
    else:
        with pytest.raises(SolverFailed, match="did not answer"):
            solver.next_direction(game)
    assert dead(child)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_termsnake_takes_its_engine_with_it(tmp_path: Path) -> None:
    player = (
        "import sys;from termsnake.core.game import Game;from termsnake.core.level import "
        "open_level;from termsnake.solvers.engine import EngineSolver;"
        "s=EngineSolver(sys.argv[1],log_dir=sys.argv[2]);s.setup(Game(open_level(8,8,1),3));"
        "print(s._proc.pid,flush=True);sys.stdin.read()"
    )
    engine_command = f"{PY} -c {shlex.quote(HELLO + 'time.sleep(30)')}"
    with subprocess.Popen(
        [sys.executable, "-c", player, engine_command, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    ) as termsnake:
        assert termsnake.stdout is not None
        pid = int(termsnake.stdout.readline())
        termsnake.kill()
    assert dead(pid)


@pytest.mark.slow  # about a second of child processes
def test_a_process_that_left_the_group_holding_stderr_does_not_keep_the_log_reader(
    tmp_path: Path,
) -> None:
    pidfile = tmp_path / "child.pid"
    escapes = SPAWNS.replace("['sleep','30']", "['sleep','30'],start_new_session=True")
    solver = EngineSolver(
        f"{PY} -c {shlex.quote(escapes + HELLO)} {shlex.quote(str(pidfile))}", log_dir=tmp_path
    )
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    child = int(pidfile.read_text())
    try:
        game.quit()
        t0 = time.monotonic()
        solver.finish(game)
        assert time.monotonic() - t0 < 2
        deadline = time.monotonic() + 2
        while any(t.name == "engine-log" for t in threading.enumerate()):
            assert time.monotonic() < deadline, "the log reader is still running"
            time.sleep(0.02)
    finally:
        os.kill(child, signal.SIGKILL)
