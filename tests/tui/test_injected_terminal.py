"""A Session on an injected terminal: keys and size from the caller, frames to any stream."""

from __future__ import annotations

import threading
import time

import pyte

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.tui.controllers import KeyboardController
from termsnake.tui.session import Mode, Session


class Screen:
    """A pyte screen that the session's frames are fed to, as a client's terminal would be."""

    def __init__(self, width: int, height: int) -> None:
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.Stream(self.screen)
        self.lock = threading.Lock()

    def feed(self, text: str) -> None:
        with self.lock:
            self.stream.feed(text)

    def text(self) -> str:
        with self.lock:
            return "\n".join(self.screen.display)


def make(width: int, height: int, seed: int) -> tuple[Session, ChannelTerminal, Screen]:
    screen = Screen(width, height)
    output = ChannelOutput(screen.feed, lambda: 0, 1 << 20)
    term = ChannelTerminal(output, (width, height))
    game = Game(open_level(10, 6, 3), seed)
    session = Session(
        term, game, KeyboardController(), "box", speed=50, mode=Mode.WAITING,
        stream=output,
    )  # fmt: skip
    return session, term, screen


def test_two_sessions_in_one_process_play_apart() -> None:
    first, first_term, first_screen = make(40, 12, 1)
    second, second_term, second_screen = make(30, 10, 2)
    threads = [threading.Thread(target=s.run) for s in (first, second)]
    for t in threads:
        t.start()
    first_term.feed(b"s")  # only the first starts, turning down into the wall
    deadline = time.monotonic() + 10
    while "DIED: press any key" not in first_screen.text() and time.monotonic() < deadline:
        time.sleep(0.01)
    deadline = time.monotonic() + 10
    while threads[0].is_alive() and time.monotonic() < deadline:
        first_term.feed(b"\r")  # any key dismisses its final board, after a short while
        threads[0].join(timeout=0.1)
    assert first.game.outcome is Outcome.DIED and first.game.moves[0].value == "D"
    assert second.game.steps == 0 and second.mode is Mode.WAITING  # still waiting for a key
    assert "heading right: a direction key" in second_screen.text()
    assert "#. . . . . X" in first_screen.text()  # the head, dead at the bottom wall
    second_term.resize(60, 20)
    second_term.feed(b"q")
    threads[1].join(timeout=10)
    assert second.game.outcome is Outcome.QUIT
    assert not any(t.is_alive() for t in threads)


def test_bytes_that_are_not_utf8_are_ignored_keys() -> None:
    session, term, _ = make(40, 12, 3)
    thread = threading.Thread(target=session.run)
    thread.start()
    term.feed(b"\xff\xe9\x80")  # a Latin-1 terminal's keys: no key means anything
    term.feed(b"\x1b[C")  # an arrow starts the game
    deadline = time.monotonic() + 10
    while session.game.steps < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    term.feed(b"q")
    thread.join(timeout=10)
    assert session.game.moves[0].value == "R"  # the arrow was read whole, after the bad bytes
    assert session.game.outcome in (Outcome.QUIT, Outcome.DIED)
