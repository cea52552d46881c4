"""The benchmark: JSON rows, determinism across runs and --jobs, recording, bounds, errors."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from solver_doubles import ZigZag

from termsnake.bench import games, pool, remote, report
from termsnake.bench.names import solver_names
from termsnake.bench.tally import Tally
from termsnake.commands import cli
from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level, with_length
from termsnake.formats.levelfile import load_level_file
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify
from termsnake.solvers import neuro, registry
from termsnake.workers import processes

# The keys of one JSON row, in order (README, "Benchmark"): DESIGN.md's, then "played".
ROW_KEYS = (
    "solver", "level", "free_cells", "games", "seed", "wins", "deaths", "stalls", "win_rate",
    "mean_steps", "median_steps", "mean_length", "steps_over_bound", "ms_per_move", "played",
)  # fmt: skip


class Straight(ZigZag):
    """Always moves right, into the wall."""

    name = "straight"

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        return Direction.RIGHT


class Broken(Straight):
    """Crashes on its first move."""

    name = "broken"

    def next_direction(self, game: Game) -> Direction:
        raise ZeroDivisionError("oops")


@pytest.fixture(autouse=True)
def test_solvers(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Register the solvers above; worker processes are forked so that they see them too."""
    for name, cls in (("zigzag", ZigZag), ("straight", Straight), ("broken", Broken)):
        monkeypatch.setitem(registry._REGISTRY, name, f"{cls.__module__}:{cls.__name__}")
    monkeypatch.setattr(pool, "START_METHOD", "fork")
    yield


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    assert cli.main(["bench", *args, "--json"]) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return rows


def without_timing(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "ms_per_move"} for row in rows]


ARGS = ("--ai", "zigzag,straight", "--size", "4x4", "--size", "6x4", "--games", "6")


def test_json_rows_and_sums(capsys: pytest.CaptureFixture[str]) -> None:
    rows = run_json(capsys, *ARGS, "--seed", "5")
    assert [(r["solver"], r["level"]) for r in rows] == [
        ("zigzag", "open-4x4"),
        ("zigzag", "open-6x4"),
        ("straight", "open-4x4"),
        ("straight", "open-6x4"),
    ]
    for row in rows:
        assert tuple(row) == ROW_KEYS
        assert row["games"] == 6 and row["seed"] == 5
        assert row["wins"] + row["deaths"] + row["stalls"] == row["games"]
        assert row["win_rate"] == row["wins"] / row["games"]
        assert row["ms_per_move"] >= 0
    zig4, zig6, straight4, _ = rows
    assert (zig4["free_cells"], zig6["free_cells"]) == (16, 24)
    assert zig4["wins"] == 6 and zig4["mean_length"] == 16.0
    assert zig4["steps_over_bound"] >= 1.0
    assert straight4["deaths"] == 6 and straight4["mean_length"] < 3
    assert straight4["mean_steps"] == straight4["median_steps"] == 2.0


def test_defaults_are_the_open_8x8_board_length_1_seed_1() -> None:
    args = cli.build_parser().parse_args(["bench", "--ai", "zigzag"])
    jobs = processes(args.jobs)
    assert (args.boards, args.length, args.games, args.seed, jobs) == (None, 1, 100, 1, 1)
    assert args.jobs is None  # left out, not 1: only a --jobs given is said to go unused


def test_a_weights_file_named_in_bytes_not_utf8_is_valid_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Its undecodable byte went into the JSON as a lone surrogate, which is no UTF-8: strict
    # parsers refuse the whole output. The replay showed it escaped, as the table does.
    weights = Path(os.fsdecode(os.fsencode(tmp_path) + b"/w\xff.json"))
    try:
        shutil.copy(Path(neuro.__file__).with_name("neuro-8x8.json"), weights)
    except OSError:
        pytest.skip("this file system takes only UTF-8 names")
    record = tmp_path / "rec"
    args = ["--ai", f"neuro:{weights}", "--games", "1", "--record-dir", str(record)]
    assert cli.main(["bench", *args, "--json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    json.dumps(row, ensure_ascii=False).encode("utf-8")  # UnicodeEncodeError on a surrogate
    shown = f"neuro:{tmp_path}/w\\udcff.json"
    assert row["solver"] == row["played"] == shown
    (replay,) = record.iterdir()
    assert json.loads(replay.read_text())["solver"] == shown
    assert cli.main(["bench", *args]) == 0
    assert f"\n{shown}  " in capsys.readouterr().out


def test_default_board(capsys: pytest.CaptureFixture[str]) -> None:
    (row,) = run_json(capsys, "--ai", "zigzag", "--games", "2")
    assert (row["level"], row["free_cells"], row["wins"], row["seed"]) == ("open-8x8", 64, 2, 1)


def test_same_arguments_same_numbers_whatever_jobs(capsys: pytest.CaptureFixture[str]) -> None:
    one = run_json(capsys, *ARGS)
    again = run_json(capsys, *ARGS)
    two = run_json(capsys, *ARGS, "--jobs", "2")
    assert without_timing(one) == without_timing(again) == without_timing(two)
    other_seed = run_json(capsys, *ARGS, "--seed", "99")
    assert without_timing(other_seed) != without_timing(one)


def test_game_i_uses_seed_s_plus_i() -> None:
    spec = games.LevelSpec("size", "4x4", 1)
    tasks = [games.GameTask("zigzag", spec, s, True) for s in (7, 8)]
    records = list(pool.records(tasks, len(tasks), 1, pool.Watcher(), games.Kit.read([spec], [])))
    assert [r.replay.seed for r in records if r.replay] == [7, 8]
    game = Game(open_level(4, 4, 1), 8)
    assert records[1].replay is not None
    assert records[1].replay.foods[0] == game.foods[0]


def test_record_dir_then_verify(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    rows = run_json(capsys, *ARGS, "--seed", "3", "--jobs", "2", "--record-dir", str(out))
    names = sorted(p.name for p in out.iterdir())
    expected = sorted(
        f"{solver}-{level}-len1-seed{seed}.json"
        for solver in ("zigzag", "straight")
        for level in ("open-4x4", "open-6x4")
        for seed in range(3, 9)
    )
    assert names == expected
    for row in rows:
        outcomes = []
        for seed in range(3, 9):
            replay = load_replay(out / f"{row['solver']}-{row['level']}-len1-seed{seed}.json")
            game = verify(replay)
            assert (replay.seed, replay.solver, replay.board_name) == (
                seed,
                row["solver"],
                row["level"],
            )
            outcomes.append(game.outcome)
        assert outcomes.count(Outcome.WON) == row["wins"]
        assert outcomes.count(Outcome.DIED) == row["deaths"]


def test_replay_names_are_safe() -> None:
    name = report.replay_name("greedy", "Two rooms/../x", 3, 4)
    assert name == "greedy-Two-rooms-..-x-len3-seed4.json"


@pytest.mark.parametrize(
    ("level", "part"),
    [
        ("Über", "Über"),  # it was "ber"
        ("U\u0308ber", "Über"),  # decomposed as some editors save it: one name on every system
        ("蛇 の 庭", "蛇-の-庭"),
        ("Ελληνικά/../Ω", "Ελληνικά-..-Ω"),
        ("a\u202eb\x1bc\x00d", "a-b-c-d"),  # format and control characters go
        ("..Ж..", "Ж"),
        ("\u3164" * 5 + "a", "a"),  # blank letters (Hangul fillers) named an invisible file
        ("\u0301\u0301x\u0301", "x\u0301"),  # marks only on a letter: alone they are unseen
    ],
)
def test_replay_names_keep_letters_of_any_script(level: str, part: str) -> None:
    assert report.replay_name("greedy", level, 3, 4) == f"greedy-{part}-len3-seed4.json"


def test_replay_names_leave_out_what_the_file_system_encoding_cannot_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Under a latin-1 locale os.open raised UnicodeEncodeError on 名: the benchmark's rows lost.
    monkeypatch.setattr(sys, "getfilesystemencoding", lambda: "latin-1")
    assert report.replay_name("greedy", "Zürich 名前", 3, 4) == "greedy-Zürich-len3-seed4.json"
    assert report.replay_name("蛇", "a名b", 3, 4) == "solver-a-b-len3-seed4.json"


@given(st.text(max_size=100), st.text(max_size=200))
@settings(max_examples=300, deadline=None)
def test_a_replay_name_is_one_short_file_name_whatever_the_names(level: str, solver: str) -> None:
    name = report.replay_name(solver, level, 10**6, 10**30 - 1)
    numbered = name.replace(".json", "-1000.json")  # as the last name tried when it is taken
    assert len(numbered.encode("utf-8", "surrogateescape")) <= 255
    assert not name.startswith(".") and "/" not in name and "\\" not in name
    assert all(unicodedata.category(ch)[0] in "LMN" or ch in "._-" for ch in name)


def test_a_level_of_100_wide_letters_is_recorded(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Kept whole, the name of 100 CJK letters was 300 bytes: too long for a file name.
    level = tmp_path / "wide.txt"
    rows = "......\n..>...\n......\n......\n"
    level.write_text(f"name: {'蛇' * 100}\nlength: 1\n{rows}", encoding="utf-8")
    out = tmp_path / "out"
    run_json(
        capsys, "--ai", "zigzag", "--level", str(level), "--games", "1", "--record-dir", str(out)
    )
    (written,) = out.iterdir()
    assert written.name == f"zigzag-{'蛇' * 40}-len1-seed1.json"


def test_record_dir_never_overwrites_across_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--ai", "zigzag", "--size", "4x4", "--games", "2", "--record-dir", str(tmp_path))
    run_json(capsys, *args, "--length", "1")
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(first) == ["zigzag-open-4x4-len1-seed1.json", "zigzag-open-4x4-len1-seed2.json"]
    run_json(capsys, *args, "--length", "3")
    run_json(capsys, *args, "--length", "1")  # the same games again: the same files, kept
    files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert sorted(files) == sorted(
        [*first, "zigzag-open-4x4-len3-seed1.json", "zigzag-open-4x4-len3-seed2.json"]
    )
    assert all(files[name] == data for name, data in first.items())
    assert load_replay(tmp_path / "zigzag-open-4x4-len3-seed2.json").body[2] == Point(0, 2)


def test_record_dir_never_overwrites_within_a_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A level file that calls itself open-4x4, but starts the snake elsewhere.
    level = tmp_path / "mine.txt"
    level.write_text("name: open-4x4\nlength: 1\n\n>...\n....\n....\n....\n")
    out = tmp_path / "out"
    out.mkdir()
    stranger = out / "zigzag-open-4x4-len1-seed1-2.json"
    stranger.write_text("someone else's\n")
    args = ("--ai", "zigzag", "--size", "4x4", "--level", str(level), "--games", "1")
    run_json(capsys, *args, "--record-dir", str(out))
    names = sorted(p.name for p in out.iterdir())
    assert names == [
        "zigzag-open-4x4-len1-seed1-2.json",
        "zigzag-open-4x4-len1-seed1-3.json",
        "zigzag-open-4x4-len1-seed1.json",
    ]
    assert stranger.read_text() == "someone else's\n"
    heads = {load_replay(out / n).body[0] for n in names if n != stranger.name}
    assert heads == {Point(2, 2), Point(0, 0)}
    # A second run finds each game already there, byte for byte, and adds nothing.
    run_json(capsys, *args, "--record-dir", str(out))
    assert sorted(p.name for p in out.iterdir()) == names


def test_save_new_keeps_a_directory_of_that_name(tmp_path: Path) -> None:
    (tmp_path / "g.json").mkdir()
    spec = games.LevelSpec("size", "4x4", 1)
    replay = games.play_one(games.GameTask("zigzag", spec, 1, True), games.Kit.read([spec], []))
    assert replay.replay is not None
    path = report.save_new(replay.replay, tmp_path, "g.json")
    assert path == tmp_path / "g-2.json" and (tmp_path / "g.json").is_dir()
    assert report.save_new(replay.replay, tmp_path, "g.json") == path


def test_bound_on_a_hand_made_game() -> None:
    # The wall makes the walls-only distance longer than the straight-line one.
    board = Board.from_rows([".....", ".###.", "....."], name="u")
    level = Level(board, (Point(2, 0),), Direction.RIGHT, Point(2, 2), "u")
    game = Game(level, 0, food_plan=[Point(0, 0), Point(4, 1)])
    for letter in "RRDDLL" + "LLUU" + "L":
        game.step(Direction(letter))
    assert game.foods == [(0, Point(2, 2)), (6, Point(0, 0)), (10, Point(4, 1))]
    assert (game.eaten, game.steps, game.outcome) == (2, 11, Outcome.DIED)
    # (2,0) -> (2,2) round the wall: 6; (2,2) -> (0,0): 4; the uneaten food does not count.
    assert games.food_bound(game) == 6 + 4
    record = games.GameRecord(Outcome.DIED, game.steps, game.length, 10, 0.5)
    other = games.GameRecord(Outcome.WON, 9, 5, 0, 1.5)
    row = report.summarize("x", level, 1, Tally.of([record, other]))
    assert row["steps_over_bound"] == round((11 + 9) / 10, 4)
    assert (row["mean_steps"], row["median_steps"], row["ms_per_move"]) == (10.0, 10.0, 1.0)
    assert report.summarize("x", level, 1, Tally.of([other]))["steps_over_bound"] is None


def test_bound_on_a_wrapping_board() -> None:
    board = Board.open(5, 1, wrap=True)
    level = Level(board, (Point(0, 0),), Direction.LEFT, Point(3, 0), "ring")
    game = Game(level, 0, food_plan=[Point(1, 0)])
    for letter in "LL":
        game.step(Direction(letter))
    assert game.eaten == 1 and games.food_bound(game) == 2


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", *ARGS]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 5
    assert lines[0].split()[:3] == ["solver", "level", "free"]
    assert "steps/bound" in lines[0] and "ms/move" in lines[0]
    assert lines[1].split()[:4] == ["zigzag", "open-4x4", "16", "6"]
    # DESIGN: the table holds the JSON's figures, the seed of the row's first game among them
    assert lines[0].split()[-1] == "seed" and lines[1].split()[-1] == "1"  # the default seed
    assert "100.0%" in lines[1]
    ends = {len(line) for line in lines[1:]}
    assert len(ends) == 1  # right-aligned numbers: every row ends in the same column


def test_unavailable_rows_are_skipped(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        cli.main(["bench", "--ai", "zigzag", "--size", "4x4", "--size", "3x3", "--games", "2"]) == 0
    )
    out, err = capsys.readouterr()
    assert "open-4x4" in out and "open-3x3" not in out
    assert (
        err == "termsnake bench: zigzag on open-3x3: unavailable: no zig-zag cycle on a 3x3 board\n"
    )
    assert cli.main(["bench", "--ai", "zigzag", "--size", "3x3", "--games", "2", "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err.splitlines()[-1] == "termsnake bench: error: nothing could be measured"


def test_a_refusal_names_a_cell_of_a_level_file_by_line_and_column(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # hamilton named the dead end (6, 3) where `termsnake check` names its cell 7:7.
    path = tmp_path / "dead.txt"
    path.write_text("name: dead\n\n########\n#......#\n#...>#.#\n#....#.#\n########\n")
    assert cli.main(["bench", "--ai", "hamilton", "--level", str(path), "--games", "1"]) == 2
    assert "(a dead-end cell at line 6 col 7)" in capsys.readouterr().err
    level = load_level_file(path)
    with pytest.raises(ValueError, match=r"behind the head at line 5 col 5$"):
        with_length(level, 5)


def test_a_refusal_of_a_level_file_names_the_file_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two files of one level name gave "hamilton on room: ... (line 4 col 2)" and "... (line 7
    # col 3)": which file's lines, it did not say. Named first, as play names it, escaped.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "r.txt").write_text("name: room\nlength: 1\n\n#.##\n.>..\n....\n....\n")
    odd = "b\x1b[2J.txt"
    (tmp_path / odd).write_text("name: room\nlength: 1\n\n....\n.>..\n....\n##.#\n")
    args = ["bench", "--ai", "hamilton", "--ai", "greedy", "--games", "1", "--json"]
    assert cli.main([*args, "--level", "a/r.txt", "--level", odd, "--level", "dead-end"]) == 0
    out, err = capsys.readouterr()
    said = "hamilton on room: unavailable: hamilton cannot play room: the board has no "
    said += "Hamiltonian cycle (a dead-end cell at line {}); try --ai best"
    assert err.splitlines() == [
        f"termsnake bench: a/r.txt: {said.format('4 col 2')}",
        f"termsnake bench: b\\x1b[2J.txt: {said.format('7 col 3')}",
        # A preset is named by its name, as it was.
        "termsnake bench: hamilton on dead-end: unavailable: hamilton cannot play dead-end: the "
        "board has no Hamiltonian cycle (a dead-end cell at line 9 col 12); try --ai best",
    ]
    # The JSON rows name a level by its name, as before.
    assert [(r["solver"], r["level"]) for r in json.loads(out)] == [
        ("greedy", "room"),
        ("greedy", "room"),
        ("greedy", "dead-end"),
    ]


def test_a_crash_and_a_bot_s_own_failures_on_a_level_file_name_the_file_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only the refusal named the file: a crash or a lost game on one of two files of one level
    # name said "on room", of either.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "r.txt").write_text("name: room\nlength: 1\n\n....\n.>..\n....\n")
    odd = "b\x1b[2J.txt"
    (tmp_path / odd).write_text("name: room\nlength: 1\n\n.....\n.>...\n.....\n")
    quits = f"exec:{shlex.quote(sys.executable)} -c pass"
    args = ["bench", "--ai", f"broken,{quits}", "--games", "4", "--json"]
    assert cli.main([*args, "--level", "a/r.txt", "--level", odd, "--level", "dead-end"]) == 1
    out, err = capsys.readouterr()
    crash = "failed (seed 1): ZeroDivisionError: oops"
    exited = f"engine {sys.executable} exited with status 0"
    lost = "1 more game lost by the bot's own failure, not listed"
    assert err.splitlines() == [
        f"termsnake bench: error: a/r.txt: broken on room {crash}",
        f"termsnake bench: error: b\\x1b[2J.txt: broken on room {crash}",
        # A preset is named by its name, as it was.
        f"termsnake bench: error: broken on dead-end {crash}",
        *(f"termsnake bench: a/r.txt: {quits} on room (seed {g}): {exited}" for g in (1, 2, 3)),
        f"termsnake bench: a/r.txt: {quits} on room: {lost}",
        *(
            f"termsnake bench: b\\x1b[2J.txt: {quits} on room (seed {g}): {exited}"
            for g in (1, 2, 3)
        ),
        f"termsnake bench: b\\x1b[2J.txt: {quits} on room: {lost}",
        *(f"termsnake bench: {quits} on dead-end (seed {g}): {exited}" for g in (1, 2, 3)),
        f"termsnake bench: {quits} on dead-end: {lost}",
    ]
    assert [(r["games"], r["level"]) for r in json.loads(out)] == [
        (4, "room"),
        (4, "room"),
        (4, "dead-end"),
    ]


def without_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """As if the learn extra were not installed: importing numpy fails, and neuro's module is
    imported anew (it may have been already)."""
    monkeypatch.setitem(sys.modules, "numpy", None)
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)


NO_NUMPY = (
    "termsnake bench: neuro: unavailable: neuro needs numpy, which is not installed "
    "(pip install 'termsnake[learn]')"
)


def test_a_solver_that_cannot_be_made_gets_no_row_and_the_others_play(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    without_numpy(monkeypatch)
    args = ["bench", "--size", "4x4", "--games", "2", "--json"]
    assert cli.main([*args, "--ai", "zigzag,neuro,straight"]) == 0
    out, err = capsys.readouterr()
    assert [row["solver"] for row in json.loads(out)] == ["zigzag", "straight"]
    assert err == NO_NUMPY + "\n"
    # Nothing left to measure: the documented exit 2, and no --record-dir made for it.
    assert cli.main([*args, "--ai", "neuro", "--record-dir", str(tmp_path / "rd")]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out) == []
    assert err.splitlines() == [NO_NUMPY, "termsnake bench: error: nothing could be measured"]
    assert not (tmp_path / "rd").exists()


def test_a_crashing_solver_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--ai", "broken,zigzag", "--size", "4x4", "--games", "2"]) == 1
    out, err = capsys.readouterr()
    assert "zigzag" in out and "broken" not in out
    assert err == (
        "termsnake bench: error: broken on open-4x4 failed (seed 1): ZeroDivisionError: oops\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ai", "nosuch"], "unknown solver 'nosuch'; known solvers: "),
        (["--ai", ","], "--ai names no solver"),
        # It said "cannot start engine '': Permission denied", a row of its own, after greedy's.
        (["--ai", "greedy,exec:''", "--size", "4x4"], "command \"''\" names no program: its"),
        (["--ai", "exec:'' x", "--size", "4x4"], "first word is empty (exec:COMMAND, as in"),
        (["--ai", "zigzag", "--size", "0x4"], "--size: size 0x4 is out of range"),
        (["--ai", "zigzag", "--size", "1x1"], "--size: size 1x1 is out of range"),
        (["--ai", "zigzag", "--size", "201x2"], "at most 200 a side"),
        (["--ai", "zigzag", "--size", "big"], "--size: size must look like 20x15"),
        (["--ai", "zigzag", "--size", "3x3", "--length", "4"], "does not fit"),
        (["--ai", "zigzag", "--level", "nosuch-level"], "no preset or file named"),
        (["--ai", "zigzag", "--games", "0"], "--games: expected a number from 1 to 1000000000000"),
        (["--ai", "zigzag", "--games", str(2**63)], f"from 1 to 1000000000000, not {2**63}"),
        (["--ai", "zigzag", "--games", "1_000"], "--games: expected a whole number, not '1_000'"),
        (["--ai", "zigzag", "--games", "\u0663"], "--games: expected a whole number"),
        (["--ai", "zigzag", "--size", "\u0663x\u0663"], "--size: size must look like 20x15"),
        (["--ai", "zigzag", "--engine-timeout", "\u0663"], "not a number of seconds: '\u0663'"),
        (["--ai", "zigzag", "--engine-timeout", "1_0"], "not a number of seconds: '1_0'"),
        (["--ai", "zigzag", "--engine-timeout", "nan"], "not a number of seconds: 'nan'"),
        (["--ai", "zigzag", "--engine-timeout", "1e-320"], "at least 0.001 and at most 3600"),
        (["--ai", "zigzag", "--seed", "9" * 5000], "at most 30 digits, not '999999999999999"),
        (["--ai", "zigzag", "--length", "0"], "--length: expected a number of at least 1"),
        (["--ai", "zigzag", "--jobs", "-1"], "--jobs: expected a number of at least 0"),
        (["--ai", "zigzag", "--seed", "x"], "--seed: expected a whole number"),
        (["--ai", "zigzag", "--seed", "-1"], "--seed: expected a number of at least 0, not -1"),
        (["--size", "4x4"], "--ai"),
        (["--ai", "zigzag", "--record-dir", ""], "--record-dir: expected a directory, not an"),
    ],
)
def test_usage_errors(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        code = cli.main(["bench", *args])
        raise SystemExit(code)
    assert info.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and message in err
    assert err.count("\n") == 1


def test_a_record_dir_that_is_a_file_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "games"
    path.write_text("keep me")
    assert cli.main(["bench", "--ai", "zigzag", "--size", "4x4", "--record-dir", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"termsnake bench: error: --record-dir {path}: '{path}' is a file, not a folder\n"
    assert path.read_text() == "keep me"
    # A folder through a link to nowhere "exists and is not a directory": named, the link.
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    args = ["bench", "--ai", "zigzag", "--size", "4x4", "--record-dir", f"{tmp_path}/gone/games"]
    assert cli.main(args) == 2
    assert capsys.readouterr().err == (
        f"termsnake bench: error: --record-dir {tmp_path}/gone/games: '{tmp_path}/gone' is a "
        f"link to '{tmp_path}/nowhere', which is not there\n"
    )


@pytest.mark.skipif(not Path("/proc/sys").is_dir(), reason="needs /proc/sys (Linux)")
def test_a_record_dir_nothing_can_be_written_in_is_refused_before_any_game(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A directory even root cannot create files in: before, the first engine game failed as a
    # crash of the engine, and a built-in's game was played and then not saved.
    for ai in ("zigzag", f"exec:{sys.executable} -c pass"):
        args = ["bench", "--ai", ai, "--size", "4x4", "--record-dir", "/proc/sys"]
        assert cli.main(args) == 2
        out, err = capsys.readouterr()
        assert out == ""
        # It said "No such file or directory" of a folder that is there.
        assert err == (
            "termsnake bench: error: --record-dir /proc/sys: the system lets nothing new be "
            "made in '/proc/sys'\n"
        )
    assert cli.main(["bench", "--ai", "zigzag", "--size", "4x4", "--record-dir", "/proc/new"]) == 2
    assert capsys.readouterr().err == (
        "termsnake bench: error: --record-dir /proc/new: the system lets nothing new be made in "
        "'/proc'\n"
    )


def test_a_bad_level_file_gives_its_located_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("#####\n#>.x#\n#####\n")
    assert cli.main(["bench", "--ai", "zigzag", "--level", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}:2:4: error: ")


def test_sizes_are_the_shared_type(capsys: pytest.CaptureFixture[str]) -> None:
    args = cli.build_parser().parse_args(
        ["bench", "--ai", "zigzag", "--size", "6×4", "--size", "2x1"]
    )
    assert args.boards == [("size", "6x4"), ("size", "2x1")]
    for spaced in (" 6x4", "6x4 ", "6 x 4"):  # as a seed with spaces is refused
        with pytest.raises(SystemExit):
            cli.build_parser().parse_args(["bench", "--ai", "zigzag", "--size", spaced])
    (row,) = run_json(capsys, "--ai", "zigzag", "--size", "6×4", "--size", "6x4", "--games", "1")
    assert row["level"] == "open-6x4"


def test_help_says_what_the_timings_leave_out(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "leaves out the solver's setup (such as the Hamiltonian cycle search)" in text
    assert "0.0 if no move was timed" in text and "null ('-') if no game ate anything" in text
    assert "never replaced" in text and "len{L}" in text and "S is at least 0" in text
    record = games.GameRecord(Outcome.DIED, 0, 1, 0, None)
    row = report.summarize("x", open_level(4, 4, 1), 1, Tally.of([record]))
    assert (row["steps_over_bound"], row["ms_per_move"]) == (None, 0.0)


def test_a_longer_snake_drops_a_first_food_it_covers(tmp_path: Path) -> None:
    # As play does: the food under the new body goes, the level stays.
    path = tmp_path / "fed.txt"
    path.write_text("name: fed\nlength: 1\n\n#######\n#..%>.#\n#.....#\n#######\n")
    assert games.LevelSpec("level", str(path), 1).load().food == Point(3, 1)
    longer = games.LevelSpec("level", str(path), 2).load()
    assert longer.body == (Point(4, 1), Point(3, 1)) and longer.food is None


def test_length_applies_to_level_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "box.txt"
    path.write_text("name: box\nlength: 2\n\n######\n#....#\n#..>.#\n#....#\n#....#\n######\n")
    assert games.LevelSpec("level", str(path), 1).load().body == (Point(3, 2),)
    three = games.LevelSpec("level", str(path), 3).load()
    assert three.body == (Point(3, 2), Point(2, 2), Point(1, 2))
    with pytest.raises(games.BenchError, match="does not fit"):
        games.LevelSpec("level", str(path), 4).load()


def test_length_applies_where_the_files_own_does_not_fit(tmp_path: Path) -> None:
    # The file's length 3 has no room behind the head; bench's length 1 (its default) has.
    path = tmp_path / "short.txt"
    path.write_text("name: short\nlength: 3\n\n##########\n#>.......#\n#........#\n##########\n")
    assert games.LevelSpec("level", str(path), 1).load().body == (Point(1, 1),)


# -- the installed command -------------------------------------------------------------------


def command() -> str:
    return shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [command(), "bench", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_the_command_reports_errors_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    proc = run_bench("--ai", "nosuch", "--size", "4x4")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("termsnake bench: error: unknown solver 'nosuch'")
    assert "hamilton" in proc.stderr and proc.stderr.count("\n") == 1
    assert cli.main(["bench", "--ai", "hamilton", "--size", "4", "--games", "2"]) == 2
    err = capsys.readouterr().err  # in this process, as a second error of the command
    assert "size must look like 20x15" in err and "Traceback" not in err


def test_the_command_json_with_processes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ("--ai", "hamilton", "--size", "4x4", "--games", "4", "--seed", "2")
    rows = run_json(capsys, *args)  # in this process; the installed command with workers:
    two = run_bench(*args, "--json", "--jobs", "2", "--record-dir", str(tmp_path))
    assert two.returncode == 0, two.stderr
    assert without_timing(rows) == without_timing(json.loads(two.stdout))
    (row,) = rows
    assert tuple(row) == ROW_KEYS
    assert row["wins"] + row["deaths"] + row["stalls"] == 4
    assert len(list(tmp_path.iterdir())) == 4
    replay = load_replay(tmp_path / "hamilton-open-4x4-len1-seed5.json")
    assert verify(replay).outcome is replay.result.outcome


def test_best_is_reported_with_what_it_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # best plays 10x10 with the cell tree and 5x5 (no cut into blocks fits) with replan; the rows
    # say so in "played" (and the table), while "solver" and the replays keep the name asked
    # for, as DESIGN.md's rows do. tree refuses 5x5: no row for it.
    args = ("--ai", "best,tree", "--size", "10x10", "--size", "5x5", "--games", "1")
    assert cli.main(["bench", *args, "--json", "--record-dir", str(tmp_path)]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert [(r["solver"], r["played"], r["level"]) for r in rows] == [
        ("best", "best (tree)", "open-10x10"),
        ("best", "best (replan)", "open-5x5"),
        ("tree", "tree", "open-10x10"),
    ]
    assert list(rows[0])[-1] == "played"  # after the documented keys, in their order
    assert all(r["wins"] == 1 for r in rows)
    assert "termsnake bench: tree on open-5x5: unavailable: tree cannot play" in err
    assert "try --ai best" in err
    replay = load_replay(tmp_path / "best-open-5x5-len1-seed1.json")
    assert replay.solver == "best"
    assert verify(replay).outcome is Outcome.WON
    assert cli.main(["bench", *args]) == 0
    table = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[0] for line in table[1:]] == ["best (tree)", "best (replan)", "tree"]


def test_a_solver_a_cluster_worker_lacks_says_it_must_be_installed_there() -> None:
    # The client knew the name (a plugin installed here), the worker did not.
    spec = games.LevelSpec("size", "4x4", 1)
    task = games.GameTask("nosuchplugin", spec, 1, False)
    record = remote.play_shipped(task, games.Kit.read([spec], []))
    assert record.error is not None and "unknown solver 'nosuchplugin'" in record.error
    assert record.error.endswith(
        "(on a Dask worker: a plugin must be installed on every worker too)"
    )


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("best,greedy", ["best", "greedy"]),
        ("exec:bot --mode 'a,b',greedy", ["exec:bot --mode 'a,b'", "greedy"]),
        ('exec:bot "x,y" z,best', ['exec:bot "x,y" z', "best"]),
        ("exec:bot a\\,b,c", ["exec:bot a\\,b", "c"]),
        ("a,,b", ["a", "", "b"]),
    ],
)
def test_solver_names_split_at_commas_outside_an_engine_command_s_quotes(
    text: str, names: list[str]
) -> None:
    assert solver_names(text) == names


def test_an_engine_whose_command_holds_a_comma_is_benched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The comma in the engine's quoted argument split it in two: 'unknown solver "b'"'.
    engine = Path(__file__).resolve().parents[2] / "examples" / "engines" / "greedy_engine.py"
    ai = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(engine))} 'a,b',greedy"
    argv = ["bench", "--ai", ai, "--size", "6x6", "--games", "1", "--json"]
    assert cli.main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [row["wins"] + row["deaths"] + row["stalls"] for row in rows] == [1, 1]


HINT = (
    "; --ai splits at commas: a comma in an engine's command goes in quotes or after a "
    "backslash (exec:./bot 'x,y')\n"
)


@pytest.mark.parametrize(
    ("ai", "hint"),
    [
        ("exec:./bot x,y", True),
        ("greedy,exec:./bot --mode fast,slow", True),
        ("exec:./bot 'x,y',bestt", True),  # may be a typo, but may be the engine's too
        ("bestt,exec:./bot", False),
        ("exec:./bot,bestt", False),  # a command without arguments: a typo as any other
        ("exec: ./bot,bestt", False),
        ("exec:'./my bot',bestt", False),
        ("greedy,bestt", False),
    ],
)
def test_a_name_split_off_an_engine_s_command_is_told_how_to_keep_its_comma(
    ai: str, hint: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    # It said "unknown solver 'y'" and the known names: not a word of the comma that split it.
    assert cli.main(["bench", "--ai", ai, "--size", "4x4", "--games", "1"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("termsnake bench: error: unknown solver ")
    assert err.count("\n") == 1 and err.endswith(HINT) is hint


def test_ai_given_twice_adds_the_solvers_as_a_list_does(capsys: pytest.CaptureFixture[str]) -> None:
    # The first --ai was dropped without a word.
    twice = run_json(capsys, "--ai", "zigzag", "--ai", "straight", "--size", "4x4", "--games", "2")
    once = run_json(capsys, "--ai", "zigzag,straight", "--size", "4x4", "--games", "2")
    assert [r["solver"] for r in twice] == ["zigzag", "straight"]
    assert without_timing(twice) == without_timing(once)


def test_a_bot_that_loses_every_game_is_told_of_three_times_a_row_then_counted(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A line for every game: a broken engine benched over a million games printed a million.
    ai = f"exec:{shlex.quote(sys.executable)} -c pass"
    boards = ["--size", "4x4", "--size", "5x4"]
    argv = ["bench", "--ai", f"{ai},zigzag", *boards, "--games", "5", "--jobs", "2", "--json"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert [(r["solver"], r["games"], r["deaths"]) for r in rows[:2]] == [(ai, 5, 5)] * 2
    # It never made a move, so it has no time a move (its one failed answer is not one).
    assert [r["ms_per_move"] for r in rows[:2]] == [0.0, 0.0]
    assert [r["solver"] for r in rows[2:]] == ["zigzag"] * 2
    assert all(tuple(r) == ROW_KEYS for r in rows)
    exited = f"engine {sys.executable} exited with status 0"
    assert err.splitlines() == [
        line
        for board in ("open-4x4", "open-5x4")
        for line in (
            *(f"termsnake bench: {ai} on {board} (seed {seed}): {exited}" for seed in (1, 2, 3)),
            f"termsnake bench: {ai} on {board}: 2 more games lost by the bot's own failure, "
            "not listed",
        )
    ]


def test_wrap_makes_the_size_boards_tori_and_not_the_level_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The game took --size 20x12 --wrap; bench refused --wrap, so a torus could not be measured.
    rows = run_json(
        capsys, "--ai", "greedy", "--size", "5x2", "--level", "open-8x8", "--wrap", "--games", "2"
    )
    assert [(r["level"], r["wins"]) for r in rows] == [("torus-5x2", 2), ("open-8x8", 2)]


def test_wrap_without_a_size_board_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--ai", "greedy", "--level", "maze", "--wrap"]) == 2
    err = capsys.readouterr().err
    said = "--wrap goes with --size (a level file says `wrap: yes`)"
    assert err == f"termsnake bench: error: {said}\n"
