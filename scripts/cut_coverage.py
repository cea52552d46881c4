#!/usr/bin/env python3
"""How many random walled boards the cell tree can cut into blocks, and how long cutting takes.

Usage: python scripts/cut_coverage.py [--boards N] [--seed S]
It draws N boards (8-20 by 8-16 cells, one to six walls of 1x1 to 4x1 or 2x3 anywhere, a fifth
of them wrapping) and sorts them: odd or unbalanced (no cycle can exist), cut into rectangles,
cut only with notched blocks too, or not cut; the boards not cut are then searched for a
Hamiltonian cycle (``find_cycle``): those with one are the boards ``best`` plays with replan.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

from termsnake.core.board import Board
from termsnake.solvers.celltree import tiling
from termsnake.solvers.hampath.cycles import find_cycle

_WALLS = [(1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (1, 4), (4, 1), (2, 3), (3, 2)]


def _board(rng: random.Random) -> Board:
    w, h = rng.randint(8, 20), rng.randint(8, 16)
    rows = [["."] * w for _ in range(h)]
    for _ in range(rng.randint(1, 6)):
        x, y = rng.randrange(w), rng.randrange(h)
        bw, bh = rng.choice(_WALLS)
        for dy in range(bh):
            for dx in range(bw):
                if x + dx < w and y + dy < h:
                    rows[y + dy][x + dx] = "#"
    return Board.from_rows(["".join(r) for r in rows], wrap=rng.random() < 0.2)


def _sort(board: Board) -> tuple[str, float]:
    """Which kind of board it is, and the seconds cutting it took."""
    light = sum((p.x + p.y) % 2 for p in board.free_cells)
    odd_wrap = board.wrap and (board.width % 2 or board.height % 2)
    if board.size % 2 or (2 * light != board.size and not odd_wrap):
        return "odd or unbalanced", 0.0
    start = time.perf_counter()
    cuts = tiling.cuts_of.__wrapped__(board)
    took = time.perf_counter() - start
    if not isinstance(cuts, str):
        # getattr: the script also runs on commits from before notched blocks, for comparison.
        notched = all(any(getattr(r, "missing", ()) for r in cut) for cut in cuts)
        return ("cut only with notched blocks" if notched else "cut into rectangles"), took
    status = find_cycle(board).status
    return f"not cut, cycle {status}", took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--boards", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds: Counter[str] = Counter()
    times = []
    for _ in range(args.boards):
        kind, took = _sort(_board(rng))
        kinds[kind] += 1
        if took:
            times.append(took)
    for kind, count in sorted(kinds.items()):
        print(f"{kind}: {count}")
    if times:
        times.sort()
        print(
            f"cutting: median {times[len(times) // 2]:.2f} s, "
            f"slowest {times[-1]:.2f} s over {len(times)} boards"
        )


if __name__ == "__main__":
    main()
