"""Solvers: strategies that read a game and choose the next direction."""

from termsnake.solvers.base import Solver, SolverFailed, SolverUnavailable, play
from termsnake.solvers.registry import create, known_names, register, resolve_name

__all__ = [
    "Solver",
    "SolverFailed",
    "SolverUnavailable",
    "create",
    "known_names",
    "play",
    "register",
    "resolve_name",
]
