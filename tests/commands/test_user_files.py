"""config.toml and scores.json as users leave them: odd, huge, linked, or not files at all.

Each is met by the installed command with one clear line (or a warning), never a hang, a
traceback or a changed byte of what the user made."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from pty_harness import quiet_env, run_plain

from termsnake.formats.scores import ScoreEntry, ScoreKey, ScoreStore


def termsnake(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_plain(home, *args, timeout=30)


def config(home: Path) -> Path:
    path = home / "config" / "termsnake" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def scores(home: Path) -> Path:
    path = home / "data" / "termsnake" / "scores.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def one_error_line(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert len(r.stderr.splitlines()) == 1 and len(r.stderr) < 1000, r.stderr[:1000]
    return r.stderr


def test_a_number_of_5000_digits_in_the_config_is_said_plainly(tmp_path: Path) -> None:
    config(tmp_path).write_text("color = true\nspeed = " + "9" * 5000 + "\n")
    line = one_error_line(termsnake(tmp_path, "--seed", "1"))
    assert "config.toml:2: error: a number too long to read (5000 digits)" in line
    assert "set_int_max_str_digits" not in line


@pytest.mark.parametrize(
    "value",
    ["a" * 300, "a" * 300 + ".txt", "a/" * 300, "a" * 1_000_000],
    ids=["300 chars", "300 chars.txt", "600 chars of dirs", "1 MB"],
)
def test_a_config_level_no_file_can_be_is_one_short_line(tmp_path: Path, value: str) -> None:
    config(tmp_path).write_text(f'level = "{value}"\n')
    line = one_error_line(termsnake(tmp_path, "--seed", "1"))
    assert line.startswith(f'{config(tmp_path)}:1: error: level = "a')
    assert "characters)" in line


def test_a_config_level_file_with_errors_says_where(tmp_path: Path) -> None:
    config(tmp_path).write_text('level = "bad.txt"\n')
    (tmp_path / "bad.txt").write_text("#####\n#>.x#\n#####\n")
    line = one_error_line(termsnake(tmp_path, "--seed", "1"))
    assert ': error: level = "bad.txt": bad.txt:2:4: unknown map character' in line


def test_a_config_level_that_does_not_load_says_its_line(tmp_path: Path) -> None:
    # As every other bad value in the file does: it said the file alone.
    config(tmp_path).write_text('# mine\nspeed = 12\nlevel = "nosuch"\n')
    line = one_error_line(termsnake(tmp_path, "--seed", "1"))
    assert line.startswith(f'{config(tmp_path)}:3: error: level = "nosuch": no preset or file')


def test_a_config_level_that_does_not_load_prints_its_path_escaped(tmp_path: Path) -> None:
    # The config directory comes from the environment: it may hold a terminal's escapes.
    home = tmp_path / "a\x1b]0;title\x07b"
    config(home).write_text('level = "nosuch"\n')
    line = one_error_line(termsnake(home, "--seed", "1"))
    assert "\x1b" not in line and "\x07" not in line
    assert ': error: level = "nosuch": no preset or file' in line


def test_a_long_level_name_on_the_command_line_is_one_line(tmp_path: Path) -> None:
    line = one_error_line(termsnake(tmp_path, "--level", "b" * 300))
    assert "no preset or file named 'bbbb" in line and "(300 characters)" in line


@pytest.mark.parametrize("command", ["check", "--level"])
def test_a_length_of_4301_digits_is_a_located_error(tmp_path: Path, command: str) -> None:
    (tmp_path / "big.txt").write_text("length: " + "9" * 4301 + "\n\n#####\n#>..#\n#####\n")
    line = one_error_line(termsnake(tmp_path, command, "big.txt"))
    assert line.startswith("big.txt:1:9: error: length must be a whole number")


def fifo_or_zero(path: Path, kind: str) -> None:
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_config_that_is_a_fifo_or_dev_zero_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    fifo_or_zero(config(tmp_path), kind)
    one_error_line(termsnake(tmp_path, "--seed", "1"))


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_scores_that_are_a_fifo_or_dev_zero_are_kept_aside_at_once(
    tmp_path: Path, kind: str
) -> None:
    fifo_or_zero(scores(tmp_path), kind)
    r = termsnake(tmp_path, "scores")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "kept it as scores.json.corrupt-" in r.stderr
    kept = next(scores(tmp_path).parent.glob("scores.json.corrupt-*"))
    assert kept.is_fifo() if kind == "fifo" else os.readlink(kept) == "/dev/zero"


def test_user_directories_under_a_regular_file_are_no_files(tmp_path: Path) -> None:
    # As with HOME=/dev/null: no config and no scores can be there, so neither is an error.
    blocker = tmp_path / "blocker"
    blocker.write_text("not a directory")
    env = {**quiet_env(tmp_path), "XDG_CONFIG_HOME": str(blocker), "XDG_DATA_HOME": str(blocker)}
    r = run_plain(tmp_path, "scores", env=env)
    assert (r.returncode, r.stderr) == (0, "")
    assert r.stdout.startswith("no scores yet")
    # Off a terminal the game stops at that, after the config was read without complaint.
    r = run_plain(tmp_path, "--seed", "1", env=env)
    assert r.returncode == 2 and "config.toml" not in r.stderr, r.stderr
    assert "terminal" in r.stderr


def test_a_scores_file_that_is_a_link_is_written_through(tmp_path: Path) -> None:
    mine = tmp_path / "dotfiles" / "termsnake-scores.json"
    mine.parent.mkdir()
    store = ScoreStore(mine)
    store.record(ScoreKey.of("classic", 8, 8, 3), ScoreEntry.now(5, 40, False, 1))
    link = scores(tmp_path)
    link.symlink_to(mine)
    result = ScoreStore(link).record(
        ScoreKey.of("classic", 8, 8, 3), ScoreEntry.now(9, 80, False, 2)
    )
    assert result.saved and result.new_best
    assert link.is_symlink() and link.resolve() == mine
    assert ScoreStore(mine).best(ScoreKey.of("classic", 8, 8, 3)) == result_entry(mine)
    assert not list(mine.parent.glob(".*.tmp"))


def result_entry(path: Path) -> ScoreEntry:
    row = json.loads(path.read_text())["scores"][0]
    assert row["length"] == 9
    return ScoreEntry(row["length"], row["steps"], row["won"], row["seed"], row["date"])


def test_a_scores_file_with_a_huge_number_is_kept_byte_for_byte(tmp_path: Path) -> None:
    path = scores(tmp_path)
    data = (
        b'{"format": "termsnake-scores/1",\n "scores": [{"level": "classic", "size": "8x8", '
        b'"start_length": 3, "player": "you", "length": 5, "steps": 10, "won": false, '
        b'"seed": ' + b"7" * 5000 + b', "date": "2024-01-01T00:00:00"}]}\n'
    )
    path.write_bytes(data)
    r = termsnake(tmp_path, "scores")
    assert "a number too long to read (5000 digits)" in r.stderr
    assert "set_int_max_str_digits" not in r.stderr
    kept = next(path.parent.glob("scores.json.corrupt-*"))
    assert kept.read_bytes() == data
