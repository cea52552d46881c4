"""Controllers turn key presses and ticks into directions and commands for the ``Session``
(``tui.session``), and the key maps they read, as data."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from enum import Enum
from typing import Final, NamedTuple, Protocol

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import Solver, shows_plan


class Command(Enum):
    """What a key asks the session to do."""

    QUIT = "quit"
    PAUSE = "pause"
    FASTER = "faster"
    SLOWER = "slower"
    STEP = "step"  # a direction key taken: it starts a waiting game, steps a paused one
    OVERLAY = "overlay"
    HELP = "help"


# Keys are blessed key names for special keys (KEY_UP ...) and the character otherwise.
ARROW_KEYS: Final[Mapping[str, Direction]] = {
    "KEY_UP": Direction.UP,
    "KEY_LEFT": Direction.LEFT,
    "KEY_DOWN": Direction.DOWN,
    "KEY_RIGHT": Direction.RIGHT,
}
VI_KEYS: Final[Mapping[str, Direction]] = {
    "k": Direction.UP,
    "h": Direction.LEFT,
    "j": Direction.DOWN,
    "l": Direction.RIGHT,
}


def _steer(up: str, left: str, down: str, right: str) -> dict[str, Direction]:
    """The four letter keys of a layout, plus the arrows and hjkl."""
    keys = {up: Direction.UP, left: Direction.LEFT, down: Direction.DOWN, right: Direction.RIGHT}
    return {**ARROW_KEYS, **VI_KEYS, **keys}


DIRECTION_KEYS: Final[Mapping[str, Direction]] = _steer("w", "a", "s", "d")

CTRL_C: Final = "\x03"
COMMAND_KEYS: Final[Mapping[str, Command]] = {
    "q": Command.QUIT,
    "KEY_ESCAPE": Command.QUIT,
    # Ctrl-C as a key: a terminal sends it as SIGINT, but over SSH it comes as this byte.
    CTRL_C: Command.QUIT,
    " ": Command.PAUSE,
    "p": Command.PAUSE,
    "+": Command.FASTER,
    "=": Command.FASTER,
    "-": Command.SLOWER,
    "_": Command.SLOWER,
    "?": Command.HELP,
}


class KeyPreset(NamedTuple):
    """A keyboard layout: which keys steer and which give commands."""

    directions: Mapping[str, Direction]
    commands: Mapping[str, Command]


# AZERTY steers with ZQSD (the WASD positions), so quit moves from `q` to `x` (and Escape);
# Dvorak's WASD positions are `,aoe`.
KEY_PRESETS: Final[Mapping[str, KeyPreset]] = {
    "default": KeyPreset(DIRECTION_KEYS, COMMAND_KEYS),
    "azerty": KeyPreset(
        _steer("z", "q", "s", "d"),
        {**{k: c for k, c in COMMAND_KEYS.items() if k != "q"}, "x": Command.QUIT},
    ),
    "dvorak": KeyPreset(_steer(",", "a", "o", "e"), COMMAND_KEYS),
}


def _label(key: str) -> str:
    """A key as the screens name it: ``KEY_ESCAPE`` is escape, a space is space."""
    named = key.removeprefix("KEY_").lower() if len(key) > 1 else key
    return {" ": "space", CTRL_C: "ctrl-c"}.get(key, named)


def keys_for(value: object, table: Mapping[str, object]) -> str:
    """Every key of ``table`` that gives ``value``, as the help lists them."""
    return " ".join(_label(k) for k, v in table.items() if v == value)


class KeyHints(NamedTuple):
    """The one key each hint on screen names: the too-small message, the start hint, the help."""

    quit: str = "q"
    pause: str = "space"
    help: str = "?"


def hints_for(preset: KeyPreset) -> KeyHints:
    """The keys a preset's hints name: for each command its first key one can type as a
    character (`x` to quit on AZERTY, where `q` steers), else its first key of all."""

    def first(command: Command) -> str:
        keys = [k for k, c in preset.commands.items() if c is command]
        typed = [k for k in keys if len(k) == 1 and k != CTRL_C]
        return _label((typed or keys)[0])

    return KeyHints(first(Command.QUIT), first(Command.PAUSE), first(Command.HELP))


def help_lines(preset: KeyPreset, bot: bool, *, plan: bool = False) -> list[str]:
    """The keys of a preset, for the help overlay; ``plan``: whether `c` has a bot's plan to
    show (``shows_plan``: a replay has none)."""
    lines = ["termsnake keys", ""]
    if not bot:
        for d in (Direction.UP, Direction.LEFT, Direction.DOWN, Direction.RIGHT):
            lines.append(f"{d.name.lower():>6}  {keys_for(d, preset.directions)}")
    lines.append(f"{'pause':>6}  {keys_for(Command.PAUSE, preset.commands)}")
    lines.append(f"{'step':>6}  {'n or a direction' if bot else 'a direction'} while paused")
    lines.append(
        f"{'speed':>6}  {keys_for(Command.FASTER, preset.commands)} faster, "
        f"{keys_for(Command.SLOWER, preset.commands)} slower"
    )
    if plan:
        lines.append(f"{'plan':>6}  c shows the bot's plan")
    lines.append(f"{'quit':>6}  {keys_for(Command.QUIT, preset.commands)}")
    lines += ["", f"{hints_for(preset).help} or any key closes this help"]
    return lines


def help_for(preset: KeyPreset, solver: Solver | None) -> list[str]:
    """The help of a game played by a person (``solver`` None) or a bot: `c` is offered only
    for a bot with a plan to show."""
    return help_lines(
        preset, bot=solver is not None, plan=solver is not None and shows_plan(solver)
    )


# Bots also listen to `n` (one step while paused) and `c` (show the plan).
BOT_KEYS: Final[Mapping[str, Command]] = {"n": Command.STEP, "c": Command.OVERLAY}
# On the final board: another game. No preset gives it a meaning, so every preset says `r`.
AGAIN_KEY: Final = "r"
# An arrow's name with modifier keys held, as blessed gives it (xterm's Alt+Up, ESC [ 1 ; 3 A).
_HELD_ARROW: Final = re.compile(
    r"KEY_(?:(?:CTRL|ALT|SHIFT|SUPER|HYPER|META)_)+(UP|DOWN|LEFT|RIGHT)"
)


def normalize_key(key: str) -> str:
    """Letters are case-insensitive (caps lock on is still a game), and an arrow is itself with
    Alt, Shift or Ctrl held (``KEY_ALT_UP`` is ``KEY_UP``: held by accident, it still turns);
    other names pass through."""
    if len(key) == 1:
        return key.lower()
    held = _HELD_ARROW.fullmatch(key)
    return f"KEY_{held[1]}" if held else key


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
        last = self.last(heading)
        if turn in (last, last.opposite) or len(self._turns) >= self.depth:
            return False
        self._turns.append(turn)
        return True

    def last(self, heading: Direction) -> Direction:
        """The way the snake will go once the queued turns are taken."""
        return self._turns[-1] if self._turns else heading

    def pop(self, heading: Direction) -> Direction:
        """The direction for this tick: the oldest queued turn, else straight on."""
        return self._turns.popleft() if self._turns else heading

    def clear(self) -> None:
        """Forget pending turns."""
        self._turns.clear()


class Controller(Protocol):
    """Feeds the session: ``on_key`` maps a key to a command (or None); ``next_direction`` is
    asked once per tick. ``who`` names the player in the status line and scores. ``stepping``:
    the game is paused and a direction key will step it once (the session then plays that move)."""

    who: str

    def on_key(self, key: str, game: Game, *, stepping: bool = False) -> Command | None: ...

    def next_direction(self, game: Game) -> Direction: ...

    def overlay(self, game: Game) -> Mapping[Point, str]: ...


class KeyboardController:
    """A person at the keys: directions go through the turn queue."""

    def __init__(
        self,
        who: str = "you",
        direction_keys: Mapping[str, Direction] = DIRECTION_KEYS,
        command_keys: Mapping[str, Command] = COMMAND_KEYS,
    ) -> None:
        self.who = who
        self.direction_keys = direction_keys
        self.command_keys = command_keys
        self.queue = TurnQueue()

    def on_key(self, key: str, game: Game, *, stepping: bool = False) -> Command | None:
        """A direction key queues a turn and is Command.STEP (None if it is dropped as a U-turn);
        others are their commands."""
        key = normalize_key(key)
        turn = self.direction_keys.get(key)
        if turn is not None:
            ahead = game.direction if stepping else self.queue.last(game.direction)
            if turn is ahead.opposite:
                return None  # dropped: it must neither start the game nor step a paused one
            if stepping:
                # The step goes the way pressed: turns queued before the pause would each be
                # taken one key late.
                self.queue.clear()
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
        direction_keys: Mapping[str, Direction] = DIRECTION_KEYS,
        command_keys: Mapping[str, Command] = COMMAND_KEYS,
    ) -> None:
        self.solver = solver
        self.who = who or solver.name
        self.keys: dict[str, Command] = {k: Command.STEP for k in direction_keys}
        self.keys.update(command_keys)
        self.keys.update(BOT_KEYS)

    def on_key(self, key: str, game: Game, *, stepping: bool = False) -> Command | None:
        """`n` or a direction key steps once while paused; `c` toggles the plan overlay."""
        return self.keys.get(normalize_key(key))

    def next_direction(self, game: Game) -> Direction:
        """Ask the solver."""
        return self.solver.next_direction(game)

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The solver's plan, drawn under the snake."""
        return self.solver.overlay(game)


def key_name(key: object) -> str:
    """A blessed keystroke as the controllers take it: a special key's name (``KEY_LEFT``),
    else the text typed."""
    name = getattr(key, "name", None)
    return name if getattr(key, "is_sequence", False) and name else str(key)


def make_controller(solver: Solver | None, who: str, keys: str = "default") -> Controller:
    """The keyboard for a person, or the bot (which hears the command keys), with the key
    preset ``keys``."""
    preset = KEY_PRESETS[keys]
    if solver is None:
        return KeyboardController(who, preset.directions, preset.commands)
    return AIController(solver, who, preset.directions, preset.commands)
