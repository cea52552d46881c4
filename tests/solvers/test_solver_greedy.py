"""The greedy solver: never an immediately fatal move while a safe one exists; it plays well."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.solvers.base import play
from termsnake.solvers.greedy import GreedySolver


def random_state(seed: int, steps: int, width: int, height: int, wrap: bool) -> Game:
    """A reachable state: a random safe move each step (food eaten when it is in the way)."""
    board = Board.open(width, height, wrap=wrap)
    level = Level(board, (Point(width // 2, height // 2),), Direction.RIGHT)
    game = Game(level, seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if game.over:
            break
        safe = [d for d in DIRECTIONS if game.is_safe(d)]
        if not safe:
            break
        # Lean toward the food, so that the snake grows and the states get crowded.
        toward = [
            d
            for d in safe
            if game.food is not None and (game.board.step(game.head, d) or game.head) == game.food
        ]
        game.step(rng.choice(toward or safe))
    return game


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 300),
    width=st.integers(3, 8),
    height=st.integers(3, 8),
    wrap=st.booleans(),
)
def test_never_fatal_while_a_safe_move_exists(
    seed: int, steps: int, width: int, height: int, wrap: bool
) -> None:
    game = random_state(seed, steps, width, height, wrap)
    if game.over:
        return
    before = (tuple(game.body), game.food, game.steps, game.direction, game.rng.getstate())
    direction = GreedySolver().next_direction(game)
    after = (tuple(game.body), game.food, game.steps, game.direction, game.rng.getstate())
    assert before == after
    if any(game.is_safe(d) for d in DIRECTIONS):
        assert game.is_safe(direction)


def test_greedy_fills_most_of_an_open_board() -> None:
    # Not a benchmark: a broken step 3 or 4 kills the snake long before this.
    lengths = []
    for seed in range(1, 6):
        game = Game(open_level(8, 8, 1), seed)
        play(game, GreedySolver())
        lengths.append(game.length)
    assert sum(lengths) / len(lengths) >= 0.8 * 64


def test_overlay_is_the_planned_path_from_the_head() -> None:
    game = Game(open_level(8, 8, 1), 2)
    solver = GreedySolver()
    solver.setup(game)
    direction = solver.next_direction(game)
    plan = solver.overlay(game)
    glyph = {"^": Direction.UP, "v": Direction.DOWN, "<": Direction.LEFT, ">": Direction.RIGHT}
    assert game.head in plan
    assert glyph[plan[game.head]] is direction
    # Following the arrows from the head leads to the food.
    p = game.head
    for _ in range(len(plan)):
        if p not in plan:
            break
        nxt = game.board.step(p, glyph[plan[p]])
        assert nxt is not None
        p = nxt
    assert p == game.food


def test_greedy_wins_from_a_snake_on_a_hamiltonian_cycle() -> None:
    # 4x4: the snake lies along the boundary-and-comb cycle; whatever the foods, it fills the board.
    board = Board.open(4, 4)
    cycle = [
        Point(0, 0), Point(1, 0), Point(2, 0), Point(3, 0),
        Point(3, 1), Point(3, 2), Point(3, 3), Point(2, 3),
        Point(2, 2), Point(2, 1), Point(1, 1), Point(1, 2),
        Point(1, 3), Point(0, 3), Point(0, 2), Point(0, 1),
    ]  # fmt: skip
    body = tuple(reversed(cycle[:9]))
    for seed in range(1, 11):
        game = Game(Level(board, body, Direction.LEFT), seed)
        assert play(game, GreedySolver()) is Outcome.WON


def test_greedy_wins_small_open_boards() -> None:
    # The late-game search closes the snake onto a Hamiltonian cycle before it is too late.
    for size, seeds in ((4, range(1, 9)), (6, range(1, 5))):
        for seed in seeds:
            game = Game(open_level(size, size, 1), seed)
            assert play(game, GreedySolver()) is Outcome.WON, (size, seed)
