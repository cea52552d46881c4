#!/usr/bin/env python3
"""How long the 2-factor cycle finder takes, board by board, and whether it finds a cycle.

Usage: python scripts/twofactor_times.py [--repeat N] [--limit N]
Each time is the median of N cold runs (the board's int arrays built afresh every run). The
"walled rings" boards have a cycle for sure (bands two or three wide, each 3x3 piece's centre
walled); the "scattered" ones have as many light as dark single walls and may have none.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.formats import presets
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import Limit, check_cycle, find_cycle
from termsnake.solvers.hampath.twofactor import TWO_FACTOR_LIMIT, find_two_factor_cycle


def ringed(width: int, height: int, seed: int, *, wrap: bool = False) -> Board:
    """Bands two or three wide both ways; the centre of every 3x3 piece is a wall."""
    rng = random.Random(seed)

    def bands(n: int) -> list[tuple[int, int]]:
        out, pos = [], 0
        while pos < n:
            left = n - pos
            size = left if left in (2, 3) else 2 if left == 4 else rng.choice((2, 3))
            out.append((pos, size))
            pos += size
        return out

    walls = {
        Point(x + 1, y + 1)
        for x, sw in bands(width)
        for y, sh in bands(height)
        if sw == 3 and sh == 3
    }
    return Board(width, height, frozenset(walls), wrap, f"walled rings {width}x{height} #{seed}")


def scattered(width: int, height: int, pairs: int, seed: int) -> Board:
    """``pairs`` light and ``pairs`` dark single walls, no two touching, no dead end."""
    rng = random.Random(seed)
    while True:
        walls: set[Point] = set()
        need = [pairs, pairs]
        while need[0] or need[1]:
            p = Point(rng.randrange(width), rng.randrange(height))
            near = any(Point(p.x + dx, p.y + dy) in walls for dx in (-1, 0, 1) for dy in (-1, 0, 1))
            if need[(p.x + p.y) % 2] and not near:
                walls.add(p)
                need[(p.x + p.y) % 2] -= 1
        board = Board(width, height, frozenset(walls), name=f"scattered {width}x{height} #{seed}")
        if all(len(list(board.neighbours(p))) >= 2 for p in board.free_cells):
            return board


# The 24x16 board of tests/solvers/test_twofactor.py that the bounded search gives up on.
HARD_24X16 = (
    "........................",
    ".............#........#.",
    "........................",
    ".#.................#....",
    ".............#..........",
    "..........#.............",
    "...................#..#.",
    "................#.......",
    ".#........#.............",
    "...................#..#.",
    "........................",
    ".#........#.............",
    "................#..#..#.",
    "........................",
    ".#........#.............",
    "........................",
)


def two_rooms(side: int) -> Board:
    """Two open squares joined by one door: a 2-factor, but no cycle, so the limit runs out."""
    # The lower room starts in the upper room's last column: one edge joins them.
    upper = "." * side + "#" * (side - 1)
    lower = "#" * (side - 1) + "." * side
    rows = [upper] * side + [lower] * side
    return Board.from_rows(rows, name=f"two {side}x{side} rooms, one door")


def boards() -> list[Board]:
    """The boards of the table in docs/tuning.md."""
    return [
        Board.open(30, 30),
        ringed(30, 30, 1),
        scattered(30, 30, 22, 3),
        scattered(30, 30, 22, 4),
        Board.from_rows(HARD_24X16, name="hard 24x16 (the tests')"),
        *(presets.load_preset(name).board for name in ("maze", "pillars", "rooms", "torus")),
        ringed(100, 100, 1),
        Board.open(200, 200),
        ringed(200, 200, 1),
        ringed(200, 200, 2, wrap=True),
        scattered(200, 200, 200, 0),
        presets.load_preset("dead-end").board,
        scattered(24, 16, 10, 1),
        two_rooms(2),
        two_rooms(12),
    ]


def timed(run: Callable[[], tuple[Point, ...] | None], repeat: int) -> tuple[float, bool]:
    times = []
    found = False
    for _ in range(repeat):
        grid_of.cache_clear()
        start = time.perf_counter()
        found = run() is not None
        times.append(time.perf_counter() - start)
    return statistics.median(times), found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--limit", type=int, default=TWO_FACTOR_LIMIT.nodes)
    args = parser.parse_args()
    print("| board | cells | walls | seconds | found | find_cycle |")
    print("| --- | ---: | ---: | ---: | --- | --- |")
    for board in boards():

        def run(board: Board = board) -> tuple[Point, ...] | None:
            return find_two_factor_cycle(board, Limit(args.limit))

        seconds, found = timed(run, args.repeat)
        cycle = find_two_factor_cycle(board, Limit(args.limit))
        assert cycle is None or check_cycle(board, cycle) == []
        # The bounded search's answer, for comparison; too slow to ask on the biggest boards.
        search = find_cycle(board).status if board.free_count <= 1000 else "-"
        print(
            f"| {board.name} | {board.free_count:,} | {len(board.walls):,} | {seconds:.3f} "
            f"| {'yes' if found else 'no'} | {search} |"
        )


if __name__ == "__main__":
    main()
