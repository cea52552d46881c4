"""Late-game search for greedy and tree: close the body into a Hamiltonian cycle through the free
cells.

A snake whose head can walk through every free cell, one after another, and then step into its
tail lies on a Hamiltonian cycle of the board; following that cycle eats every food within a
lap, and the state stays such a cycle after each move (eating or not). Such a path through the
free cells is a *completion* of the body. Finding one is a Hamiltonian-path search, so it is
only attempted when few cells are free, and bounded in nodes. ``closing_path`` looks for the
shortest way to the food after which such a completion exists.
"""

from __future__ import annotations

from collections.abc import Sequence

from termsnake.solvers.grid import Grid, distances, flood_count


class _OutOfBudget(Exception):
    """The search used up its node budget."""


def completion(
    grid: Grid,
    body: Sequence[int],
    budget: int = 2000,
    toward: Sequence[int] | None = None,
) -> list[int] | None:
    """A path through every free cell from beside the head to beside the tail, or None.

    ``body`` is the snake head first (cell indices); the body counts as walls. None means none
    exists or none was found within ``budget`` search nodes. ``toward``, if given, is a distance
    per cell: neighbours with a smaller one are tried first (to reach, say, the food early).
    """
    length = len(body)
    if length < 2:
        return None
    adj = grid.adj
    head = body[0]
    tail = body[-1]
    occupied = set(body)
    # Cheap checks first: the path needs a free cell beside the head and one beside the tail.
    if length < grid.board.size and (
        all(v in occupied for v in adj[tail]) or all(v in occupied for v in adj[head])
    ):
        return None
    # 0 = free (still to visit), 1 = body or visited.
    taken = bytearray(0 if f else 1 for f in grid.free)
    for c in body:
        taken[c] = 1
    remaining = taken.count(0)
    if remaining == 0:
        # The body already fills the board; it is a cycle only if the head touches the tail.
        return [] if tail in adj[head] and length > 2 else None
    is_end = bytearray(grid.cells)
    for v in adj[tail]:
        if not taken[v]:
            is_end[v] = 1
    if not any(is_end):
        return None
    if not _plausible(grid, taken, head, remaining):
        return None
    nodes = [budget]
    path: list[int] = []

    def order(cells: list[int]) -> list[int]:
        # The preferred distance first (when given), then fewest onward moves (Warnsdorff).
        def key(v: int) -> tuple[int, int]:
            onward = sum(1 for w in adj[v] if not taken[w])
            return (toward[v] if toward is not None else 0, onward)

        return sorted(cells, key=key)

    def dfs(cur: int, left: int) -> bool:
        if left == 0:
            return bool(is_end[cur])
        nodes[0] -= 1
        if nodes[0] < 0:
            raise _OutOfBudget
        options = [v for v in adj[cur] if not taken[v]]
        for v in order(options):
            taken[v] = 1
            path.append(v)
            if _still_open(adj, taken, cur, v, is_end, left - 1) and dfs(v, left - 1):
                return True
            path.pop()
            taken[v] = 0
        return False

    starts = [v for v in adj[head] if not taken[v] and not (length == 2 and v == tail)]
    try:
        for s in order(starts):
            taken[s] = 1
            path.append(s)
            if _still_open(adj, taken, head, s, is_end, remaining - 1) and dfs(s, remaining - 1):
                return path
            path.pop()
            taken[s] = 0
    except _OutOfBudget:
        return None
    return None


def _plausible(grid: Grid, taken: bytearray, head: int, remaining: int) -> bool:
    """Cheap necessary conditions for a completion: one region, and colours that can alternate.

    The free cells must form one region touching the head; on a two-coloured board the path
    alternates colours, starting on the one opposite the head's.
    """
    if flood_count(grid, head, taken) != remaining:
        return False
    if grid.board.wrap and (grid.width % 2 or grid.height % 2):
        return True
    w = grid.width
    # The path starts on the colour opposite the head's and alternates.
    first = 1 - ((head % w + head // w) & 1)
    ones = sum(1 for c in range(grid.cells) if not taken[c] and (c % w + c // w) & 1 == first)
    return ones == (remaining + 1) // 2


def _still_open(
    adj: tuple[tuple[int, ...], ...],
    taken: bytearray,
    prev: int,
    cur: int,
    is_end: bytearray,
    left: int,
) -> bool:
    """Whether moving from ``prev`` to ``cur`` left no unvisited neighbour of ``prev`` stranded.

    A cell that now has a single way in must be the path's last cell (so an end cell, and only
    one such cell); a cell with none is lost. The unvisited cells must stay in one region.
    """
    if left == 0:
        return True
    forced = 0
    for v in adj[prev]:
        if taken[v]:
            continue
        ways = sum(1 for w in adj[v] if not taken[w]) + (1 if cur in adj[v] else 0)
        if ways == 0:
            return False
        if ways == 1:
            # Its only way in is its last: an end cell, and if that way is cur, the very next.
            if not is_end[v] or (left > 1 and cur in adj[v]):
                return False
            forced += 1
    if forced > 1:
        return False
    # One region: flood the unvisited cells from a neighbour of cur.
    start = next((v for v in adj[cur] if not taken[v]), -1)
    if start < 0:
        return False
    seen = {start}
    stack = [start]
    while stack:
        u = stack.pop()
        for v in adj[u]:
            if not taken[v] and v not in seen:
                seen.add(v)
                stack.append(v)
    return len(seen) == left


def lock_route(
    grid: Grid,
    body: Sequence[int],
    food: int,
    max_depth: int,
    budget: int = 400,
    completion_budget: int = 300,
) -> list[int] | None:
    """A few moves to a state with a completion, then that completion; None if none found.

    The moves may eat the food only at their last. At most ``budget`` states are tried.
    Depth-first over the snake's moves, by the game's rules, at most ``max_depth`` moves.
    """
    adj = grid.adj
    seen: set[tuple[int, ...]] = set()
    states = [budget]
    moves: list[int] = []

    def search(snake: tuple[int, ...], depth: int) -> list[int] | None:
        states[0] -= 1
        if states[0] < 0 or snake in seen:
            return None
        seen.add(snake)
        done = completion(grid, snake, completion_budget)
        if done is not None:
            return moves + done
        if depth == 0:
            return None
        head = snake[0]
        neck = snake[1] if len(snake) > 1 else -1
        tail = snake[-1]
        occupied = set(snake)
        for v in adj[head]:
            if v == neck:
                continue
            if v == food:
                grown = (v, *snake)
                moves.append(v)
                done = completion(grid, grown, completion_budget)
                if done is not None:
                    return moves + done
                moves.pop()
                continue
            if v in occupied and v != tail:
                continue
            moves.append(v)
            found = search((v, *snake[:-1]), depth - 1)
            if found is not None:
                return found
            moves.pop()
            if states[0] < 0:
                return None
        return None

    return search(tuple(body), max_depth)


def closing_path(
    grid: Grid,
    body: Sequence[int],
    food: int,
    max_len: int,
    budget: int = 20000,
    completion_budget: int = 2000,
) -> tuple[list[int], list[int]] | None:
    """The shortest way to eat ``food`` after which the body closes into a Hamiltonian cycle.

    Returns the moves (cells; the last is ``food``) and that cycle: the grown body from its tail
    to its head, then its completion (see :func:`completion`). None if no such way of at most
    ``max_len`` moves was found within ``budget`` search nodes. The moves never cross
    themselves, and enter a body cell only once the tail has left it, so they are safe by the
    game's rules; the cycle is safe to follow afterwards.
    """
    length = len(body)
    adj = grid.adj
    head = body[0]
    # Cell -> the first move that may enter it: 1 for free cells, length - i for the body's
    # cell i (the tail leaves it as the head arrives), but never the neck at once (at length
    # 2 it is the tail, yet turning back into it is fatal).
    free_from = [1] * grid.cells
    for i, c in enumerate(body):
        free_from[c] = max(length - i, 2) if i == 1 else length - i
    # Moves still needed from each cell to the food through cells the moves may ever enter (a
    # lower bound that prunes the search; the head counts, though it cannot be entered again).
    blocked = [0 if free_from[c] <= max_len else 1 for c in range(grid.cells)]
    blocked[head] = 0
    near = distances(grid, food, blocked)
    if near[head] < 0:
        return None
    # On a board coloured like a chessboard every way to the food has the same parity.
    step = 1 if grid.board.wrap and (grid.width % 2 or grid.height % 2) else 2
    nodes = [budget]
    path: list[int] = []  # the moves so far
    taken = bytearray(grid.cells)
    taken[head] = 1

    def dfs(cur: int, left: int) -> list[int] | None:
        """The cycle after eating at the end of ``left`` more moves, or None."""
        nodes[0] -= 1
        if nodes[0] < 0:
            raise _OutOfBudget
        move = len(path) + 1
        options = [v for v in adj[cur] if not taken[v] and free_from[v] <= move and near[v] >= 0]
        for v in sorted(options, key=near.__getitem__):
            if v == food:
                if left == 1:
                    # Eating: the tail stays, so the body grows by one.
                    grown = [v, *reversed(path), *body][: length + 1]
                    rest = completion(grid, grown, completion_budget)
                    if rest is not None:
                        return [*reversed(grown), *rest]
                continue
            if left == 1 or near[v] > left - 1:
                continue
            taken[v] = 1
            path.append(v)
            cycle = dfs(v, left - 1)
            if cycle is not None:
                return cycle
            path.pop()
            taken[v] = 0
        return None

    try:
        for moves in range(near[head], max_len + 1, step):
            cycle = dfs(head, moves)
            if cycle is not None:
                return [*path, food], cycle
    except _OutOfBudget:
        return None
    return None


__all__ = ["closing_path", "completion", "lock_route"]
