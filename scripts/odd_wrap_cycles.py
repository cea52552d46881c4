#!/usr/bin/env python3
"""What ``find_cycle`` answers on random boards that wrap with an odd side, and how fast.

Usage: python scripts/odd_wrap_cycles.py [--boards N] [--seed S] [--walls few|more]
Each board is 5-31 cells a side, at least one side odd, wrapping, with 1x1, 1x2 and 2x2 walls
scattered (few: about one a 60 cells; more: one a 25); boards whose free cells are not all
connected, or where a cell has fewer than two free neighbours, are drawn again. It prints how
many got a cycle (each checked), none, or "unknown" (the search gave up), and the median and
slowest time of a board (CPU seconds, the board's arrays built afresh each time).
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections import Counter

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import check_cycle, find_cycle

SHAPES = ((1, 1), (1, 2), (2, 1), (2, 2))
CELLS_A_WALL = {"few": 60, "more": 25}


def odd_board(rng: random.Random, cells_a_wall: int) -> Board:
    """A random wrapping board with an odd side whose cells are connected, none a dead end."""
    while True:
        width, height = rng.randrange(5, 32), rng.randrange(5, 32)
        if width % 2 == 0 and height % 2 == 0:
            continue
        walls: set[Point] = set()
        for _ in range(max(1, width * height // cells_a_wall)):
            w, h = rng.choice(SHAPES)
            x, y = rng.randrange(width), rng.randrange(height)
            walls |= {Point((x + i) % width, (y + j) % height) for i in range(w) for j in range(h)}
        board = Board(width, height, frozenset(walls), wrap=True)
        if _playable(board):
            return board


def _playable(board: Board) -> bool:
    grid = grid_of(board)
    cells = [grid.index(p) for p in board.free_cells]
    if len(cells) < 3 or any(len(grid.adj[c]) < 2 for c in cells):
        return False
    seen, stack = {cells[0]}, [cells[0]]
    while stack:
        for v in grid.adj[stack.pop()]:
            if v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == len(cells)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--boards", type=int, default=150)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--walls", choices=sorted(CELLS_A_WALL), default="few")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    answers: Counter[str] = Counter()
    times = []
    for _ in range(args.boards):
        board = odd_board(rng, CELLS_A_WALL[args.walls])
        grid_of.cache_clear()
        t0 = time.process_time()
        result = find_cycle(board)
        times.append(time.process_time() - t0)
        if result.cycle is not None:
            assert check_cycle(board, result.cycle) == [], board.rows()
        answers[result.status] += 1
    print(
        f"{args.boards} boards ({args.walls} walls): found {answers['found']}, "
        f"none {answers['none']}, unknown {answers['unknown']}; "
        f"median {statistics.median(times):.3f} s, slowest {max(times):.3f} s"
    )


if __name__ == "__main__":
    main()
