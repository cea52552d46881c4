"""A visit's games: what the summary's key and a bot's error page tell the caller; the key
preset a visit starts with, and the one it stores for the next."""

from __future__ import annotations

import fcntl
import json
import logging
import sys
import threading
import time
from pathlib import Path

import pyte
import pytest
from plugin_folders import plugins_in

from termsnake.core.level import open_level
from termsnake.formats.scores import ScoreEntry, ScoreKey, ScoreStore
from termsnake.serve.hub import Hub
from termsnake.serve.keymemory import KeyMemory
from termsnake.serve.limits import Options
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal, Closed
from termsnake.serve.visit import Visit
from termsnake.solvers import registry


def visit_keyed(tmp_path: Path, keys: bytes) -> Visit:
    """A visit whose client has typed ``keys`` ahead."""
    out = ChannelOutput(lambda text: None, lambda: 0, 1 << 20)
    term = ChannelTerminal(out, (80, 24))
    term.feed(keys)
    return Visit(Hub(ScoreStore(tmp_path / "scores.json")), term, out, "cy", Options(), ())


@pytest.mark.parametrize(("after", "again"), [(b"r", True), (b"R", True), (b"\x1b", False),
                                              (b"x", False)])  # fmt: skip
def test_the_summary_tells_whether_to_play_again(tmp_path: Path, after: bytes, again: bool) -> None:
    # play() gave back the summary's key lower-cased (escape came back as "key_escape"), for
    # its caller to compare with "r".
    visit = visit_keyed(tmp_path, b"q" + after)  # q ends the game before it starts
    assert visit.play(open_level(10, 6, 3), None) is again


def test_a_game_with_no_move_is_not_a_score_kept_that_says_its_trouble_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # It counted as "all went well": the scores' trouble was said again at the next game.
    visit = visit_keyed(tmp_path, b"qx")  # q ends the game before it starts
    trouble = "scores not saved: Operation not permitted: /srv/scores.json"
    with caplog.at_level(logging.WARNING, "termsnake.serve"):
        visit.hub.score_trouble.say(trouble)
        assert visit.play(open_level(10, 6, 3), None) is False
        visit.hub.score_trouble.say(trouble)
    assert [r.getMessage() for r in caplog.records] == [trouble]


def test_a_bot_that_cannot_be_made_is_no_game_to_play_again(tmp_path: Path) -> None:
    # Its error page gave back the key pressed there: r read as "play again".
    visit = visit_keyed(tmp_path, b"r")
    assert visit.play(open_level(10, 6, 3), "no-such-bot") is False


class Spied(KeyMemory):
    """The key presets' file, and each choice written to it."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.written: list[str] = []

    def remember(self, name: str, keys: str) -> bool:
        self.written.append(keys)
        return super().remember(name, keys)


def lobby_visit(tmp_path: Path, typed: list[bytes], keys: str | None = None) -> tuple[Visit, Spied]:
    """A visit as ``cy`` whose client types the keys ``typed``, one each time the lobby reads
    one (blessed drops keys typed far ahead as a paste), and then closes its channel."""
    out = ChannelOutput(lambda text: None, lambda: 0, 1 << 20)
    term = ChannelTerminal(out, (80, 24))
    memory = Spied(tmp_path / "key-presets.json")
    hub = Hub(ScoreStore(tmp_path / "scores.json"), memory)
    visit = Visit(hub, term, out, "cy", Options(), (), keys)
    read, left = visit.key, list(typed)

    def key(timeout: float = 0.5) -> str:
        if left:
            term.feed(left.pop(0))
        else:
            term.close()
        return read(timeout)

    visit.key = key  # type: ignore[method-assign]
    return visit, memory


DOWN, ENTER = b"\x1b[B", b"\r"
KEYS = [DOWN] * 4 + [ENTER]  # from the lobby's top: Keys, whose menu opens on the preset in use


def test_the_preset_chosen_in_the_lobby_is_the_next_visits(tmp_path: Path) -> None:
    # It was forgotten as the player left: each visit began with the default keys.
    visit, _ = lobby_visit(tmp_path, [*KEYS, DOWN, ENTER, b"x"])  # azerty, whose x quits
    assert visit.keys == "default"
    visit.run()
    again, _ = lobby_visit(tmp_path, [b"x"])
    assert again.keys == "azerty" and again.lobby()[4] == "Keys: azerty"
    again.run()  # x quit the lobby: the visit steers with azerty


def test_termsnake_keys_wins_for_its_visit_and_is_not_stored(tmp_path: Path) -> None:
    KeyMemory(tmp_path / "key-presets.json").remember("cy", "azerty")
    visit, memory = lobby_visit(tmp_path, [b"q"], keys="dvorak")
    assert visit.keys == "dvorak"
    visit.run()
    assert memory.written == [] and memory.recall("cy") == "azerty"
    visit, memory = lobby_visit(tmp_path, [*KEYS, DOWN, ENTER], keys="azerty")
    with pytest.raises(Closed):  # the client closed its channel: the visit ends all the same
        visit.run()
    assert memory.written == ["dvorak"] and memory.recall("cy") == "dvorak"


def test_choice_after_choice_writes_the_first_at_once_and_the_last_as_the_visit_ends(
    tmp_path: Path,
) -> None:
    # A client choosing again and again would write (and sync) the file at every choice.
    typed = [*KEYS, DOWN, ENTER] + [ENTER, DOWN, ENTER] * 19  # 20 choices: azerty ... dvorak
    visit, memory = lobby_visit(tmp_path, typed)
    with pytest.raises(Closed):
        visit.run()
    assert memory.written[0] == "azerty" and memory.written[-1] == "dvorak"
    assert len(memory.written) < 5, memory.written
    assert memory.recall("cy") == "dvorak"
    visit, memory = lobby_visit(tmp_path, [*KEYS, DOWN, ENTER])  # dvorak -> default
    with pytest.raises(Closed):
        visit.run()
    assert memory.written == ["default"] and memory.recall("cy") is None


def test_the_kept_preset_chosen_again_is_a_choice_the_file_keeps_as_the_newest(
    tmp_path: Path,
) -> None:
    # Chosen again unchanged, it was not written: README keeps the names that chose last, and
    # the name stayed the oldest, the first to be dropped.
    kept = KeyMemory(tmp_path / "key-presets.json")
    kept.remember("cy", "azerty")
    kept.remember("bo", "dvorak")
    visit, memory = lobby_visit(tmp_path, [*KEYS, ENTER])  # the menu opens on azerty: chosen
    with pytest.raises(Closed):
        visit.run()
    assert memory.written == ["azerty"]
    assert list(json.loads(memory.path.read_text(encoding="utf-8"))["players"]) == ["bo", "cy"]
    kept.remember("cy", "default")
    visit, memory = lobby_visit(tmp_path, [*KEYS, ENTER])  # the default chosen again: no entry
    with pytest.raises(Closed):
        visit.run()
    assert memory.written == []


def test_a_choice_the_file_did_not_take_is_kept_as_the_visit_ends(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A choice whose write found the lock held was marked kept: the visit's end did not try
    # it again, and the next visit began with the old keys.
    monkeypatch.setattr("termsnake.serve.keymemory.LOCK_TIMEOUT", 0.1)
    visit, memory = lobby_visit(tmp_path, [*KEYS, DOWN, ENTER, b"x"])  # azerty, whose x quits
    real = memory.remember

    def held_the_first_time(name: str, keys: str) -> bool:
        if memory.written:
            return real(name, keys)
        # flock locks belong to an open file: a second open in this process is another holder.
        with open(f"{memory.path}.lock", "a") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            assert real(name, keys) is False
        return False

    memory.remember = held_the_first_time  # type: ignore[method-assign]
    visit.run()
    assert memory.written == ["azerty", "azerty"] and memory.recall("cy") == "azerty"


def test_a_bot_plugin_raising_terminated_loses_its_game_and_the_visit_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # termsnake's own Terminated, raised by the plugin in its move, was taken for the server
    # stopping: the visit ended with "the server is shutting down" while it ran on.
    code = (
        "from termsnake.exits import Terminated\n\n\nclass Quits(Bot):\n"
        "    def next_direction(self, game):\n        raise Terminated(15)\n\n\nBot = Quits\n"
    )
    monkeypatch.syspath_prepend(str(plugins_in(tmp_path, {"quits": code})))
    registry.plugins.cache_clear()
    sent: list[str] = []
    out = ChannelOutput(sent.append, lambda: 0, 1 << 20)
    visit = Visit(Hub(ScoreStore(tmp_path / "s.json")), ChannelTerminal(out, (80, 24)), out, "cy",
                  Options(), ())  # fmt: skip
    done = threading.Event()

    def typing() -> None:  # a key now and then, as the final board and the summary wait
        while not done.wait(0.2):
            visit.term.feed(b"x")

    typist = threading.Thread(target=typing)
    typist.start()
    try:
        assert visit.play(open_level(10, 6, 3), "zzquits") is False
    finally:
        done.set()
        typist.join()
        registry.plugins.cache_clear()
        sys.modules.pop("quits", None)
    assert visit.stopping is None
    assert "died (plugin zzquits raised Terminated: SIGTERM)" in "".join(sent)


def paged(size: tuple[int, int], scores: ScoreStore) -> tuple[Visit, list[str]]:
    """A visit on a terminal of ``size``, and what it sends."""
    sent: list[str] = []
    out = ChannelOutput(sent.append, lambda: 0, 1 << 20)
    return Visit(Hub(scores), ChannelTerminal(out, size), out, "cy", Options(), ()), sent


def screen_of(sent: list[str], size: tuple[int, int]) -> list[str]:
    """The non-blank lines a terminal of ``size`` shows of ``sent``."""
    screen = pyte.Screen(*size)
    pyte.Stream(screen).feed("".join(sent))
    return [line.rstrip() for line in screen.display if line.strip()]


def test_the_high_scores_keep_each_row_on_a_line_of_a_narrow_terminal(tmp_path: Path) -> None:
    # Wrapped as text, the header's and each row's last columns read as rows of their own.
    store = ScoreStore(tmp_path / "scores.json")
    store.record(ScoreKey.of("classic", 24, 16, 3, "ada"), ScoreEntry.now(12, 100, False, 1))
    visit, sent = paged((40, 12), store)
    visit.term.feed(b"x")
    visit.high_scores()
    rows = screen_of(sent, (40, 12))
    assert rows[0].startswith("level    size") and rows[1].startswith("classic  24x16")
    assert "ada" in rows[1] and rows[2:] == ["any key goes back"]


def test_a_page_is_wrapped_again_when_the_window_changes(tmp_path: Path) -> None:
    # Wrapped once, at the width it was first shown at, then cut to a narrower window.
    visit, sent = paged((80, 24), ScoreStore(tmp_path / "scores.json"))
    showing = threading.Thread(target=visit.show_until_key, args=(["word " * 30],), daemon=True)
    showing.start()
    while not sent:
        time.sleep(0.01)
    visit.term.resize(40, 24)
    time.sleep(0.3)  # redrawn at once: the resize wakes the wait for a key
    visit.term.feed(b"x")
    showing.join(3)
    assert not showing.is_alive()
    assert " ".join(screen_of(sent, (40, 24))).split().count("word") == 30


def test_neuro_with_a_broken_numpy_is_said_on_the_visitors_screen_and_prints_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The server only looks for numpy as it starts: a numpy that is there but fails loads as
    # a visitor watches neuro, and is said on that visitor's page, not in the server's log.
    (tmp_path / "numpy").mkdir()
    (tmp_path / "numpy" / "__init__.py").write_text(
        "print('\\x1b[2Jhello')\nraise RuntimeError('no BLAS')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "numpy", raising=False)
    monkeypatch.delitem(sys.modules, "termsnake.solvers.neuro", raising=False)
    visit, sent = paged((80, 24), ScoreStore(tmp_path / "scores.json"))
    visit.term.feed(b"x")
    assert visit.play(open_level(10, 6, 3), "neuro") is False
    said = "neuro cannot be used: neuro does not load: RuntimeError: no BLAS"
    assert said in screen_of(sent, (80, 24))
    assert capsys.readouterr() == ("", "")
