"""A plugin package whose solvers misbehave in every way a plugin can, installed in a folder."""

from __future__ import annotations

from pathlib import Path

from plugin_dist import make_dist

BAD = '''
import sys
import time

from termsnake.core.geometry import Direction, Point


class Walker:
    """Goes on while it can: enough to play a few moves before misbehaving."""

    name = "walker"

    def setup(self, game):
        self.moves = 0

    def next_direction(self, game):
        self.moves += 1
        for d in (game.direction, Direction.UP, Direction.RIGHT, Direction.DOWN, Direction.LEFT):
            if game.is_safe(d):
                return d
        return game.direction

    def overlay(self, game):
        return {}


def explodes():
    raise RuntimeError("factory exploded \\x1b[2J")


def number():
    return 42


class SetupRaises(Walker):
    def setup(self, game):
        raise RuntimeError("setup boom \\x1b[2J")


class MoveRaises(Walker):
    name = "moveraises"

    def next_direction(self, game):
        move = super().next_direction(game)
        if self.moves > 3:
            raise ZeroDivisionError("move boom \\x1b]0;title\\x07")
        return move


class Seven(Walker):
    def next_direction(self, game):
        return 7


class OwnFailure(Walker):
    def next_direction(self, game):
        from termsnake.solvers import SolverFailed
        raise SolverFailed("gave up \\x1b[2J")


class Exits(Walker):
    def next_direction(self, game):
        sys.exit(3)


class Doom(BaseException):
    def __str__(self):
        raise Doom()


class Basic(Walker):
    def next_direction(self, game):
        raise Doom()

    def finish(self, game):
        raise Doom()


class GenExit(Walker):
    def next_direction(self, game):
        raise GeneratorExit("closed")


class Mutator(Walker):
    def next_direction(self, game):
        game.step(Direction.UP)
        return super().next_direction(game)


class BadOverlay(Walker):
    def overlay(self, game):
        # Two columns, or none: a combining mark and a filler that joins the cell before it.
        return {Point(0, 0): "\\x1b[2J", Point(999, 999): "X", "notapoint": 5, Point(1, 0): "+",
                Point(2, 0): "\\u86c7", Point(3, 0): "\\u0301", Point(4, 0): "\\u1160"}


class Printer(Walker):
    def next_direction(self, game):
        print("\\x1b[2JPRINTED")
        sys.stderr.write("\\x1b[41mSTDERR\\n")
        return super().next_direction(game)


class CtlName(Walker):
    name = "ctl\\x1b[31mname\\n2nd line"


class Sleeper(Walker):
    def next_direction(self, game):
        time.sleep(0.3)
        return super().next_direction(game)


class KbiMove(Walker):
    def next_direction(self, game):
        raise KeyboardInterrupt


class TermMove(Walker):
    def next_direction(self, game):
        from termsnake.exits import Terminated
        raise Terminated(15)


class NameBest(Walker):
    name = "Best"


class Raising:
    def __get__(self, obj, kind=None):
        raise Doom


class DoomName(Walker):
    name = Raising()
    played = Raising()


class ExitName(Walker):
    @property
    def name(self):
        raise SystemExit(0)


class DoomSetup(Walker):
    setup = Raising()


class ExitOverlay(Walker):
    def overlay(self, game):
        raise SystemExit(4)


class FakeDirection:
    @property
    def __class__(self):
        from termsnake.core.geometry import Direction
        return Direction


class Spoof(Walker):
    def next_direction(self, game):
        return FakeDirection()
'''

ENTRIES = {
    "explodes": "badbots:explodes",
    "number": "badbots:number",
    "setupraises": "badbots:SetupRaises",
    "moveraises": "badbots:MoveRaises",
    "seven": "badbots:Seven",
    "exits": "badbots:Exits",
    "ownfailure": "badbots:OwnFailure",
    "basic": "badbots:Basic",
    "genexit": "badbots:GenExit",
    "mutator": "badbots:Mutator",
    "badoverlay": "badbots:BadOverlay",
    "printer": "badbots:Printer",
    "ctlname": "badbots:CtlName",
    "sleeper": "badbots:Sleeper",
    "doomname": "badbots:DoomName",
    "namebest": "badbots:NameBest",
    "kbimove": "badbots:KbiMove",
    "termmove": "badbots:TermMove",
    "exitname": "badbots:ExitName",
    "doomsetup": "badbots:DoomSetup",
    "exitoverlay": "badbots:ExitOverlay",
    "spoof": "badbots:Spoof",
    "importraises": "badboom:X",
    "long" + "o" * 296: "badbots:Walker",
    "蛇蛇": "badbots:Walker",  # four columns on a terminal
}


def make_bad_dist(root: Path) -> None:
    """The package `badbots` 1.0 in ``root`` (put ``root`` on the path to install it)."""
    make_dist(root, "badbots", ENTRIES)
    (root / "badbots.py").write_text(BAD)
    (root / "badboom.py").write_text('raise RuntimeError("import boom \\x1b]0;pwned\\x07")\n')
