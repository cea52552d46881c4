"""Control and format characters from files never reach the terminal, and termsnake never
writes a replay it would refuse to read."""

from __future__ import annotations

import json
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pty_harness import quiet_env, run_plain

from termsnake.commands import cli

HIDDEN = ["\x1b", "\x07", "\x9b", "\u202e", "\u200b", "\u2067", "\u2069"]


def termsnake(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_plain(home, *args, timeout=60)


def in_process(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *args: str
) -> subprocess.CompletedProcess[str]:
    """``termsnake ARGS`` run in this process (``cli.main``) with the installed command's
    environment here, its output captured: for variants of what the tests above and below
    show through the installed command."""
    for name, value in quiet_env(home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(home)
    code = cli.main(list(args))
    said = capsys.readouterr()
    return subprocess.CompletedProcess(["termsnake", *args], code, said.out, said.err)


def shown(r: subprocess.CompletedProcess[str]) -> str:
    """Everything the command printed, checked to hold no control or format character."""
    text = r.stdout + r.stderr
    hidden = [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]
    assert not hidden, text
    return text


def test_a_config_key_with_esc_and_bel_is_echoed_escaped(tmp_path: Path) -> None:
    path = tmp_path / "config" / "termsnake" / "config.toml"
    path.parent.mkdir(parents=True)
    path.write_text('"c\\u001bolor\\u0007" = 1\n')
    r = termsnake(tmp_path, "--seed", "1")
    assert r.returncode == 2
    assert 'unknown key "c\\x1bolor\\x07"' in shown(r)


@pytest.mark.parametrize("ch", ["\x1b", "\x9b", "\x07", "\u202e"], ids=repr)
def test_score_dates_are_printed_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ch: str
) -> None:
    path = tmp_path / "data" / "termsnake" / "scores.json"
    path.parent.mkdir(parents=True)
    row = {
        "level": "classic", "size": "8x8", "start_length": 3, "player": "you", "length": 5,
        "steps": 10, "won": False, "seed": 1, "date": f"2024-01-01{ch}12:00",
    }  # fmt: skip
    path.write_text(json.dumps({"format": "termsnake-scores/1", "scores": [row]}))
    r = in_process(tmp_path, monkeypatch, capsys, "scores")
    assert r.returncode == 0
    assert "2024-01-01\\" in shown(r)


@pytest.mark.parametrize("ch", ["\x1b", "\x9b", "\u202e"], ids=repr)
def test_an_argument_named_in_a_usage_error_is_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], ch: str
) -> None:
    args = ("replay", "g.json", f"{ch}[2J", "--nosuch", f"x{ch}y")
    r = in_process(tmp_path, monkeypatch, capsys, *args)
    assert r.returncode == 2
    text = shown(r)
    assert "unrecognized arguments" in text and len(text.splitlines()) == 1


NAMES = ["evil\u202eeman", "zero\u200bwidth", "iso\u2067late\u2069"]


# Each name with one command and each command with one name: the check is the level parser's,
# which all three share.
@pytest.mark.parametrize(
    ("name", "command"),
    list(
        zip(
            NAMES,
            [["check"], ["--level"], ["bench", "--ai", "bfs", "--games", "1", "--level"]],
            strict=True,
        )
    ),
    ids=lambda v: ascii(v) if isinstance(v, str) else " ".join(v),
)
def test_a_level_name_a_terminal_would_hide_is_refused_up_front(
    tmp_path: Path, name: str, command: list[str]
) -> None:
    (tmp_path / "odd.txt").write_text(f"name: {name}\nlength: 1\n\n#####\n#>.%#\n#####\n")
    r = termsnake(tmp_path, *command, "odd.txt")
    assert r.returncode == 2
    text = shown(r)
    assert text.startswith("odd.txt:1:") and "which is not a printable character" in text
    assert len(text.splitlines()) == 1


def test_a_bench_replay_of_a_level_file_plays_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "fine.txt").write_text("name: Fine — «level»\nlength: 1\n\n#####\n#>.%#\n#####\n")
    r = in_process(tmp_path, monkeypatch, capsys, "bench", "--ai", "bfs", "--games", "1",
                   "--level", "fine.txt", "--record-dir", "rec")  # fmt: skip
    assert r.returncode == 0, r.stderr
    (replay,) = (tmp_path / "rec").iterdir()
    r = termsnake(tmp_path, "replay", str(replay))
    assert "stdin is not a terminal" in shown(r)  # checked, and only the terminal was missing
