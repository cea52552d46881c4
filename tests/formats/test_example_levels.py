"""The hand-drawn boards in examples/levels/, which the README's bench commands name, load."""

from __future__ import annotations

from pathlib import Path

import pytest
from example_levels import EXAMPLES

from termsnake.formats.levelfile import load_level_file
from termsnake.solvers.deadends import dead_ends


@pytest.mark.parametrize("path", sorted(EXAMPLES.glob("*.txt")), ids=lambda p: p.stem)
def test_every_example_board_loads_with_its_name(path: Path) -> None:
    assert load_level_file(path).name == path.stem


def test_the_alcove_board_is_a_room_with_one_dead_end() -> None:
    board = load_level_file(EXAMPLES / "alcove.txt").board
    assert board.free_count == 401 and len(dead_ends(board)) == 1
