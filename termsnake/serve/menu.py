"""The lobby's menus: pure data and text, steered by the same keys as the game."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Final

from termsnake.core.geometry import Direction
from termsnake.formats.text import printable
from termsnake.tui.controllers import (
    CTRL_C,
    KEY_PRESETS,
    VI_KEYS,
    Command,
    KeyPreset,
    hints_for,
    normalize_key,
)


class Pick(Enum):
    """What a key did to a menu."""

    MOVED = "moved"
    CHOSEN = "chosen"
    BACK = "back"
    NOTHING = "nothing"


UP_KEYS: Final = frozenset({"KEY_UP", "w", "k"})
DOWN_KEYS: Final = frozenset({"KEY_DOWN", "s", "j"})
CHOOSE_KEYS: Final = frozenset({"KEY_ENTER", "\r", "\n", " ", "d", "l", "KEY_RIGHT"})
BACK_KEYS: Final = frozenset({"q", "KEY_ESCAPE", "KEY_LEFT", "a", "h", CTRL_C})


def letter(preset: KeyPreset, direction: Direction) -> str:
    """The letter of a preset that steers ``direction`` (not an arrow, nor hjkl)."""
    return next(k for k, d in preset.directions.items() if d is direction and k not in VI_KEYS
                and len(k) == 1)  # fmt: skip


@dataclass
class Menu:
    """A titled list of entries and the one selected; ``keys``, the visitor's key preset,
    steers it as a game (up, down, right chooses, left goes back, and so does quit), besides
    the keys every menu takes."""

    title: str
    entries: Sequence[str]
    selected: int = 0
    keys: str = "default"

    @property
    def footer(self) -> str:
        """The keys, as the visitor's preset names them."""
        preset = KEY_PRESETS[self.keys]
        up, down = letter(preset, Direction.UP), letter(preset, Direction.DOWN)
        return f"{up}/{down} or arrows move, Enter chooses, {hints_for(preset).quit} goes back"

    def key(self, name: str) -> Pick:
        """Move the selection, choose, or go back."""
        key = normalize_key(name)
        preset = KEY_PRESETS[self.keys]
        turn = preset.directions.get(key)
        if (turn is Direction.UP or key in UP_KEYS) and self.entries:
            self.selected = (self.selected - 1) % len(self.entries)
            return Pick.MOVED
        if (turn is Direction.DOWN or key in DOWN_KEYS) and self.entries:
            self.selected = (self.selected + 1) % len(self.entries)
            return Pick.MOVED
        if (turn is Direction.RIGHT or key in CHOOSE_KEYS) and self.entries:
            return Pick.CHOSEN
        if turn is Direction.LEFT or key in BACK_KEYS or preset.commands.get(key) is Command.QUIT:
            return Pick.BACK
        return Pick.NOTHING

    def lines(self, width: int, height: int) -> list[str]:
        """The menu as screen lines, the selection kept in view, each line within ``width``."""
        head = [printable(self.title), ""]
        room = max(1, height - len(head) - 2)
        first = min(max(0, self.selected - room + 1), max(0, len(self.entries) - room))
        body = []
        for i, entry in enumerate(self.entries[first : first + room], start=first):
            mark = ">" if i == self.selected else " "
            body.append(f" {mark} {printable(entry)}")
        if not self.entries:
            body.append("   (nothing here yet)")
        out = [*head, *body, "", self.footer]
        return [line[:width] for line in out[:height]]
