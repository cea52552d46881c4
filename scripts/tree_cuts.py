#!/usr/bin/env python3
"""Every cut of a walled board the tree tries, in its order, and how well each plays.

Usage: python scripts/tree_cuts.py LEVEL [--games N] [--seed S] [--jobs N] [--notched]
For each grid (a cut into 2x2, 2x3 and 3x2 blocks, one turning) it prints the blocks, the
stretch (moves along the blocks' ways over moves on the board, summed from every 7th cell) and
the mean moves of N games of the tree held to that grid, start length 1, seeds S to S+N-1.
With --notched, the grids are the cuts with notched blocks instead (``tiling`` cuts a board so
only where no cut into rectangles is found), each offset and order, those with a notched block.
"""

from __future__ import annotations

import argparse
from collections import deque
from collections.abc import Callable, Iterable
from multiprocessing import Pool

import termsnake.solvers.celltree.solver as tree_solver
from termsnake.core.game import Game
from termsnake.core.level import with_length
from termsnake.formats import presets
from termsnake.solvers.base import play
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import TURNINGS, BlockGrid, build_tiled_grid, cuts
from termsnake.solvers.celltree.tiling import ANY_NOTCH, OFFSETS, Rect, tile


def _grids(level: str, notched: bool = False) -> list[BlockGrid]:
    board = presets.load_preset(level).board
    if not notched:
        return [g for g in cuts(board) if not isinstance(g, str)]
    found: list[tuple[Rect, ...]] = []
    for squares_first in (False, True):
        for offset in OFFSETS:
            cut = tile(board, offset, squares_first=squares_first, notched=ANY_NOTCH)
            if not isinstance(cut, str) and cut not in found and any(r.missing for r in cut):
                found.append(cut)
    return [build_tiled_grid(board, t, list(cut)) for cut in found for t in TURNINGS]


def _moves_from(source: int, step: Callable[[int], Iterable[int]]) -> int:
    dist = {source: 0}
    queue = deque([source])
    while queue:
        a = queue.popleft()
        for b in step(a):
            if b not in dist:
                dist[b] = dist[a] + 1
                queue.append(b)
    return sum(dist.values())


def stretch(grid: BlockGrid) -> float:
    """Moves along the ways over moves on the board, from every 7th free cell to all."""
    sources = grid.open_cells[::7]
    ways = sum(_moves_from(s, lambda a: grid.ways[a]) for s in sources)
    board = sum(_moves_from(s, lambda a: grid.nbrs[a]) for s in sources)
    return ways / board


def _play(job: tuple[str, bool, int, int]) -> tuple[int, int]:
    level, notched, index, seed = job
    grid = _grids(level, notched)[index]
    # Hold the solver to this one grid: its set-up takes the first of the cuts it is given.
    setattr(tree_solver, "cuts", lambda board: iter([grid]))  # noqa: B010
    game = Game(with_length(presets.load_preset(level), 1), seed)
    play(game, TreeSolver())
    return index, game.steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("level")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--notched", action="store_true")
    args = parser.parse_args()
    grids = _grids(args.level, args.notched)
    seeds = range(args.seed, args.seed + args.games)
    jobs = [(args.level, args.notched, i, s) for i in range(len(grids)) for s in seeds]
    steps: dict[int, list[int]] = {i: [] for i in range(len(grids))}
    with Pool(args.jobs) as pool:
        for index, moves in pool.imap_unordered(_play, jobs):
            steps[index].append(moves)
    print("| order | blocks | stretch | mean moves |")
    print("| ---: | ---: | ---: | ---: |")
    for i, grid in enumerate(grids):
        mean = sum(steps[i]) / len(steps[i])
        print(f"| {i + 1} | {len(grid.blocks)} | {stretch(grid):.3f} | {mean:,.0f} |")


if __name__ == "__main__":
    main()
