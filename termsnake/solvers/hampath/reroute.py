"""A cycle that reaches the food sooner, made from the one followed by changes at 2x2 squares.

The cycle is given in order from the tail: the body first (tail to head), then the *closure*
(the cells still to be covered, from beside the head round to the tail). Only closure edges
change, so the body stays an arc of every cycle made here.

Two changes, each at a 2x2 square two of whose parallel sides are closure edges:

- a *split and join*: where the two edges run opposite ways (a -> b and c -> e, b next to c and
  a next to e), a -> e and c -> b split the part from b to c off as a loop. Another square with
  one closure edge of the cycle left and one of the loop joins the loop back elsewhere, forwards
  or backwards. Either the loop holds the food and goes back in nearer the head, or it lay
  before the food and goes back in after it.
- a *reversal*: where they run the same way (a -> b and c -> d, a next to c and b next to d),
  a -> c and b -> d make one cycle again, the part from b to c reversed. On a plane a cycle runs
  the two sides of a square opposite ways, so this is found only on boards that wrap; and for a
  snake of one cell, which it turns round (c -> d is then the last edge, back into the head).

The closure search (``search.close_body``) builds a whole new closure toward the food, and finds
none on some boards (on a board that wraps with an odd side, such as
``examples/levels/odd-torus.txt``, not even at the start of a game) and with some bodies; these
changes need no search, and keep most of the cycle.
"""

from __future__ import annotations

from collections.abc import Sequence

from termsnake.solvers.grid import Grid

# Rounds of changes per call: each takes the change that brings the food nearest.
ROUNDS = 4
# Loop cells a round of splits may look at to join each loop back: this many per cell of the
# cycle, and at most MAX_WORK (the time a search may take on boards of thousands of cells).
WORK_PER_CELL = 16
MAX_WORK = 8000


def reroute(grid: Grid, order: Sequence[int], body: int, goal: int) -> list[int] | None:
    """A cycle with the ``body`` first cells of ``order`` as its start and ``goal`` (a closure
    cell) nearer the head; None if no change brings it nearer."""
    changed = None
    current = list(order)
    for _ in range(ROUNDS):
        better = _reversal(grid, current, body, goal) or _split_join(grid, current, body, goal)
        if better is None:
            break
        current = changed = better
    return changed


def _reversal(grid: Grid, order: list[int], body: int, goal: int) -> list[int] | None:
    """The best reversal of a part of the closure holding ``goal``, or None."""
    adj = grid.adj
    n = len(order)
    pos = {c: k for k, c in enumerate(order)}
    p = pos[goal]
    best = (p, -1, -1)
    for i in range(body - 1, p):
        a, b = order[i], order[i + 1]
        for c in adj[a]:
            j = pos.get(c, -1)
            if j < p or j <= i + 1 or order[(j + 1) % n] not in adj[b]:
                continue
            if i + 1 + j - p < best[0]:
                best = (i + 1 + j - p, i, j)
    _, i, j = best
    if i < 0:
        return None
    return [*order[: i + 1], *reversed(order[i + 1 : j + 1]), *order[j + 1 :]]


def _split_join(grid: Grid, order: list[int], body: int, goal: int) -> list[int] | None:
    """The best split and join that brings ``goal`` nearer, or None."""
    adj = grid.adj
    n = len(order)
    pos = {c: k for k, c in enumerate(order)}
    p = pos[goal]
    best: tuple[int, int, int, int, int, bool] = (p, -1, -1, -1, -1, False)
    budget = min(WORK_PER_CELL * n, MAX_WORK)
    for i in range(body - 1, p):
        a, b = order[i], order[i + 1]
        for c in adj[b]:
            j = pos.get(c, -1)
            if j <= i + 1 or order[(j + 1) % n] not in adj[a]:
                continue
            budget -= j - i
            if budget < 0:
                return _joined(order, best)
            found = _join(adj, order, pos, body, i, j, p)
            if found is not None and found[0] < best[0]:
                best = (found[0], i, j, found[1], found[2], found[3])
    return _joined(order, best)


def _join(
    adj: Sequence[Sequence[int]],
    order: list[int],
    pos: dict[int, int],
    body: int,
    i: int,
    j: int,
    p: int,
) -> tuple[int, int, int, bool] | None:
    """Where the loop ``order[i+1 .. j]`` split off goes back in, bringing the cell at ``p``
    nearest the head: (its position then, the loop's edge u -> v cut by its index, the cell x
    of the cycle left after which it goes in, whether it goes in backwards); None if nowhere
    brings it nearer."""
    n = len(order)
    m = j - i
    in_loop = i < p <= j
    best: tuple[int, int, int, bool] | None = None
    for k in range(i + 1, j + 1):
        u = order[k]
        v = order[k + 1] if k < j else order[i + 1]
        for x, backwards in [(x, True) for x in adj[u]] + [(x, False) for x in adj[v]]:
            kx = pos.get(x, -1)
            if i < kx <= j or kx < body - 1:
                continue  # in the loop, or a body cell: only closure edges change
            y = order[(j + 1) % n] if kx == i else order[(kx + 1) % n]
            if y not in adj[v if backwards else u]:
                continue
            at = kx if kx <= i else kx - m  # x's place on the cycle left
            if in_loop:
                # backwards: x, u, u-1, ..., v; forwards: x, v, v+1, ..., u (round the loop).
                ku = k - i - 1
                off = (ku - (p - i - 1)) % m if backwards else (p - i - 1 - ku - 1) % m
                now = at + 1 + off
            else:
                now = p - m if at >= p - m else n
            if now < p and (best is None or now < best[0]):
                best = (now, k, x, backwards)
    return best


def _joined(order: list[int], best: tuple[int, int, int, int, int, bool]) -> list[int] | None:
    """The cycle ``best`` (from ``_split_join``) describes, or None if it is no change."""
    _, i, j, k, x, backwards = best
    if i < 0:
        return None
    loop = order[i + 1 : j + 1]
    ku = k - i - 1
    m = len(loop)
    if backwards:
        piece = [loop[(ku - t) % m] for t in range(m)]
    else:
        piece = [loop[(ku + 1 + t) % m] for t in range(m)]
    left = [*order[: i + 1], *order[j + 1 :]]
    at = left.index(x)
    return [*left[: at + 1], *piece, *left[at + 1 :]]
