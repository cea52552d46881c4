"""Controllers turn key presses and ticks into directions and commands for the app."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from enum import Enum
from typing import Final, Protocol

from termsnake.geometry import Direction, Point
from termsnake.model import Game
from termsnake.solvers.base import Solver


class Command(Enum):
    """What a key asks the app to do."""

    QUIT = "quit"
    PAUSE = "pause"
    FASTER = "faster"
    SLOWER = "slower"
    STEP = "step"
    OVERLAY = "overlay"
    HELP = "help"


# Keys are blessed key names for special keys (KEY_UP ...) and the character otherwise.
DIRECTION_KEYS: Final[Mapping[str, Direction]] = {
    "w": Direction.UP,
    "a": Direction.LEFT,
    "s": Direction.DOWN,
    "d": Direction.RIGHT,
    "k": Direction.UP,
    "h": Direction.LEFT,
    "j": Direction.DOWN,
    "l": Direction.RIGHT,
    "KEY_UP": Direction.UP,
    "KEY_LEFT": Direction.LEFT,
    "KEY_DOWN": Direction.DOWN,
    "KEY_RIGHT": Direction.RIGHT,
}

COMMAND_KEYS: Final[Mapping[str, Command]] = {
    "q": Command.QUIT,
    " ": Command.PAUSE,
    "p": Command.PAUSE,
    "+": Command.FASTER,
    "=": Command.FASTER,
    "-": Command.SLOWER,
    "_": Command.SLOWER,
    "?": Command.HELP,
}

# Bots also listen to `n` (one step while paused) and `c` (show the plan).
BOT_KEYS: Final[Mapping[str, Command]] = {"n": Command.STEP, "c": Command.OVERLAY}


def normalize_key(key: str) -> str:
    """Letters are case-insensitive (caps lock on is still a game); names pass through."""
    return key.lower() if len(key) == 1 else key


class TurnQueue:
    """Up to ``depth`` pending turns. A turn equal or opposite to the last queued direction is
    dropped, so two quick keys within one tick never reverse the snake and are never lost."""

    def __init__(self, depth: int = 2) -> None:
        self.depth = depth
        self._turns: deque[Direction] = deque()

    def __len__(self) -> int:
        return len(self._turns)

    def push(self, turn: Direction, heading: Direction) -> bool:
        """Queue ``turn`` given the snake's current ``heading``; whether it was kept."""
        last = self._turns[-1] if self._turns else heading
        if turn in (last, last.opposite) or len(self._turns) >= self.depth:
            return False
        self._turns.append(turn)
        return True

    def pop(self, heading: Direction) -> Direction:
        """The direction for this tick: the oldest queued turn, else straight on."""
        return self._turns.popleft() if self._turns else heading

    def clear(self) -> None:
        """Forget pending turns."""
        self._turns.clear()


class Controller(Protocol):
    """Feeds the app: ``on_key`` maps a key to a command (or None); ``next_direction`` is asked
    once per tick. ``who`` names the player in the status line and scores."""

    who: str

    def on_key(self, key: str, game: Game) -> Command | None: ...

    def next_direction(self, game: Game) -> Direction: ...

    def overlay(self, game: Game) -> Mapping[Point, str]: ...


class KeyboardController:
    """A person at the keys: directions go through the turn queue."""

    who = "you"

    def __init__(
        self,
        direction_keys: Mapping[str, Direction] = DIRECTION_KEYS,
        command_keys: Mapping[str, Command] = COMMAND_KEYS,
    ) -> None:
        self.direction_keys = direction_keys
        self.command_keys = command_keys
        self.queue = TurnQueue()

    def on_key(self, key: str, game: Game) -> Command | None:
        """A direction key queues a turn (and steps once while paused); others are commands."""
        key = normalize_key(key)
        turn = self.direction_keys.get(key)
        if turn is not None:
            self.queue.push(turn, game.direction)
            return Command.STEP
        return self.command_keys.get(key)

    def next_direction(self, game: Game) -> Direction:
        """The next queued turn, else straight on."""
        return self.queue.pop(game.direction)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """A person has no plan to show."""
        return {}


class AIController:
    """A bot: the solver chooses every move; the keys only pause, step, change speed and quit."""

    def __init__(
        self,
        solver: Solver,
        who: str | None = None,
        command_keys: Mapping[str, Command] = COMMAND_KEYS,
        direction_keys: Mapping[str, Direction] = DIRECTION_KEYS,
    ) -> None:
        self.solver = solver
        self.who = who or solver.name
        self.keys: dict[str, Command] = {k: Command.STEP for k in direction_keys}
        self.keys.update(command_keys)
        self.keys.update(BOT_KEYS)

    def on_key(self, key: str, game: Game) -> Command | None:
        """`n` or a direction key steps once while paused; `c` toggles the plan overlay."""
        return self.keys.get(normalize_key(key))

    def next_direction(self, game: Game) -> Direction:
        """Ask the solver."""
        return self.solver.next_direction(game)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The solver's plan, drawn under the snake."""
        return self.solver.overlay(game)
