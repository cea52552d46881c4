"""Hamiltonian paths and cycles through a board's free cells: one bounded search, and what is
built on it.

Modules: ``limit`` (:class:`Limit`, the one way a search's work is counted: nodes, never time),
``search`` (the one depth-first search: :func:`close_body` closes a snake's body into a
Hamiltonian cycle, :func:`completion` is that closure alone), ``cycles`` (:func:`find_cycle`:
direct constructions for rectangles, tori and 2x2-block boards, else the search from a single
cell; :func:`check_cycle` says what is wrong with a cycle), ``twofactor`` and
``twofactor_match`` (cycles from a 2-factor of the cells, for boards the search gives up on;
``twofactor_odd``, ``blossom`` and ``altjoin`` where the board wraps with an odd side),
``holes`` (cycles through all cells but one or two, on boards a cell or two short of a cycle)
and ``reroute`` (a followed cycle changed at 2x2 squares to reach the food sooner: ``replan``'s).
"""

from termsnake.solvers.hampath.cycles import (
    DEFAULT_LIMIT,
    CycleResult,
    check_cycle,
    find_cycle,
    zigzag,
)
from termsnake.solvers.hampath.limit import DEFAULT_BUDGET, NODES_PER_SECOND, Limit
from termsnake.solvers.hampath.search import close_body, completion

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_LIMIT",
    "NODES_PER_SECOND",
    "CycleResult",
    "Limit",
    "check_cycle",
    "close_body",
    "completion",
    "find_cycle",
    "zigzag",
]
