"""Engines as real child processes: a good one plays, every kind of bad one loses with a cause."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.solvers.base import SolverFailed, SolverUnavailable
from termsnake.solvers.engine import EngineSolver

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "engines"
PY = shlex.quote(sys.executable)

# Each bad engine answers its name, then misbehaves at its first move.
HELLO = "import json,sys,time;sys.stdin.readline();print(json.dumps({'name':'bad'}),flush=True);"
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
}


def engine(code: str, **kwargs: Any) -> EngineSolver:
    return EngineSolver(f"{PY} -c {shlex.quote(code)}", **kwargs)


def gone(pid: int) -> bool:
    """Whether the process no longer exists (reaped, not a zombie)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


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
    assert solver.log_path is not None and solver.log_path.parent == tmp_path


@pytest.mark.parametrize("kind", sorted(BAD))
def test_a_misbehaving_engine_fails_with_what_it_did(kind: str, tmp_path: Path) -> None:
    code, cause = BAD[kind]
    solver = engine(code, move_timeout=0.5, log_dir=tmp_path)
    game = Game(open_level(8, 8, 1), 3)
    solver.setup(game)
    proc = solver._proc
    assert proc is not None
    with pytest.raises(SolverFailed, match=cause.replace("(", r"\(")):
        solver.next_direction(game)
    assert proc.returncode is not None and gone(proc.pid)


def test_an_engine_that_never_says_its_name_is_unavailable(tmp_path: Path) -> None:
    solver = engine("import time; time.sleep(5)", hello_timeout=0.3, log_dir=tmp_path)
    with pytest.raises(SolverUnavailable, match=r"did not answer with its name within 0\.3 s"):
        solver.setup(Game(open_level(8, 8, 1), 3))


def test_a_missing_program_is_unavailable() -> None:
    with pytest.raises(SolverUnavailable, match="cannot start engine"):
        EngineSolver("/no/such/engine --flag").setup(Game(open_level(8, 8, 1), 3))


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
def test_the_c_and_python_examples_play_the_same_game(c_engine: str, seed: int) -> None:
    moves = []
    for command in (shlex.quote(c_engine), f"{PY} {EXAMPLES / 'greedy_engine.py'}"):
        game = Game(open_level(7, 6, 2), seed)
        solver = EngineSolver(command)
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
