"""Shared by the cell-tree tests: boards with block walls, and checks that the solver's cycle is
Hamiltonian and holds the snake."""

from __future__ import annotations

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.solvers.celltree import TreeConfig, TreeSolver
from termsnake.solvers.celltree.blocks import BlockGrid
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.opening import HARBOUR
from termsnake.solvers.celltree.policy import Policy
from termsnake.solvers.celltree.spanning import body_fits

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


# The tree's own checks (the planner, the path check) run on a body that always fits a tree.
NO_OPENING = TreeConfig(opening_percent=0)


def level_of(rows: tuple[str, ...], *, wrap: bool = False) -> Level:
    """A level of ``rows`` with a snake of length 1 at the top left, heading right."""
    board = Board.from_rows(rows, wrap=wrap)
    return Level(board, (Point(0, 0),), Direction.RIGHT)


def started(level: Level, seed: int) -> tuple[Game, TreeSolver, Policy, BlockGrid]:
    """A new game on ``level`` and a tree solver set up for it, with its policy and grid."""
    game = Game(level, seed=seed)
    solver = TreeSolver(NO_OPENING)
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


def assert_opening_escapes(game: Game, solver: TreeSolver, direction: Direction) -> None:
    """Opening, between the solver's move (``direction``) and the game's step: if the opening
    chose the move, its plan (that move, the rest of its way to the food, its escape, then its
    cycle), played on a copy of the game with the foods the game will really give, lays the
    body in order on that cycle, and kills nothing unless more foods fell on the way and were
    eaten there than the plan allowed for (the food of its way, or of its escape if the escape
    was checked eating it, and the tail's lag it was checked with; then the solver plans a new
    escape, the copy does not). Along a harbour, the body is an arc of that Hamiltonian cycle.
    If the tree chose the move, the body still fits a tree of blocks after it."""
    opening = solver.opening
    assert opening is not None and solver.policy is not None
    board = game.board
    after = game.copy()
    if opening.chosen < 0:
        after.step(direction)
        if not after.over:
            assert body_fits(BodyMirror.of(solver.policy.mirror.grid, after)) is None
        return
    w = board.width
    harboured = opening.lag == HARBOUR
    ring = opening.harbour if harboured else opening.cycle
    succ = {Point(c % w, c // w): Point(n % w, n // w) for c, n in enumerate(ring) if n >= 0}
    rest = () if harboured else (*opening.way, *opening.escape)
    plan = [Point(c % w, c // w) for c in (opening.chosen, *rest)]
    expected = after.eaten + (1 if opening.way or opening.eats else 0)
    for _ in range(len(plan) + 4 * board.free_count):
        if after.over or (not plan and _on(after, succ)):
            break
        p = plan.pop(0) if plan else succ[after.head]
        step = next(d for d in Direction if board.step(after.head, d) == p)
        after.step(step)
        if after.outcome is Outcome.DIED:
            assert after.eaten - expected > opening.lag >= 0, after.cause
            return
    if not after.over:
        _assert_body_on(after, succ)


def _on(game: Game, succ: dict[Point, Point]) -> bool:
    """Whether the body lies in order along ``succ``."""
    body = list(game.body)
    return all(succ[older] == newer for older, newer in zip(body[1:], body, strict=False))


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


def play_checked(
    level: Level, seed: int, *, check_every: int = 1, config: TreeConfig | None = None
) -> Game:
    """A whole game of the tree solver, the body checked on its cycle every few moves (in the
    opening, the plan checked after each move chosen)."""
    game = Game(level, seed=seed)
    solver = TreeSolver(config)
    solver.setup(game)
    while not game.over:
        check = game.steps % check_every == 0
        if check and solver.opening is None:
            assert_body_on_cycle(game, solver)
        direction = solver.next_direction(game)
        if check and solver.opening is not None:
            assert_opening_escapes(game, solver, direction)
        game.step(direction)
    return game
