"""What one row of the benchmark keeps of its games as they end: counts and sums, and the
figures its medians need as a count of each value, so that its size does not grow with the
number of games."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final, TypeVar

from termsnake.bench.games import GameRecord
from termsnake.core.game import Outcome

# Per-game times are kept to this many decimals of a millisecond, one below the report's
# four: a row's times then take a bounded number of distinct values however many games.
MS_DECIMALS: Final = 5
# A row's games forfeited (lost by the bot's own failure) told one by one: the first few, then
# a count (a broken bot over a million games would print a million lines, and keep them all).
FORFEITS_TOLD: Final = 3

N = TypeVar("N", int, float)


@dataclass(slots=True)
class Tally:
    """The games of one (solver, board) so far, in seed order."""

    games: int = 0
    outcomes: Counter[Outcome | None] = field(default_factory=Counter)
    steps: Counter[int] = field(default_factory=Counter)  # steps -> games that took them
    total_steps: int = 0
    total_length: int = 0
    total_bound: int = 0
    ms: Counter[float] = field(default_factory=Counter)  # ms a move -> games
    labels: dict[str, None] = field(default_factory=dict)  # in the order games gave them
    unavailable: str | None = None  # the first game's reason the solver cannot play
    # The first game that crashed (an exception escaped it: the row gets no figures), and how.
    first_error: tuple[int, str] | None = None
    # The first games the bot forfeited (its own failure: they count as lost), and their causes.
    forfeits: list[tuple[int, str]] = field(default_factory=list)
    more_forfeits: int = 0  # games forfeited after the first FORFEITS_TOLD

    def add(self, record: GameRecord) -> None:
        """Count the next game."""
        g = self.games
        self.games += 1
        if record.unavailable is not None and self.unavailable is None:
            self.unavailable = record.unavailable
        if record.error is not None and self.first_error is None:
            self.first_error = (g, record.error)
        if record.forfeited and record.cause:
            if len(self.forfeits) < FORFEITS_TOLD:
                where = f" (its stderr: {record.log})" if record.log else ""
                self.forfeits.append((g, record.cause + where))
            else:
                self.more_forfeits += 1
        self.outcomes[record.outcome] += 1
        self.steps[record.steps] += 1
        self.total_steps += record.steps
        self.total_length += record.length
        self.total_bound += record.bound
        if record.ms_per_move is not None:
            self.ms[round(record.ms_per_move, MS_DECIMALS)] += 1
        if record.label:
            self.labels.setdefault(record.label)

    @classmethod
    def of(cls, records: Iterable[GameRecord]) -> Tally:
        """The tally of ``records``, in order."""
        tally = cls()
        for record in records:
            tally.add(record)
        return tally


def median(counts: Counter[N]) -> float:
    """The median of the values ``counts`` holds (each as many times as its count), as
    ``statistics.median`` gives it for them in a list: the middle one, or the mean of the two
    middle ones. ValueError if there are none."""
    n = sum(counts.values())
    if n == 0:
        raise ValueError("no values")
    wanted = {n // 2} if n % 2 else {n // 2 - 1, n // 2}
    found: list[N] = []
    seen = 0
    for value in sorted(counts):
        before, seen = seen, seen + counts[value]
        found += [value] * len({i for i in wanted if before <= i < seen})
        if len(found) == len(wanted):
            break
    if len(found) == 1:
        return found[0]
    return (found[0] + found[1]) / 2
