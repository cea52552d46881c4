"""How fast the snake moves: the default, the limit, and the ladder the +/- keys climb."""

from __future__ import annotations

from typing import Final

DEFAULT_SPEED: Final = 8.0
MAX_SPEED: Final = 1000.0
MIN_SPEED: Final = 0.1  # a move every ten seconds: slower is a game that seems to hang
SPEEDS: Final = (
    *(1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 50, 60, 80, 100),
    *(150, 200, 300, 400, 500, 700, 1000),
)


def faster(speed: float) -> float:
    """The next speed up the ladder (a speed off its top stays)."""
    return next((s for s in SPEEDS if s > speed), speed)


def slower(speed: float) -> float:
    """The next speed down the ladder (a speed under its bottom stays)."""
    return next((s for s in reversed(SPEEDS) if s < speed), speed)
