"""The one bounded search for a Hamiltonian path through a board's free cells.

Given a body (a path of cells, head first), a *closure* is a path from a neighbour of the head
through every other free cell to a neighbour of the tail. The body followed by its closure is a
Hamiltonian cycle with the body as one arc, so a snake in that position can never be trapped: it
can always follow the cycle. A body of one cell makes the closure a Hamiltonian cycle of the
board, which is how :mod:`~termsnake.solvers.hampath.cycles` searches for one. The search is
depth-first, pruned, and bounded by a :class:`~termsnake.solvers.hampath.limit.Limit` of nodes,
so its answer depends only on its input, never on the machine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from termsnake.solvers.grid import Grid, distances, flood_count
from termsnake.solvers.hampath.limit import Limit

# What a search that found nothing says: it tried everything (a proof that there is none, when
# it had no target), or it ran out of nodes.
Failure = Literal["exhausted", "limit"]

# The ring of the eight cells around a cell, as pairs of direction numbers (UP, DOWN, LEFT,
# RIGHT = 0..3): a straight neighbour is (d, -1), a diagonal one (d, e) = one step d then e.
_RING: tuple[tuple[int, int], ...] = (
    (0, -1),
    (0, 3),
    (3, -1),
    (1, 3),
    (1, -1),
    (1, 2),
    (2, -1),
    (0, 2),
)


def close_body(
    grid: Grid,
    body: Sequence[int],
    limit: Limit,
    prefer: Sequence[int] | None = None,
    target: int = -1,
    rest_per_cell: int = 2,
    keep_to_prefer: bool = False,
    skip: Sequence[int] = (),
) -> list[int] | None:
    """A Hamiltonian cycle of the board's free cells with ``body`` as an arc, or None.

    ``body`` lists cell indexes head first. The cycle is returned tail first: the body from tail
    to head, then the closure. With a ``target`` (a free cell), the search first tries the moves
    nearest to it (by distance over the free cells at the start), so the closure usually reaches
    it soon, though not always by the fewest moves: when the rest cannot be covered from there
    within ``rest_per_cell`` nodes a free cell, other ways to the target are tried. After the
    target, and where moves are equally good, it keeps to ``prefer`` (a successor per cell, such
    as an old cycle's) where it can, first of all with ``keep_to_prefer``. With ``skip`` (free
    cells off the body), the cycle leaves those cells out: a board with one or two cells too
    many of a checkerboard colour has no Hamiltonian cycle, but may have one through the rest.
    None means no cycle was found within the limit, not that there is none.
    """
    found = search(grid, body, limit, prefer, target, rest_per_cell, keep_to_prefer, skip=skip)
    return found if isinstance(found, list) else None


def completion(
    grid: Grid,
    body: Sequence[int],
    limit: Limit,
    skip: Sequence[int] = (),
    spent: list[int] | None = None,
) -> list[int] | None:
    """A path through every free cell (but those in ``skip``) from beside the head to beside
    the tail, or None.

    ``body`` is the snake head first (cell indexes); the path is the closure alone (see the
    module docstring), [] when the body already fills the board with its head beside its tail.
    The nodes the search took (``limit.nodes + 1`` when it ran out) are added to ``spent[0]``,
    for a caller whose searches share one budget.
    """
    if len(body) < 2:
        return None
    found = search(grid, body, limit, skip=skip, spent=spent)
    cycle = found if isinstance(found, list) else None
    if cycle is None or (len(cycle) == len(body) == 2):
        return None
    return cycle[len(body) :]


def search(
    grid: Grid,
    body: Sequence[int],
    limit: Limit,
    prefer: Sequence[int] | None = None,
    target: int = -1,
    rest_per_cell: int = 2,
    keep_to_prefer: bool = False,
    noise: Sequence[float] | None = None,
    skip: Sequence[int] = (),
    spent: list[int] | None = None,
) -> list[int] | Failure:
    """:func:`close_body`'s search, saying why it failed; ``noise`` (a number per cell) breaks
    ties between equally good moves instead of ``prefer``, so that restarts differ; the nodes
    it took are added to ``spent[0]`` (see :func:`completion`)."""
    start = _Start(grid, body, skip)
    if start.remaining == 0:
        closes = len(body) <= 2 or body[-1] in grid.adj[body[0]]
        return [*reversed(body)] if closes else "exhausted"
    if not start.plausible(grid, body[0]):
        return "exhausted"
    pref = prefer if prefer is not None else [-1] * grid.cells
    to_target = None
    if target >= 0 and not start.visited[target]:
        to_target = distances(grid, target, start.visited)
    order = _Order(start.usable, pref, keep_to_prefer, noise)
    found, nodes = _walk(grid, body, limit.nodes, start, order, to_target, target, rest_per_cell)
    if spent is not None:
        spent[0] += nodes
    return found


class _Start:
    """The search's state before its first move: what is visited, and how many ways on each
    empty cell has (``usable``: its unvisited neighbours, the moving end and the tail)."""

    __slots__ = ("anchor_open", "dark", "dead", "remaining", "usable", "visited")

    def __init__(self, grid: Grid, body: Sequence[int], skip: Sequence[int] = ()) -> None:
        adj = grid.adj
        w = grid.width
        visited = bytearray(grid.walls)
        for c in body:
            visited[c] = 1
        # The visited cells that take a way on from their neighbours: all but the two ends.
        taken = list(body[1:-1])
        for c in skip:
            visited[c] = 1
            taken.append(c)
        self.visited = visited
        self.remaining = remaining = visited.count(0)
        if len(taken) < remaining:
            # Few cells taken (early in a game): start from the whole board and take theirs away.
            usable = list(grid.degree)
            for c in taken:
                for u in adj[c]:
                    usable[u] -= 1
            self.dead = any(usable[u] < 2 for c in taken for u in adj[c] if not visited[u])
            gone = [*body, *skip]
            self.dark = grid.dark - sum((c % w + c // w) & 1 for c in gone)
        else:
            # Few cells empty (late in a game): count their ways one by one.
            head, anchor = body[0], body[-1]
            usable = [0] * grid.cells
            dark = 0
            dead = False
            c = visited.find(0)
            while c >= 0:
                ways = 0
                for u in adj[c]:
                    if not visited[u] or u in (head, anchor):
                        ways += 1
                usable[c] = ways
                dead = dead or ways < 2
                dark += (c % w + c // w) & 1
                c = visited.find(0, c + 1)
            self.dead = dead
            self.dark = dark
        self.usable = usable
        self.anchor_open = sum(1 for u in adj[body[-1]] if not visited[u])

    def plausible(self, grid: Grid, head: int) -> bool:
        """Cheap necessary conditions: the tail has an empty neighbour to end at, every empty
        cell can be passed through, on a two-coloured board the closure (which starts on the
        colour opposite the head's and alternates) finds the cells of each colour it needs, and
        the empty cells are one region beside the head."""
        if self.anchor_open == 0 or self.dead:
            return False
        board = grid.board
        if not board.wrap or not (board.width % 2 or board.height % 2):
            w = grid.width
            first = 1 - ((head % w + head // w) & 1)
            ones = self.dark if first else self.remaining - self.dark
            if ones != (self.remaining + 1) // 2:
                return False
        return flood_count(grid, head, self.visited) == self.remaining


def _walk(
    grid: Grid,
    body: Sequence[int],
    limit: int,
    start: _Start,
    order: _Order,
    to_target: list[int] | None,
    target: int,
    rest_per_cell: int,
) -> tuple[list[int] | Failure, int]:
    """The depth-first loop and the nodes it took, its state in locals on purpose: it is
    replan's hot path, and calls or attribute lookups per node would cost time on every move."""
    adj = grid.adj
    head, anchor = body[0], body[-1]
    visited, usable, remaining = start.visited, start.usable, start.remaining
    anchor_open = start.anchor_open
    ordered = order.ordered
    dist = to_target
    # Nodes when the target was reached (-1: not on the path), and how many the rest may take.
    at_target = -1
    rest_limit = 0
    path = [head]
    stack = [ordered(adj[head], visited, head, dist)]
    nodes = 0
    while stack:
        nodes += 1
        if nodes > limit:
            return "limit", nodes
        options = stack[-1]
        end = path[-1]
        if not options:
            stack.pop()
            path.pop()
            if not path:
                break
            # Undo the move into ``end``: it is unvisited again, and its predecessor is the end.
            visited[end] = 0
            remaining += 1
            if end == target:
                dist, at_target = to_target, -1
            if anchor in adj[end]:
                anchor_open += 1
            prev = path[-1]
            if prev != anchor:
                for u in adj[prev]:
                    usable[u] += 1
            continue
        if dist is None and at_target >= 0 and nodes - at_target > rest_limit:
            # The way on from the target looks hopeless: try another way to the target.
            for k in range(path.index(target), len(stack)):
                stack[k].clear()
            at_target = -1
            continue
        v = options.pop()
        # Move end -> v: ``end`` stops being an end of the path (unless it is the anchor).
        if end != anchor:
            for u in adj[end]:
                usable[u] -= 1
        visited[v] = 1
        remaining -= 1
        path.append(v)
        if anchor in adj[v]:
            anchor_open -= 1
        if remaining == 0:
            if anchor in adj[v]:
                return [*reversed(body), *path[1:]], nodes
            stack.append([])
            continue
        ok = anchor_open > 0
        if ok and end != anchor:
            ok = all(visited[u] or usable[u] >= 2 for u in adj[end])
        if ok and _may_split(grid, v, visited):
            # The path goes on from v and cannot come back to it: the unvisited cells must
            # stay connected without v.
            ok = _connected(grid, v, visited, remaining)
        if v == target and to_target is not None:
            dist, at_target = None, nodes
            rest_limit = rest_per_cell * remaining + 100
        stack.append(ordered(adj[v], visited, v, dist) if ok else [])
    return ("exhausted" if target < 0 else "limit"), nodes


class _Order:
    """The order in which the search tries the next cells: a list popped from its end, so the
    best comes last."""

    __slots__ = ("keep", "noise", "pref", "usable")

    def __init__(
        self, usable: list[int], pref: Sequence[int], keep: bool, noise: Sequence[float] | None
    ) -> None:
        self.usable, self.pref, self.keep, self.noise = usable, pref, keep, noise

    def ordered(
        self, nbrs: Sequence[int], visited: bytearray, at: int, dist: Sequence[int] | None
    ) -> list[int]:
        """Toward the target: the nearest to it first. Then Warnsdorff: the neighbour with the
        fewest ways on first, then the preferred one (or, to ``keep`` to the preferred moves,
        that one first), or with ``noise`` the noisiest."""
        usable = self.usable
        pref = self.pref[at]
        free = (u for u in nbrs if not visited[u])
        if dist is not None:
            return sorted(free, key=lambda u: (-dist[u], -usable[u], u == pref))
        if self.noise is not None:
            noise = self.noise
            return sorted(free, key=lambda u: (-usable[u], noise[u]))
        if self.keep:
            return sorted(free, key=lambda u: (u == pref, -usable[u]))
        return sorted(free, key=lambda u: (-usable[u], u == pref))


def _connected(grid: Grid, v: int, visited: bytearray, remaining: int) -> bool:
    """Whether the ``remaining`` unvisited cells are connected (one of them is next to ``v``)."""
    for u in grid.adj[v]:
        if not visited[u]:
            return flood_count(grid, u, visited) + 1 == remaining
    return False


def _may_split(grid: Grid, v: int, visited: bytearray) -> bool:
    """Whether taking ``v`` could cut the unvisited cells in two: its unvisited straight
    neighbours are not all joined through the ring of eight cells around it."""
    step = grid.step
    ring: list[bool] = []
    for d, e in _RING:
        c = step[d][v]
        if e >= 0:
            # A diagonal: reach it through either straight neighbour.
            c2 = step[e][c] if c >= 0 else -1
            if c2 < 0:
                c1 = step[e][v]
                c2 = step[d][c1] if c1 >= 0 else -1
            c = c2
        ring.append(c >= 0 and c != v and not visited[c])
    # Count the runs of open ring cells that hold a straight neighbour (even ring positions).
    runs = 0
    for i in range(0, 8, 2):
        if ring[i] and not (ring[i - 1] and ring[i - 2]):
            runs += 1
    # Every open straight neighbour opens a run unless joined to the one before it; a full ring
    # is one run.
    return runs > 1
