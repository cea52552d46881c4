"""``Grid``, the board as an int-indexed graph (cell ``y * width + x``), and the graph helpers
the solvers share: adjacency, BFS, flood fill, long paths."""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial
from types import MappingProxyType
from typing import Final

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import DIRECTIONS, Direction, Point, row_major

# A "free from" time that never comes: cells that stay blocked for the whole search.
BLOCKED = 1 << 30

# Direction numbers follow DIRECTIONS: UP, DOWN, LEFT, RIGHT.
# For each direction we came in by, the order to try next: straight on first, so that among
# equally short paths BFS keeps the one with long straight runs.
_STRAIGHT_FIRST: tuple[tuple[int, ...], ...] = tuple(
    (d, *(e for e in range(4) if e != d)) for d in range(4)
)
# The two directions at right angles to each direction (for pairwise extension).
_PERPENDICULAR: tuple[tuple[int, int], ...] = ((2, 3), (2, 3), (0, 1), (0, 1))


@dataclass(frozen=True, slots=True, eq=False)
class Grid:
    """A board as int arrays: cell index = y * width + x; -1 means a wall or off the board."""

    board: Board
    width: int
    height: int
    cells: int
    points: tuple[Point, ...]
    free: tuple[bool, ...]
    step: tuple[tuple[int, ...], ...]
    adj: tuple[tuple[int, ...], ...]
    walls: bytes  # 1 for a wall, 0 for a free cell: a search's starting "visited" array
    degree: tuple[int, ...]  # each cell's number of neighbours
    dark: int  # free cells with (x + y) odd: dark, as on a chessboard whose (0, 0) is light

    def index(self, p: Point) -> int:
        """The index of cell ``p``."""
        return p.y * self.width + p.x

    def direction(self, a: int, b: int) -> Direction | None:
        """The direction that moves from cell ``a`` to the adjacent cell ``b``, else None."""
        step = self.step
        for d in range(4):
            if step[d][a] == b:
                return DIRECTIONS[d]
        return None

    def move(self, a: int, b: int) -> Direction:
        """``direction`` for a move the caller has planned, so ``b`` must be next to ``a``."""
        d = self.direction(a, b)
        assert d is not None, f"cell {b} is not next to cell {a}"
        return d

    def distance(self, a: int, b: int) -> int:
        """The Manhattan distance from ``a`` to ``b``, around the edges if the board wraps."""
        w = self.width
        dx = abs(a % w - b % w)
        dy = abs(a // w - b // w)
        if self.board.wrap:
            dx = min(dx, w - dx)
            dy = min(dy, self.height - dy)
        return dx + dy


def checkerboard(grid: Grid) -> bool:
    """Whether every move joins a light cell to a dark one (``x + y`` even and odd): always on
    a board that does not wrap or has even sides; on one that wraps with an odd side, only if
    no two free cells are neighbours across that side's seam (a frame of walls, say)."""
    w, h = grid.width, grid.height
    if not grid.board.wrap:
        return True
    right, down = grid.step[3], grid.step[1]
    seam_x = w % 2 == 1 and any(right[y * w + w - 1] == y * w for y in range(h))
    seam_y = h % 2 == 1 and any(down[(h - 1) * w + x] == x for x in range(w))
    return not (seam_x or seam_y)


@lru_cache(maxsize=64)
def grid_of(board: Board) -> Grid:
    """The int-indexed adjacency of ``board`` (cached per board)."""
    w, h = board.width, board.height
    n = w * h
    # Index arithmetic over whole rows, not a Point and a Board.step per cell: a level file may
    # hold a million cells, and ``termsnake levels`` builds its grid before anything else.
    free = bytearray(b"\x01") * n
    for p in board.walls:
        if 0 <= p.x < w and 0 <= p.y < h:
            free[p.y * w + p.x] = 0
    step = tuple(_steps(free, w, h, board.wrap, d) for d in range(len(DIRECTIONS)))
    adj = list(map(tuple, map(partial(filter, (-1).__lt__), zip(*step, strict=True))))
    if board.wrap and (w == 2 or h == 2):
        # Both ways round a side of two lead to the same cell: a neighbour once.
        adj = [tuple(dict.fromkeys(a)) for a in adj]
    points = tuple(row_major(w, h))
    # Dark cells, (x + y) odd: in row y, every other cell from x = (y + 1) % 2.
    dark = sum(free[y * w + (y + 1) % 2 : (y + 1) * w : 2].count(1) for y in range(h))
    walls = free.translate(bytes.maketrans(b"\x00\x01", b"\x01\x00"))
    degree = tuple(map(len, adj))
    return Grid(
        board, w, h, n, points, tuple(map(bool, free)), step, tuple(adj), bytes(walls), degree, dark
    )


def _steps(free: bytearray, w: int, h: int, wrap: bool, d: int) -> tuple[int, ...]:
    """For each cell, the cell one move in direction ``d`` (0 to 3, as in DIRECTIONS) takes it
    to, or -1: from a wall, into a wall, off the board, or onto itself (a side of one cell
    that wraps)."""
    n = w * h
    shift = (-w, w, -1, 1)[d]
    target = list(range(shift, n + shift))
    edge = (range(0, w), range(n - w, n), range(0, n, w), range(w - 1, n, w))[d]
    around = (n - w, w - n, w - 1, 1 - w)[d]  # from the edge to the other side
    for i in edge:
        target[i] = i + around if wrap else -1
    return tuple(
        j if free[i] and j >= 0 and j != i and free[j] else -1 for i, j in enumerate(target)
    )


def body_free_at(grid: Grid, body: Sequence[Point], lag: int = 0) -> list[int]:
    """For each cell, the first step at which the head may enter it, given the body head first.

    ``body[i]`` is left after ``length - i`` more steps (the tail after one), provided the snake
    eats nothing on the way (with ``lag``: that many steps later, as if it ate that often); the
    neck is never enterable on the first step.
    """
    free_at = [0] * grid.cells
    index = grid.index
    length = len(body)
    i = length + lag
    for p in body:
        free_at[index(p)] = i
        i -= 1
    if length >= 2:
        # Turning back into the neck kills even when the neck is also the tail.
        neck = index(body[1])
        free_at[neck] = max(free_at[neck], 2)
    return free_at


def static_blocked(grid: Grid, cells: Iterable[int]) -> list[int]:
    """A mask (BLOCKED or 0 per cell) with ``cells`` blocked for good."""
    mask = [0] * grid.cells
    for i in cells:
        mask[i] = BLOCKED
    return mask


def shortest_path(
    grid: Grid, start: int, goal: int, free_at: Sequence[int], first_dir: int = 0
) -> list[int] | None:
    """A shortest path from ``start`` (excluded) to ``goal`` (included), or None.

    A cell may be entered at step t only if ``free_at[cell] <= t`` (so a body cell opens up once
    the tail has left it). Among equally short paths it prefers straight runs; ``first_dir`` is
    the direction the head last moved in (0..3, as in DIRECTIONS).
    """
    if start == goal:
        return []
    step = grid.step
    parent = [-1] * grid.cells
    came = bytearray(grid.cells)
    parent[start] = start
    came[start] = first_dir
    frontier = [start]
    t = 0
    while frontier:
        t += 1
        nxt: list[int] = []
        for u in frontier:
            for d in _STRAIGHT_FIRST[came[u]]:
                v = step[d][u]
                if v < 0 or parent[v] >= 0 or free_at[v] > t:
                    continue
                parent[v] = u
                came[v] = d
                if v == goal:
                    return _unwind(parent, start, goal)
                nxt.append(v)
        frontier = nxt
    return None


def astar_path(grid: Grid, start: int, goal: int, free_at: Sequence[int]) -> list[int] | None:
    """A shortest path by A* with the Manhattan (wrap-aware) heuristic; same rules as BFS."""
    if start == goal:
        return []
    step = grid.step
    dist = grid.distance
    best = {start: 0}
    parent = {start: start}
    heap = [(dist(start, goal), 0, start)]
    while heap:
        _, g, u = heapq.heappop(heap)
        if g > best[u]:
            continue
        if u == goal:
            path = [u]
            while parent[u] != start:
                u = parent[u]
                path.append(u)
            path.reverse()
            return path
        g1 = g + 1
        for d in range(4):
            v = step[d][u]
            # A cell still under the body at this step may be reached later by a longer way.
            if v < 0 or free_at[v] > g1 or best.get(v, BLOCKED) <= g1:
                continue
            best[v] = g1
            parent[v] = u
            heapq.heappush(heap, (g1 + dist(v, goal), g1, v))
    return None


def _unwind(parent: Sequence[int], start: int, goal: int) -> list[int]:
    path = [goal]
    u = parent[goal]
    while u != start:
        path.append(u)
        u = parent[u]
    path.reverse()
    return path


def flood_count(grid: Grid, start: int, blocked: Sequence[int], limit: int = BLOCKED) -> int:
    """How many unblocked cells are reachable from ``start`` (itself not counted), up to limit."""
    adj = grid.adj
    seen = bytearray(grid.cells)
    seen[start] = 1
    stack = [start]
    count = 0
    while stack:
        u = stack.pop()
        for v in adj[u]:
            if not seen[v] and not blocked[v]:
                seen[v] = 1
                count += 1
                if count >= limit:
                    return count
                stack.append(v)
    return count


def distances(grid: Grid, source: int, blocked: Sequence[int]) -> list[int]:
    """BFS move counts from ``source`` to every cell (-1 where unreachable or blocked)."""
    adj = grid.adj
    dist = [-1] * grid.cells
    dist[source] = 0
    frontier = [source]
    t = 0
    while frontier:
        t += 1
        nxt: list[int] = []
        for u in frontier:
            for v in adj[u]:
                if dist[v] < 0 and not blocked[v]:
                    dist[v] = t
                    nxt.append(v)
        frontier = nxt
    return dist


def extend_path(grid: Grid, start: int, path: Sequence[int], blocked: Sequence[int]) -> list[int]:
    """Stretch a path by pairwise extension, approximating the longest path between its ends.

    Wherever two consecutive cells a -> b have free neighbours a', b' side by side in the same
    perpendicular direction, the step is replaced by the detour a -> a' -> b' -> b; this repeats
    until no step can be stretched. ``path`` excludes ``start``; so does the result.
    """
    if not path:
        return []
    step = grid.step
    used = bytearray(grid.cells)
    nxt = dict.fromkeys((start, *path), -1)
    prev = start
    used[start] = 1
    for c in path:
        nxt[prev] = c
        used[c] = 1
        prev = c
    a = start
    while True:
        b = nxt[a]
        if b < 0:
            break
        d = next(d for d in range(4) if step[d][a] == b)
        for p in _PERPENDICULAR[d]:
            a2 = step[p][a]
            b2 = step[p][b]
            if (
                a2 >= 0
                and b2 >= 0
                and a2 != b2
                and not used[a2]
                and not used[b2]
                and not blocked[a2]
                and not blocked[b2]
                and step[d][a2] == b2
            ):
                nxt[a] = a2
                nxt[a2] = b2
                nxt[b2] = b
                used[a2] = used[b2] = 1
                break
        else:
            # Nothing to stretch here: move on; after a detour, re-examine a -> a2 first.
            a = b
    out: list[int] = []
    c = nxt[start]
    while c >= 0:
        out.append(c)
        c = nxt[c]
    return out


def direction_number(direction: Direction) -> int:
    """The index of ``direction`` in DIRECTIONS (the numbering the arrays here use)."""
    return _DIR_NUMBER[direction]


_DIR_NUMBER: dict[Direction, int] = {d: i for i, d in enumerate(DIRECTIONS)}


def legal_moves(grid: Grid, body: Sequence[int]) -> list[int]:
    """The cells the head of ``body`` (cells, head first) may move to by the game's rules, as
    ``Game.is_safe`` has them, for searches over many bodies: a neighbour that is not the neck,
    nor body but the tail, which leaves as the head comes (eating keeps it, but the food is
    never on the body)."""
    neck = body[1] if len(body) > 1 else -1
    tail = body[-1]
    occupied = set(body)
    return [v for v in grid.adj[body[0]] if v != neck and (v not in occupied or v == tail)]


def moved(body: Sequence[int], cell: int, food: int) -> tuple[int, ...]:
    """``body`` after its head moves to ``cell`` (``Game.step``): longer by one if it eats
    ``food`` there, the tail staying (-1: no food to eat)."""
    return (cell, *body) if cell == food else (cell, *body[:-1])


def safe_directions(game: Game) -> list[Direction]:
    """The moves that do not kill the snake on this step."""
    return [d for d in DIRECTIONS if game.is_safe(d)]


def roomiest_move(game: Game, grid: Grid) -> Direction:
    """The safe move with the most reachable cells behind it; any move if none is safe."""
    head = grid.index(game.head)
    blocked = static_blocked(grid, (grid.index(p) for p in game.body))
    best = game.direction
    best_room = -1
    for direction in safe_directions(game):
        v = grid.step[_DIR_NUMBER[direction]][head]
        room = flood_count(grid, v, blocked) if v >= 0 else 0
        if room > best_room:
            best, best_room = direction, room
    return best


def path_arrows(grid: Grid, start: int, path: Sequence[int]) -> dict[Point, str]:
    """A path drawn as one arrow per cell, each pointing to the next cell (for overlays)."""
    arrows: dict[Point, str] = {}
    a = start
    for b in path:
        d = grid.direction(a, b)
        if d is not None:
            arrows[grid.points[a]] = ARROWS[d]
        a = b
    return arrows


ARROWS: Final[Mapping[Direction, str]] = MappingProxyType(
    {Direction.UP: "^", Direction.DOWN: "v", Direction.LEFT: "<", Direction.RIGHT: ">"}
)

__all__ = [
    "ARROWS",
    "BLOCKED",
    "Grid",
    "astar_path",
    "body_free_at",
    "direction_number",
    "distances",
    "extend_path",
    "flood_count",
    "grid_of",
    "legal_moves",
    "moved",
    "path_arrows",
    "roomiest_move",
    "safe_directions",
    "shortest_path",
    "static_blocked",
]
