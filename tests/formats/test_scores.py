"""High scores: keep the best, survive corrupt files, concurrent writers and unwritable places."""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from termsnake.commands import cli
from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.formats.scores import (
    FORMAT,
    LOCK_TIMEOUT,
    MAX_PLAYERS,
    RecordResult,
    ScoreEntry,
    ScoreKey,
    ScoreStore,
    default_path,
    parse,
    to_json,
)
from termsnake.formats.scoretable import keep_score

KEY = ScoreKey.of("classic", 20, 10, 3)
BOT = ScoreKey.of("classic", 20, 10, 3, "hamilton")


def entry(length: int, steps: int, won: bool = False, seed: int | None = 1) -> ScoreEntry:
    return ScoreEntry(length, steps, won, seed, "2026-11-21T21:30:00+01:00")


def test_record_then_reload_from_a_new_store(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    result = ScoreStore(path).record(KEY, entry(12, 340))
    assert result.new_best and result.saved and result.previous is None
    assert result.warnings == ()
    assert ScoreStore(path).best(KEY) == entry(12, 340)
    assert ScoreStore(path).best(BOT) is None
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == FORMAT


def test_a_worse_result_does_not_replace_the_best(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    store.record(KEY, entry(12, 340))
    shorter = store.record(KEY, entry(11, 100))
    slower = store.record(KEY, entry(12, 341))
    assert not shorter.new_best and shorter.previous == entry(12, 340)
    assert not slower.new_best
    assert store.best(KEY) == entry(12, 340)


def test_longer_or_equally_long_in_fewer_steps_is_a_new_best(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    store.record(KEY, entry(12, 340))
    fewer = store.record(KEY, entry(12, 300))
    assert fewer.new_best and fewer.previous == entry(12, 340)
    longer = store.record(KEY, entry(13, 900, seed=None))
    assert longer.new_best and longer.previous == entry(12, 300)
    assert store.best(KEY) == entry(13, 900, seed=None)


def test_keys_are_kept_apart(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    keys = [
        KEY,
        BOT,
        ScoreKey.of("classic", 20, 10, 1),
        ScoreKey.of("classic", 10, 20, 3),
        ScoreKey.of("open", 20, 10, 3),
    ]
    for i, key in enumerate(keys):
        store.record(key, entry(5 + i, 10))
    assert [store.best(k) for k in keys] == [entry(5 + i, 10) for i in range(len(keys))]


def test_each_board_keeps_its_best_players_only(tmp_path: Path) -> None:
    # A server whose clients each log in under a new name: before, every name added a row for
    # good, and each game's end read and wrote them all.
    path = tmp_path / "scores.json"
    rows = {ScoreKey.of("classic", 20, 10, 3, f"p{i}"): entry(5 + i % 7, 100 + i)
            for i in range(MAX_PLAYERS + 50)}  # fmt: skip
    path.write_text(to_json(rows), encoding="utf-8")
    store = ScoreStore(path)
    assert store.record(KEY, entry(50, 10)).new_best  # the best of all: kept
    kept = parse(path.read_bytes())
    assert len(kept) == MAX_PLAYERS and kept[KEY] == entry(50, 10)
    worst = min(kept.values(), key=lambda e: (e.length, -e.steps))
    assert all((e.length, -e.steps) <= (worst.length, -worst.steps) for k, e in rows.items()
               if k not in kept)  # fmt: skip
    late = ScoreKey.of("classic", 20, 10, 3, "late")
    result = store.record(late, entry(1, 1))  # worse than all of them: not kept
    assert not result.new_best and store.best(late) is None
    other = ScoreKey.of("classic", 30, 10, 3, "late")  # another board has room
    assert store.record(other, entry(1, 1)).new_best and store.best(other) == entry(1, 1)


def test_a_player_the_write_drops_is_not_told_a_best_so_far(tmp_path: Path) -> None:
    # A file written before the bound held 150 players on a board: one outside the best 100
    # who improved was told "best so far" from the row that same write had just dropped.
    path = tmp_path / "scores.json"
    rows = {ScoreKey.of("open-8x8", 8, 8, 3, f"p{i}"): entry(5, 100) for i in range(150)}
    low = ScoreKey.of("open-8x8", 8, 8, 3, "low")
    rows[low] = entry(3, 50)
    path.write_text(to_json(rows), encoding="utf-8")
    store = ScoreStore(path)
    game = Game(open_level(8, 8, 3), seed=1)
    for _ in range(3):
        game.step(Direction.RIGHT)  # length 3 in 3 steps: beats its own row, not the others
    game.quit()
    lines, warnings, saved = keep_score(store, low, game, store.best(low))
    assert low not in parse(path.read_bytes())
    assert lines == [] and warnings == () and saved


def test_players_as_good_as_the_last_kept_are_kept_in_time_order_across_offsets(
    tmp_path: Path,
) -> None:
    # helper-48: dates were compared as text, and 10:30+02:00 (08:30 UTC) came after
    # 09:00+00:00 (09:00 UTC).
    path = tmp_path / "scores.json"
    same = {ScoreKey.of("classic", 20, 10, 3, f"p{i}"): ScoreEntry(9, 9, False, 1,
            "2026-11-21T09:00:00+00:00") for i in range(MAX_PLAYERS)}  # fmt: skip
    early = ScoreKey.of("classic", 20, 10, 3, "early")
    same[early] = ScoreEntry(9, 9, False, 1, "2026-11-21T10:30:00+02:00")
    same[ScoreKey.of("classic", 20, 10, 3, "edge")] = ScoreEntry(
        1, 1, False, 1, "0001-01-01T00:00:00"
    )
    path.write_text(to_json(same), encoding="utf-8")
    ScoreStore(path).record(KEY, entry(1, 1))  # a write: the table is bounded
    assert early in parse(path.read_bytes())


def test_the_file_round_trips() -> None:
    scores = {KEY: entry(12, 340), BOT: entry(200, 5000, won=True, seed=None)}
    text = to_json(scores)
    assert parse(text.encode("utf-8")) == scores
    assert to_json(parse(text.encode("utf-8"))) == text


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"format": "termsnake-scores/1", "scores": [', "bad JSON at line 1"),
        (b'{"format": "termsnake-scores/2", "scores": []}', "format is 'termsnake-scores/2'"),
        (b'["termsnake-scores/1"]', "not a JSON object"),
        (b'{"format": "termsnake-scores/1", "scores": {}}', "scores is not a list"),
        (b'{"format": "termsnake-scores/1", "scores": [], "x": 1}', "expected the keys"),
        (b'{"format": "termsnake-scores/1", "scores": [{"level": "a"}]}', "missing size"),
        (b"\xff\xfe{}", "not UTF-8 (byte 0xff at offset 0)"),
    ],
)
def test_unreadable_files_are_described_and_read_as_empty(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    path = tmp_path / "scores.json"
    path.write_bytes(data)
    store = ScoreStore(path)
    read = store.read()
    assert read.scores == {}
    assert read.problem is not None and problem in read.problem
    assert store.best(KEY) is None
    assert path.read_bytes() == data  # reading alone never moves or changes it


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("length", True, "length must be a whole number from 1 to 1000000000000, not True"),
        ("length", 10**400, "length must be a whole number from 1 to 1000000000000, not 1000"),
        ("steps", "12", "steps must be a whole number from 0 to"),
        ("won", 1, "won must be true or false"),
        ("seed", 1.5, "seed must be an integer or null"),
        ("date", "yesterday", "date must be an ISO date"),
        ("size", "20 by 10", "size must look like 20x10"),
        ("player", "", "player must be a one-line string of 1 to 200 characters"),
        (
            "player",
            "x" * 100_000,
            "not 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx… (100002 char",
        ),
        (
            "level",
            [0] * 100_000,
            "level must be a one-line string of 1 to 200 characters, not an array",
        ),
        ("length", {"a": 1}, "not an object"),
    ],
)
def test_wrong_types_are_format_errors(
    tmp_path: Path, field: str, value: object, message: str
) -> None:
    row = json.loads(to_json({KEY: entry(12, 340)}))["scores"][0]
    row[field] = value
    path = tmp_path / "scores.json"
    path.write_text(json.dumps({"format": FORMAT, "scores": [row]}), encoding="utf-8")
    problem = ScoreStore(path).read().problem
    assert problem is not None and problem.startswith("scores[0]: ") and message in problem


def test_a_bom_an_editor_added_is_read_past(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    path.write_bytes(b"\xef\xbb\xbf" + to_json({KEY: entry(12, 340)}).encode())
    assert ScoreStore(path).best(KEY) == entry(12, 340)
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_a_corrupt_file_is_kept_aside_and_a_fresh_one_started(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    junk = b'{"format": "termsnake-scores/1", "scores": [{"level": \x00'
    path.write_bytes(junk)
    result = ScoreStore(path).record(KEY, entry(4, 9))
    assert result.saved and result.new_best and result.previous is None
    [warning] = result.warnings
    aside = [p for p in tmp_path.iterdir() if p.name.startswith("scores.json.corrupt-")]
    assert len(aside) == 1
    assert aside[0].read_bytes() == junk
    assert aside[0].name in warning and "bad JSON" in warning and "\n" not in warning
    assert ScoreStore(path).best(KEY) == entry(4, 9)
    assert ScoreStore(path).read().problem is None


def test_a_file_kept_aside_never_overwrites_another(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    # Three corrupt files within one second get three distinct names.
    for n in range(3):
        path.write_bytes(b"junk %d" % n)
        result = ScoreStore(path).record(KEY, entry(4 + n, 9))
        assert result.saved and len(result.warnings) == 1
    aside = sorted(p.read_bytes() for p in tmp_path.iterdir() if ".corrupt-" in p.name)
    assert aside == [b"junk 0", b"junk 1", b"junk 2"]


def _record_many(path: str, writer: int, count: int) -> None:
    store = ScoreStore(Path(path))
    for i in range(count):
        result = store.record(ScoreKey.of(f"level-{writer}", 10, 10, 1 + i), entry(2 + i, 10 * i))
        assert result.saved, result.warnings


@pytest.mark.slow  # two processes writing scores many times: CPU-heavy
def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "scores.json"
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_record_many, args=(str(path), w, 20)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
        assert p.exitcode == 0
    scores = ScoreStore(path).read().scores
    assert len(scores) == 80
    for w in range(4):
        for i in range(20):
            assert scores[ScoreKey.of(f"level-{w}", 10, 10, 1 + i)] == entry(2 + i, 10 * i)
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_directory_under_a_regular_file_is_not_saved_to(tmp_path: Path) -> None:
    # Runs as root too: no permission bit lets anyone create a directory inside a regular file.
    blocker = tmp_path / "data"
    blocker.write_text("not a directory", encoding="utf-8")
    result = ScoreStore(blocker / "termsnake" / "scores.json").record(KEY, entry(5, 5))
    assert not result.saved and result.previous is None
    [warning] = result.warnings
    # "Not a directory: .../data/termsnake" named no culprit: which name is not a folder.
    assert warning == f"scores not saved: '{blocker}' is a file, not a folder"
    assert blocker.read_text(encoding="utf-8") == "not a directory"


def test_a_file_under_a_regular_file_is_absent_not_unreadable(tmp_path: Path) -> None:
    # HOME=/dev/null: no scores file can exist there, so there is nothing to warn about or move.
    blocker = tmp_path / "data"
    blocker.write_text("not a directory", encoding="utf-8")
    store = ScoreStore(blocker / "termsnake" / "scores.json")
    assert store.read().problem is None and store.read().scores == {}
    assert store.set_aside_unreadable() == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod 0o500")
def test_a_read_only_directory_is_not_saved_to(tmp_path: Path) -> None:
    folder = tmp_path / "termsnake"
    folder.mkdir()
    store = ScoreStore(folder / "scores.json")
    store.record(KEY, entry(5, 5))
    (folder / "scores.json.lock").unlink()  # so that even opening the lock file must fail
    folder.chmod(0o500)
    try:
        result = store.record(KEY, entry(9, 5))
    finally:
        folder.chmod(0o700)
    assert not result.saved and result.new_best
    assert result.previous == entry(5, 5)
    assert result.warnings[0].startswith("scores not saved: Permission denied")
    assert store.best(KEY) == entry(5, 5)


def test_a_corrupt_file_that_cannot_be_moved_aside_is_not_overwritten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "scores.json"
    path.write_bytes(b"junk")

    def refuse(src: object, dst: object) -> None:
        raise PermissionError(13, "Permission denied", str(src))

    monkeypatch.setattr(os, "rename", refuse)
    result = ScoreStore(path).record(KEY, entry(5, 5))
    assert not result.saved
    [warning] = result.warnings
    assert warning.startswith("scores not saved: ") and "could not be moved aside" in warning
    assert path.read_bytes() == b"junk"


def test_xdg_data_home_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_DATA_HOME is the Linux convention")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_path() == tmp_path / "xdg" / "termsnake" / "scores.json"
    assert ScoreStore().record(KEY, entry(3, 1)).saved
    assert (tmp_path / "xdg" / "termsnake" / "scores.json").is_file()


def test_a_data_folder_with_control_characters_is_named_escaped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "\x1b[31mred"))
    assert cli.main(["scores"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("no scores yet") and "\\x1b[31mred" in out and "\x1b" not in out


def test_a_scores_path_that_cannot_be_written_is_named_escaped(tmp_path: Path) -> None:
    (tmp_path / "\x1b]0;owned\x07").write_text("")  # the file in the way is named
    store = ScoreStore(tmp_path / "\x1b]0;owned\x07" / "termsnake" / "scores.json")
    result = store.record(KEY, entry(3, 1))
    assert not result.saved and result.warnings
    assert all("\x1b" not in w and "\x07" not in w for w in result.warnings), result.warnings
    assert any("\\x1b]0;owned\\x07" in w for w in result.warnings), result.warnings


def test_main_lists_and_filters(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("termsnake.formats.scores.default_path", lambda: tmp_path / "scores.json")
    assert cli.main(["scores"]) == 0
    assert capsys.readouterr().out.startswith("no scores yet")
    store = ScoreStore(tmp_path / "scores.json")
    store.record(KEY, entry(12, 340))
    store.record(BOT, entry(200, 5000, won=True))
    store.record(ScoreKey.of("arena", 8, 8, 1, "hamilton"), entry(64, 700, won=True))
    store.record(ScoreKey.of("classic", 9, 10, 3), entry(7, 70))
    assert cli.main(["scores"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["level", "size", "start", "player", "best", "steps", "won", "date"]
    # Levels by name, sizes by number (9x10 before 20x10), then the best player first.
    assert [line.split()[:4] for line in lines[1:]] == [
        ["arena", "8x8", "1", "hamilton"],
        ["classic", "9x10", "3", "you"],
        ["classic", "20x10", "3", "hamilton"],
        ["classic", "20x10", "3", "you"],
    ]
    assert lines[3].split()[4:] == ["200", "5000", "yes", "2026-11-21", "21:30"]
    # Aligned: dates start under "date"; numbers end under the end of "best".
    date_at = lines[0].index("date")
    best_end = lines[0].index("best") + len("best")
    for line in lines[1:]:
        assert line[date_at : date_at + 5] == "2026-"
        assert line[best_end - 1].isdigit() and line[best_end] == " "
    assert cli.main(["scores", "--level", "classic", "--player", "you"]) == 0
    assert [line.split()[1] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "9x10",
        "20x10",
    ]
    assert cli.main(["scores", "--player", "nobody"]) == 0
    assert capsys.readouterr().out == "no scores match\n"
    # the file played with --level, as a board's author would ask: its scores, kept by its name
    board = tmp_path / "my-board.txt"
    board.write_text("name: arena\n\n#####\n#..>#\n#...#\n#####\n")
    assert cli.main(["scores", "--level", str(board)]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]] == ["arena"]
    (tmp_path / "broken.txt").write_text("#")
    assert cli.main(["scores", "--level", str(tmp_path / "broken.txt")]) == 0
    assert capsys.readouterr().out == "no scores match\n"
    assert cli.main(["scores", "--colour"]) == 2
    assert "unrecognized arguments: --colour" in capsys.readouterr().err


def _installed_termsnake() -> str:
    found = shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")
    if not Path(found).exists():
        pytest.fail("the termsnake command is not installed: pip install -e .")
    return found


def test_termsnake_scores_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path)}
    exe = _installed_termsnake()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [exe, "scores", *args], env=env, capture_output=True, text=True, timeout=30
        )

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert cli.main(["scores"]) == 0  # in this process: the installed command's runs are below
    assert capsys.readouterr().out.startswith("no scores yet")
    ScoreStore(tmp_path / "termsnake" / "scores.json").record(KEY, entry(12, 340))
    listed = run("--level", "classic")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.splitlines()[1].split()[:7] == [
        "classic",
        "20x10",
        "3",
        "you",
        "12",
        "340",
        "no",
    ]
    scores = tmp_path / "termsnake" / "scores.json"
    scores.write_bytes(b"{not json")
    corrupt = run()
    assert corrupt.returncode == 0
    assert corrupt.stderr.startswith("termsnake scores: warning: ")
    assert "bad JSON" in corrupt.stderr and corrupt.stderr.count("\n") == 1
    [aside] = [p for p in scores.parent.iterdir() if ".corrupt-" in p.name]
    assert aside.read_bytes() == b"{not json"
    assert "no scores yet" in corrupt.stdout
    assert cli.main(["scores", "--bogus"]) == 2


def test_a_lock_held_too_long_gives_up_without_saving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import fcntl

    store = ScoreStore(tmp_path / "scores.json")
    store.record(KEY, entry(5, 5))
    monkeypatch.setattr("termsnake.formats.scores.LOCK_TIMEOUT", 0.2)
    # flock locks belong to an open file, so a second open in this process is another holder.
    with open(store.lock_path, "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        result = store.record(KEY, entry(9, 5))
    assert not result.saved and result.new_best and result.previous == entry(5, 5)
    assert result.warnings == (f"scores not saved: {store.lock_path} stayed locked for 0.2 s",)
    assert store.best(KEY) == entry(5, 5)
    assert store.record(KEY, entry(9, 5)).saved  # released: the next game saves


def test_a_deadline_set_while_the_lock_is_waited_for_ends_the_wait(tmp_path: Path) -> None:
    # A server stopping must not wait past its shutdown wait for a game's score: a save that
    # began before the deadline was set waited its whole LOCK_TIMEOUT.
    import fcntl

    store = ScoreStore(tmp_path / "scores.json")
    store.record(KEY, entry(5, 5))
    results: list[RecordResult] = []
    with open(store.lock_path, "rb") as held:  # another open file: another holder
        fcntl.flock(held, fcntl.LOCK_EX)
        saving = threading.Thread(target=lambda: results.append(store.record(KEY, entry(9, 5))))
        saving.start()
        began = time.monotonic()
        store.cutoff.give_up_at(began + 0.3, "was still locked as the server stopped")
        saving.join(LOCK_TIMEOUT)
        took = time.monotonic() - began
    assert took < LOCK_TIMEOUT / 2, took  # cut at the deadline, not the lock's 10 s
    (result,) = results
    assert not result.saved and result.previous == entry(5, 5)
    said = f"scores not saved: {store.lock_path} was still locked as the server stopped"
    assert result.warnings == (said,)
    began = time.monotonic()  # once the deadline is past, a free lock is still taken
    assert store.record(KEY, entry(9, 5)).saved and time.monotonic() - began < LOCK_TIMEOUT / 2


@pytest.mark.parametrize(
    "data",
    [b'{"format": ' + b"9" * 5000 + b"}", b"[" * 100_000],
    ids=["huge-number", "deep-nesting"],
)
def test_json_that_python_refuses_is_kept_aside_too(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "scores.json"
    path.write_bytes(data)
    store = ScoreStore(path)
    assert store.best(ScoreKey("classic", "24x16", 3, "you")) is None
    result = store.record(ScoreKey("classic", "24x16", 3, "you"), ScoreEntry.now(5, 20, False, 1))
    assert result.saved and any("kept it as" in w for w in result.warnings)
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert len(aside) == 1 and aside[0].read_bytes() == data


@pytest.mark.parametrize(
    "content",
    [
        {"format": FORMAT, "scores": [], "\x1b[2J\x1b[31mHELLO\x07" + "k" * 5000: 1},
        {"format": FORMAT, "scores": [{"\x1b]0;PWNED\x07": 1}]},
        {"format": FORMAT, "scores": [], **{f"\x07{i}": i for i in range(1000)}},
    ],
)
def test_keys_from_a_bad_file_reach_the_warning_escaped_and_short(
    tmp_path: Path, content: dict[str, object]
) -> None:
    path = tmp_path / "scores.json"
    path.write_text(json.dumps(content))
    problem = ScoreStore(path).read().problem
    assert problem is not None and "\\x" in problem
    assert not any(ch in problem for ch in "\x1b\x07") and len(problem) < 500


def test_a_lock_that_is_a_symbolic_link_is_said_so(tmp_path: Path) -> None:
    # The lock is opened without following links; the error read "Too many levels of symbolic
    # links", which says nothing of what to fix.
    store = ScoreStore(tmp_path / "scores.json")
    store.lock_path.symlink_to(os.devnull)
    result = store.record(KEY, entry(5, 5))
    assert not result.saved
    assert result.warnings == (
        f"scores not saved: {store.lock_path} is a symbolic link, which is not followed",
    )


@pytest.mark.terminal
@pytest.mark.slow  # a game on a million cells
def test_a_level_a_million_cells_wide_is_played_and_scored(tmp_path: Path) -> None:
    # `check` passed it, and the game then stopped on a traceback: the scores' size had at
    # most six digits a side.
    import pexpect

    level = tmp_path / "wide.txt"
    level.write_text("length: 1\n\n>" + "." * 1_000_000 + "\n")
    termsnake = shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")
    env = {**os.environ, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    child = pexpect.spawn(
        termsnake, ["--level", str(level)], dimensions=(24, 80), env=env, encoding="utf-8"
    )
    try:
        child.expect("need", timeout=60)  # the board cannot be shown here
        child.send("q")
        child.expect(pexpect.EOF, timeout=60)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0 and "Traceback" not in (child.before or "")


def test_a_scores_file_that_is_a_link_in_a_loop_is_said_so_and_kept(tmp_path: Path) -> None:
    # It was said to be "a symbolic link, which is not followed", though a link that leads to
    # a file is followed (read and written through).
    store = ScoreStore(tmp_path / "scores.json")
    store.path.symlink_to(store.path.name)
    result = store.record(KEY, entry(5, 5))
    assert result.saved
    (warning,) = result.warnings
    assert "symbolic link that leads round in a loop" in warning and "not followed" not in warning
    (kept,) = tmp_path.glob("scores.json.corrupt-*")
    assert os.readlink(kept) == "scores.json"


def test_a_lock_that_is_a_link_to_nowhere_is_said_not_to_be_followed(tmp_path: Path) -> None:
    # Only a link whose target leads back round is a loop; one to nowhere is refused as a link.
    store = ScoreStore(tmp_path / "scores.json")
    (tmp_path / "scores.json.lock").symlink_to(tmp_path / "nowhere" / "x")
    result = store.record(KEY, entry(5, 5))
    assert not result.saved
    (warning,) = result.warnings
    assert warning.endswith("scores.json.lock is a symbolic link, which is not followed")
