"""Checks on solvers' cycles, shared by the solver tests."""

from __future__ import annotations

import itertools

from termsnake.core.game import Game
from termsnake.core.geometry import Point


def invariant_problem(game: Game, cycle: tuple[Point, ...]) -> str | None:
    """The docstring's invariant, recomputed here from the cycle alone: why it fails, or None."""
    n = len(cycle)
    where = {p: i for i, p in enumerate(cycle)}
    body = list(game.body)
    off = [p for p in body if p not in where]
    if off:
        return f"{off[0]} of the body is not on the cycle"
    base = where[body[-1]]
    rels = [(where[p] - base) % n for p in reversed(body)]  # tail first
    if any(a >= b for a, b in itertools.pairwise(rels)):
        return f"body out of order along the cycle: {rels}"
    if len(body) >= 2 and cycle[(where[body[0]] + 1) % n] == body[1]:
        return "the head's next cell on the cycle is its neck"
    return None
