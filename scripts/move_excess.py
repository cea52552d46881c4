#!/usr/bin/env python3
"""Where the cell tree's moves go: per tenth of the board filled, moves per food against two
floors, and against whether the tree's first path to the food would cut blocks off.

Usage: python scripts/move_excess.py BOARD [--games N] [--seed S] [--jobs J]
BOARD is an open board (20x20), a preset (pillars) or a level file. It plays N games of
``tree`` from start length 1, seeds S to S+N-1, and prints, for each tenth of the free cells the
snake filled when it ate: the foods, the mean moves per food, the walls-only distance (the
bench's bound), the distance round the body (a cell of it free once the tail has left), and,
for the foods whose first planned path would have cut blocks off and for the others, how many
there were and their mean moves and distance round the body.
"""

from __future__ import annotations

import argparse
from collections import deque
from multiprocessing import Pool

from termsnake.bench.games import LevelSpec
from termsnake.core.game import Game
from termsnake.core.level import Level
from termsnake.solvers.celltree import TreeSolver

BANDS = 10
# Per band: foods, moves, walls-only distance, distance round the body, then foods, moves and
# distance round the body of the foods whose first path cut blocks off.
Row = list[int]


def round_body(game: Game) -> int:
    """The fewest moves from the head to the food, a body cell passable once the tail has left
    it (``len(game.body)`` if the food cannot be reached so)."""
    body = list(game.body)
    free_at = {p: len(body) - i for i, p in enumerate(body)}  # the tail leaves at the first move
    dist = {body[0]: 0}
    queue = deque([body[0]])
    while queue:
        c = queue.popleft()
        if c == game.food:
            return dist[c]
        t = dist[c] + 1
        for _, n in game.board.neighbours(c):
            if n not in dist and free_at.get(n, 0) < t:
                dist[n] = t
                queue.append(n)
    return len(body)


def walls_only(game: Game) -> int:
    """The walls-only distance from the head to the food (the bench's bound for it)."""
    assert game.food is not None
    return game.board.distance_map(game.head)[game.food]


def _play(job: tuple[Level, int]) -> list[Row]:
    level, seed = job
    game = Game(level, seed)
    solver = TreeSolver()
    solver.setup(game)
    rows = [[0] * 7 for _ in range(BANDS)]
    free = game.board.free_count
    start, cut = 0, False
    walls = walls_only(game)
    around = round_body(game)
    fresh = True  # the first move toward this food is still to come
    while not game.over:
        ate = game.step(solver.next_direction(game)).ate
        if fresh and solver.policy is not None:
            # The live planner's last path, if it planned this move (not a route kept, the
            # late game or the opening).
            serial, _, cuts = solver.policy.planner.kept
            cut = serial == solver.policy.mirror.serial and cuts != []
            fresh = False
        if not ate:
            continue
        row = rows[min(BANDS - 1, (game.length - 1) * BANDS // free)]
        moves = game.steps - start
        for k, v in enumerate((1, moves, walls, around)):
            row[k] += v
        if cut:
            for k, v in enumerate((1, moves, around), start=4):
                row[k] += v
        if game.over:
            break
        start, fresh = game.steps, True
        walls = walls_only(game)
        around = round_body(game)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("board")
    parser.add_argument("--games", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    kind = "size" if "x" in args.board and args.board.replace("x", "").isdigit() else "level"
    level = LevelSpec(kind, args.board, 1).load()  # read once, here
    with Pool(args.jobs) as pool:
        games = pool.map(_play, [(level, args.seed + i) for i in range(args.games)])
    print(
        "| filled | foods | moves | walls | round the body | cut: foods | moves | round the body "
        "| not cut: moves | round the body |"
    )
    print("| --- |" + " ---: |" * 9)
    for band in range(BANDS):
        f, m, w, r, cf, cm, cr = (sum(g[band][k] for g in games) for k in range(7))
        nf, f = f - cf, max(f, 1)
        print(
            f"| {10 * band}-{10 * band + 10}% | {f} | {m / f:.1f} | {w / f:.1f} | {r / f:.1f} "
            f"| {cf} | {cm / max(cf, 1):.1f} | {cr / max(cf, 1):.1f} "
            f"| {(m - cm) / max(nf, 1):.1f} | {(r - cr) / max(nf, 1):.1f} |"
        )


if __name__ == "__main__":
    main()
