#!/usr/bin/env python3
"""The cell tree with some of its knobs set: games, moves and how its opening went.

Usage: python scripts/tree_knobs.py BOARD [--games N] [--seed S] [--jobs J] [FIELD=VALUE ...]
BOARD is an open board (20x20), a preset (maze) or a level file; FIELD=VALUE sets a field of
TreeConfig (an int, e.g. opening_percent=30). It plays N games of ``tree`` from start length 1,
seeds S to S+N-1, and prints the mean moves, steps/bound (as ``termsnake bench`` counts it), the
outcomes, the CPU time a move (the games' own, set-up aside, in their worker processes), and
how many moves of the opening walked an escape checked with each lag (-1: none held, so the last
one was kept unchecked; 1073741824: along a harbour cycle).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from collections import Counter
from multiprocessing import Pool
from typing import Any

from termsnake.bench.games import LevelSpec, food_bound
from termsnake.core.game import Game
from termsnake.core.level import Level
from termsnake.solvers.celltree import TreeConfig, TreeSolver

Job = tuple[Level, int, dict[str, Any]]


def _play(job: Job) -> tuple[str, int, int, Counter[int], float]:
    level, seed, fields = job
    game = Game(level, seed)
    solver = TreeSolver(dataclasses.replace(TreeConfig(), **fields))
    solver.setup(game)
    lags: Counter[int] = Counter()
    began = time.process_time()
    while not game.over:
        direction = solver.next_direction(game)
        opening = solver.opening
        if opening is not None and opening.chosen >= 0 and not opening.way:
            lags[opening.lag] += 1
        game.step(direction)
    outcome = game.outcome.value if game.outcome else "?"
    return outcome, game.steps, food_bound(game), lags, time.process_time() - began


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("board")
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("fields", nargs="*", metavar="FIELD=VALUE")
    args = parser.parse_intermixed_args()
    fields: dict[str, Any] = {k: int(v) for k, v in (f.split("=", 1) for f in args.fields)}
    kind = "size" if "x" in args.board and args.board.replace("x", "").isdigit() else "level"
    level = LevelSpec(kind, args.board, 1).load()  # read once, here
    jobs = [(level, args.seed + i, fields) for i in range(args.games)]
    with Pool(args.jobs) as pool:
        results = pool.map(_play, jobs)
    steps = sum(r[1] for r in results)
    bound = sum(r[2] for r in results)
    cpu_ms = 1000 * sum(r[4] for r in results) / max(1, steps)
    lags: Counter[int] = Counter()
    for r in results:
        lags.update(r[3])
    print(
        f"{args.board} {' '.join(args.fields) or '(defaults)'}: "
        f"mean {steps / len(results):,.1f} moves, steps/bound {steps / max(1, bound):.2f}, "
        f"outcomes {dict(Counter(r[0] for r in results))}, CPU {cpu_ms:.3f} ms a move, "
        f"escape moves by lag {dict(sorted(lags.items()))}"
    )


if __name__ == "__main__":
    main()
