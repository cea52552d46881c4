"""Late-game routes for greedy, tree's late game and replan's lanes: a few moves to a state
whose body closes into a Hamiltonian cycle.

A snake whose head can walk through every free cell, one after another, and then step into its
tail lies on a Hamiltonian cycle of the board; following that cycle eats every food within a
lap, and the state stays such a cycle after each move (eating or not). Such a path through the
free cells is a *completion* of the body (:func:`~termsnake.solvers.hampath.completion`).
``lock_route`` searches a few moves ahead for a state that has one; ``closing_path`` looks for
the shortest way to the food after which one exists. Both search over the snake's moves, and
count their nodes as the Hamiltonian search does (see :class:`~termsnake.solvers.hampath.Limit`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

from termsnake.solvers.grid import Grid, distances, legal_moves, moved
from termsnake.solvers.hampath import Limit, completion


class _OutOfBudget(Exception):
    """The search used up its node limit."""


def lock_route(
    grid: Grid,
    body: Sequence[int],
    food: int,
    max_depth: int,
    limit: Limit,
    completion_limit: Limit,
) -> list[int] | None:
    """A few moves to a state with a completion, then that completion; None if none found.

    The moves may eat the food only at their last. At most ``limit.nodes`` states are tried,
    each with a completion search within ``completion_limit``.
    Depth-first over the snake's moves, by the game's rules, at most ``max_depth`` moves.
    """
    seen: set[tuple[int, ...]] = set()
    states = [limit.nodes]
    moves: list[int] = []

    def search(snake: tuple[int, ...], depth: int) -> list[int] | None:
        states[0] -= 1
        if states[0] < 0 or snake in seen:
            return None
        seen.add(snake)
        done = completion(grid, snake, completion_limit)
        if done is not None:
            return moves + done
        if depth == 0:
            return None
        for v in legal_moves(grid, snake):
            moves.append(v)
            if v == food:  # the last move: the completion starts from the grown body
                done = completion(grid, moved(snake, v, food), completion_limit)
                if done is not None:
                    return moves + done
                moves.pop()
                continue
            found = search(moved(snake, v, food), depth - 1)
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
    limit: Limit,
    completion_limit: Limit,
    skip: Sequence[int] = (),
    accept: Callable[[list[int]], bool] | None = None,
    total: Limit | None = None,
) -> tuple[list[int], list[int]] | None:
    """The shortest way to eat ``food`` after which the body closes into a Hamiltonian cycle.

    Returns the moves (cells; the last is ``food``) and that cycle: the grown body from its tail
    to its head, then its completion. None if no such way of at most ``max_len`` moves was
    found within ``limit``, each completion within ``completion_limit``, and the two together
    within ``total`` (if given). The moves never cross themselves, and enter a body cell only
    once the tail has left it, so they are safe by the game's rules; the cycle is safe to follow
    afterwards. With ``skip`` (free cells, not the food) the moves keep out of them and the
    cycle leaves them out (see ``hampath.close_body``); ``accept`` may turn down a cycle, and
    the search goes on. Over 60 lines on purpose: the depth-first search is a closure over the
    path and node counts it shares with this set-up.
    """
    length = len(body)
    adj = grid.adj
    head = body[0]
    free_from, near = _bounds(grid, body, food, max_len, skip)
    if near[head] < 0:
        return None
    # On a board coloured like a chessboard every way to the food has the same parity.
    step = 1 if grid.board.wrap and (grid.width % 2 or grid.height % 2) else 2
    nodes, work = [limit.nodes], [0]  # moves left; moves and completion nodes, against most
    most = total.nodes if total is not None else sys.maxsize
    path: list[int] = []  # the moves so far
    taken = bytearray(grid.cells)
    taken[head] = 1
    for c in skip:
        taken[c] = 1

    def dfs(cur: int, left: int) -> list[int] | None:
        """The cycle after eating at the end of ``left`` more moves, or None."""
        nodes[0] -= 1
        work[0] += 1
        if nodes[0] < 0 or work[0] > most:
            raise _OutOfBudget
        move = len(path) + 1
        options = [v for v in adj[cur] if not taken[v] and free_from[v] <= move and near[v] >= 0]
        for v in sorted(options, key=near.__getitem__):
            if v == food:
                if left == 1:
                    # Eating: the tail stays, so the body grows by one.
                    grown = [v, *reversed(path), *body][: length + 1]
                    each = Limit(min(completion_limit.nodes, most - work[0]))  # what is left
                    rest = completion(grid, grown, each, skip, work)
                    if work[0] > most:
                        raise _OutOfBudget
                    if rest is not None:
                        closed = [*reversed(grown), *rest]
                        if accept is None or accept(closed):
                            return closed
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


def _bounds(
    grid: Grid, body: Sequence[int], food: int, max_len: int, skip: Sequence[int]
) -> tuple[list[int], list[int]]:
    """For each cell, the first move that may enter it (1 for free cells, length - i for the
    body's cell i, as the tail leaves it when the head arrives, but never the neck at once: at
    length 2 it is the tail, yet turning back into it is fatal), and the moves still needed
    from it to the food through cells the moves may ever enter (a lower bound that prunes the
    search; the head counts, though it cannot be entered again)."""
    length = len(body)
    free_from = [1] * grid.cells
    for i, c in enumerate(body):
        free_from[c] = max(length - i, 2) if i == 1 else length - i
    blocked = [0 if free_from[c] <= max_len else 1 for c in range(grid.cells)]
    blocked[body[0]] = 0
    for c in skip:
        blocked[c] = 1
    return free_from, distances(grid, food, blocked)


__all__ = ["closing_path", "lock_route"]
