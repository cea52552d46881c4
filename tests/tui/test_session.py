"""The app loop on a fake clock and a scripted keyboard: ticks, pauses, help, restore."""

from __future__ import annotations

import io
import os
import re
import signal
import sys
import time
from collections.abc import Iterator

import pyte
import pytest
from blessed import Terminal
from blessed.keyboard import Keystroke

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.exits import Terminated
from termsnake.solvers.base import SolverFailed
from termsnake.tui import session as app
from termsnake.tui import terminal
from termsnake.tui.controllers import (
    CTRL_C,
    KEY_PRESETS,
    Command,
    KeyboardController,
    make_controller,
)
from termsnake.tui.screen import Screen
from termsnake.tui.view import ASCII


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class FakeTerminal:
    """Enough of blessed.Terminal for a Session: a size, cursor moves and scripted keys."""

    clear = "<clear>"
    home = "<home>"
    number_of_colors = 256

    def __init__(
        self, clock: FakeClock, keys: Iterator[tuple[float, str]], size: tuple[int, int] = (80, 24)
    ) -> None:
        self.clock = clock
        self.keys = keys
        self.width, self.height = size
        self.pending: tuple[float, str] | None = None

    def move_xy(self, x: int, y: int) -> str:
        return f"<{x},{y}>"

    def inkey(self, timeout: float | None = None) -> Keystroke:
        """The next scripted key if it comes within ``timeout``; the clock moves on."""
        if self.pending is None:
            self.pending = next(self.keys, (float("inf"), ""))
        at, key = self.pending
        wait = timeout if timeout is not None else float("inf")
        if at <= self.clock.now + wait:
            self.clock.now = max(self.clock.now, at)
            self.pending = None
            return Keystroke(key)
        self.clock.now += wait
        return Keystroke("")


@pytest.fixture
def clock() -> FakeClock:
    c = FakeClock()
    return c


def session(clock: FakeClock, keys: list[tuple[float, str]], speed: float = 10) -> app.Session:
    script = iter([(clock.now + t, k) for t, k in keys])
    game = Game(open_level(30, 15), seed=1)
    term = FakeTerminal(clock, script)
    return app.Session(
        term,  # type: ignore[arg-type]
        game,
        KeyboardController(),
        "test",
        speed=speed,
        stream=io.StringIO(),
        clock=clock,
    )


def test_holding_a_key_does_not_speed_the_snake_up(clock: FakeClock) -> None:
    # A key-repeat storm: 'd' (straight on) every 10 ms for 1 s, then quit.
    keys = [(i * 0.01, "d") for i in range(100)] + [(1.0, "q")]
    s = session(clock, keys, speed=10)
    assert s.run() is True
    assert s.game.outcome is Outcome.QUIT
    assert 9 <= s.game.steps <= 10  # ten ticks a second, keys or not


def test_pause_stops_the_clock_and_a_direction_steps_once(clock: FakeClock) -> None:
    keys = [(0.25, " "), (1.0, "w"), (2.0, " "), (2.55, "q")]
    s = session(clock, keys, speed=10)
    s.run()
    # 2 ticks before the pause, 1 step while paused, 5 ticks after resuming.
    assert s.game.moves[:2] == [s.game.level.direction] * 2
    assert s.game.moves[2].value == "U"
    assert s.game.steps == 8


def test_help_pauses_a_started_game_and_any_key_closes_it(clock: FakeClock) -> None:
    s = session(clock, [(0.15, "?"), (5.0, "x"), (5.5, "q")], speed=10)
    s.help_text = ["keys"]
    s.run()
    assert s.game.steps == 1 and s.mode is app.Mode.PAUSED


def test_a_too_small_terminal_waits_without_moving(clock: FakeClock) -> None:
    s = session(clock, [(3.0, "q")], speed=10)
    s.term.width, s.term.height = 20, 10  # type: ignore[misc]
    s.run()
    assert s.game.steps == 0
    assert isinstance(s.stream, io.StringIO)
    out = s.stream.getvalue()
    assert "need 32x18, have" in out and "20x10" in out


def test_frames_go_to_the_stream_given_and_to_stdout_only_without_one(
    clock: FakeClock, capsys: pytest.CaptureFixture[str]
) -> None:
    # As the Session's docstring says: a server's sessions (a stream each) leave stdout alone.
    s = session(clock, [(0.5, "q")])
    s.run()
    assert isinstance(s.stream, io.StringIO) and "test" in s.stream.getvalue()
    assert capsys.readouterr().out == ""
    s = session(clock, [(0.5, "q")])
    s.stream = None
    s.run()
    assert "test" in capsys.readouterr().out


class Redirecting:
    """A bot that points sys.stdout elsewhere (a UTF-8 buffer) at its first move, as a library
    it calls might."""

    name = "redirecting"

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        sys.stdout = io.StringIO()
        return game.direction

    def overlay(self, game: Game) -> dict[object, str]:
        return {}


def painted(frames: str) -> dict[int, str]:
    """The rows a FakeTerminal's frames leave on the screen, since its last clear."""
    rows: dict[int, str] = {}
    for x, y, run in re.findall(r"<(\d+),(\d+)>([^<]*)", frames.split("<clear>")[-1]):
        line = rows.get(int(y), "").ljust(int(x))
        rows[int(y)] = line[: int(x)] + run + line[int(x) + len(run) :]
    return rows


def test_the_status_line_is_laid_out_for_the_screen_it_is_drawn_on(
    clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Its encoding was looked up in sys.stdout at each frame, the screen's once: once the bot
    # had pointed sys.stdout elsewhere, the line was laid out for UTF-8, and the latin-1 screen,
    # fitting the escaped name into the columns laid out, cut its end (the bot's name went).
    out = io.TextIOWrapper(io.BytesIO(), encoding="latin-1")
    monkeypatch.setattr(sys, "stdout", out)
    s = app.Session(
        FakeTerminal(clock, iter([(clock.now + 0.35, "q")])),  # type: ignore[arg-type]
        Game(open_level(30, 15), seed=1),
        make_controller(Redirecting(), "redirecting", "default"),  # type: ignore[arg-type]
        "名前",
        speed=10,
        clock=clock,
    )
    s.run()
    out.flush()
    rows = painted(out.buffer.getvalue().decode("latin-1"))
    (status,) = [row.strip() for row in rows.values() if "length" in row]
    assert status == "\\u540d\\u524d  length 3/450  steps 3  speed 10/s  redirecting"


class Painter:
    """A colour attribute of a fake terminal: marks the text it paints."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, text: str) -> str:
        return f"<{self.name}>{text}</>"


def test_the_too_small_message_is_plain_text_even_in_colour(clock: FakeClock) -> None:
    s = session(clock, [(1.0, "q")], speed=10)
    for name in set(app.PALETTE.values()):
        setattr(s.term, name, Painter(name))
    s.color = True
    s.term.width, s.term.height = 40, 12  # type: ignore[misc]
    s.run()
    assert isinstance(s.stream, io.StringIO)
    out = s.stream.getvalue()
    assert "too small" in out and "</>" not in out


def test_terminal_mode_restores_on_an_exception() -> None:
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    with pytest.raises(ZeroDivisionError), terminal.terminal_mode(term):
        out.write("<game>")
        1 / 0  # noqa: B018
    text = out.getvalue()
    after = text[text.index("<game>") :]
    assert term.exit_fullscreen in after and term.normal_cursor in after


def test_played_time_counts_only_the_moving_snake(clock: FakeClock) -> None:
    # Waiting 3 s for the first key, 1 s moving, 4 s paused, 0.5 s moving, then the help for
    # 2 s (which pauses) and quit: 1.5 s of play.
    keys = [(3.0, "d"), (4.0, " "), (8.0, " "), (8.5, "?"), (10.5, "x"), (10.6, "q")]
    s = session(clock, keys, speed=10)
    s.mode = app.Mode.WAITING
    s.help_text = ["keys"]
    s.run()
    assert 13 <= s.game.steps <= 15  # ten moves a second for 1.5 s
    assert s.seconds_played == pytest.approx(1.5, abs=0.1)


def test_a_signal_on_the_final_board_ends_with_its_code(clock: FakeClock) -> None:
    s = session(clock, [], speed=10)  # no keys: the snake runs into the wall and dies
    real_inkey = s.term.inkey

    def inkey(timeout: float | None = None) -> Keystroke:
        if s.game.over:
            s.request_stop(15)  # SIGTERM while the final board is up
        return real_inkey(timeout)

    s.term.inkey = inkey  # type: ignore[method-assign,assignment]
    with pytest.raises(Terminated) as caught:
        s.run()
    assert s.game.outcome is Outcome.DIED and caught.value.signum == 15


def test_after_a_hang_up_more_hang_ups_are_ignored_until_the_end() -> None:
    # A closing window sends SIGHUP twice: the second must not kill us while we save.
    term = Terminal(stream=io.StringIO(), force_styling=True)
    got: list[int] = []
    old = signal.getsignal(signal.SIGHUP)
    try:
        with terminal.terminal_mode(term, got.append):
            os.kill(os.getpid(), signal.SIGHUP)
            time.sleep(0.05)
        assert got == [signal.SIGHUP]
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        os.kill(os.getpid(), signal.SIGHUP)  # the second one: nothing happens
        with terminal.terminal_mode(term, got.append):
            pass
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, old)
    with terminal.terminal_mode(term, got.append):
        pass
    assert signal.getsignal(signal.SIGHUP) is old  # without a hang-up, all is as it was


@pytest.mark.parametrize("key", ["s", " "])
def test_the_key_that_starts_a_waiting_game_starts_its_clock(clock: FakeClock, key: str) -> None:
    # Moves at 0.65, 0.75, 0.85 and 0.95 s: none is owed for the time spent waiting.
    s = session(clock, [(0.55, key), (1.0, "q")], speed=10)
    s.mode = app.Mode.WAITING
    s.run()
    assert s.game.steps == 4


def test_a_key_that_starts_a_waiting_game_is_the_command_it_gave(clock: FakeClock) -> None:
    # Not a pause: run sees the game start from the mode, as it sees a pause end.
    for key, command in (("s", Command.STEP), (" ", Command.PAUSE)):
        s = session(clock, [])
        s.mode = app.Mode.WAITING
        screen = Screen(s.term, io.StringIO())
        assert s._handle(Keystroke(key), screen, allow_steps=True) is command
        assert s.mode is app.Mode.RUNNING and s.game.steps == 0


def test_a_first_key_opposite_to_the_heading_does_not_start_the_game(clock: FakeClock) -> None:
    # The snake faces right: left would be dropped by the turn queue, so it must not start the
    # clock either (the snake would run into the wall while the player presses left).
    s = session(clock, [(0.5, "a"), (1.0, "a"), (2.0, "q")], speed=10)
    s.mode = app.Mode.WAITING
    s.run()
    assert s.game.steps == 0 and s.game.outcome is Outcome.QUIT
    s = session(clock, [(0.5, "a"), (1.0, "s"), (1.5, "q")], speed=10)
    s.mode = app.Mode.WAITING
    s.run()
    assert s.game.moves[0] is Direction.DOWN and s.game.steps >= 4


def test_keys_held_at_the_moment_of_death_do_not_dismiss_the_final_board(
    clock: FakeClock,
) -> None:
    # No turn: the snake (head at x=16 of 30, speed 10) hits the wall after 14 moves, at 1.4 s.
    start = clock.now
    keys = [(1.45, "d"), (1.5, "d"), (1.6, "d"), (1.7, "d"), (2.5, "x")]
    s = session(clock, keys, speed=10)
    s.run()
    assert s.game.outcome is Outcome.DIED
    assert clock.now - start == pytest.approx(2.5, abs=0.01)  # only the late key ended it


def shrunk_for_a_while(s: app.Session, clock: FakeClock) -> None:
    """The session's wide window turns too small at 0.5 s, and big again at 1 s."""
    real_inkey = s.term.inkey

    def inkey(timeout: float | None = None) -> Keystroke:
        if clock.now - 1000.0 > 0.5:
            s.term.width, s.term.height = (20, 10) if clock.now - 1000.0 < 1.0 else (80, 24)  # type: ignore[misc]
        return real_inkey(timeout)

    s.term.inkey = inkey  # type: ignore[method-assign,assignment]


def test_enlarging_a_too_small_terminal_resumes_paused(clock: FakeClock) -> None:
    s = session(clock, [(3.0, "q")], speed=10)
    shrunk_for_a_while(s, clock)
    s.run()
    assert s.mode is app.Mode.PAUSED and 4 <= s.game.steps <= 6


def test_ctrl_z_on_the_final_board_suspends_and_fg_shows_it_again(clock: FakeClock) -> None:
    s = session(clock, [(5.0, "x")], speed=10)  # no turn: the snake dies at 1.4 s
    real_inkey = s.term.inkey

    def inkey(timeout: float | None = None) -> Keystroke:
        if s.game.over and clock.now - 1000.0 < 2.0:
            s.request_suspend()  # Ctrl-Z while the final board is up
        return real_inkey(timeout)

    s.term.inkey = inkey  # type: ignore[method-assign,assignment]
    assert s.run() is False and s.game.outcome is Outcome.DIED
    assert isinstance(s.stream, io.StringIO)
    s.stream.truncate(0)
    clock.now = 1000.0 + 3.0  # `fg` later: the final board is drawn again and waits for a key
    assert s.run() is True
    assert "DIED" in s.stream.getvalue()


@pytest.mark.parametrize(
    ("offer", "key", "again", "hint"),
    [
        (True, "r", True, "DIED: r plays again, any other key ends"),
        (True, "R", True, "DIED: r plays again, any other key ends"),  # caps lock on
        (True, "x", False, "DIED: r plays again, any other key ends"),
        (False, "r", False, "DIED: press any key"),  # the SSH server asks on its own page
    ],
)
def test_r_on_the_final_board_asks_for_another_game_where_one_is_offered(
    clock: FakeClock, offer: bool, key: str, again: bool, hint: str
) -> None:
    s = session(clock, [(2.5, key)], speed=10)  # no turn: the snake dies at 1.5 s
    s.offer_again = offer
    assert s.run() is True and s.game.outcome is Outcome.DIED
    assert isinstance(s.stream, io.StringIO)
    assert s.again is again and hint in s.stream.getvalue()


class SlowBot:
    """Goes straight on, each move taking ``seconds`` of the fake clock."""

    name = "slow"

    def __init__(self, clock: FakeClock, seconds: float) -> None:
        self.clock, self.seconds = clock, seconds

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        self.clock.now += self.seconds
        return game.direction

    def overlay(self, game: Game) -> dict[object, str]:
        return {}


def test_a_slow_bot_does_not_keep_the_keys_waiting(clock: FakeClock) -> None:
    # At 50 moves a second a bot that takes 1 s a move is always behind; q at 0.5 s must act
    # after the move under way, not after a frame's worth of catch-up moves.
    script = iter([(clock.now + 0.5, "q")])
    game = Game(open_level(30, 15), seed=1)
    s = app.Session(
        FakeTerminal(clock, script),  # type: ignore[arg-type]
        game,
        make_controller(SlowBot(clock, 1.0), "slow", "default"),  # type: ignore[arg-type]
        "test",
        speed=50,
        stream=io.StringIO(),
        clock=clock,
    )
    s.run()
    assert game.outcome is Outcome.QUIT and game.steps == 1


@pytest.mark.parametrize("bot", [False, True])
def test_r_says_the_next_game_is_being_set_up_only_for_a_bot(clock: FakeClock, bot: bool) -> None:
    # A person's next game starts at once: the line flashed up for nothing.
    keys = iter([(clock.now + 2.5, "r")])  # no turn: the snake dies at 1.5 s
    slow = make_controller(SlowBot(clock, 0.0), "slow", "default")  # type: ignore[arg-type]
    s = app.Session(
        FakeTerminal(clock, keys),  # type: ignore[arg-type]
        Game(open_level(30, 15), seed=1),
        slow if bot else KeyboardController(),
        "test",
        speed=10,
        offer_again=True,
        stream=io.StringIO(),
        clock=clock,
    )
    assert s.run() is True and s.game.outcome is Outcome.DIED and s.again
    assert isinstance(s.stream, io.StringIO)
    assert ("DIED: starting the next game..." in s.stream.getvalue()) is bot


@pytest.mark.parametrize("kind", ["xterm", "linux", "xterm-256color"])
def test_a_terminal_of_8_colours_gets_no_bright_colour(kind: str) -> None:
    # blessed sends ESC[38m for bright_black on 8 colours: the Linux console underlines then.
    term = Terminal(kind=kind, stream=io.StringIO(), force_styling=True)
    style = app.make_style(term, ASCII)
    floor = style(ASCII.floor * 3)
    assert "\x1b[38m" not in floor
    assert (floor == ASCII.floor * 3) is (term.number_of_colors < 16)
    assert "\x1b[3" in style(ASCII.body)  # green: every colour terminal has it


def test_a_reversal_while_paused_is_dropped_and_does_not_step(clock: FakeClock) -> None:
    # Each 'a' (left, against the heading) stepped the snake right, into the wall in the end.
    keys = [(0.25, " "), (1.0, "a"), (1.1, "a"), (1.2, "a"), (2.0, "q")]
    s = session(clock, keys, speed=10)
    s.run()
    assert s.game.outcome is Outcome.QUIT
    assert s.game.moves == [Direction.RIGHT] * 2  # the two ticks before the pause


def test_the_final_board_of_a_game_ended_by_a_pause_step_does_not_say_paused(
    clock: FakeClock,
) -> None:
    keys = [(0.0, "d"), (0.05, " "), *((0.1 + i * 0.1, "d") for i in range(20)), (5.0, "x")]
    s = session(clock, keys, speed=10)
    s.run()
    assert s.game.outcome is Outcome.DIED
    assert isinstance(s.stream, io.StringIO)
    out = s.stream.getvalue()
    assert "DIED: " in out and "PAUSED  DIED" not in out


def test_turns_typed_while_the_terminal_is_too_small_are_dropped(clock: FakeClock) -> None:
    # They were queued with the board hidden, and taken as soon as the game went on.
    s = session(clock, [(0.7, "w"), (0.8, "a"), (1.5, " "), (2.0, "q")], speed=10)
    shrunk_for_a_while(s, clock)
    s.run()
    assert s.game.steps >= 8 and set(s.game.moves) == {Direction.RIGHT}


def test_a_faster_speed_takes_effect_at_once_not_after_the_move_already_due(
    clock: FakeClock,
) -> None:
    # At 0.2 moves a second the first move is due at 5 s; `+` at 0.1 s (to 1 a second on the
    # ladder, or more) brings it forward to 1.1 s at the latest, so moves come before 3 s.
    s = session(clock, [(0.1, "+"), (3.0, "q")], speed=0.2)
    s.run()
    assert s.speed > 0.2
    assert s.game.steps >= 1


def test_a_slower_speed_keeps_the_move_already_due(clock: FakeClock) -> None:
    s = session(clock, [(0.05, "-"), (0.15, "q")], speed=10)
    s.run()
    assert s.speed < 10
    assert s.game.steps == 1  # the move due at 0.1 s came then


def test_a_step_while_paused_goes_the_way_pressed_even_with_a_turn_queued_before_the_pause(
    clock: FakeClock,
) -> None:
    # 'w' and space within one tick: each later step took the turn queued one key before.
    keys = [(0.25, "w"), (0.26, " "), (1.0, "d"), (1.1, "s"), (1.2, "s"), (1.3, "a"), (2.0, "q")]
    s = session(clock, keys, speed=10)
    s.run()
    assert s.game.outcome is Outcome.QUIT
    assert "".join(m.value for m in s.game.moves) == "RRRDDL"


def test_watchers_are_told_of_every_pause_and_speed_the_player_sees(clock: FakeClock) -> None:
    # The pause a too-small terminal makes reached no watcher: they saw the game run on.
    keys = [(0.15, "+"), (0.3, " "), (0.6, " "), (3.0, " "), (4.0, "q")]
    s = session(clock, keys, speed=10)
    seen: list[tuple[float, bool]] = []
    s.on_change = lambda changed: seen.append((changed.speed, changed.paused))
    small = (1.0, 2.0)  # the terminal too small for the board meanwhile
    term: FakeTerminal = s.term  # type: ignore[assignment]
    inkey = term.inkey

    def sized_inkey(timeout: float | None = None) -> Keystroke:
        shrunk = small[0] <= clock.now - 1000 < small[1]
        term.width, term.height = (20, 10) if shrunk else (80, 24)
        return inkey(timeout)

    term.inkey = sized_inkey  # type: ignore[method-assign]
    s.run()
    changes = [c for i, c in enumerate(seen) if i == 0 or c != seen[i - 1]]
    assert changes == [(10, False), (12, False), (12, True), (12, False), (12, True), (12, False)]


def test_make_session_lets_a_person_start_the_game_and_a_bot_play_it_with_its_own_help(
    clock: FakeClock,
) -> None:
    # The one place a game is put together, for the local game and the SSH server alike.
    def made(solver: SlowBot | None, quit_key: str, keys: str) -> app.Session:
        s = app.make_session(
            FakeTerminal(clock, iter([(clock.now + 1.0, quit_key)])),  # type: ignore[arg-type]
            Game(open_level(30, 15), seed=1),
            solver,  # type: ignore[arg-type]
            "ada",
            "test",
            keys=keys,
            speed=10,
            stream=io.StringIO(),
            clock=clock,
        )
        s.run()
        assert s.game.outcome is Outcome.QUIT
        return s

    person = made(None, "x", "azerty")  # AZERTY quits with x
    assert person.game.steps == 0  # waiting for the person's first key
    assert person.controller.who == "ada"
    assert any(line.split()[:1] == ["up"] and "z" in line.split() for line in person.help_text)
    assert not any("plan" in line for line in person.help_text)
    bot = made(SlowBot(clock, 0.0), "q", "default")
    assert 9 <= bot.game.steps <= 10  # running from the start, ten moves a second
    assert any("c shows the bot's plan" in line for line in bot.help_text)
    assert not any(line.split()[:1] == ["up"] for line in bot.help_text)


class BrokenBot(SlowBot):
    """Breaks down at its first move: the game is lost without a move."""

    def next_direction(self, game: Game) -> Direction:
        raise SolverFailed("it broke")


def test_watchers_are_told_of_the_end_of_a_game_a_bot_lost_without_a_move(
    clock: FakeClock,
) -> None:
    # Only moves, pauses and speeds reached watchers: a bot that broke down ended its game
    # unseen, and the watchers' status line said the game went on.
    s = app.make_session(
        FakeTerminal(clock, iter([(clock.now + 1.0, "q")])),  # type: ignore[arg-type]
        Game(open_level(30, 15), seed=1),
        BrokenBot(clock, 0.0),  # type: ignore[arg-type]
        "ada", "test", speed=10, stream=io.StringIO(), clock=clock,
    )  # fmt: skip
    seen: list[Outcome | None] = []
    s.on_change = lambda changed: seen.append(changed.game.outcome)
    s.run()
    assert s.game.outcome is Outcome.DIED and seen[-1:] == [Outcome.DIED]


def assert_quit_by_the_named_key(
    clock: FakeClock, term: FakeTerminal, keys: str, bot: bool, stream: io.StringIO
) -> None:
    """A game of a person or a bot on a board of 30x15 under ``keys`` is quit, within 5 s, by
    what ``term`` types (the key the too-small screen names, then Ctrl-C 5 s later)."""
    s = app.make_session(
        term,  # type: ignore[arg-type]
        Game(open_level(30, 15), seed=1),
        SlowBot(clock, 0.0) if bot else None,  # type: ignore[arg-type]
        "ada",
        "test",
        keys=keys,
        stream=stream,
        clock=clock,
    )
    start = clock.now
    assert s.run() is True and s.game.outcome is Outcome.QUIT
    assert clock.now - start < 5.0  # quit by the key named, not by a Ctrl-C after it


@pytest.mark.parametrize("keys", sorted(KEY_PRESETS))
@pytest.mark.parametrize("bot", [False, True])
def test_the_key_the_too_small_message_names_quits_in_every_preset(
    clock: FakeClock, keys: str, bot: bool
) -> None:
    # It said "or q to quit" to everyone; on AZERTY q steers left and the game went on.
    stream = io.StringIO()

    def typed() -> Iterator[tuple[float, str]]:
        # Read as the first key is waited for: the message is on the screen by then.
        named = re.search(r"or (\S+) to quit\.", stream.getvalue())
        assert named is not None, stream.getvalue()
        yield clock.now + 1.0, {"space": " "}.get(named[1], named[1])
        yield clock.now + 5.0, CTRL_C  # quits in every preset: the test ends either way

    term = FakeTerminal(clock, typed(), size=(80, 10))  # 18 rows at least: too tall for 10
    assert_quit_by_the_named_key(clock, term, keys, bot, stream)


@pytest.mark.parametrize("keys", sorted(KEY_PRESETS))
def test_the_key_the_start_hint_names_shows_the_help_in_every_preset(
    clock: FakeClock, keys: str
) -> None:
    stream = io.StringIO()

    def typed() -> Iterator[tuple[float, str]]:
        named = re.search(r"a direction key starts \((\S+) keys\)", stream.getvalue())
        assert named is not None, stream.getvalue()
        yield clock.now + 1.0, named[1]
        yield clock.now + 2.0, CTRL_C  # closes the help
        yield clock.now + 3.0, CTRL_C  # quits

    s = app.make_session(
        FakeTerminal(clock, typed()),  # type: ignore[arg-type]
        Game(open_level(30, 15), seed=1),
        None,
        "ada",
        "test",
        keys=keys,
        stream=stream,
        clock=clock,
    )
    assert s.run() is True and s.game.outcome is Outcome.QUIT
    assert "termsnake keys" in stream.getvalue()  # the help box's title


@pytest.mark.parametrize("keys", sorted(KEY_PRESETS))
@pytest.mark.parametrize("bot", [False, True])
def test_the_quit_key_quits_while_a_too_small_terminal_hides_the_help(
    clock: FakeClock, keys: str, bot: bool
) -> None:
    # The help, opened and then hidden by a shrunk window, took the quit key the too-small
    # screen names only to close itself, and the game stayed.
    stream = io.StringIO()
    term = FakeTerminal(clock, iter(()))

    def typed() -> Iterator[tuple[float, str]]:
        yield clock.now + 0.5, "?"
        assert "termsnake keys" in stream.getvalue()  # the help box is up
        term.width, term.height = 80, 10  # 18 rows at least: too tall for 10
        yield clock.now + 1.0, ""  # nothing typed: the loop draws the too-small screen
        named = re.search(r"or (\S+) to quit\.", stream.getvalue())
        assert named is not None, stream.getvalue()
        yield clock.now + 1.0, {"escape": "\x1b"}.get(named[1], named[1])
        yield clock.now + 5.0, CTRL_C  # the old code: the help closed; this quits
        yield clock.now + 5.0, CTRL_C

    term.keys = typed()
    assert_quit_by_the_named_key(clock, term, keys, bot, stream)


def test_drawing_a_frame_says_whether_the_board_fits_and_keeps_it(clock: FakeClock) -> None:
    # run reads the answer; the colours and a key closing the help read the kept one.
    s = session(clock, [])
    screen = Screen(s.term, io.StringIO())
    assert s._draw(screen, (80, 24)) is True and s.fits
    assert s._draw(screen, (20, 10)) is False and not s.fits


@pytest.mark.parametrize(("size", "bot"), [((40, 12), False), ((20, 30), True), ((10, 4), False)])
def test_the_help_on_a_terminal_too_small_for_its_box_says_how_to_close_it(
    clock: FakeClock, size: tuple[int, int], bot: bool
) -> None:
    # Its box, drawn over a board that fits, was cut off: at 40x12 its last rows (the line
    # saying how to close it, the status line), at 20 columns its right half. It is then
    # shown alone, wrapped to the terminal.
    s = app.make_session(
        FakeTerminal(clock, iter(()), size=size),  # type: ignore[arg-type]
        Game(open_level(8, 4) if size[1] > 4 else open_level(4, 1), seed=1),
        SlowBot(clock, 0.1) if bot else None,  # type: ignore[arg-type]
        "ada",
        "test",
        stream=io.StringIO(),
        clock=clock,
    )
    s.mode = app.Mode.HELP
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    assert s._draw(Screen(term, out), size)  # the board fits: the help is up
    shown = pyte.Screen(*size)
    pyte.Stream(shown).feed(out.getvalue())
    text = " ".join(" ".join(shown.display).split())
    assert "any key closes this help" in text
    if size[1] > 4:
        assert "termsnake keys" in text and "pause space p" in text
