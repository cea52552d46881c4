"""Move histories compress to ``3R2DL`` and expand back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termsnake.core.geometry import Direction
from termsnake.core.moves import TooManyMoves, compress, count_moves, expand, expand_directions


def test_exact_form() -> None:
    assert compress("RRRDDL") == "3R2DL"
    assert compress([Direction.UP] * 12 + [Direction.LEFT]) == "12UL"
    assert compress("") == ""
    assert expand("3R2DL") == "RRRDDL"
    assert expand_directions("2U") == [Direction.UP, Direction.UP]


@given(st.text(alphabet="UDLR", max_size=300))
def test_round_trip(moves: str) -> None:
    packed = compress(moves)
    assert expand(packed) == moves
    assert len(packed) <= len(moves)
    assert count_moves(packed) == len(moves)
    assert expand(packed, limit=len(moves)) == moves


@pytest.mark.parametrize(
    "bad", ["3", "R3", "1R", "0R", "03R", "3X", "R R", "-2R", "\u0663R", "RR", "2R3R", "LR2R"]
)
def test_malformed_histories_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        expand(bad)


def test_a_limit_counts_every_run() -> None:
    assert count_moves("3R2DL") == 6
    assert expand("3R2D", limit=5) == "RRRDD"
    with pytest.raises(TooManyMoves) as info:
        expand("3R2DL", limit=5)
    assert str(info.value) == (
        "the run L at position 4 brings the history to 6 moves, more than the limit of 5"
    )
    with pytest.raises(TooManyMoves, match=r"the run 3U at position 0 .* limit of 2"):
        expand_directions("3U", limit=2)


@pytest.mark.parametrize("count", ["99999999999999999999", "9" * 5000])
def test_a_huge_run_count_is_refused_without_building_it(count: str) -> None:
    with pytest.raises(TooManyMoves) as info:
        expand(f"R{count}D", limit=10_000_000)
    assert "at position 1 is more than the limit of 10000000 moves" in str(info.value)
    assert len(str(info.value)) < 200
    # Without a limit, a count no list could hold is a ValueError too, not an OverflowError.
    with pytest.raises(ValueError, match="more than the limit of"):
        expand(f"{count}R")


def test_a_run_written_twice_is_named() -> None:
    # DESIGN: a run of n > 1 equal moves is written nX; "R2R" is no history compress wrote.
    with pytest.raises(ValueError) as info:
        expand("DR2R")
    assert str(info.value) == (
        "two runs of R one after the other at position 2 of a move history"
        " (a run is written once, as nX)"
    )
