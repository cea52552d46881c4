"""Replay files: round trip, validation, verification, saving, and ``termsnake replay``."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import random
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pty_harness import Pty
from solver_doubles import ZigZag

from termsnake.commands import cli
from termsnake.commands.replay import BAR_DELAY, LateBar, ReplaySolver
from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.core.moves import compress, expand
from termsnake.formats import replay as replay_mod
from termsnake.formats.fileio import write_atomic
from termsnake.formats.levelfile import MAX_FILE_BYTES, parse_level
from termsnake.formats.replay import (
    MAX_BOARD_NAME,
    MAX_MOVES,
    MAX_REPLAY_BYTES,
    Replay,
    ReplayError,
    load_replay,
    move_limit,
    replay_from_game,
)
from termsnake.formats.text import printable
from termsnake.formats.verify import PlaybackGame, verify
from termsnake.solvers.base import Solver, play
from termsnake.solvers.greedy import GreedySolver


class Straight:
    """Always moves right: into the wall, or round and round on a wrapping board."""

    name = "straight"

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        return Direction.RIGHT

    def overlay(self, game: Game) -> Mapping[Point, str]:
        return {}


def played(solver: Solver, level: Level | None = None, seed: int = 3, **kw: Any) -> Game:
    game = Game(level or open_level(4, 4, 1), seed)
    play(game, solver, **kw)
    return game


def won_replay() -> Replay:
    return replay_from_game(played(ZigZag()), "zigzag")


def command() -> str:
    return shutil.which("termsnake") or str(Path(sys.executable).parent / "termsnake")


def run_replay(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [command(), "replay", *args], capture_output=True, text=True, timeout=60, check=False
    )


# -- the format ----------------------------------------------------------------------------


def test_json_has_exactly_the_documented_fields() -> None:
    game = played(ZigZag())
    obj = json.loads(replay_from_game(game, "zigzag").to_json())
    assert list(obj) == ["format", "board", "start", "seed", "solver", "moves", "foods", "result"]
    assert obj["format"] == "termsnake-replay/1"
    assert obj["board"] == {"name": "open-4x4", "rows": ["...."] * 4, "wrap": False}
    assert obj["start"] == {"body": [[2, 2]], "direction": "R"}
    assert obj["seed"] == 3 and obj["solver"] == "zigzag"
    assert obj["moves"][:2] == "RD" and "3L" in obj["moves"]
    assert obj["foods"][0][0] == 0
    assert obj["foods"] == [[s, p.x, p.y] for s, p in game.foods]
    assert obj["result"] == {"outcome": "won", "length": 16, "steps": game.steps}


def test_round_trip() -> None:
    replay = won_replay()
    assert Replay.from_json(replay.to_json()) == replay
    assert Replay.from_json(replay.to_json()).to_json() == replay.to_json()


@pytest.mark.parametrize("name", ["exec:bot \udcff", "exec:python3\tbot.py", "neuro:w\x1b[2J.json"])
def test_a_solver_named_from_a_command_line_is_recorded_so_it_replays(name: str) -> None:
    # A byte that is not UTF-8 (read as a surrogate) failed the save with a traceback, and a
    # tab or ESC made a file termsnake replay refused.
    replay = replay_from_game(played(ZigZag()), name)
    text = replay.to_json().encode("utf-8").decode("utf-8")
    again = Replay.from_json(text)
    assert again.solver == printable(name) != name


def test_bench_records_the_replay_of_an_engine_named_with_a_byte_not_utf8(tmp_path: Path) -> None:
    engine = Path(__file__).parents[2] / "examples" / "engines" / "greedy_engine.py"
    ai = b"exec:" + os.fsencode(sys.executable) + b" " + os.fsencode(engine) + b" \xff"
    done = subprocess.run(
        [command(), "bench", "--ai", ai, "--size", "5x5", "--games", "1", "--record-dir", "rd"],
        capture_output=True, cwd=tmp_path, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    (path,) = (tmp_path / "rd").iterdir()
    replay = load_replay(path)
    assert replay.solver is not None and replay.solver.endswith(" \\udcff")
    verify(replay)


def test_a_person_has_no_solver() -> None:
    replay = replay_from_game(played(Straight()), None)
    assert json.loads(replay.to_json())["solver"] is None
    assert Replay.from_json(replay.to_json()).solver is None


def test_a_game_whose_neck_is_ahead_as_well_as_behind_replays() -> None:
    # Two cells deep and wrapping: up from the head is the neck too, so the first move turns.
    level = parse_level("wrap: yes\nlength: 2\n\n^.\n..\n")
    game = played(GreedySolver(), level, max_steps=30)
    assert game.steps > 1
    back = Replay.from_json(replay_from_game(game, "greedy").to_json())
    assert back.level().body == level.body and back.level().direction == Direction.UP


def edit(change: Callable[[dict[str, Any]], object]) -> str:
    obj = json.loads(won_replay().to_json())
    change(obj)
    return json.dumps(obj)


MALFORMED: list[tuple[str, str]] = [
    ("{", "not valid JSON"),
    ("[]", "must be a JSON object"),
    (edit(lambda o: o.update(format="termsnake-replay/2")), "format must be"),
    (edit(lambda o: o.pop("foods")), "lacks 'foods'"),
    (edit(lambda o: o.update(extra=1)), "unknown 'extra'"),
    (edit(lambda o: o["board"].update(rows=["..x.", "....", "....", "...."])), "'x'"),
    (edit(lambda o: o["board"].update(rows=["....", "...", "....", "...."])), "rows[1]"),
    (edit(lambda o: o["board"].update(rows=[])), "non-empty"),
    # It said "board.rows[0] is 0 wide, row 0 is 0".
    (
        edit(lambda o: o["board"].update(rows=[""])),
        "board.rows[0] is empty: the board has no cells",
    ),
    (edit(lambda o: o["board"].update(rows=["", ""])), "rows[0] is empty: the board has no cells"),
    (
        edit(lambda o: o["board"].update(rows=["", "."])),
        "rows[0] is empty: each row holds one cell",
    ),
    (
        edit(lambda o: o["board"].update(rows=[".", ""])),
        "rows[1] is empty: each row holds one cell",
    ),
    (edit(lambda o: o["board"].update(rows=["####"])), "no free cell"),
    (edit(lambda o: o["board"].update(wrap="no")), "board.wrap"),
    (edit(lambda o: o["board"].update(name=7)), "board.name must be a string"),
    (edit(lambda o: o["start"].update(direction="X")), "start.direction"),
    (edit(lambda o: o["start"].update(body=[])), "at least one cell"),
    (edit(lambda o: o["start"].update(body=[[1, 1], [3, 1]])), "not next to"),
    (
        edit(lambda o: o["start"].update(body=[[2, 1], [1, 1]], direction="L")),
        "start.direction points back into the body",
    ),
    (edit(lambda o: o["start"].update(body=[[9, 9]])), "start:"),
    (edit(lambda o: o["start"].update(body=[[0, 0]] * 17)), "start.body holds 17 items, more than"),
    (edit(lambda o: o.update(foods=[[0, 0, 0]] * 17)), "foods holds 17 items, more than the 16"),
    ("[]," * (2 * MAX_FILE_BYTES + 300_000), "'[' characters, more than a replay of any board"),
    ("[" + "{}," * 300_000 + "{}]", "'{' characters, more than a replay of any board has"),
    ("[" + '"ab",' * 1_600_000 + "1]", "'\"' characters, more than a replay of any board has"),
    ("[" + "1.5," * 4_500_000 + "1]", "',' characters, more than a replay of any board has"),
    (edit(lambda o: o["start"].update(body=[[1, "1"]])), "start.body[0][1]"),
    (edit(lambda o: o.update(seed=True)), "seed must be an integer"),
    (edit(lambda o: o.update(solver=3)), "solver must be a string"),
    (edit(lambda o: o.update(solver="zig\nzag")), "solver holds '\\n', which is not a printable"),
    (
        edit(lambda o: o["board"].update(name="\u001b]2;pwned\u0007")),
        "board.name holds '\\x1b', which is not a printable character",
    ),
    (
        edit(lambda o: o["board"].update(name="A" * 256)),
        "board.name is 256 characters long; at most 255",
    ),
    (edit(lambda o: o.update(moves="RRX")), "moves:"),
    (edit(lambda o: o.update(moves="1R")), "moves:"),
    (edit(lambda o: o.update(moves=["R"])), "moves must be a string"),
    (edit(lambda o: o.update(foods=[[0, 1, 1], [0, 2, 2]])), "foods[1]"),
    (edit(lambda o: o.update(foods=[[-1, 1, 1]])), "foods[0][0]"),
    (edit(lambda o: o.update(foods=[[0, 1]])), "foods[0] must be"),
    (edit(lambda o: o["result"].update(outcome="lost")), "result.outcome"),
    (edit(lambda o: o["result"].update(length=0)), "result.length"),
    (edit(lambda o: o["result"].update(steps=1.5)), "result.steps"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_is_a_replay_error(text: str, message: str) -> None:
    with pytest.raises(ReplayError) as info:
        verify(Replay.from_json(text))
    assert message in str(info.value)


# -- verification ------------------------------------------------------------------------------


def test_verify_reproduces_a_won_game() -> None:
    replay = won_replay()
    game = verify(replay)
    assert game.outcome is Outcome.WON
    assert (game.length, game.steps) == (16, replay.result.steps)
    assert tuple(game.foods) == replay.foods


def test_verify_a_death_a_stall_and_a_quit() -> None:
    died = replay_from_game(played(Straight()), "straight")
    assert verify(died).outcome is Outcome.DIED
    wrap = Board.open(5, 4, wrap=True)
    level = Level(wrap, (Point(0, 0),), Direction.RIGHT, Point(0, 3), "ring")
    stalled = replay_from_game(played(Straight(), level), "straight")
    assert stalled.result.outcome is Outcome.STALLED
    assert stalled.result.steps == 4 * 20
    assert verify(Replay.from_json(stalled.to_json())).outcome is Outcome.STALLED
    quit_ = replay_from_game(played(ZigZag(), max_steps=7), "zigzag")
    assert quit_.result == replay_mod.Result(Outcome.QUIT, quit_.result.length, 7)
    assert verify(quit_).outcome is Outcome.QUIT


def test_a_level_with_walls_and_a_first_food() -> None:
    board = Board.from_rows(["#....", "..#..", "....."], name="walled")
    level = Level(board, (Point(1, 1), Point(0, 1)), Direction.RIGHT, Point(4, 2), "walled")
    game = Game(level, 5)
    for d in "URRRDD":
        game.step(Direction(d))
    replay = replay_from_game(game, None)
    assert replay.foods[0] == (0, Point(4, 2))
    back = Replay.from_json(replay.to_json())
    assert back.rows == ("#....", "..#..", ".....")
    assert verify(back).foods == game.foods


_FOOD5 = won_replay().foods[5][1]
# Food 5 moved one column: the file's game still plays, but seed 3 puts that food elsewhere.
_MOVED5 = (
    f"food 5 at ({(_FOOD5.x + 1) % 4}, {_FOOD5.y}) is not what seed 3 gives "
    f"(({_FOOD5.x}, {_FOOD5.y}))"
)

TAMPERED: list[tuple[Callable[[dict[str, Any]], object], str]] = [
    (lambda o: o.update(moves="L" + o["moves"][1:]), "the game ended (died) after move"),
    (lambda o: o.update(moves=compress(expand(o["moves"]) + "R")), "the file has"),
    (lambda o: o.update(moves=o["moves"][:-1]), "end the game still running, the file says won"),
    (lambda o: o["foods"][3].__setitem__(0, o["foods"][3][0] + 1), "food 3"),
    (lambda o: o["foods"][5].__setitem__(1, (o["foods"][5][1] + 1) % 4), _MOVED5),
    (lambda o: o["foods"].pop(), "no food"),
    (lambda o: o["foods"].append([10_000, 0, 0]), "never appeared"),
    (lambda o: o["result"].update(outcome="died"), "the file says died"),
    (lambda o: o["result"].update(length=15), "length 16, the file says 15"),
    (lambda o: o["result"].update(steps=o["result"]["steps"] + 1), "steps"),
    (lambda o: o["start"].update(body=[[1, 2]]), "the game ended (died)"),
]


@pytest.mark.parametrize(("change", "message"), TAMPERED)
def test_a_tampered_replay_is_refused(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    replay = Replay.from_json(edit(change))
    with pytest.raises(ReplayError) as info:
        verify(replay)
    assert message in str(info.value)


def test_the_foods_must_be_the_seeds() -> None:
    # The same game under another seed: moves, steps and result agree with the foods, but the
    # foods are not the ones that seed draws.
    obj = json.loads(won_replay().to_json())
    first = Point(*obj["foods"][0][1:])
    seed = next(s for s in range(4, 100) if Game(open_level(4, 4, 1), s).foods[0][1] != first)
    obj["seed"] = seed
    with pytest.raises(ReplayError) as info:
        verify(Replay.from_dict(obj))
    pattern = rf"food (\d+) at \(\d, \d\) is not what seed {seed} gives \(\(\d, \d\)\)"
    assert re.fullmatch(pattern, str(info.value))


def test_a_seed_of_thousands_of_digits_is_cut_short_in_the_message() -> None:
    obj = json.loads(won_replay().to_json())
    obj["seed"] = int("9" * 4000)
    with pytest.raises(ReplayError) as info:
        verify(Replay.from_dict(obj))
    assert "is not what seed 9999" in str(info.value)
    assert "(4000 characters)" in str(info.value) and len(str(info.value)) < 200


def test_foods_from_a_plan_are_not_a_seeded_game() -> None:
    # A game fed any foods it can eat is self-consistent, yet no seed gives those foods.
    level = open_level(4, 4, 1)
    seeded = played(ZigZag(), level, seed=3)
    plan = [p for _, p in seeded.foods]
    plan[1:3] = plan[2:0:-1]  # foods 1 and 2 swapped
    game = Game(level, 3, food_plan=plan)
    play(game, ZigZag())
    assert game.outcome is Outcome.WON
    with pytest.raises(ReplayError, match=r"^food 1 at .* is not what seed 3 gives"):
        verify(replay_from_game(game, "zigzag"))


def test_a_first_food_from_the_level_is_not_drawn() -> None:
    # With a level's first food, only the foods after it come from the seed; either way passes.
    board = Board.open(4, 4)
    for food in (Point(0, 0), Point(3, 3)):
        level = Level(board, (Point(2, 2),), Direction.RIGHT, food, "with food")
        replay = replay_from_game(played(ZigZag(), level, seed=9), "zigzag")
        assert replay.foods[0] == (0, food)
        assert verify(replay).outcome is Outcome.WON
        obj = json.loads(replay.to_json())
        obj["seed"] = 10
        with pytest.raises(ReplayError, match="is not what seed 10 gives"):
            verify(Replay.from_dict(obj))


@settings(max_examples=40, deadline=None)
@given(
    st.integers(0, 2**31 - 1),
    st.integers(2, 6),
    st.integers(1, 5),
    st.booleans(),
)
def test_random_games_replay_exactly(seed: int, width: int, height: int, wrap: bool) -> None:
    rng = random.Random(seed)
    board = Board.open(width, height, wrap=wrap)
    level = Level(board, (Point(0, 0),), Direction.RIGHT, None, board.name)
    game = Game(level, seed)
    while not game.over and game.steps < 200:
        safe = [d for d in DIRECTIONS if game.is_safe(d)]
        game.step(rng.choice(safe or list(DIRECTIONS)))
    replay = replay_from_game(game, "random")
    back = Replay.from_json(replay.to_json())
    assert back == replay
    again = verify(back)
    assert (again.outcome or Outcome.QUIT) is replay.result.outcome
    assert again.foods == game.foods and again.moves == game.moves


# -- files ---------------------------------------------------------------------------------------


def test_save_and_load(tmp_path: Path) -> None:
    replay = won_replay()
    path = tmp_path / "game.json"
    path.write_text("old")
    write_atomic(path, replay.to_json().encode())
    assert load_replay(path) == replay
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    assert path.read_text(encoding="utf-8").endswith("}\n")


def test_load_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"missing\.json: cannot read"):
        load_replay(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe{")
    with pytest.raises(ReplayError, match=r"bad\.json: not UTF-8"):
        load_replay(bad)


def test_a_board_name_as_long_as_a_file_name_is_read() -> None:
    text = edit(lambda o: o["board"].update(name="A" * MAX_BOARD_NAME))
    assert Replay.from_json(text).board_name == "A" * MAX_BOARD_NAME
    with pytest.raises(ReplayError, match=r"board\.name is 256 characters long; at most 255"):
        Replay.from_json(edit(lambda o: o["board"].update(name="A" * (MAX_BOARD_NAME + 1))))


@pytest.mark.slow  # a replay of many megabytes made and read: CPU-heavy
def test_a_replay_with_a_name_of_millions_of_characters_is_refused_in_one_line(
    tmp_path: Path,
) -> None:
    # Read whole, it was printed whole in the summary after the game: 5 MB on the terminal.
    path = tmp_path / "long.json"
    path.write_text(edit(lambda o: o["board"].update(name="A" * 5_000_000)))
    done = run_replay(str(path))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"termsnake replay: error: {path}: board.name is 5000000 characters long; at most 255\n"
    )


def test_the_replay_of_a_level_named_by_a_long_file_name_is_read(tmp_path: Path) -> None:
    # A level file without a name is named by its whole file name (its scores are kept under
    # it): a cap on reading below a file name's 255 refused the replays of its games.
    level = parse_level("#..>.#\n", str(tmp_path / ("b" * 250 + ".txt")))
    assert level.name == "b" * 250
    game = Game(level, 1)
    play(game, GreedySolver())
    assert Replay.from_json(replay_from_game(game, "greedy").to_json()).board_name == level.name
    # A level made in code may have any name: its replay keeps what a replay may hold.
    game = Game(dataclasses.replace(level, name="c" * 300), 1)
    assert Replay.from_json(replay_from_game(game, None).to_json()).board_name == "c" * 255


def test_save_to_a_missing_directory_fails_cleanly(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        write_atomic(tmp_path / "nope" / "game.json", won_replay().to_json().encode())
    assert list(tmp_path.iterdir()) == []


# -- playback ------------------------------------------------------------------------------------


def drive(game: Game, solver: Solver) -> None:
    solver.setup(game)
    while not game.over:
        game.step(solver.next_direction(game))


def test_playback_ends_where_the_recording_ends() -> None:
    for replay in (won_replay(), replay_from_game(played(ZigZag(), max_steps=9), "zigzag")):
        game = PlaybackGame(replay)
        solver = ReplaySolver(replay.moves)
        assert game.steps == 0
        drive(game, solver)
        assert game.outcome is replay.result.outcome
        assert (game.length, game.steps) == (replay.result.length, replay.result.steps)
        with pytest.raises(ReplayError):
            ReplaySolver(replay.moves[:2]).next_direction(game)


def test_a_quit_before_any_move_is_over_at_once() -> None:
    game = Game(open_level(4, 4, 1), 1)
    game.quit()
    assert PlaybackGame(replay_from_game(game, None)).over


def test_main_verifies_then_hands_over_to_watch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import termsnake.commands.replay

    replay = won_replay()
    path = tmp_path / "won.json"
    write_atomic(path, replay.to_json().encode())
    seen: dict[str, Any] = {}

    def fake_watch(
        game: Game,
        solver: Solver,
        *,
        speed: float | None,
        who: str,
        level_name: str,
        headline: Callable[[Game], str | None],
    ) -> int:
        seen.update(steps=game.steps, speed=speed, who=who, level=level_name)
        seen.update(left_at_once=headline(game))
        drive(game, solver)
        seen.update(outcome=game.outcome, length=game.length, end=game.steps)
        seen.update(played_out=headline(game))  # the game's own line says how it ended
        return 0

    monkeypatch.setattr(termsnake.commands.replay, "watch", fake_watch)
    assert cli.main(["replay", str(path), "--speed", "20"]) == 0
    left = f"Replay stopped at move 0 of {replay.result.steps}; the game was won, length 16"
    assert seen == {
        "steps": 0, "speed": 20.0, "who": "replay of bot zigzag", "level": "open-4x4",
        "outcome": Outcome.WON, "length": 16, "end": replay.result.steps,
        "left_at_once": left, "played_out": None,
    }  # fmt: skip
    assert cli.main(["replay", str(path)]) == 0
    assert seen["speed"] is None


def test_main_refuses_a_tampered_file_without_watching(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import termsnake.commands.replay

    def fail(*args: object, **kwargs: object) -> int:
        raise AssertionError("a bad replay must not be played")

    monkeypatch.setattr(termsnake.commands.replay, "watch", fail)
    path = tmp_path / "t.json"
    path.write_text(edit(lambda o: o["result"].update(length=3)))
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"termsnake replay: error: {path}: ")


# -- the installed command ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read"),
        ("not json", "not valid JSON"),
        (
            edit(lambda o: o.update(moves=compress("R" + expand(o["moves"])))),
            "ended (died) after move",
        ),
        (edit(lambda o: o["foods"][2].__setitem__(2, 9)), "food"),
        (edit(lambda o: o["result"].update(outcome="died")), "the file says died"),
    ],
)
def test_the_command_refuses_bad_files(
    tmp_path: Path, content: str | None, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # In this process: the installed command's refusal is test_the_command_checks_its_arguments'.
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content)
    assert cli.main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("termsnake replay: error: ")
    assert err.count("\n") == 1 and message in err
    assert "Traceback" not in err


def test_speed_is_the_shared_type(capsys: pytest.CaptureFixture[str]) -> None:
    parser = cli.build_parser()
    assert parser.parse_args(["replay", "r.json", "--speed", "1000"]).speed == 1000.0
    for speed, says in [
        ("1001", "from 0.1 to 1000"),
        ("0", "from 0.1 to 1000"),
        ("inf", "expected a number, not 'inf'"),
        ("nan", "expected a number, not 'nan'"),
    ]:
        with pytest.raises(SystemExit) as info:
            parser.parse_args(["replay", "r.json", "--speed", speed])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err, speed


def test_the_command_checks_its_arguments(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    proc = run_replay()  # the installed command: a usage error, then a file it cannot read
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "error" in proc.stderr
    (tmp_path / "r.json").write_text("not json")
    proc = run_replay(str(tmp_path / "r.json"))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith("termsnake replay: error: ") and "not valid JSON" in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    for args in (["a.json", "--speed", "0"], ["a.json", "--speed", "fast"]):
        assert cli.main(["replay", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error" in err


def test_the_command_needs_a_terminal_after_checking(tmp_path: Path) -> None:
    path = tmp_path / "won.json"
    write_atomic(path, won_replay().to_json().encode())
    proc = subprocess.run(
        [command(), "replay", str(path)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "ssh -t" in proc.stderr and "termsnake replay: error" not in proc.stderr


@pytest.mark.terminal
def test_the_command_plays_a_replay_back_in_a_terminal(tmp_path: Path) -> None:
    import pexpect

    replay = won_replay()
    path = tmp_path / "won.json"
    write_atomic(path, replay.to_json().encode())
    child = pexpect.spawn(
        command(),
        ["replay", str(path), "--speed", "100"],
        dimensions=(24, 80),
        encoding="utf-8",
        timeout=30,
    )
    try:
        child.expect("press any key")
        child.send("q")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0
    summary = child.before
    assert "won" in summary
    assert f"Moves ({replay.result.steps}): " in summary


@pytest.mark.terminal
def test_a_replay_left_before_its_end_says_so_and_how_the_game_ended(tmp_path: Path) -> None:
    # "Game over: quit" with the moves watched read as the recorded game's result.
    replay = won_replay()
    path = tmp_path / "won.json"
    write_atomic(path, replay.to_json().encode())
    t = Pty(["replay", str(path), "--speed", "4"], tmp_path)
    try:
        t.wait_steps(2, timeout=30)
        t.send("q")
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    assert code == 0
    headline, level = t.text().strip().splitlines()[:2]
    watched = int(level.split("steps ")[1].split()[0])
    assert 2 <= watched < replay.result.steps
    assert headline == (
        f"Replay stopped at move {watched} of {replay.result.steps}; the game was won, length 16"
    )


@pytest.mark.terminal
def test_a_replays_help_offers_no_plan(tmp_path: Path) -> None:
    # `c` shows nothing in a replay (it has the moves, no plan), yet the help offered it.
    import pexpect

    path = tmp_path / "won.json"
    write_atomic(path, won_replay().to_json().encode())
    child = pexpect.spawn(
        command(), ["replay", str(path), "--speed", "1"], dimensions=(24, 80), encoding="utf-8"
    )
    try:
        child.expect("replay of")
        child.send("?")
        child.expect("closes this help", timeout=30)
        help_box = child.before
        child.send("x")
        child.send("q")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        child.close(force=True)
    assert "pause" in help_box and "plan" not in help_box
    assert child.exitstatus == 0


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("[" * 100_000, "values nested too deeply"),
        ('{"seed": ' + "9" * 5000 + "}", r"a number too long to read \(5000 digits\)"),
    ],
)
def test_json_that_python_refuses_is_a_replay_error(text: str, why: str) -> None:
    with pytest.raises(ReplayError, match=f"not valid JSON: {why}") as info:
        Replay.from_json(text)
    assert "sys." not in str(info.value)  # no advice the user cannot take


# -- limits: a file cannot make termsnake run for minutes or fill the memory -------------------


def test_the_move_limit_is_the_longest_game_a_board_allows() -> None:
    # 16 free cells: at most 16 foods, and a stall after 4 x 16 moves without one.
    assert move_limit(["...."] * 4) == 4 * 16 * 17
    assert move_limit(["#..#"]) == 4 * 2 * 3
    assert move_limit(["." * 100] * 100) == MAX_MOVES


def test_moves_up_to_the_limit_are_read() -> None:
    replay = Replay.from_json(edit(lambda o: o.update(moves="1088R")))
    assert len(replay.moves) == 1088


TOO_MANY: list[tuple[str, str]] = [
    (
        "99999999999999999999R",
        "moves: the run 99999999999999999999R at position 0 is more than the limit of 1088 "
        "moves, the most a game on a board of 16 free cells can make",
    ),
    ("100000000R", "moves: the run 100000000R at position 0 is more than the limit of 1088"),
    ("1000R89L", "moves: the run 89L at position 5 brings the history to 1089 moves, more"),
]


@pytest.mark.parametrize(("moves", "message"), TOO_MANY)
def test_more_moves_than_the_board_allows_are_refused(moves: str, message: str) -> None:
    with pytest.raises(ReplayError) as info:
        Replay.from_json(edit(lambda o: o.update(moves=moves)))
    assert str(info.value).startswith(message)


def test_more_moves_than_any_replay_holds_are_refused() -> None:
    def change(o: dict[str, Any]) -> None:
        o["board"]["rows"] = ["." * 1000] * 1000
        o["moves"] = "5000000R5000001L"

    with pytest.raises(ReplayError) as info:
        Replay.from_json(edit(change))
    assert str(info.value) == (
        "moves: the run 5000001L at position 8 brings the history to 10000001 moves, more "
        "than the limit of 10000000, the most a replay may hold"
    )


def test_a_board_larger_than_a_level_file_is_refused() -> None:
    side = 1024  # side x side = MAX_FILE_BYTES cells: the largest board a level file holds
    assert side * side == MAX_FILE_BYTES
    at_limit = Replay.from_json(edit(lambda o: o["board"].update(rows=["." * side] * side)))
    assert len(at_limit.rows) == side
    with pytest.raises(ReplayError) as info:
        Replay.from_json(edit(lambda o: o["board"].update(rows=["." * side] * (side + 1))))
    assert str(info.value) == (
        f"board.rows hold {side * (side + 1)} cells, more than the {MAX_FILE_BYTES} a level "
        "file can hold"
    )


def test_a_replay_file_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("wb") as f:
        f.truncate(MAX_REPLAY_BYTES + 1)  # sparse: no disk used, and nothing may read it
    with pytest.raises(ReplayError) as info:
        load_replay(path)
    assert str(info.value) == (
        f"{path}: the file is too large for a replay ({MAX_REPLAY_BYTES + 1} bytes; the limit "
        f"is {MAX_REPLAY_BYTES} bytes, 64 MiB)"
    )


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_is_refused_unread() -> None:
    with pytest.raises(ReplayError, match=r"a pipe, socket or device, not a file"):
        load_replay("/dev/zero")


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (edit(lambda o: o.update(moves="99999999999999999999R")), "moves: the run 9999"),
        (edit(lambda o: o["board"].update(rows=["." * 5000] * 300)), "board.rows hold 1500000"),
    ],
)
def test_the_command_refuses_a_replay_over_the_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "r.json"
    path.write_text(content)
    assert cli.main(["replay", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"termsnake replay: error: {path}: {message}")


def test_a_file_name_with_escapes_reaches_the_error_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "\x1b[31mRED\a.json"
    assert cli.main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\a" not in err and "\\x1b[31mRED\\x07.json" in err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [True, False])
def test_a_check_shows_its_bar_on_a_terminal_once_it_has_taken_a_while(
    monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    # The bar is made (tqdm loaded) only once the check has taken BAR_DELAY: most take less.
    err = _Terminal() if terminal else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    now = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    bar = LateBar(200_000)
    bar.update(65_536)
    assert bar.bar is None
    now[0] += BAR_DELAY
    bar.update(131_072)
    bar.close()
    if terminal:
        assert bar.bar is not None and bar.bar.n == 131_072
        assert "checking the replay:  66%" in err.getvalue()
    else:
        assert bar.bar is None and err.getvalue() == ""
