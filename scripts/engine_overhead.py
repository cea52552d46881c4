#!/usr/bin/env python3
"""What the engine protocol costs a move: the example bot as an engine, against the same bot
called in this process, on the same games.

Usage: python scripts/engine_overhead.py [--games N] [--size WxH]
Both sides time the whole decision; the difference is the protocol (JSON, pipes, a context
switch). The C example, built with `cc -O2`, shows the cost with almost no thinking at all.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections import deque
from pathlib import Path

from termsnake.core.game import Game
from termsnake.core.geometry import Direction
from termsnake.core.level import open_level
from termsnake.solvers.base import PlayStats, play
from termsnake.solvers.engine import EngineSolver

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "engines"
sys.path.insert(0, str(EXAMPLES))
import greedy_engine  # noqa: E402 - the example, imported from its folder


class InProcess:
    """The Python example's bot, called directly: the same moves, no protocol."""

    name = "greedy-in-process"

    def setup(self, game: Game) -> None:
        rows = list(game.board.rows())
        info = {"width": game.board.width, "height": game.board.height, "wrap": False, "rows": rows}
        self.board = greedy_engine.Board(info)
        self.body = deque((p.x, p.y) for p in game.body)

    def next_direction(self, game: Game) -> Direction:
        food = [game.food.x, game.food.y] if game.food else None
        move = greedy_engine.choose(self.board, self.body, food)
        head = self.board.step(self.body[0], move)
        if head is None:  # off the board: the game ends with this move
            return Direction(move)
        self.body.appendleft(head)
        if food is None or list(head) != food:
            self.body.pop()
        return Direction(move)

    def overlay(self, game: Game) -> dict[object, str]:
        return {}


def per_move(make: object, games: int, size: tuple[int, int]) -> tuple[float, list[list[str]]]:
    """Median over games of the mean decision time a move (ms), and every game's moves."""
    times, moves = [], []
    for seed in range(1, games + 1):
        game = Game(open_level(*size, 1), seed)
        stats = PlayStats()
        play(game, make(), stats=stats)  # type: ignore[operator]
        times.append(1000 * statistics.fmean(stats.think_times))
        moves.append([d.value for d in game.moves])
    return statistics.median(times), moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--size", default="8x8")
    args = parser.parse_args()
    size = tuple(int(v) for v in args.size.split("x"))
    here, here_moves = per_move(InProcess, args.games, size)  # type: ignore[arg-type]
    command = f"{sys.executable} {EXAMPLES / 'greedy_engine.py'}"
    there, there_moves = per_move(lambda: EngineSolver(command), args.games, size)  # type: ignore[arg-type]
    assert here_moves == there_moves, "the engine and the in-process bot played differently"
    print(
        f"Python example, {args.games} games on {args.size}: in process {here:.4f} ms a move, "
        f"as an engine {there:.4f} ms: the protocol costs {there - here:.4f} ms a move"
    )
    cc = shutil.which("cc")
    if cc:
        with tempfile.TemporaryDirectory() as tmp:
            binary = Path(tmp) / "greedy_engine"
            subprocess.run(
                [cc, "-O2", "-o", str(binary), str(EXAMPLES / "greedy_engine.c")], check=True
            )
            c_time, c_moves = per_move(lambda: EngineSolver(str(binary)), args.games, size)  # type: ignore[arg-type]
        assert c_moves == here_moves
        print(f"C example as an engine: {c_time:.4f} ms a move, thinking included")


if __name__ == "__main__":
    main()
