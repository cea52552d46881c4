"""Groups of walls: which walls stand together, and whether some stand in the open, small
enough for a notched block's box to ring them (``tiling`` then looks for cuts with rings)."""

from __future__ import annotations

from itertools import pairwise

from termsnake.core.board import Board
from termsnake.core.geometry import Point


def small_islands(board: Board) -> bool:
    """Whether some group of walls touches no edge of the board and fits a notched block's box
    with a cell round it."""
    w, h = board.width, board.height
    for group in wall_groups(board):
        xs, ys = [p.x for p in group], [p.y for p in group]
        inside = min(xs) > 0 and min(ys) > 0 and max(xs) < w - 1 and max(ys) < h - 1
        if (board.wrap or inside) and _span(xs, w, board.wrap) < 5 and _span(ys, h, board.wrap) < 5:
            return True
    return False


def _span(values: list[int], size: int, wrap: bool) -> int:
    """How far apart the farthest of ``values`` are along a side of ``size`` (the short way
    round, if it wraps)."""
    if not wrap:
        return max(values) - min(values)
    ordered = sorted(set(values))
    gaps = [b - a for a, b in pairwise(ordered)] + [ordered[0] + size - ordered[-1]]
    return size - max(gaps)


def wall_groups(board: Board) -> list[list[Point]]:
    """The groups of walls joined at sides or corners (across the edges, if the board wraps)."""
    walls, w, h = board.walls, board.width, board.height
    seen: set[Point] = set()
    out = []
    for start in sorted(walls):
        if start in seen:
            continue
        seen.add(start)
        group = [start]
        for p in group:
            for dx in (-1, 0, 1):
                for dy in (-1, 0, 1):
                    x, y = p.x + dx, p.y + dy
                    q = Point(x % w, y % h) if board.wrap else Point(x, y)
                    if q in walls and q not in seen:
                        seen.add(q)
                        group.append(q)
        out.append(group)
    return out
