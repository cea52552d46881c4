"""The terminal app: the only place that enters fullscreen and cbreak, runs the clock and draws."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Final

# A terminal that never answers blessed's start-up query would otherwise stall us for 5 s.
os.environ.setdefault("BLESSED_QUERY_TIMEOUT_SECONDS", "1")

import blessed

from termsnake.controllers import Command, Controller
from termsnake.model import Game
from termsnake.screen import Screen
from termsnake.view import Hud, board_size, pick_cell_width, render, render_too_small

SPEEDS: Final = (1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100, 150, 200, 300)
DEFAULT_SPEED: Final = 8
MAX_TICKS_PER_FRAME: Final = 10  # above ~60 moves a second, draw every few moves
END_WAIT: Final = 10.0  # seconds the final frame stays up unless a key is pressed
POLL: Final = 0.25  # while paused, how often to look for a resized window


class Terminated(Exception):
    """SIGTERM or SIGHUP arrived: unwind, restore the terminal, exit 128 + signal."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def make_terminal() -> blessed.Terminal:
    """The terminal on stdin/stdout."""
    return blessed.Terminal()


def faster(speed: float) -> float:
    """The next speed up the ladder."""
    return next((s for s in SPEEDS if s > speed), SPEEDS[-1])


def slower(speed: float) -> float:
    """The next speed down the ladder."""
    return next((s for s in reversed(SPEEDS) if s < speed), SPEEDS[0])


def check_terminal() -> str | None:
    """Why the game cannot run here (stdin or stdout not a terminal), or None if it can."""
    for name, stream in (("stdin", sys.stdin), ("stdout", sys.stdout)):
        if stream is None or not stream.isatty():
            return (
                f"termsnake: {name} is not a terminal; play in one (over SSH: ssh -t HOST "
                "termsnake), or measure bots without one: termsnake bench"
            )
    return None


@contextmanager
def terminal_mode(term: blessed.Terminal) -> Iterator[None]:
    """Fullscreen, cbreak and a hidden cursor, undone however the block ends (signals too)."""

    def on_signal(signum: int, frame: FrameType | None) -> None:
        raise Terminated(signum)

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        with term.fullscreen(), term.cbreak(), term.hidden_cursor():
            yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        sys.stdout.flush()


@dataclass(slots=True)
class Session:
    """One game on screen: the controller's moves on the clock, drawn after every change."""

    term: blessed.Terminal
    game: Game
    controller: Controller
    level_name: str
    speed: float = DEFAULT_SPEED
    paused: bool = False
    waiting: bool = False  # before the first move: a person starts the game with a key
    show_overlay: bool = False
    best: int | None = None
    on_step: Callable[[Game], None] | None = None

    def run(self) -> float:
        """Play until the game ends; returns the seconds it took."""
        screen = Screen(self.term, sys.stdout)
        started = time.monotonic()
        next_tick = started + 1 / self.speed
        shown_size: tuple[int, int] | None = None
        while not self.game.over:
            size = (self.term.width, self.term.height)
            if size != shown_size:
                screen.invalidate()
                shown_size = size
            cell_width = pick_cell_width(self.game, size[0])
            need = board_size(self.game, cell_width)
            if need[0] > size[0] or need[1] > size[1]:
                screen.draw(render_too_small(need, size))
                self._handle(self.term.inkey(timeout=POLL), allow_steps=False)
                next_tick = time.monotonic() + 1 / self.speed
                continue
            screen.draw(self._frame(cell_width, size[0]))
            timeout = max(0.0, next_tick - time.monotonic()) if self._running() else POLL
            key = self.term.inkey(timeout=timeout)
            if key:
                if self._handle(key, allow_steps=True) is Command.PAUSE:
                    next_tick = time.monotonic() + 1 / self.speed
                continue
            ticks = 0
            while self._running() and time.monotonic() >= next_tick:
                self._tick()
                next_tick += 1 / self.speed
                ticks += 1
                if ticks >= MAX_TICKS_PER_FRAME:
                    next_tick = max(next_tick, time.monotonic())
                    break
        elapsed = time.monotonic() - started
        if self.game.outcome is not None and self.game.outcome.value != "quit":
            self._show_end(screen)
        return elapsed

    def _running(self) -> bool:
        return not (self.paused or self.waiting or self.game.over)

    def _frame(self, cell_width: int, columns: int, message: str = "") -> list[str]:
        if self.waiting and not message:
            message = "a direction key starts"
        hud = Hud(
            who=self.controller.who,
            level=self.level_name,
            speed=self.speed,
            paused=self.paused,
            message=message,
            best=self.best,
        )
        overlay = self.controller.overlay(self.game) if self.show_overlay else None
        lines = render(self.game, hud, cell_width=cell_width, overlay=overlay)
        return [line[:columns] for line in lines]

    def _tick(self) -> None:
        self.game.step(self.controller.next_direction(self.game))
        if self.on_step is not None:
            self.on_step(self.game)

    def _handle(self, key: blessed.keyboard.Keystroke, *, allow_steps: bool) -> Command | None:
        if not key:
            return None
        name = key.name if key.is_sequence and key.name else str(key)
        command = self.controller.on_key(name, self.game)
        if self.waiting and command in (Command.STEP, Command.PAUSE):
            self.waiting = False
            return Command.PAUSE  # the clock starts now
        if command is Command.QUIT:
            self.game.quit()
        elif command is Command.PAUSE:
            self.paused = not self.paused
        elif command is Command.FASTER:
            self.speed = faster(self.speed)
        elif command is Command.SLOWER:
            self.speed = slower(self.speed)
        elif command is Command.OVERLAY:
            self.show_overlay = not self.show_overlay
        elif command is Command.STEP and self.paused and allow_steps and not self.game.over:
            self._tick()
        return command

    def _show_end(self, screen: Screen) -> None:
        """Leave the final frame up until a key is pressed, so the player sees what happened."""
        outcome = self.game.outcome.value if self.game.outcome else ""
        message = f"{outcome.upper()}: press any key"
        size = (self.term.width, self.term.height)
        cell_width = pick_cell_width(self.game, size[0])
        screen.draw(self._frame(cell_width, size[0], message))
        self.term.inkey(timeout=END_WAIT)
