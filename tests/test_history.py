"""Move histories compress to ``3R2DL`` and expand back."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from termsnake.geometry import Direction
from termsnake.history import compress, expand, expand_directions


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


@pytest.mark.parametrize("bad", ["3", "R3", "1R", "0R", "03R", "3X", "R R", "-2R"])
def test_malformed_histories_are_refused(bad: str) -> None:
    with pytest.raises(ValueError):
        expand(bad)
