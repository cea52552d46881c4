"""Watching without polling: a move wakes its watchers, who share one page a width."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.formats.scores import ScoreStore
from termsnake.serve.hub import Hub, Live
from termsnake.serve.limits import Options
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.serve.visit import MAX_PAGES, Visit, watched_page


def died_live(tmp_path: Path, width: int, height: int) -> Live:
    """A game on an open board of ``width`` x ``height`` run into the wall, as its watchers
    see it."""
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    game = Game(open_level(width, height, 3), 1)
    live_id = hub.start("ada", "box", game)
    while not game.over:
        game.step(Direction.UP)  # into the wall
        hub.publish(live_id, game, 8, False)
    live = hub.look(live_id)
    assert live is not None
    return live


def terminal() -> ChannelTerminal:
    return ChannelTerminal(ChannelOutput(lambda text: None, lambda: 0, 1 << 20), (80, 24))


def test_a_wake_before_the_wait_ends_the_next_wait_at_once() -> None:
    term = terminal()
    term.wake()
    started = time.monotonic()
    assert term.inkey(timeout=5) == ""
    assert time.monotonic() - started < 1
    started = time.monotonic()
    assert term.inkey(timeout=0.2) == ""  # the wake was used up: this one waits
    assert time.monotonic() - started >= 0.15


def test_a_move_wakes_the_watchers_and_the_end_too(tmp_path: Path) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    game = Game(open_level(10, 6, 3), 1)
    live_id = hub.start("ada", "box", game)
    woken: list[str] = []
    hub.watch(live_id, lambda: woken.append("a"))
    hub.watch(live_id, lambda: woken.append("b"))
    game.step(Direction.RIGHT)
    hub.publish(live_id, game, 8, False)
    assert sorted(woken) == ["a", "b"]
    hub.end(live_id)
    assert len(woken) == 4 and hub.look(live_id) is None


def test_watchers_of_one_size_share_the_page_of_each_state(tmp_path: Path) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    game = Game(open_level(10, 6, 3), 1)
    live_id = hub.start("ada", "box", game)
    live = hub.look(live_id)
    assert live is not None
    page = watched_page(live, (80, 24))
    assert watched_page(live, (80, 24)) is page and "watching (q leaves)" in page[-1]
    assert all(len(line) <= 30 for line in watched_page(live, (30, 10)))
    game.step(Direction.RIGHT)
    hub.publish(live_id, game, 8, False)
    moved = hub.look(live_id)
    assert moved is not None and watched_page(moved, (80, 24)) != page


def test_a_watcher_is_told_when_the_game_watched_is_over(tmp_path: Path) -> None:
    # The status line said "watching" while the player looked at the final board: the watcher
    # could not tell a game over from one standing still.
    live = died_live(tmp_path, 10, 6)
    page = watched_page(live, (80, 24))
    assert "DIED: game over (q leaves)" in page[-1] and "watching" not in " ".join(page)


def test_a_watcher_changing_size_again_and_again_keeps_few_pages(tmp_path: Path) -> None:
    # helper-47: a watcher sending a new size with each key, the game standing still, grew
    # the server by a page (about 11 KB) a size, 450,000 sizes in all.
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    live_id = hub.start("ada", "box", Game(open_level(10, 6, 3), 1))
    live = hub.look(live_id)
    assert live is not None
    for width in range(40, 240):
        assert watched_page(live, (width, 24))
    assert len(live.pages) <= MAX_PAGES
    assert watched_page(live, (239, 24)) is watched_page(live, (239, 24))


def test_a_watcher_sees_the_board_centred_as_the_player_does(tmp_path: Path) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    live = hub.look(hub.start("ada", "box", Game(open_level(10, 6, 3), 1)))
    assert live is not None
    for cols, rows in ((80, 24), (120, 40), (40, 12)):
        page = watched_page(live, (cols, rows))
        frame = [i for i, line in enumerate(page) if line.strip().startswith("#")]
        top, bottom = frame[0], rows - 1 - frame[-1]
        line = page[top]
        left, right = len(line) - len(line.lstrip()), cols - len(line.rstrip())
        assert abs(left - right) <= 1 and abs(top - (bottom - 1)) <= 1  # the status line below
        assert len(page) <= rows and all(len(line) <= cols for line in page)


def test_a_watcher_too_small_for_the_board_is_told_what_it_needs(tmp_path: Path) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    live = hub.look(hub.start("ada", "box", Game(open_level(30, 10, 3), 1)))
    assert live is not None
    page = watched_page(live, (40, 8))  # the board needs 32 columns by 13 rows
    text = " ".join(page)  # sentences wrapped to the width
    assert "too small to watch this game" in text and "need 32x13, have 40x8" in text
    assert "paused" not in text and "q to leave" in text
    assert len(page) <= 8 and all(len(line) <= 40 for line in page)
    assert "#" in "".join(watched_page(live, (80, 24)))  # big enough: the board


def test_a_watcher_too_small_for_the_board_is_told_when_the_game_is_over(
    tmp_path: Path,
) -> None:
    # It read "too small to watch this game ... to go on" on a game over, while a watcher that
    # fits read "DIED: game over (q leaves)".
    live = died_live(tmp_path, 30, 10)
    for size in ((40, 8), (30, 5)):
        page = watched_page(live, size)  # the board needs 32 columns by 13 rows
        text = " ".join(page)
        assert page[0] == "DIED: game over", page
        assert "to watch this game" not in text and "to go on" not in text
        assert len(page) <= size[1] and all(len(line) <= size[0] for line in page)
    text = " ".join(watched_page(live, (40, 8)))
    assert "too small to show the final board" in text and "press q to leave" in text


def test_what_watchers_are_shown_holds_no_history_so_each_move_costs_the_same(
    tmp_path: Path,
) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    game = Game(open_level(10, 6, 3), 1)
    live_id = hub.start("ada", "box", game)
    for d in (Direction.DOWN, Direction.LEFT, Direction.UP, Direction.RIGHT) * 30:  # a 2x2 loop
        game.step(d)
        hub.publish(live_id, game, 8, False)
    live = hub.look(live_id)
    assert live is not None and not game.over and len(game.moves) == 120
    assert live.game.moves == [] and live.game.foods == []  # not copied at every move
    assert (live.game.body, live.game.food, live.game.steps) == (game.body, game.food, 120)


class _EndingHub(Hub):
    """A hub whose first game ends just after the first look at the games in progress."""

    def watchable(self) -> list[tuple[int, str]]:
        games = super().watchable()
        if games and not hasattr(self, "ended"):
            self.ended = games[0][0]
            self.end(self.ended)
        return games


def test_the_game_chosen_to_watch_is_the_one_its_label_names(tmp_path: Path) -> None:
    # The menu's labels and the ids behind them came from two looks at the hub: a game that
    # ended between them (in another visit's thread) put bob's label on ada's game.
    hub = _EndingHub(ScoreStore(tmp_path / "scores.json"))
    ada = hub.start("ada", "box", Game(open_level(10, 6, 3), 1))
    hub.start("bob", "box", Game(open_level(10, 6, 3), 2))
    out = ChannelOutput(lambda text: None, lambda: 0, 1 << 20)
    term = ChannelTerminal(out, (80, 24))
    visit = Visit(hub, term, out, "cy", Options(), ())
    shown: list[str] = []
    followed: list[int] = []
    visit.show_text = shown.extend  # type: ignore[assignment,method-assign]
    visit.follow = followed.append  # type: ignore[assignment,method-assign]
    term.feed(b"\r")  # the first game the menu shows
    visit.watch_live()
    first = next(line for line in shown if " on box, length " in line)
    assert "ada" in first and followed == [ada]


@pytest.mark.parametrize(("keys", "key"), [("default", b"Q"), ("azerty", b"X"), ("azerty", b"x")])
def test_a_watcher_leaves_with_its_quit_key_caps_lock_or_not(
    tmp_path: Path, keys: str, key: bytes
) -> None:
    # On AZERTY x leaves a watched game, as it quits one; with caps lock on X stayed watching.
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    live_id = hub.start("ada", "box", Game(open_level(10, 6, 3), 1))
    out = ChannelOutput(lambda text: None, lambda: 0, 1 << 20)
    term = ChannelTerminal(out, (80, 24))
    visit = Visit(hub, term, out, "cy", Options(), (), keys)

    def no_page(lines: list[str], footer: str = "", *, wrap: bool = True) -> str:
        return ""

    visit.show_until_key = no_page  # type: ignore[method-assign]
    term.feed(key)
    watching = threading.Thread(target=visit.follow, args=(live_id,), daemon=True)
    watching.start()
    watching.join(3)
    left = not watching.is_alive()
    hub.end(live_id)  # a watcher still there goes back once the game is gone
    watching.join(3)
    assert left
