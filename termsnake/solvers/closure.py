"""Closing a snake's body into a Hamiltonian cycle: a bounded search for the way back.

Given a body (a path of cells, head first), a *closure* is a path from a neighbour of the head
through every other free cell to a neighbour of the tail. The body followed by its closure is a
Hamiltonian cycle with the body as one arc, so a snake in that position can never be trapped: it
can always follow the cycle. ``close_body`` looks for one with a depth-first search bounded by a
number of positions, so its answer depends only on its input, never on the machine.
"""

from __future__ import annotations

from collections.abc import Sequence

from termsnake.solvers.grid import Grid, distances, flood_count

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
    limit: int,
    prefer: Sequence[int] | None = None,
    target: int = -1,
    rest_per_cell: int = 2,
    keep_to_prefer: bool = False,
) -> list[int] | None:
    """A Hamiltonian cycle of the board's free cells with ``body`` as an arc, or None.

    ``body`` lists cell indexes head first. The cycle is returned tail first: the body from tail
    to head, then the closure. ``limit`` bounds the positions tried. With a ``target`` (a free
    cell), the search first tries the moves nearest to it (by distance over the free cells at
    the start), so the closure usually reaches it soon, though not always by the fewest moves:
    when the rest cannot be covered from there within ``rest_per_cell`` positions a free cell,
    other ways to the target are tried. After the target, and where moves are equally good, it
    keeps to ``prefer`` (a successor per cell, such as an old cycle's) where it can, first of
    all with ``keep_to_prefer``. None means no cycle was found within the limit, not that there
    is none (with a target it can miss a closure a search without one would find).

    The search is one loop with its state in locals on purpose: it is replan's hot path, run at
    every food, and calls or attribute lookups per position would cost time on every move.
    """
    adj = grid.adj
    head, anchor = body[0], body[-1]
    visited = bytearray(grid.cells)
    for c in body:
        visited[c] = 1
    for c in range(grid.cells):
        if not grid.free[c]:
            visited[c] = 1
    empties = [c for c in range(grid.cells) if not visited[c]]
    remaining = len(empties)
    if remaining == 0:
        closes = len(body) <= 2 or anchor in adj[head]
        return [*reversed(body)] if closes else None
    # usable[c]: the neighbours of c a closure could still pass c through: unvisited cells, the
    # path's moving end and the anchor (the tail, where the closure must end).
    usable = [0] * grid.cells
    for c in empties:
        usable[c] = sum(1 for u in adj[c] if not visited[u] or u in (head, anchor))
        if usable[c] < 2:
            return None
    if flood_count(grid, head, visited) != remaining:
        return None
    anchor_open = sum(1 for u in adj[anchor] if not visited[u])
    pref = prefer if prefer is not None else [-1] * grid.cells
    # Until the target is reached, the closure moves by the distance to it over free cells.
    to_target = distances(grid, target, visited) if target >= 0 and not visited[target] else None
    dist = to_target
    # Nodes when the target was reached (-1: not on the path), and how many the rest may take.
    at_target = -1
    rest_limit = 0
    path = [head]
    stack = [_ordered(adj[head], visited, usable, pref[head], dist, keep_to_prefer)]
    nodes = 0
    while stack:
        nodes += 1
        if nodes > limit:
            return None
        options = stack[-1]
        end = path[-1]
        if not options:
            stack.pop()
            path.pop()
            if not path:
                return None
            # Undo the move into ``end``: it is unvisited again, and its predecessor is the end.
            visited[end] = 0
            remaining += 1
            if end == target:
                dist = to_target
                at_target = -1
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
                return [*reversed(body), *path[1:]]
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
            dist = None
            at_target = nodes
            rest_limit = rest_per_cell * remaining + 100
        stack.append(_ordered(adj[v], visited, usable, pref[v], dist, keep_to_prefer) if ok else [])
    return None  # pragma: no cover - the loop only ends by returning


def _ordered(
    nbrs: Sequence[int],
    visited: bytearray,
    usable: Sequence[int],
    pref: int,
    dist: Sequence[int] | None,
    keep: bool,
) -> list[int]:
    # The list is popped from its end, so the best comes last. Toward the target: the nearest
    # to it first. Then Warnsdorff: the neighbour with the fewest ways on first, then the
    # preferred one (or, to ``keep`` to the preferred moves, that one first).
    free = (u for u in nbrs if not visited[u])
    if dist is not None:
        return sorted(free, key=lambda u: (-dist[u], -usable[u], u == pref))
    if keep:
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
    if runs == 0:
        return False
    # Every open straight neighbour opens a run unless joined to the one before it; a full ring
    # is one run.
    return runs > 1
