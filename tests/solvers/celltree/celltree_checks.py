"""Shared by the cell-tree tests: boards with block walls, and checks that the solver's cycle is
Hamiltonian and holds the snake."""

from __future__ import annotations

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.blocks import BlockGrid
from termsnake.solvers.celltree.policy import Policy

# Block-aligned walls: whole 2x2 blocks of '#'.
ROOMS = (
    "........",
    "........",
    "..##....",
    "..##....",
    "......##",
    "......##",
    "........",
    "........",
)
RING = (
    "........",
    "........",
    "..####..",
    "..####..",
    "..####..",
    "..####..",
    "........",
    "........",
)


def level_of(rows: tuple[str, ...], *, wrap: bool = False) -> Level:
    """A level of ``rows`` with a snake of length 1 at the top left, heading right."""
    board = Board.from_rows(rows, wrap=wrap)
    return Level(board, (Point(0, 0),), Direction.RIGHT)


def started(level: Level, seed: int) -> tuple[Game, TreeSolver, Policy, BlockGrid]:
    """A new game on ``level`` and a tree solver set up for it, with its policy and grid."""
    game = Game(level, seed=seed)
    solver = TreeSolver()
    solver.setup(game)
    assert solver.policy is not None
    return game, solver, solver.policy, solver.policy.mirror.grid


def cycle_of(game: Game, solver: TreeSolver) -> dict[Point, Point]:
    """The solver's witness cycle, as successor points, read through its overlay arrows."""
    board = game.board
    arrows = solver.overlay(game)
    by_glyph = {"^": Direction.UP, "v": Direction.DOWN, "<": Direction.LEFT, ">": Direction.RIGHT}
    succ: dict[Point, Point] = {}
    for p, glyph in arrows.items():
        q = board.step(p, by_glyph[glyph])
        assert q is not None
        succ[p] = q
    body = list(game.body)
    for older, newer in zip(body[1:], body, strict=False):
        succ[older] = newer
    return succ


def assert_body_on_cycle(game: Game, solver: TreeSolver) -> None:
    """The body lies in order on the solver's cycle (late game: its planned way closes one)."""
    if solver.late is not None and solver.late.lane:
        _assert_lane_closes(game, solver)
        return
    _assert_body_on(game, cycle_of(game, solver))


def _assert_lane_closes(game: Game, solver: TreeSolver) -> None:
    """Late game, on the way to the food: the planned moves are legal, the last one eats, and
    the grown body then lies in order on the solver's new cycle."""
    board = game.board
    after = game.copy()
    w = board.width
    assert solver.late is not None
    lane = [Point(c % w, c // w) for c in solver.late.lane]
    # The overlay shows the planned moves from the head.
    assert cycle_of(game, solver)[game.head] == lane[0]
    for i, p in enumerate(lane):
        step = next(d for d in Direction if board.step(after.head, d) == p)
        result = after.step(step)
        assert after.outcome is not Outcome.DIED
        assert result.ate == (i == len(lane) - 1)
    ring = solver.late.ring
    succ = {Point(c % w, c // w): Point(n % w, n // w) for c, n in enumerate(ring) if n >= 0}
    if not after.over:
        _assert_body_on(after, succ)


def _assert_body_on(game: Game, succ: dict[Point, Point]) -> None:
    """``succ`` is one cycle through every free cell with the body as the arc ending at the
    head, in order."""
    free = set(game.board.free_cells)
    if game.length == len(free):
        return
    # The successors form one cycle through every free cell, leaving the head into free cells
    # and ending at the tail.
    seen = [game.head]
    p = succ[game.head]
    while p != game.head:
        assert p in free
        assert p not in seen[1:]
        seen.append(p)
        p = succ[p]
    assert set(seen) == free
    # The body is the arc that ends at the head, in order.
    assert seen[-game.length + 1 :] == list(reversed(game.body))[:-1] or game.length == 1


def play_checked(level: Level, seed: int, *, check_every: int = 1) -> Game:
    """A whole game of the tree solver, the body checked on its cycle every few moves."""
    game = Game(level, seed=seed)
    solver = TreeSolver()
    solver.setup(game)
    while not game.over:
        if game.steps % check_every == 0:
            assert_body_on_cycle(game, solver)
        game.step(solver.next_direction(game))
    return game
