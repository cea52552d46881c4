"""A visit's games: what the summary's key and a bot's error page tell the caller."""

from __future__ import annotations

from pathlib import Path

import pytest

from termsnake.core.level import open_level
from termsnake.formats.scores import ScoreStore
from termsnake.serve.hub import Hub
from termsnake.serve.limits import Options
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.serve.visit import Visit


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


def test_a_bot_that_cannot_be_made_is_no_game_to_play_again(tmp_path: Path) -> None:
    # Its error page gave back the key pressed there: r read as "play again".
    visit = visit_keyed(tmp_path, b"r")
    assert visit.play(open_level(10, 6, 3), "no-such-bot") is False
