"""Builds installed-looking distributions with `termsnake.solvers` entry points in a folder."""

from __future__ import annotations

from pathlib import Path

BOT = '''
from termsnake.core.geometry import Direction


class Circler:
    """Goes round a 2x2 square: enough to see that a plugin's moves are played."""

    name = "circler"

    def setup(self, game):
        self.turns = [Direction.DOWN, Direction.LEFT, Direction.UP, Direction.RIGHT]

    def next_direction(self, game):
        return self.turns[game.steps % 4]

    def overlay(self, game):
        return {}
'''

# A module a signal hits while it makes a class (in __set_name__, as a dataclass field's).
INTERRUPTED_MODULE = """
import signal
from termsnake.exits import raise_terminated


class Field:
    def __set_name__(self, owner, name):
        raise_terminated(signal.SIGTERM, None)  # as termsnake's handler does


class Bot:
    step = Field()
"""


def make_dist(root: Path, dist: str, entries: dict[str, str], module: str | None = None) -> None:
    """A distribution `dist` 1.0 in `root` advertising `entries`; `module` gets BOT as code."""
    info = root / f"{dist}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entries.items())
    (info / "entry_points.txt").write_text(f"[termsnake.solvers]\n{lines}")
    if module is not None:
        (root / f"{module}.py").write_text(BOT)
