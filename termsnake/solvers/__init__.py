"""Solvers: strategies that read a game and choose the next direction."""

from termsnake.solvers.base import (
    Solver,
    SolverUnavailable,
    create,
    known_names,
    play,
    resolve_name,
)

__all__ = ["Solver", "SolverUnavailable", "create", "known_names", "play", "resolve_name"]
