"""A way onto a Hamiltonian cycle for a body no cycle holds (a level's bent start, say): moves
that reach a position whose body closes into a cycle.

Following a fixed cycle from such a body may run into the body, and the roomiest move may eat
its way into a pocket: a board with a cycle then killed ``hamilton`` (helper-41's fuzz). This
searches the moves breadth first, each safe by the rules, the food eaten where the way passes
it and no other food assumed (the next one's place is not known), until the body ``closes``.
Ways round the food are looked for first: a longer body is harder to close, and on a board
nearly full the next food falls on the way.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from typing import Final

from termsnake.solvers.grid import Grid, legal_moves, moved

MAX_POSITIONS: Final = 20_000  # positions the search may look at, unless told fewer
MAX_MOVES: Final = 200  # moves a way may have


def way_to_closure(
    grid: Grid,
    body: Sequence[int],
    food: int,
    closes: Callable[[Sequence[int]], bool],
    *,
    positions: int = MAX_POSITIONS,
) -> list[int] | None:
    """The cells of a shortest way (the head's next cells, in order) after which the body, head
    first, ``closes``; [] if it closes already; None if none was found within ``positions``
    (half of them for ways round the food, half for ways through it)."""
    for eat in (False, True):
        found = _breadth_first(grid, tuple(body), food if eat else -1, food, closes, positions // 2)
        if found is not None:
            return found
    return None


# A position of the search: the body, head first, and whether the food is still there.
_Position = tuple[tuple[int, ...], bool]


def _breadth_first(
    grid: Grid,
    body: tuple[int, ...],
    edible: int,
    food: int,
    closes: Callable[[Sequence[int]], bool],
    positions: int,
) -> list[int] | None:
    """A shortest way to a body that closes, eating ``edible`` (-1: none) where it is passed and
    never entering ``food`` otherwise."""
    start: _Position = (body, food >= 0)  # the food is there, eaten only if edible
    came: dict[_Position, tuple[_Position, int] | None] = {start: None}
    queue = deque([(start, 0)])
    while queue:
        position, moves = queue.popleft()
        if closes(position[0]):
            return _way_to(came, position)
        if moves >= MAX_MOVES:
            continue
        for nxt in _moves(grid, position, edible, food):
            after = _moved(position, nxt, edible)
            if after not in came and len(came) < positions:
                came[after] = (position, nxt)
                queue.append((after, moves + 1))
    return None


def _moves(grid: Grid, position: _Position, edible: int, food: int) -> list[int]:
    """The cells the head may move to by the rules, but not onto food it may not eat."""
    body, food_left = position
    if not food_left or food == edible:
        return legal_moves(grid, body)
    return [v for v in legal_moves(grid, body) if v != food]


def _moved(position: _Position, nxt: int, edible: int) -> _Position:
    body, food_left = position
    eats = food_left and nxt == edible
    return moved(body, nxt, nxt if eats else -1), food_left and not eats


def _way_to(came: dict[_Position, tuple[_Position, int] | None], end: _Position) -> list[int]:
    way = []
    step = came[end]
    while step is not None:
        position, cell = step
        way.append(cell)
        step = came[position]
    return way[::-1]
