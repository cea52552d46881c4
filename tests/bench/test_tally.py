"""A row's tally: the same figures as the whole list of games would give, in bounded room."""

from __future__ import annotations

import statistics
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from termsnake.bench.games import GameRecord
from termsnake.bench.report import summarize
from termsnake.bench.tally import Tally, median
from termsnake.core.game import Outcome
from termsnake.core.level import open_level


@given(st.lists(st.integers(0, 50), min_size=1))
def test_median_of_counts_is_the_median_of_the_list(values: list[int]) -> None:
    assert median(Counter(values)) == statistics.median(values)


@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=1))
def test_median_of_float_counts(values: list[float]) -> None:
    assert median(Counter(values)) == statistics.median(values)


records = st.builds(
    GameRecord,
    outcome=st.sampled_from([Outcome.WON, Outcome.DIED, Outcome.STALLED]),
    steps=st.integers(0, 10**6),
    length=st.integers(1, 400),
    bound=st.integers(0, 10**6),
    ms_per_move=st.none() | st.floats(0, 5, allow_nan=False),
    label=st.sampled_from(["", "best (tree)"]),
)


@given(st.lists(records, min_size=1, max_size=60))
def test_a_row_from_the_tally_is_the_row_from_the_list(games: list[GameRecord]) -> None:
    # The figures as the report computed them from every game record, before the tally.
    steps = [r.steps for r in games]
    bound = sum(r.bound for r in games)
    times = [r.ms_per_move for r in games if r.ms_per_move is not None]
    row = summarize("x", open_level(4, 4, 1), 1, Tally.of(games))
    assert row["mean_steps"] == round(statistics.fmean(steps), 2)
    assert row["median_steps"] == float(statistics.median(steps))
    assert row["mean_length"] == round(statistics.fmean(r.length for r in games), 2)
    assert row["steps_over_bound"] == (round(sum(steps) / bound, 4) if bound else None)
    assert row["wins"] == sum(r.outcome is Outcome.WON for r in games)
    assert row["stalls"] == sum(r.outcome is Outcome.STALLED for r in games)
    exact = round(statistics.median(times), 4) if times else 0.0
    # Times are kept to 0.00001 ms, so the rounded median may move one unit of the fourth place
    # (plus float error on that unit).
    assert abs(row["ms_per_move"] - exact) <= 0.0001 + 1e-9


def test_the_tally_keeps_counts_not_games() -> None:
    tally = Tally()
    for g in range(100_000):
        ms = 0.25 + (g % 3) / 1000
        # Every game lost by the bot's own failure: the causes are kept of the first few only.
        lost = GameRecord(Outcome.DIED, 10 + g % 7, 2, 3, ms, label="b", cause="x", forfeited=True)
        tally.add(lost)
    assert tally.games == 100_000
    assert len(tally.steps) == 7 and len(tally.ms) == 3 and list(tally.labels) == ["b"]
    assert tally.forfeits == [(0, "x"), (1, "x"), (2, "x")] and tally.more_forfeits == 99_997


def test_the_first_failure_and_reason_are_kept() -> None:
    tally = Tally.of(
        [
            GameRecord(Outcome.WON, 5, 5, 5, 0.1),
            GameRecord(error="ZeroDivisionError: oops"),
            GameRecord(error="later"),
            GameRecord(unavailable="no cycle"),
            GameRecord(Outcome.DIED, 1, 1, 1, 0.1, cause="engine exited", forfeited=True),
            GameRecord(Outcome.DIED, 1, 1, 1, 0.1, cause="hit the wall"),
            GameRecord(
                Outcome.DIED, 1, 1, 1, 0.1, cause="plugin p raised KeyError: 1", forfeited=True
            ),
        ]
    )
    assert tally.first_error == (1, "ZeroDivisionError: oops")
    assert tally.unavailable == "no cycle"
    # A bot's own fault is told game by game; a death by the rules is not.
    assert tally.forfeits == [(4, "engine exited"), (6, "plugin p raised KeyError: 1")]
