"""Engines through the installed command: however termsnake stops (no terminal, SIGTERM,
SIGHUP), an engine and what it started go, with its log folder; and nothing it is called
reaches the terminal as a control character."""

from __future__ import annotations

import errno
import os
import shlex
import signal
import subprocess
import sys
import time
import unicodedata
from pathlib import Path

import pytest
from engine_doubles import dead
from pty_harness import Pty, quiet_env, run_plain, termsnake_command

# An engine that starts a child of its own, adds it to a file (its first argument), says its
# name and then thinks for ever about its first move.
HANGS = (
    "import json,subprocess,sys,time;p=subprocess.Popen(['sleep','60']);"
    "open(sys.argv[1],'a').write(f'{p.pid}\\n');sys.stdin.readline();"
    "print(json.dumps({'name':'hangs'}),flush=True);sys.stdin.readline();time.sleep(60)"
)


def hangs(pidfile: Path) -> str:
    return f"exec:{sys.executable} -c {shlex.quote(HANGS)} {shlex.quote(str(pidfile))}"


def children(path: Path, count: int = 1) -> list[int]:
    """The children the engines named in ``path``, once ``count`` of them have."""
    deadline = time.monotonic() + 20
    while not (path.exists() and path.read_text().count("\n") >= count):
        assert time.monotonic() < deadline, f"{path} never written"
        time.sleep(0.02)
    return [int(line) for line in path.read_text().split()]


pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")


@pytest.mark.parametrize(
    ("signum", "jobs"),
    [
        pytest.param(signal.SIGTERM, "1", id="TERM-1"),
        pytest.param(signal.SIGTERM, "2", id="TERM-2"),
        pytest.param(signal.SIGHUP, "1", id="HUP-1"),
        # With workers as SIGTERM: in the slow step only.
        pytest.param(signal.SIGHUP, "2", id="HUP-2", marks=pytest.mark.slow),
    ],
)
def test_a_bench_ended_by_a_signal_lets_its_engines_go(
    tmp_path: Path, jobs: str, signum: int
) -> None:
    # It died of the signal, leaving the engines' children, their logs and the folder; the
    # workers played their games on to the end (here the engine's time limit).
    pidfile = tmp_path / "child.pid"
    env = {**quiet_env(tmp_path), "TMPDIR": str(tmp_path)}
    args = ["bench", "--ai", hangs(pidfile), "--size", "6x6", "--games", jobs, "--jobs", jobs]
    args += ["--engine-timeout", "60"]
    with subprocess.Popen(
        [termsnake_command(), *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    ) as bench:
        started = children(pidfile, int(jobs))
        time.sleep(0.3)  # the name said, the move asked for
        bench.send_signal(signum)
        _, err = bench.communicate(timeout=20)
    assert bench.returncode == 128 + signum, err
    assert f"termsnake bench: stopped by {signal.Signals(signum).name}" in err
    assert "Traceback" not in err and "leaked" not in err
    assert all(dead(child) for child in started)
    assert not list(tmp_path.glob("termsnake-engines-*"))


def test_an_engine_watched_off_a_terminal_is_not_started(tmp_path: Path) -> None:
    # "stdin is not a terminal" came after the engine had started, and it was left running;
    # then after it had started and been let go. No game follows, so it is not started at all.
    pidfile = tmp_path / "child.pid"
    env = {**quiet_env(tmp_path), "TMPDIR": str(tmp_path)}
    r = run_plain(tmp_path, "--ai", hangs(pidfile), "--size", "6x6", env=env)
    assert r.returncode == 2 and "not a terminal" in r.stderr
    assert not pidfile.exists()
    assert not list(tmp_path.glob("engine-*.log"))


def test_an_engine_with_a_long_command_line_is_watched(tmp_path: Path) -> None:
    # A command of more than 200 characters, or with a control character, was a traceback: it
    # is the player of the game's score.
    pidfile = tmp_path / "child.pid"
    command = f"{hangs(pidfile)} {'a' * 200} $'\\e[2J'"
    t = Pty(["--ai", command, "--size", "6x6"], tmp_path)
    try:
        t.wait_for("steps 0", timeout=20)  # the engine thinks about its first move
        t.send("q")
        code = t.wait_exit(timeout=20)
    finally:
        t.close()
    raw = bytes(t.raw).decode(errors="replace")
    assert code == 0 and "Traceback" not in raw and "Game over: quit" in t.text()
    assert all(dead(child) for child in children(pidfile))


def test_a_program_named_with_control_characters_is_said_escaped_by_bench(
    tmp_path: Path,
) -> None:
    program = tmp_path / "x\x1b[2J\x1b]0;PWNED\x07y"
    program.write_text("#!/bin/sh\nexit 3\n")
    program.chmod(0o755)
    record = tmp_path / "kept\x1b[2J"
    args = ["bench", "--ai", f"exec:{shlex.quote(str(program))}", "--size", "4x4", "--games", "1"]
    r = run_plain(tmp_path, *args, "--record-dir", str(record))
    said = r.stdout + r.stderr
    assert "exited with status 3" in said
    assert not [ch for ch in said if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]
    assert os.path.isdir(record)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_in_a_bench_lets_its_engines_go(tmp_path: Path, jobs: str) -> None:
    # The games under way never let go of their engines: their children and logs stayed.
    pidfile = tmp_path / "child.pid"
    args = ["bench", "--ai", hangs(pidfile), "--size", "6x6", "--games", jobs, "--jobs", jobs]
    t = Pty(args, tmp_path, env={"TMPDIR": str(tmp_path)})
    try:
        started = children(pidfile, int(jobs))
        time.sleep(0.3)  # the name said, the move asked for
        t.send("\x03")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    assert code == 130 and "Traceback" not in bytes(t.raw).decode(errors="replace")
    assert all(dead(child) for child in started)
    assert not list(tmp_path.glob("termsnake-engines-*"))


# An engine that says something on stderr at each move and goes up until it hits the wall.
TALKS = (
    "import json,sys;sys.stdin.readline();print(json.dumps({'name':'talks'}),flush=True)\n"
    "for line in sys.stdin:\n"
    "    if 'end' in line: break\n"
    "    print('thinking about', line.strip(), file=sys.stderr, flush=True)\n"
    "    print(json.dumps({'move':'U'}),flush=True)\n"
)


def watched_until_it_dies(program: str, tmp_path: Path, env: dict[str, str]) -> tuple[int, str]:
    """Watch the Python engine ``program`` play a 6x6 board until it dies, then press q: the
    exit code and the terminal's text."""
    command = f"exec:{sys.executable} -c {shlex.quote(program)}"
    t = Pty(["--ai", command, "--size", "6x6", "--speed", "100"], tmp_path, env=env)
    try:
        t.wait_for("DIED", timeout=20)
        t.send("q")
        return t.wait_exit(timeout=20), t.text()
    finally:
        t.close()


def test_a_watched_engine_that_wrote_to_stderr_is_told_where_its_log_is(tmp_path: Path) -> None:
    # A game that ended by the rules kept the log in the temporary folder and did not say so.
    env = {**quiet_env(tmp_path), "TMPDIR": str(tmp_path)}
    code, text = watched_until_it_dies(TALKS, tmp_path, env)
    (log,) = tmp_path.glob("engine-*.log")
    assert "thinking about" in log.read_text()
    said = "".join(text.split())  # lines wrap where the screen ends
    assert code == 0 and "Gameover:died" in said
    assert "".join(f"The engine's stderr: {log}".split()) in said


# TALKS, with more at each move than a small disk holds.
LOUD = TALKS.replace("print('thinking about'", "print('thinking about'*2000")


def test_a_watched_engine_s_log_cut_by_a_full_disk_is_said_once(
    small_tmpfs: Path, tmp_path: Path
) -> None:
    # The log stopped at the disk's end without a word: the user read a cut log as the whole.
    code, text = watched_until_it_dies(LOUD, tmp_path, {"TMPDIR": str(small_tmpfs)})
    (log,) = small_tmpfs.glob("engine-*.log")
    said = "".join(text.split())  # lines wrap where the screen ends
    assert code == 0 and "Gameover:died" in said  # the game went on to its end, as before
    problem = f"termsnake: cannot write the engine's log '{log}': {os.strerror(errno.ENOSPC)}; "
    assert said.count("".join(problem.split())) == 1, text
    assert "therestofitsstderrwasdropped" in said
