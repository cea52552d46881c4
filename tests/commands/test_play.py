"""The play command's pieces that run outside the terminal: scores, arguments, the summary."""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil
import sys
from pathlib import Path

import pytest

from termsnake.commands import cli
from termsnake.commands.play import (
    Games,
    UsageError,
    check_record_path,
    choose_level,
    history_hint,
    prepare_solver,
    save_record,
)
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import open_level
from termsnake.formats.replay import load_replay
from termsnake.formats.scores import ScoreKey, ScoreStore
from termsnake.formats.scoretable import keep_score
from termsnake.tui.runner import Played, Round
from termsnake.tui.summary import summary


def quit_after(moves: int) -> Game:
    game = Game(open_level(8, 8, 3), seed=1)
    for _ in range(moves):
        game.step(Direction.RIGHT)
    game.quit()
    return game


def test_how_a_run_ended_is_said_by_keywords() -> None:
    # Played(0, 1.0) did not say which number was the exit code and which the seconds played.
    with pytest.raises(TypeError):
        Played(0, 1.0)  # type: ignore[call-arg]
    assert Played(code=0, seconds=1.0).errors == []


def test_the_summary_names_the_best_as_it_is_after_the_game(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    key = ScoreKey.of("open-8x8", 8, 8, 3, "you")
    lines = keep_score(store, key, quit_after(3), None).lines
    assert lines == ["best so far: length 3 in 3 steps"]
    # Fewer steps at the same length is the new best, without cheers (nothing was eaten); the
    # summary shows that new best, not the entry it replaced.
    lines = keep_score(store, key, quit_after(1), store.best(key)).lines
    assert lines == ["best so far: length 3 in 1 step"]
    best = store.best(key)
    assert best is not None and best.steps == 1
    lines = keep_score(store, key, quit_after(2), best).lines
    assert lines == ["best so far: length 3 in 1 step"]
    # A game quit before its first move is not kept; the best is said the same way.
    lines = keep_score(store, key, quit_after(0), best).lines
    assert lines == ["best so far: length 3 in 1 step"]


def test_a_bots_game_is_scored_only_if_the_bot_ended_it(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    key = ScoreKey.of("open-8x8", 8, 8, 3, "bfs")
    stopped = "not scored: the bot was stopped before its game ended"
    assert keep_score(store, key, quit_after(3), None, bot=True) == ([stopped], (), False)
    assert store.best(key) is None
    died = Game(open_level(8, 8, 3), seed=1)
    while died.outcome is None:
        died.step(Direction.RIGHT)
    lines = keep_score(store, key, died, None, bot=True).lines
    assert lines == ["best so far: length 3 in 4 steps"]
    lines = keep_score(store, key, quit_after(1), store.best(key), bot=True).lines
    assert lines == [stopped, "best so far: length 3 in 4 steps"]
    best = store.best(key)
    assert best is not None and best.steps == 4  # the bot's own end, not the game stopped after


def test_the_summary_shows_the_time_it_is_given() -> None:
    text = summary(quit_after(2), "you", 75.9)
    assert "steps 2  time 1:15  seed 1" in text and text.endswith("Moves (2): 2R")
    assert summary(quit_after(0), "you", 0.0).endswith("Moves (0):")  # no trailing space


def test_the_summary_cuts_a_long_level_name() -> None:
    # Files cap a level's name; one made in code is shown cut, escaped, with its length said.
    game = Game(dataclasses.replace(open_level(8, 8, 3), name="A" * 5000 + "\x1b"), seed=1)
    game.quit()
    level_line = summary(game, "you", 0.0).splitlines()[1]
    assert level_line.startswith("Level " + "A" * 100 + "… (5001 characters)  length 3/64")


def test_length_is_fitted_in_place_of_a_level_files_own(tmp_path: Path) -> None:
    # The file's length 3 has no room behind the head: --length 1 plays it, no --length refuses.
    path = tmp_path / "short.txt"
    path.write_text("name: short\nlength: 3\n\n##########\n#>.......#\n#........#\n##########\n")
    assert choose_level(str(path), None, 1).body == (Point(1, 1),)
    with pytest.raises(UsageError, match=r"short\.txt:5:2: error: a snake of length 3 \(line 2\)"):
        choose_level(str(path), None, None)


def test_wrap_makes_a_sized_board_a_torus() -> None:
    level = choose_level(None, (6, 4), 2, wrap=True)
    assert level.board.wrap and level.name == "torus-6x4"
    assert not choose_level(None, (6, 4), 2).board.wrap
    args = cli.build_parser().parse_args(["--size", "6x4", "--wrap"])
    assert args.wrap and args.size == (6, 4)


def test_games_count_a_given_seed_up_and_keep_every_replay(tmp_path: Path) -> None:
    record = tmp_path / "g.json"
    args = cli.build_parser().parse_args(["--size", "8x8", "--seed", "3", "--record", str(record)])
    level = choose_level(None, (8, 8), None)
    store = ScoreStore(tmp_path / "scores.json")
    key = ScoreKey.of(level.name, 8, 8, len(level.body), "you")
    first = Game(level, args.seed)
    games = Games(Round(first), args, level, "you", store, key)
    assert games.high_score is None
    for _ in range(3):
        first.step(Direction.RIGHT)
    first.quit()
    second = games.again(Played(code=0, seconds=1.0))
    assert second is not None and second.game.seed == 4
    assert second.high_score == 3  # the first game's length, read back as the best so far
    second.game.step(Direction.DOWN)
    games.end(Played(code=143, seconds=2.0))
    games.end(Played(code=0, seconds=0.0))  # the runner's end after a crash comes too: kept once
    assert games.code == 143  # the last game's
    text = "\n".join(games.lines)
    assert text.count("Game over: quit") == 2 and text.index("seed 3") < text.index("seed 4")
    assert f"Replay saved to {tmp_path / 'g-2.json'}" in text and "appeared" not in text
    assert [load_replay(p).seed for p in (record, tmp_path / "g-2.json")] == [3, 4]


def test_replays_not_saved_as_the_folder_went_each_name_their_own_file(tmp_path: Path) -> None:
    # Every game after the folder went said it could not save to g.json, the first game's.
    record = tmp_path / "rec" / "g.json"
    record.parent.mkdir()
    args = cli.build_parser().parse_args(["--size", "8x8", "--seed", "3", "--record", str(record)])
    level = choose_level(None, (8, 8), None)
    key = ScoreKey.of(level.name, 8, 8, len(level.body), "you")
    game = Game(level, 3)
    games = Games(Round(game), args, level, "you", ScoreStore(tmp_path / "s"), key)
    for n in range(4):  # games 1 to 4 end, and 5 starts
        if n == 1:
            shutil.rmtree(record.parent)
        if n == 3:
            record.parent.mkdir()
        game.quit()
        now = games.again(Played(code=0, seconds=1.0))
        assert now is not None
        game = now.game
    game.quit()
    games.end(Played(code=0, seconds=1.0))
    gone = os.strerror(errno.ENOENT)
    assert games.errors == [
        f"could not save the replay to {record.parent / name}: {gone}"
        for name in ("g-2.json", "g-3.json")
    ]
    text = "\n".join(games.lines)
    assert all(f"Replay saved to {record.parent / n}" in text for n in ("g-4.json", "g-5.json"))
    assert sorted(p.name for p in record.parent.iterdir()) == ["g-4.json", "g-5.json"]
    assert load_replay(record.parent / "g-5.json").seed == 7


def test_a_replay_path_written_otherwise_than_python_would_is_not_said_to_have_moved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "./g.json" saved to g.json was said to have appeared meanwhile and been kept.
    monkeypatch.chdir(tmp_path)
    game = Game(open_level(4, 4, length=1), seed=1)
    for path in ("./g.json", "sub//h.json"):
        Path(path).parent.mkdir(exist_ok=True)
        saved = save_record(game, None, path)
        assert saved.lines == (f"Replay saved to {Path(path)}",)


def test_a_replay_path_with_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    path = str(tmp_path / "r\x1b[31m\n.json")
    game = Game(open_level(4, 4, length=1), seed=1)
    saved = save_record(game, None, path)
    assert Path(path).exists() and saved.path == path
    assert saved.lines == (f"Replay saved to {tmp_path}/r\\x1b[31m\\n.json",)
    assert history_hint(saved) == f"the replay {tmp_path}/r\\x1b[31m\\n.json"
    with pytest.raises(UsageError, match=r"r\\x1b\[31m\\n\.json: the file exists"):
        check_record_path(path)


def test_a_solver_whose_extra_is_missing_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "numpy", None)  # as if the learn extra were not installed
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)
    game = Game(open_level(8, 8, 1), seed=1)
    with pytest.raises(UsageError) as info:
        prepare_solver("neuro", game)
    assert str(info.value) == (
        "termsnake: neuro needs numpy, which is not installed (pip install 'termsnake[learn]')"
    )
    with pytest.raises(UsageError, match=r"^termsnake: neuro needs numpy"):
        prepare_solver("neuro:weights.json", game)


def test_the_record_path_check_leaves_nothing_behind(tmp_path: Path) -> None:
    check_record_path(str(tmp_path / "g.json"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod 0o500")
def test_a_record_path_in_a_read_only_folder_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(UsageError, match=r"cannot make a file in .*: Permission denied"):
            check_record_path(str(folder / "g.json"))
    finally:
        folder.chmod(0o700)


def test_a_record_path_that_is_a_folder_is_called_a_folder(tmp_path: Path) -> None:
    (tmp_path / "rec").mkdir()
    with pytest.raises(UsageError) as info:
        check_record_path(str(tmp_path / "rec"))
    assert (
        str(info.value)
        == f"termsnake: --record {tmp_path}/rec: a folder; give the name of a new file"
    )


def test_a_record_path_nothing_can_be_made_at_says_what_is_in_the_way(tmp_path: Path) -> None:
    # "no directory 'notes.txt'" of a file that is there, "the file exists" of a FIFO or of a
    # link to nowhere: the user looked and saw no such file, or no reason.
    (tmp_path / "notes.txt").write_text("")
    (tmp_path / "gone").symlink_to(tmp_path / "nowhere")
    os.mkfifo(tmp_path / "fifo")
    said = {
        "notes.txt/g.json": f"'{tmp_path}/notes.txt' is a file, not a folder",
        "gone/g.json": f"'{tmp_path}/gone' is a link to '{tmp_path}/nowhere', which is not there",
        "gone": f"a link to '{tmp_path}/nowhere' is there; pick a new name",
        "fifo": "a FIFO is there; pick a new name",
        "notes.txt": "the file exists; pick a new name",
        "missing/g.json": f"no directory '{tmp_path}/missing'",
    }
    for name, why in said.items():
        with pytest.raises(UsageError) as info:
            check_record_path(str(tmp_path / name))
        assert str(info.value) == f"termsnake: --record {tmp_path}/{name}: {why}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo", "gone", "notes.txt"]


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc (Linux)")
def test_a_record_path_in_proc_is_said_to_take_no_file() -> None:
    # The system says "No such file or directory" of a file made there, in a folder that is.
    with pytest.raises(UsageError) as info:
        check_record_path("/proc/self/g.json")
    said = "termsnake: --record /proc/self/g.json: the system lets nothing new be made in"
    assert str(info.value) == f"{said} '/proc/self'"
