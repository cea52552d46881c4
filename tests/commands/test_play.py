"""The play command's pieces that run outside the terminal: scores, arguments, the summary."""

from __future__ import annotations

from pathlib import Path

from termsnake.commands import cli
from termsnake.commands.play import choose_level
from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.formats.scores import ScoreKey, ScoreStore, keep_score
from termsnake.tui.runner import summary


def quit_after(moves: int) -> Game:
    game = Game(open_level(8, 8, 3), seed=1)
    for _ in range(moves):
        game.step(Direction.RIGHT)
    game.quit()
    return game


def test_the_summary_names_the_best_as_it_is_after_the_game(tmp_path: Path) -> None:
    store = ScoreStore(tmp_path / "scores.json")
    key = ScoreKey.of("open-8x8", 8, 8, 3, "you")
    lines, _ = keep_score(store, key, quit_after(3), None)
    assert lines == ["best so far: length 3 in 3 steps"]
    # Fewer steps at the same length is the new best, without cheers (nothing was eaten); the
    # summary shows that new best, not the entry it replaced.
    lines, _ = keep_score(store, key, quit_after(1), store.best(key))
    assert lines == ["best so far: length 3 in 1 steps"]
    best = store.best(key)
    assert best is not None and best.steps == 1
    lines, _ = keep_score(store, key, quit_after(2), best)
    assert lines == ["best so far: length 3 in 1 steps"]


def test_the_summary_shows_the_time_it_is_given() -> None:
    text = summary(quit_after(2), "you", 75.9)
    assert "steps 2  time 1:15  seed 1" in text and text.endswith("Moves (2): 2R")


def test_wrap_makes_a_sized_board_a_torus() -> None:
    level = choose_level(None, (6, 4), 2, wrap=True)
    assert level.board.wrap and level.name == "torus-6x4"
    assert not choose_level(None, (6, 4), 2).board.wrap
    args = cli.build_parser().parse_args(["--size", "6x4", "--wrap"])
    assert args.wrap and args.size == (6, 4)
