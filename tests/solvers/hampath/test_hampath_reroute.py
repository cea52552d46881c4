"""Local changes of a cycle at 2x2 squares that bring the food nearer and keep the body."""

from __future__ import annotations

import random

import pytest

from termsnake.core.board import Board
from termsnake.solvers.grid import Grid, grid_of
from termsnake.solvers.hampath import find_cycle
from termsnake.solvers.hampath.reroute import _reversal, reroute

ODD_TORUS = Board.from_rows(
    [".............", ".............", ".............", ".............", "....#...#....",
     ".............", ".............", ".............", "....#...#....", "............."],
    wrap=True,
)  # fmt: skip
PLAIN = [
    Board.open(6, 6),
    Board.from_rows(["........", "..##....", "........", ".....##.", "........", "........"]),
    Board.from_rows(["##........", "##........", "..........", "....##....", "..........",
                     ".........."]),
]  # fmt: skip
WRAPPING = [ODD_TORUS, Board.open(5, 6, wrap=True), Board.open(6, 4, wrap=True)]


def _cases(
    board: Board, count: int, seed: int, least: int = 1
) -> list[tuple[Grid, list[int], int, int]]:
    """Cycles of ``board`` rotated to random tails, with a body length (at least ``least``)
    and a closure cell."""
    found = find_cycle(board)
    assert found.cycle is not None
    grid = grid_of(board)
    cycle = [grid.index(p) for p in found.cycle]
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        turn = rng.randrange(len(cycle))
        order = cycle[turn:] + cycle[:turn]
        if rng.random() < 0.5:
            order = order[:1] + order[1:][::-1]  # the other way round
        body = rng.randrange(least, len(order) - 2)
        out.append((grid, order, body, order[rng.randrange(body, len(order))]))
    return out


def _problem(grid: Grid, old: list[int], new: list[int], body: int, goal: int) -> str | None:
    if sorted(new) != sorted(old):
        return "not the same cells"
    if new[:body] != old[:body]:
        return "the body moved"
    for a, b in zip(new, new[1:] + new[:1], strict=True):
        if b not in grid.adj[a]:
            return f"{grid.points[a]} -> {grid.points[b]} is no move"
    if new.index(goal) >= old.index(goal):
        return "the goal is no nearer"
    return None


@pytest.mark.parametrize("board", PLAIN + WRAPPING, ids=lambda b: f"{b.width}x{b.height}{b.wrap}")
def test_a_change_keeps_the_body_and_brings_the_goal_nearer_on_a_cycle(board: Board) -> None:
    changed = 0
    for grid, order, body, goal in _cases(board, 60, 1):
        new = reroute(grid, order, body, goal)
        if new is not None:
            changed += 1
            assert _problem(grid, order, new, body, goal) is None
    assert changed >= 5  # many goals far round the cycle can be brought nearer


def test_on_a_plane_only_a_snake_of_one_cell_has_a_part_of_the_cycle_to_reverse() -> None:
    # A cycle on a plane runs the two sides of a square opposite ways; a snake of one cell may
    # take its whole cycle the other way round.
    for board in PLAIN:
        assert all(_reversal(g, o, b, x) is None for g, o, b, x in _cases(board, 40, 2, least=2))
        turned = 0
        for grid, order, _, goal in _cases(board, 40, 2):
            new = _reversal(grid, order, 1, goal)
            if new is not None:
                assert new == [order[0], *reversed(order[1:])]
                turned += 1
        assert turned >= 10


def test_nothing_changes_where_the_goal_is_next_to_the_head() -> None:
    grid, order, _, _ = _cases(Board.open(6, 6), 1, 3)[0]
    assert reroute(grid, order, 5, order[5]) is None
