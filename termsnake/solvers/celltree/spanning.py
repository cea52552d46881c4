"""The spanning-tree questions asked of a body mirror: does some tree of blocks still fit?

The solver's invariant is that some spanning tree of the blocks agrees with every body cell's
edge constraint: then the body is an arc of the Hamiltonian cycle around that tree. These checks
keep it: a whole search (``body_fits``), the exact check of one move (``keeps_tree``), the check
of a whole path read along its walk (``path_cuts``), and the witness cycle itself.
"""

from __future__ import annotations

from collections import deque
from itertools import islice, pairwise

from termsnake.solvers.celltree.mirror import BodyMirror


def span(
    ends: list[tuple[int, int]], blocks: int, state: list[int]
) -> tuple[list[int], list[bool], int] | None:
    """Kruskal over the block graph: every edge of state 1 (forced), then those of state -1
    (allowed). The union-find parents, which edges were taken and how many; None if forced
    edges loop."""
    parent = list(range(blocks))
    taken = [False] * len(ends)
    joins = 0
    allowed = []
    for e, s in enumerate(state):
        if s == 1:
            a, b = ends[e]
            while parent[a] != a:  # find, inlined as below
                parent[a] = parent[parent[a]]
                a = parent[a]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a == b:
                return None
            parent[a] = b
            taken[e] = True
            joins += 1
        elif s == -1:
            allowed.append(e)
    for e in allowed:
        a, b = ends[e]
        while parent[a] != a:  # find, inlined: this loop is hot
            parent[a] = parent[parent[a]]
            a = parent[a]
        while parent[b] != b:
            parent[b] = parent[parent[b]]
            b = parent[b]
        if a != b:
            parent[a] = b
            taken[e] = True
            joins += 1
    return parent, taken, joins


def tree_possible(m: BodyMirror, state: list[int]) -> bool:
    """Whether a spanning tree holds every edge of state 1 and none of state 0."""
    g = m.grid
    # 1. The forced edges must not close a loop; 2. the edges not forbidden must join every
    # block: edges join only free blocks, so a tree over them all takes one edge fewer.
    spanned = span(g.ends, len(g.adj), state)
    return spanned is not None and spanned[2] == len(g.blocks) - 1


def body_fits(m: BodyMirror) -> str | None:
    """Why no spanning tree agrees with the body, or None if one does."""
    g = m.grid
    for s, c in pairwise(m.body):  # each body cell (c) and the cell it moved to (s)
        if s != g.dflt[c] and s != g.cross[c]:
            p = g.points[c]
            return f"the body at {g.board.where(p)} turns against the block's way round"
        e = g.cedge[c]
        if e >= 0 and m.fixed_as[e] != (1 if s == g.cross[c] else 0):
            return "two body cells disagree on a block edge"
    if not tree_possible(m, m.edge_states()):
        return "the body cuts the blocks apart or closes a loop"
    return None


def witness_cycle(m: BodyMirror) -> list[int]:
    """The successor of every cell on one Hamiltonian cycle that agrees with the body."""
    g = m.grid
    spanned = span(g.ends, len(g.adj), m.edge_states())
    assert spanned is not None  # the body always fits some tree (the invariant)
    tree = spanned[1]
    return [
        (g.cross[c] if g.cedge[c] >= 0 and tree[g.cedge[c]] else g.dflt[c])
        for c in range(len(g.points))
    ]


def keeps_tree(m: BodyMirror, target: int, eats: bool) -> bool:
    """Exact check: after the head moves to ``target``, some spanning tree still fits."""
    g = m.grid
    head = m.head
    e0 = g.cedge[head]
    if e0 < 0:
        return True  # no new constraint; dropping the tail only relaxes
    v0 = 1 if target == g.cross[head] else 0
    keep = -1 if eats else 0  # the tail's constraint goes unless the snake eats
    now = m.edge_now(e0, keep)
    if now >= 0:
        return now == v0
    a, b = g.ends[e0]
    if v0 == 1:
        # A new tree edge must not join two blocks the forced edges already join. Those are
        # the crossings of the body's cells of rank > keep, a run of cells ending at the head:
        # they join just the blocks that run passes through, the head's among them. So the edge
        # closes a loop if and only if the run passes through its other block.
        other = b if a == g.block[head] else a
        return m.last[other] <= m.tail_serial + keep
    # A forbidden edge must not cut the blocks the other edges still join.
    return _joined(m, a, b, keep, skip=e0)


def _joined(m: BodyMirror, a: int, b: int, keep: int, *, skip: int) -> bool:
    """Whether blocks a and b meet over edges not forbidden by cells of rank > keep (``skip``
    aside)."""
    gen = m.marks.new()
    seen = m.marks.seen
    seen[a] = gen
    # Breadth first: a and b are neighbours, so an open way round is usually a few blocks.
    queue = deque([a])
    fixed, fixed_as, adj = m.fixed, m.fixed_as, m.grid.adj
    newer = m.tail_serial + keep
    while queue:
        x = queue.popleft()
        for e, y in adj[x]:
            if e == skip or seen[y] == gen or (fixed[e] > newer and not fixed_as[e]):
                continue  # skipped, seen, or forbidden by the body (edge_now, inlined)
            if y == b:
                return True
            seen[y] = gen
            queue.append(y)
    return False


def path_cuts(m: BodyMirror, path: list[int]) -> list[int] | None:
    """The blocks cut off once the snake has eaten at the end of ``path`` (none: []), or None
    if the path disagrees with the body or with itself, or closes a loop of tree edges.

    This is ``tree_possible`` for the edge states after eating, answered along the walk instead
    of over every edge. The cells that constrain edges then are one walk: the body's cells that
    are still body, ending at the head, then the path. Its cross moves are the forced edges, so
    they join exactly the blocks the walk passes through (W), and they close a loop if and only
    if a cross move on a new edge enters a block already passed. Every constrained edge has a
    block of W at one end (a cell constrains only its own block's edge), so the blocks outside W
    meet over free edges, and a group of them is cut off if and only if each of its edges to W
    is forbidden.
    """
    # Serial numbers above this are still body, with their constraints, after eating.
    newer = m.serial - len(m.body) + len(path) - 2
    walk = _path_walk(m, path, newer)
    if walk is None:
        return None
    walked, mine = walk
    # Before the path, some tree fitted the whole body, so a group cut off now has an edge the
    # path forbids: look for groups only from there.
    last = m.last
    first_gen = m.marks.gen + 1
    cut: list[int] = []
    for e, v in mine.items():
        if v:
            continue
        for u in m.grid.ends[e]:
            if last[u] > newer or u in walked or m.marks.seen[u] >= first_gen:
                continue
            group = _group_cut_off(m, u, newer, walked, mine, first_gen)
            if group:
                cut += group
    return cut


def _path_walk(
    m: BodyMirror, path: list[int], newer: int
) -> tuple[set[int], dict[int, int]] | None:
    """The path's part of W (its first block and those it enters over new tree edges) and its
    own constraints (edge -> 1 or 0); None if it disagrees with the body or itself, or loops."""
    g = m.grid
    cross, cedge, block = g.cross, g.cedge, g.block
    fixed, fixed_as, last = m.fixed, m.fixed_as, m.last
    # When the path is longer than the body, its first cells are no longer body either.
    drop = max(0, len(path) - 1 - len(m.body))
    a = path[drop]
    walked = {block[a]}
    mine: dict[int, int] = {}
    for b in islice(path, drop + 1, None):
        e = cedge[a]
        if e >= 0:
            v = 1 if b == cross[a] else 0
            if fixed[e] > newer:
                if fixed_as[e] != v:
                    return None  # the body holds this edge the other way
            elif e in mine:
                if mine[e] != v:
                    return None  # the path holds it both ways
            else:
                mine[e] = v
                if v:
                    d = block[b]
                    if last[d] > newer or d in walked:
                        return None  # a new tree edge into a block passed: a loop
                    walked.add(d)
        a = b
    return walked, mine


def _group_cut_off(
    m: BodyMirror,
    u: int,
    newer: int,
    walked: set[int],
    mine: dict[int, int],
    first_gen: int,
) -> list[int]:
    """The group of blocks outside W around ``u`` if every edge from it to W is forbidden, else
    []. The search stops at the first edge to W that is not forbidden, or at a block an earlier
    search of this check (marked from ``first_gen`` on, which must have found one) saw."""
    last, fixed, fixed_as, adj = m.last, m.fixed, m.fixed_as, m.grid.adj
    seen = m.marks.seen
    gen = m.marks.new()
    seen[u] = gen
    group = [u]
    k = 0
    while k < len(group):
        for f, y in adj[group[k]]:
            if last[y] > newer or y in walked:
                if not (fixed[f] > newer and not fixed_as[f]) and mine.get(f, 1):
                    return []  # an edge to W that nothing forbids
            elif seen[y] < first_gen:
                seen[y] = gen
                group.append(y)
            elif seen[y] != gen:
                return []  # a block of a group found joined already
        k += 1
    return group
