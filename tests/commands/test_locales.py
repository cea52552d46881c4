"""The installed ``termsnake`` under a locale whose encoding cannot hold every character
(latin-1, built with localedef; ASCII under C): a name it cannot show is escaped, never an
encoding traceback."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from pty_harness import Pty, quiet_env, run_plain, termsnake_command

# A 10x8 room: small, so that a bot's game is short.
ROOM = "\n".join(
    ["#" * 12, *["#" + "." * 10 + "#"] * 3, "#....>.....#", *["#" + "." * 10 + "#"] * 4, "#" * 12]
)
NAMED = f"name: 名前\ndescription: a small room\n\n{ROOM}\n"
DESCRIBED = f"name: room\ndescription: 名\n\n{ROOM}\n"
ESCAPED = "\\u540d\\u524d"


@pytest.fixture(scope="session")
def latin1(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of an en_US.ISO-8859-1 locale, compiled into a temporary folder."""
    localedef = shutil.which("localedef")
    if localedef is None:
        pytest.skip("no localedef to build a latin-1 locale with")
    where = tmp_path_factory.mktemp("locale")
    made = subprocess.run(
        [localedef, "-f", "ISO-8859-1", "-i", "en_US", str(where / "en_US.ISO-8859-1")],
        capture_output=True,
        check=False,
    )
    if made.returncode not in (0, 1) or not (where / "en_US.ISO-8859-1").exists():
        pytest.skip(f"localedef could not build en_US.ISO-8859-1: {made.stderr!r}")
    return {"LOCPATH": str(where), "LANG": "en_US.ISO-8859-1", "LC_ALL": "", "LC_CTYPE": ""}


# Python's UTF-8 mode and PEP 538 would make the C locale's stdout UTF-8: both off, it is ASCII.
C_LOCALE = {"LC_ALL": "C", "PYTHONUTF8": "0"}


@pytest.fixture(params=["latin-1", "C"])
def locale_env(request: pytest.FixtureRequest) -> dict[str, str]:
    """The additions to an environment for each locale that cannot hold 名 or …."""
    extra = request.getfixturevalue("latin1") if request.param == "latin-1" else C_LOCALE
    return {"PYTHONUTF8": "0", "PYTHONIOENCODING": "", **extra}


def run_in(
    home: Path, locale: dict[str, str], *args: str, **extra: str
) -> subprocess.CompletedProcess[str]:
    # The output is read as latin-1: it holds any byte, and what was escaped is ASCII.
    return subprocess.run(
        [termsnake_command(), *args],
        capture_output=True,
        env={**quiet_env(home), **locale, **extra},
        stdin=subprocess.DEVNULL,
        cwd=home,
        timeout=60,
        check=False,
        encoding="latin-1",
    )


def assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "UnicodeEncodeError" not in done.stderr


def test_levels_cut_with_three_dots_in_a_narrow_table(
    tmp_path: Path, locale_env: dict[str, str]
) -> None:
    done = run_in(tmp_path, locale_env, "levels", COLUMNS="70")
    assert_clean(done)
    cut = [line for line in done.stdout.splitlines() if line.endswith("...")]
    assert cut, done.stdout  # the presets' descriptions do not fit 70 columns
    assert all(len(line) < 70 for line in cut)


def test_check_and_levels_escape_a_name_and_a_description(
    tmp_path: Path, locale_env: dict[str, str]
) -> None:
    (tmp_path / "named.txt").write_text(NAMED, encoding="utf-8")
    (tmp_path / "described.txt").write_text(DESCRIBED, encoding="utf-8")
    checked = run_in(tmp_path, locale_env, "check", "named.txt")
    assert_clean(checked)
    assert f"'{ESCAPED}'" in checked.stdout
    listed = run_in(tmp_path, locale_env, "levels", "named.txt", "described.txt")
    assert_clean(listed)
    rows = listed.stdout.splitlines()
    assert rows[2].split()[-1] == "\\u540d"
    assert rows[1].index("a small room") == rows[2].index("\\u540d")


def test_bench_table_and_replay_names_under_a_narrow_locale(
    tmp_path: Path, locale_env: dict[str, str]
) -> None:
    (tmp_path / "named.txt").write_text(NAMED, encoding="utf-8")
    args = ("bench", "--ai", "greedy", "--level", "named.txt", "--games", "1")
    done = run_in(tmp_path, locale_env, *args, "--record-dir", "rec")
    assert_clean(done)
    header, row = done.stdout.splitlines()[:2]
    assert row.split()[:2] == ["greedy", ESCAPED]
    assert row.index(" 80 ") + 3 == header.index("free") + 4  # the columns still line up
    # The file system's encoding cannot hold 名: the level's part of the name is left out.
    assert [p.name for p in (tmp_path / "rec").iterdir()] == ["greedy-level-len1-seed1.json"]
    as_json = run_in(tmp_path, locale_env, *args, "--json")
    assert_clean(as_json)
    assert json.loads(as_json.stdout)[0]["level"] == "名前"


def test_scores_and_solvers_escape_names(tmp_path: Path, locale_env: dict[str, str]) -> None:
    kept = {"level": "名前", "size": "10x8", "start_length": 3, "player": "名…", "length": 5}
    kept |= {"steps": 9, "won": False, "seed": 1, "date": "2026-01-02T03:04:05+00:00"}
    scores = tmp_path / "data" / "termsnake" / "scores.json"
    scores.parent.mkdir(parents=True)
    scores.write_text(json.dumps({"format": "termsnake-scores/1", "scores": [kept]}))
    done = run_in(tmp_path, locale_env, "scores")
    assert_clean(done)
    header, row = done.stdout.splitlines()[:2]
    assert row.split()[:4] == [ESCAPED, "10x8", "3", "\\u540d..."]
    assert row.index("10x8") == header.index("size")

    info = tmp_path / "plugs" / "namebots-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: namebots\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[termsnake.solvers]\nzz名 = namebot:Bot\n", "utf-8")
    listed = run_in(tmp_path, locale_env, "solvers", PYTHONPATH=str(tmp_path / "plugs"))
    assert_clean(listed)
    lines = listed.stdout.splitlines()
    ours = next(line for line in lines if line.startswith("zz\\u540d"))
    assert ours.index("namebots") == lines[0].index("termsnake")  # aligned with the others


@pytest.mark.terminal
def test_game_and_replay_escape_the_level_name(tmp_path: Path, locale_env: dict[str, str]) -> None:
    (tmp_path / "named.txt").write_text(NAMED, encoding="utf-8")
    game = Pty(["--level", "named.txt", "--record", "game.json"], tmp_path, env=locale_env)
    try:
        game.wait_for(ESCAPED)
        game.send("q")
        assert game.wait_exit() == 0
        assert f"Level {ESCAPED}" in game.text()
    finally:
        game.close()
    replay = Pty(["replay", "game.json"], tmp_path, env=locale_env)
    try:
        replay.wait_for(ESCAPED)
        replay.send("q")
        assert replay.wait_exit() == 0
    finally:
        replay.close()


def test_run_plain_keeps_utf8(tmp_path: Path) -> None:
    """The usual UTF-8 locale is as before: names as they are, the ellipsis one character."""
    (tmp_path / "named.txt").write_text(NAMED, encoding="utf-8")
    done = run_plain(tmp_path, "check", "named.txt")
    assert done.returncode == 0 and "'名前'" in done.stdout
    narrow = run_plain(tmp_path, "levels", env={**quiet_env(tmp_path), "COLUMNS": "70"})
    assert "…" in narrow.stdout and "..." not in narrow.stdout


def test_the_c_locale_gets_ascii_though_python_writes_utf8(tmp_path: Path) -> None:
    # Python's UTF-8 mode (on under C) wrote the ellipsis as UTF-8, where --unicode draws ASCII.
    env = {k: v for k, v in quiet_env(tmp_path).items() if not k.startswith("PYTHON")}
    env |= {"LC_ALL": "", "LC_CTYPE": "", "LANG": "C", "COLUMNS": "70"}
    (tmp_path / "named.txt").write_text(NAMED, encoding="utf-8")
    done = subprocess.run(
        [termsnake_command(), "check", "named.txt"], capture_output=True, env=env, cwd=tmp_path
    )
    assert done.returncode == 0 and done.stdout.isascii() and done.stderr == b""
    assert f"'{ESCAPED}'".encode() in done.stdout  # a name, escaped as under C without it
    narrow = subprocess.run([termsnake_command(), "levels"], capture_output=True, env=env)
    assert narrow.stdout.isascii() and b"...\n" in narrow.stdout


# A UTF-8 locale, but a latin-1 stdout: ─ cannot be written, and · would be a latin-1 byte.
NARROW_STDOUT = {"LC_ALL": "C.UTF-8", "PYTHONUTF8": "0", "PYTHONIOENCODING": "latin-1"}
NARROW_NOTE = "the unicode tiles need a UTF-8 terminal (stdout's encoding is "


def ascii_board(t: Pty) -> None:
    """The game on screen in ASCII until it ends: the note after it says why."""
    t.wait_for(lambda: bool(t.board()) and t.board()[0] == "#" * 50)
    t.send("q")
    assert t.wait_exit() == 0
    assert all(b < 0x80 for b in bytes(t.raw).split(b"Game over")[0])
    assert NARROW_NOTE in t.text().replace("\n", "")


@pytest.mark.terminal
def test_unicode_tiles_fall_back_to_ascii_when_stdout_cannot_hold_them(tmp_path: Path) -> None:
    # They were drawn as escapes (\u250c\u2500...), the floor as a lone latin-1 byte.
    args = ["--unicode", "--level", "classic", "--record", "game.json"]
    game = Pty(args, tmp_path, env=NARROW_STDOUT)
    try:
        game.wait_for("a direction key starts")
        game.send("d")
        game.wait_steps(3)
        ascii_board(game)
        assert "PYTHONIOENCODING=latin-1" in game.text().replace("\n", "")
    finally:
        game.close()
    # replay has no --unicode; config.toml's glyphs apply to it, and fall back alike.
    (tmp_path / "config" / "termsnake").mkdir(parents=True)
    (tmp_path / "config" / "termsnake" / "config.toml").write_text('glyphs = "unicode"\n')
    replay = Pty(["replay", "game.json"], tmp_path, env=NARROW_STDOUT)
    try:
        ascii_board(replay)
    finally:
        replay.close()
