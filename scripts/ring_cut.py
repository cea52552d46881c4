#!/usr/bin/env python3
"""The tree on a cut with a ring block winding round each island, against the cut `best` plays.

Usage: python scripts/ring_cut.py LEVEL [--games N] [--seed S] [--jobs N] [--grids K]
An island is a group of walls (touching at sides or corners) that touches no wall on the
board's edge, like the cross in the middle of `rooms`. Every cycle of the blocks goes round no
island; a ring block does: the free cells next to the island, in order round it, with a detour
through each cell of a one-wide lane next to it (a doorway's other cell), on the side that leaves
every part of the rest half light, half dark. The tiler cuts each part of the rest on its own.
It plays N games of the tree held to each of the first K such grids (by the ways' spread) and
to the cut `best` plays, start length 1, seeds S to S+N-1, and prints the mean moves.
"""

from __future__ import annotations

import argparse
from multiprocessing import Pool

import termsnake.solvers.celltree.solver as tree_solver
from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Point
from termsnake.core.level import with_length
from termsnake.formats.presets import load_level
from termsnake.solvers.base import play
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import (
    TURNINGS,
    BlockGrid,
    build_tiled_grid,
    cuts,
    spread,
)
from termsnake.solvers.celltree.tiling import Rect, cuts_of
from termsnake.solvers.celltree.walls import wall_groups

_SIDES = ((1, 0), (-1, 0), (0, 1), (0, -1))


def islands(board: Board) -> list[set[Point]]:
    """The groups of walls, joined at sides or corners, that touch no edge of the board."""
    w, h = board.width, board.height
    return [
        set(group)
        for group in wall_groups(board)
        if all(0 < p.x < w - 1 and 0 < p.y < h - 1 for p in group)
    ]


def parts(board: Board) -> list[list[Point]]:
    """The connected parts of the free cells."""
    seen: set[Point] = set()
    out = []
    for start in board.free_cells:
        if start in seen:
            continue
        seen.add(start)
        part = [start]
        for p in part:
            for _, q in board.neighbours(p):
                if q not in seen:
                    seen.add(q)
                    part.append(q)
        out.append(part)
    return out


def ring(board: Board, island: set[Point], sides: int) -> list[Point] | None:
    """The ring round ``island``, counterclockwise (as the rims of turning 0); the k-th lane cell
    is reached from its (k-th bit of ``sides``) second neighbour. None if the free cells next to
    the island are not one loop, or a lane cell has no detour."""
    near = {Point(p.x + dx, p.y + dy) for p in island for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    cells = {p for p in near if board.is_free(p)}
    nbrs = {p: [q for _, q in board.neighbours(p) if q in cells] for p in cells}
    if not cells or any(len(v) != 2 for v in nbrs.values()):
        return None
    start = min(cells, key=lambda p: (p.y, p.x))
    order = [start, Point(start.x, start.y + 1)]  # down the left side first
    if order[1] not in cells:
        return None
    while True:
        a, b = order[-2], order[-1]
        n = nbrs[b][0] if nbrs[b][0] != a else nbrs[b][1]
        if n == start:
            break
        order.append(n)
    if len(order) != len(cells):
        return None
    lane = 0
    while (cell := _lane_cell(board, order)) is not None:
        around = [q for _, q in board.neighbours(cell) if q not in order]
        pick = (sides >> lane) & 1
        lane += 1
        if not _detour(order, cell, around[pick:] + around[:pick]):
            return None
    return order


def _lane_cell(board: Board, order: list[Point]) -> Point | None:
    """A free cell off the ring in no 2x2 square of free cells off the ring, if any."""
    taken = set(order)

    def off(p: Point) -> bool:
        return board.is_free(p) and p not in taken

    for p in board.free_cells:
        if p in taken:
            continue
        squares = ((p.x + a, p.y + b) for a in (-1, 0) for b in (-1, 0))
        if not any(
            all(off(Point(x + i, y + j)) for i in (0, 1) for j in (0, 1)) for x, y in squares
        ):
            return p
    return None


def _detour(order: list[Point], cell: Point, partners: list[Point]) -> bool:
    """Take ``cell`` and a neighbour of it into the ring between two ring cells next to them."""
    at = {p: i for i, p in enumerate(order)}
    for partner in partners:
        for dx, dy in _SIDES:
            r = Point(cell.x + dx, cell.y + dy)
            if r not in at:
                continue
            i = at[r]
            for j in (i - 1, (i + 1) % len(order)):
                s = order[j]
                if abs(s.x - partner.x) + abs(s.y - partner.y) != 1:
                    continue
                if j == i - 1:
                    order[i:i] = [partner, cell]  # s, partner, cell, r
                else:
                    order[j:j] = [cell, partner]  # r, cell, partner, s
                return True
    return False


def ring_grids(board: Board) -> list[BlockGrid]:
    """The grids with a ring block round each island, by spread; none if some part fails."""
    groups = islands(board)
    for sides in range(1 << 4):
        rings = [ring(board, island, sides) for island in groups]
        if not rings or any(r is None for r in rings):
            return []
        taken = {p for r in rings if r is not None for p in r}
        rest = board.with_walls(taken)
        pieces = parts(rest)
        if all(2 * sum((p.x + p.y) % 2 for p in part) == len(part) for part in pieces):
            break
    else:
        return []
    per_part: list[tuple[tuple[Rect, ...], ...]] = []
    free = set(rest.free_cells)
    for part in pieces:
        found = cuts_of(rest.with_walls(free - set(part)))
        if isinstance(found, str):
            return []
        per_part.append(found)
    most = max(len(found) for found in per_part)
    grids = [
        build_tiled_grid(
            board,
            turning,
            [r for found in per_part for r in found[min(k, len(found) - 1)]],
            [r for r in rings if r is not None],
        )
        for k in range(most)
        for turning in TURNINGS
    ]
    return sorted(grids, key=spread)


def _grids(level: str, count: int) -> list[BlockGrid]:
    board = load_level(level).board
    plain = next(g for g in cuts(board) if not isinstance(g, str))
    return [plain, *ring_grids(board)[:count]]


def _play(job: tuple[str, int, int, int]) -> tuple[int, int, bool]:
    level, count, index, seed = job
    grid = _grids(level, count)[index]
    # Hold the solver to this one grid: its set-up takes the first of the cuts it is given.
    setattr(tree_solver, "cuts", lambda board: iter([grid]))  # noqa: B010
    game = Game(with_length(load_level(level), 1), seed)
    play(game, TreeSolver())
    return index, game.steps, game.length == game.board.free_count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("level")
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--grids", type=int, default=2)
    args = parser.parse_args()
    if args.games < 1 or args.grids < 1:
        parser.error("--games and --grids must be at least 1")
    grids = _grids(args.level, args.grids)
    if len(grids) == 1:
        raise SystemExit(f"ring_cut: no cut with a ring round every island of {args.level}")
    seeds = range(args.seed, args.seed + args.games)
    jobs = [(args.level, args.grids, i, s) for i in range(len(grids)) for s in seeds]
    steps: dict[int, list[int]] = {i: [] for i in range(len(grids))}
    lost = 0
    with Pool(args.jobs) as pool:
        for index, moves, won in pool.imap_unordered(_play, jobs):
            steps[index].append(moves)
            lost += not won
    print("| grid | blocks | mean moves |")
    print("| --- | ---: | ---: |")
    for i, grid in enumerate(grids):
        name = "the cut `best` plays" if i == 0 else f"ring {i}"
        print(f"| {name} | {len(grid.blocks)} | {sum(steps[i]) / len(steps[i]):,.1f} |")
    print(f"games not won: {lost}")


if __name__ == "__main__":
    main()
