"""``grid_of``: the board as an int-indexed graph, the same as a cell-by-cell reading of it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.geometry import DIRECTIONS, Point
from termsnake.solvers.grid import Grid, grid_of


def cell_by_cell(board: Board) -> Grid:
    """The grid read a cell at a time with Board.step: what grid_of must equal."""
    w, h = board.width, board.height
    n = w * h
    points = tuple(Point(i % w, i // w) for i in range(n))
    free = tuple(board.is_free(p) for p in points)
    step_rows = [[-1] * n for _ in DIRECTIONS]
    adj: list[tuple[int, ...]] = []
    for i, p in enumerate(points):
        seen: list[int] = []
        if free[i]:
            for d, direction in enumerate(DIRECTIONS):
                q = board.step(p, direction)
                if q is None or not free[q.y * w + q.x] or q == p:
                    continue
                j = q.y * w + q.x
                step_rows[d][i] = j
                if j not in seen:
                    seen.append(j)
        adj.append(tuple(seen))
    step = tuple(tuple(row) for row in step_rows)
    walls = bytes(0 if f else 1 for f in free)
    degree = tuple(len(a) for a in adj)
    dark = sum(1 for p in points if free[p.y * w + p.x] and (p.x + p.y) % 2)
    return Grid(board, w, h, n, points, free, step, tuple(adj), walls, degree, dark)


FIELDS = ("width", "height", "cells", "points", "free", "step", "adj", "walls", "degree", "dark")


@st.composite
def boards(draw: st.DrawFn) -> Board:
    w, h = draw(st.integers(1, 7)), draw(st.integers(1, 7))
    cells = [Point(x, y) for y in range(h) for x in range(w)]
    walls = draw(st.sets(st.sampled_from(cells), max_size=len(cells) - 1))
    return Board(w, h, frozenset(walls), draw(st.booleans()))


@given(boards())
@settings(max_examples=100, deadline=None)
def test_grid_of_reads_every_board_as_cell_by_cell_does(board: Board) -> None:
    fast, slow = grid_of(board), cell_by_cell(board)
    for name in FIELDS:
        assert getattr(fast, name) == getattr(slow, name), name
    assert all(type(a) is tuple for a in fast.adj) and type(fast.walls) is bytes
