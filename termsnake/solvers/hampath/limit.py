"""How much a Hamiltonian search may do: a number of positions, never a time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# A budget of 1 "second" buys this many positions: about a second of search on a 16x16 board on
# an ordinary machine. Counting positions, not time, gives the same answer on every machine.
NODES_PER_SECOND: Final = 50_000
# The cycle budget ``termsnake levels`` and the hamilton solver share, so that they always agree.
DEFAULT_BUDGET: Final = 2.0


@dataclass(frozen=True, slots=True)
class Limit:
    """A search's budget, in the spirit of python-chess's ``engine.Limit`` but by nodes only.

    Every search in :mod:`termsnake.solvers.hampath` counts one node per step of its loop (a
    move into a cell or a step back out of one) and gives up on the step after ``nodes``.
    """

    nodes: int

    def __post_init__(self) -> None:
        if self.nodes < 0:
            raise ValueError(f"a search limit needs nodes >= 0, not {self.nodes}")

    @classmethod
    def of_budget(cls, budget: float) -> Limit:
        """The limit of a --budget of ``budget`` (nominal seconds): ``budget * NODES_PER_SECOND``
        nodes."""
        return cls(max(0, round(budget * NODES_PER_SECOND)))
