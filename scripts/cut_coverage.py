#!/usr/bin/env python3
"""How many random walled boards the cell tree can cut into blocks, and how long cutting takes.

Usage: python scripts/cut_coverage.py [--boards N] [--seed S] [--play]
It draws N boards (8-20 by 8-16 cells, one to six walls of 1x1 to 4x1 or 2x3 anywhere, a fifth
of them wrapping) and sorts them: odd or unbalanced (no cycle can exist), cut into rectangles,
cut only with notched blocks too, or not cut; the boards not cut are then searched for a
Hamiltonian cycle (``find_cycle``): those with one are the boards ``best`` plays with replan.
With ``--play`` it also plays one game of ``best`` (start length 1, from the first free cell,
food seed the board's number) on each board that has no Hamiltonian cycle, and prints, for each
solver ``best`` chose, the games, the wins and the mean final length over the free cells and
over the game's cap, the length at which the first food fell in a dead end (a long snake cannot
eat it and live; the food's place depends on where the body lies, so each game has its own);
and the same for ``greedy`` on the same boards and seeds.
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter, defaultdict
from multiprocessing import Pool

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.solvers.base import play
from termsnake.solvers.best import BestSolver
from termsnake.solvers.celltree import tiling
from termsnake.solvers.deadends import dead_ends
from termsnake.solvers.greedy import GreedySolver
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


def _colours_off(board: Board) -> int | None:
    """By how many the board's light and dark free cells differ; None on a board that wraps
    with an odd side, where the colours do not alternate."""
    if board.wrap and (board.width % 2 or board.height % 2):
        return None
    return abs(2 * sum((p.x + p.y) % 2 for p in board.free_cells) - board.free_count)


def _sort(board: Board) -> tuple[str, float]:
    """Which kind of board it is, and the seconds cutting it took."""
    if board.free_count % 2 or _colours_off(board):
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


def _cap(game: Game, ends: frozenset[Point]) -> int:
    """The length at which the first food fell in a dead end (``deadends``), where a long snake
    cannot eat it and live; the board's size if none did."""
    trapped = next((i for i, (_, p) in enumerate(game.foods) if p in ends), None)
    return game.board.free_count if trapped is None else game.start_length + trapped


def _play(job: tuple[Board, int]) -> tuple[str, bool, float, float, float, float]:
    """Who ``best`` plays the board with, whether it won, the final length's share of the free
    cells and of the game's *cap* (the length when the first food fell in a dead end), and the
    same two shares for ``greedy`` on the same board and seed."""
    board, seed = job
    level = Level(board, (board.free_cells[0],), Direction.RIGHT)
    ends = dead_ends(board)
    game = Game(level, seed)
    solver = BestSolver()
    solver.setup(game)
    play(game, solver)
    greedy = Game(level, seed)
    play(greedy, GreedySolver())
    shares = [(g.length / board.free_count, g.length / _cap(g, ends)) for g in (game, greedy)]
    return solver.played, game.outcome is Outcome.WON, *shares[0], *shares[1]


def _shape(board: Board) -> str:
    """How far the board is from a Hamiltonian cycle: by how many its light and dark cells
    differ, or an odd wrap (no colours); and whether it has a trap, a free cell with at most one
    free neighbour, which a snake that eats there cannot leave."""
    off = _colours_off(board)
    kind = "odd wrap" if off is None else f"colours off by {off if off < 3 else '3 or more'}"
    trap = any(len(list(board.neighbours(p))) <= 1 for p in board.free_cells)
    return f"{kind}, {'a trap' if trap else 'no trap'}"


def _report_play(boards: list[Board]) -> None:
    with Pool(2) as pool:
        games = pool.map(_play, [(b, i + 1) for i, b in enumerate(boards)])
    by: defaultdict[str, list[tuple[bool, float, float, float, float]]] = defaultdict(list)
    for board, (who, won, share, of_cap, greedy, greedy_of_cap) in zip(boards, games, strict=True):
        for key in (who, f"{_shape(board)}, {who}"):
            by[key].append((won, share, of_cap, greedy, greedy_of_cap))
    for who, rows in sorted(by.items(), key=lambda kv: ("," in kv[0], kv[0])):
        wins = sum(won for won, *_ in rows)
        share, of_cap, greedy, greedy_of_cap = (
            sum(r[i] for r in rows) / len(rows) for i in (1, 2, 3, 4)
        )
        print(
            f"best played {who}: {len(rows)} boards, {wins} won, mean final length {share:.1%}"
            f" ({of_cap:.1%} of the cap); greedy {greedy:.1%} ({greedy_of_cap:.1%} of the cap)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    parser.add_argument("--boards", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--play", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    kinds: Counter[str] = Counter()
    times = []
    no_cycle = []
    for _ in range(args.boards):
        board = _board(rng)
        kind, took = _sort(board)
        kinds[kind] += 1
        if took:
            times.append(took)
        if kind in ("odd or unbalanced", "not cut, cycle none"):
            no_cycle.append(board)
    for kind, count in sorted(kinds.items()):
        print(f"{kind}: {count}")
    if times:
        times.sort()
        print(
            f"cutting: median {times[len(times) // 2]:.2f} s, "
            f"slowest {times[-1]:.2f} s over {len(times)} boards"
        )
    if args.play:
        _report_play(no_cycle)


if __name__ == "__main__":
    main()
