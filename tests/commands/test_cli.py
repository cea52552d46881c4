"""Output that cannot be written ends a command with one line, never a traceback."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pty_harness import quiet_env, termsnake_command

from termsnake.commands import cli
from termsnake.exits import EXIT_OUTPUT


def run_shell(tmp_path: Path, script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", script, "sh", termsnake_command()],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        timeout=60,
    )


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_full_disk_is_a_one_line_error(tmp_path: Path) -> None:
    r = run_shell(tmp_path, '"$1" levels > /dev/full')
    assert r.returncode == EXIT_OUTPUT
    assert r.stderr == "termsnake: error: cannot write the output: No space left on device\n"


def test_a_closed_stdout_is_a_one_line_error(tmp_path: Path) -> None:
    r = run_shell(tmp_path, '"$1" levels >&-')
    assert r.returncode == EXIT_OUTPUT
    assert r.stderr == "termsnake: error: standard output is closed\n"


@pytest.mark.parametrize("command", [["levels"], ["bench", "--ai", "greedy", "--games", "1"]])
def test_a_stdout_closed_while_the_command_runs_is_a_one_line_error(
    command: list[str], tmp_path: Path
) -> None:
    # A plugin may close fd 1 (os.close(1)) while bench plays: its table was a traceback.
    script = (
        "import os, sys\n"
        "from termsnake.commands import cli\n"
        "os.close(1)\n"
        f"sys.exit(cli.main({command!r}))\n"
    )
    r = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        timeout=60,
    )
    assert r.returncode == EXIT_OUTPUT
    assert r.stderr == "termsnake: error: standard output is closed\n"


@pytest.mark.parametrize("command", ["levels", "bench --ai greedy --size 6x6 --games 1"])
def test_a_stdout_open_only_for_reading_is_a_one_line_error(command: str, tmp_path: Path) -> None:
    # `1<file`, or what a plugin that closed termsnake's copy of fd 1 leaves (fdaside).
    r = run_shell(tmp_path, f'"$1" {command} 1</dev/null')
    assert r.returncode == EXIT_OUTPUT
    assert r.stderr == "termsnake: error: standard output is not open for writing\n"


def test_with_stderr_closed_errors_do_not_land_on_stdout(tmp_path: Path) -> None:
    # Python sets sys.stderr to None then, and print(file=None) writes to stdout.
    r = run_shell(tmp_path, '"$1" check /nonexistent 2>&-')
    assert r.returncode == 2 and r.stdout == ""


class GoneReader(io.StringIO):
    """A pipe whose reader went away (``termsnake ... | head -1`` after head has exited)."""

    def write(self, s: str) -> int:
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_went_away_ends_the_command_quietly(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdout", GoneReader())
    args = ["bench", "--ai", "bfs", "--size", "4x4", "--games", "1", "--json"]
    assert cli.main(args) == EXIT_OUTPUT
    assert capsys.readouterr().err == ""


class GoneTerminal(io.StringIO):
    """A terminal that went away: what was written cannot be flushed."""

    def flush(self) -> None:
        raise OSError(errno.EIO, "Input/output error")


def test_a_signal_s_exit_code_outlasts_the_output_lost_with_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A hang-up during a bot's set-up: the command returns 129, then the erased line cannot
    # be flushed to the terminal that is gone; that gave exit 1.
    monkeypatch.setattr(cli, "dispatch", lambda argv: 129)
    monkeypatch.setattr("sys.stdout", GoneTerminal())
    assert cli.main([]) == 129
    monkeypatch.setattr(cli, "dispatch", lambda argv: 0)
    assert cli.main([]) == EXIT_OUTPUT


COMMANDS = [
    ["--help"],
    ["--version"],
    ["bench", "--help"],
    ["levels"],
    ["scores"],
    ["solvers"],
    ["bench", "--ai", "bfs", "--size", "4x4", "--games", "2"],
]


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_says_when_its_output_cannot_be_written(
    tmp_path: Path, args: list[str]
) -> None:
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [termsnake_command(), *args],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=quiet_env(tmp_path),
            timeout=60,
        )
    assert r.returncode == EXIT_OUTPUT
    assert own(r.stderr) == "termsnake: error: cannot write the output: No space left on device\n"


def own(stderr: str) -> str:
    """``stderr`` less the warnings about plugins installed beside termsnake (a broken one is
    named each time `solvers` lists it)."""
    lines = stderr.splitlines(keepends=True)
    return "".join(line for line in lines if not line.startswith("termsnake: warning: plugin "))


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_ends_quietly_when_its_reader_is_gone(
    tmp_path: Path, args: list[str]
) -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # as after `| head -1` has exited
    try:
        r = subprocess.run(
            [termsnake_command(), *args],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            env=quiet_env(tmp_path),
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert (r.returncode, own(r.stderr)) == (EXIT_OUTPUT, "")


@pytest.mark.parametrize(
    "args",
    [["--ai", "greedy"], ["check", "/nonexistent"], ["bench", "--games", "0"]],
    ids=["bad config.toml", "check", "usage"],
)
def test_a_usage_errors_code_outlasts_the_lines_its_reader_did_not_take(
    tmp_path: Path, args: list[str]
) -> None:
    # `termsnake --ai greedy 2>&1 | head -1` with a config.toml of six bad lines: once head had
    # gone, the broken pipe's 1 took the place of the usage error's 2, about every other time.
    config = tmp_path / "config" / "termsnake" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('speed = "x"\nglyphs = 3\nkeys = "zz"\ncolor = 7\nlevel = 5\nplayer = ""\n')
    read_end, write_end = os.pipe()
    os.close(read_end)  # as after `| head -1` has exited
    try:
        r = subprocess.run(
            [termsnake_command(), *args],
            stdout=write_end,
            stderr=write_end,
            env=quiet_env(tmp_path),
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert r.returncode == 2
