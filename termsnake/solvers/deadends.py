"""Boards with dead ends: blind alleys and pockets that a long snake enters only to end its game.

A free cell with a single free neighbour is a dead end: a snake that goes in cannot turn round.
A pocket behind a single cell is one too, for a snake longer than the pocket can hold. Keep
only the board's largest part that no one cell cuts (a biconnected component): that is where a
snake can live. It may have a Hamiltonian cycle where the whole board has none (the alcove held
the spare colour, or was what broke every cycle), and then a safe solver can fill all of it.
``DeadEndSolver`` plays one there, through a shadow of the game whose board walls the dead ends
in. Once food falls in a dead end, ``greedy`` plays on to the end of the game: it goes for the
food where that is safe (a short snake can still get out of a pocket); in a one-wide alley the
snake goes for it at once all the same, as no other food comes until it is eaten and no snake
that eats there gets out: eating it scores one more than the stall the game would end in
(``best`` does the same for any food no safe way reaches: ``lastfood``).
The safe solver is not set up again after that: mid-game, ``replan`` takes a body it cannot
always keep alive. A short snake that starts in a dead end (an entry tunnel) is walked out by
``greedy`` first, and the safe solver takes it before it eats, its body as short as at the
start.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.base import Composite, Solver, SolverUnavailable
from termsnake.solvers.greedy import GreedySolver
from termsnake.solvers.lastfood import eat_anyway

# A snake that starts in a dead end is walked out and handed to a safe solver only if it is this
# short: a longer body, bent by the walk, is one replan's set-up might take and not keep alive.
WALK_OUT_LENGTH: Final = 3


def dead_ends(board: Board, near: Point | None = None) -> frozenset[Point]:
    """The free cells of ``board`` outside its largest 2-connected part (of the largest, the
    one holding ``near``, if one does): one-wide alleys, and pockets behind a single cell. A
    long snake that goes in there cannot come out again. A part of two cells holds no cycle
    either: then every cell is a dead end."""
    part = _largest_biconnected_part(board, near)
    if len(part) < 3:
        return frozenset(board.free_cells)
    return frozenset(p for p in board.free_cells if p not in part)


def alleys(board: Board, ends: frozenset[Point]) -> frozenset[Point]:
    """The cells of ``ends`` (``dead_ends``) in one-wide alleys: parts of the dead ends whose
    cells each have at most two free neighbours, joined to the rest by one move. A snake that
    eats in one can only go on deeper, to the alley's end, and die there (a loop hanging off
    one cell, joined by two moves, it could go round and leave)."""
    out: set[Point] = set()
    seen: set[Point] = set()
    for start in ends:
        if start in seen:
            continue
        part, todo = {start}, [start]
        while todo:
            p = todo.pop()
            for _, q in board.neighbours(p):
                if q in ends and q not in part:
                    part.add(q)
                    todo.append(q)
        seen |= part
        ways = [{q for _, q in board.neighbours(p)} - {p} for p in part]
        links = sum(len(w - part) for w in ways)
        if links <= 1 and all(len(w) <= 2 for w in ways):
            out |= part
    return frozenset(out)


def _largest_biconnected_part(board: Board, near: Point | None) -> set[Point]:
    """The largest set of free cells joined so that no one cell cuts it (a biconnected
    component, by Tarjan's edge-stack search, iterative for boards of any size); of equal
    ones, the first holding ``near``."""
    # Distinct neighbours: on a narrow board that wraps, two ways can lead to one cell.
    ways = {p: sorted({q for _, q in board.neighbours(p) if q != p}) for p in board.free_cells}
    order: dict[Point, int] = {}
    low: dict[Point, int] = {}
    best: set[Point] = set()
    for root in ways:
        if root in order:
            continue
        order[root] = low[root] = len(order)
        best = best or {root}
        edges: list[tuple[Point, Point]] = []
        stack = [(root, root, iter(ways[root]))]
        while stack:
            p, parent, untried = stack[-1]
            for q in untried:
                if q not in order:
                    order[q] = low[q] = len(order)
                    edges.append((p, q))
                    stack.append((q, p, iter(ways[q])))
                    break
                if q != parent and order[q] < order[p]:
                    edges.append((p, q))
                    low[p] = min(low[p], order[q])
            else:
                stack.pop()
                if p == root:
                    continue
                low[parent] = min(low[parent], low[p])
                if low[p] >= order[parent]:
                    # parent cuts p's side off: the edges since (parent, p) are one block
                    block: set[Point] = set()
                    while True:
                        edge = edges.pop()
                        block.update(edge)
                        if edge == (parent, p):
                            break
                    if (len(block), near in block) > (len(best), near in best):
                        best = block
    return best


def sync_shadow(shadow: Game, game: Game) -> None:
    """Bring ``shadow`` to ``game``'s state; only its board stays its own. The body and the
    other containers are shared, not copied: a solver never changes the game it is given."""
    for name in Game.__slots__:
        if name != "board":
            setattr(shadow, name, getattr(game, name))


class DeadEndSolver:
    """A solver made by ``inner``, playing the board with its dead ends walled in; ``greedy``
    once food falls in one (then the shortest way to it: in an alley at once). A snake that
    starts in a dead end is walked out by ``greedy`` first. ``played`` names the solver that
    plays the board: ``greedy`` until a safe solver takes the snake, that one from then on
    (greedy's moves for a food in a dead end included)."""

    name = "dead-ends"

    def __init__(self, inner: Callable[[], Solver]) -> None:
        self._make = inner
        self.played = ""
        self._ends: frozenset[Point] = frozenset()
        self._alleys: frozenset[Point] = frozenset()  # the dead ends no snake that eats leaves
        self._shadow: Game | None = None
        self._inner: Solver | None = None
        self._greedy: GreedySolver | None = None
        self._walking = False  # greedy walks the snake out of the dead end it starts in
        self._eaten = 0  # foods eaten when the walk began

    def setup(self, game: Game) -> None:
        """Set the inner solver up on the board less its dead ends (or, for a snake that starts
        in one, greedy until it is out); SolverUnavailable if the board has none or is all
        dead ends, the first food lies in one, or the inner solver cannot play the rest."""
        self._greedy, self._inner, self._walking = None, None, False
        self.played = ""
        board = game.board
        ends = dead_ends(board, game.head)
        if not ends:
            raise SolverUnavailable("the board has no dead ends")
        if len(ends) == board.free_count:
            raise SolverUnavailable("the whole board is dead ends")
        if game.food in ends:
            raise SolverUnavailable("the first food is in a dead end")
        walled = board.with_walls(ends)
        shadow = game.copy()
        shadow.board = walled
        self._ends, self._shadow = ends, shadow
        self._alleys = alleys(board, ends)
        if ends & set(game.body):
            self._play_greedy(game)
            self._walking = game.length <= WALK_OUT_LENGTH
            self._eaten = game.eaten
            self.played = "greedy"  # until a safe solver takes the snake, out of the dead end
            return
        why = self._take_over(shadow)
        if why:
            raise SolverUnavailable(f"round its dead ends, {why}")

    def next_direction(self, game: Game) -> Direction:
        """The inner solver's move; greedy's from the first food that falls in a dead end, and
        while it walks the snake out of the one it starts in."""
        if self._walking and (game.food in self._ends or game.eaten > self._eaten):
            self._walking = False  # out of luck: greedy plays on
        if self._walking and not self._ends & set(game.body):
            assert self._shadow is not None
            sync_shadow(self._shadow, game)
            self._walking = False
            self._take_over(self._shadow)
        if self._greedy is None and game.food in self._ends:
            self._play_greedy(game)
        if self._greedy is not None:
            last = self._last_food(game)
            return last if last is not None else self._greedy.next_direction(game)
        assert self._shadow is not None and self._inner is not None, "setup first"
        sync_shadow(self._shadow, game)
        return self._inner.next_direction(self._shadow)

    def _last_food(self, game: Game) -> Direction | None:
        """The first move of the shortest way to a food in a one-wide alley: no food comes
        after it until it is eaten, and no snake that eats there gets out, so eating it (and
        dying there) scores one more than the stall the game would end in. None for a food
        elsewhere, or out of reach."""
        return eat_anyway(game) if game.food in self._alleys else None

    def _play_greedy(self, game: Game) -> None:
        self._greedy = GreedySolver()
        self._greedy.setup(game)

    def _take_over(self, shadow: Game) -> str:
        """The inner solver set up on ``shadow``, if it takes it (else greedy plays on); why
        it does not ("" if it does)."""
        inner = self._make()
        try:
            inner.setup(shadow)
        except SolverUnavailable as exc:
            return str(exc)
        self._inner, self._greedy = inner, None
        played = inner.played if isinstance(inner, Composite) else ""
        self.played = (played or inner.name) + " round dead ends"
        return ""

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The inner solver's plan, or greedy's while it plays."""
        if self._greedy is not None:
            return self._greedy.overlay(game)
        if self._shadow is None or self._inner is None:
            return {}
        sync_shadow(self._shadow, game)
        return self._inner.overlay(self._shadow)
