"""The speed ladder of the +/- keys."""

from __future__ import annotations

from termsnake.core.speed import SPEEDS, faster, slower


def test_speed_keys_walk_the_ladder_and_never_the_wrong_way() -> None:
    assert faster(8) == 10 and slower(8) == 6
    assert faster(SPEEDS[-1]) == SPEEDS[-1] and slower(1) == 1
    for speed in (0.25, 0.5, 1, 7, 8, 450, 999, 1000):
        assert faster(speed) >= speed >= slower(speed)
    assert slower(0.5) == 0.5 and faster(0.5) == 1 and slower(450) == 400
