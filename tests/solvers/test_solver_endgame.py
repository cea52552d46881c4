"""The late-game search: completions are Hamiltonian paths of the free cells, found when small."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import DIRECTIONS, Direction
from termsnake.core.level import Level
from termsnake.solvers.endgame import closing_path, lock_route
from termsnake.solvers.grid import Grid, grid_of, legal_moves, moved
from termsnake.solvers.hampath import Limit, completion


def random_body(rng: random.Random, grid: Grid, length: int) -> list[int] | None:
    """A self-avoiding walk of ``length`` cells (head first), or None if it got stuck."""
    cells = [c for c in range(grid.cells) if grid.free[c]]
    body = [rng.choice(cells)]
    while len(body) < length:
        options = [v for v in grid.adj[body[-1]] if v not in body]
        if not options:
            return None
        body.append(rng.choice(options))
    return body


def play_route(game: Game, grid: Grid, route: list[int]) -> list[bool]:
    """Play the moves to the cells of ``route`` on ``game`` until it is over, each one checked
    safe by the game's rules; whether each move played ate."""
    ate = []
    for c in route:
        if game.over:
            break
        direction = grid.direction(grid.index(game.head), c)
        assert direction is not None and game.is_safe(direction)
        ate.append(game.step(direction).ate)
    return ate


def brute_force(grid: Grid, body: list[int]) -> bool:
    """Whether some path through all free cells leads from beside the head to beside the tail."""
    taken = set(body)
    free = [c for c in range(grid.cells) if grid.free[c] and c not in taken]
    if not free:
        return body[-1] in grid.adj[body[0]] and len(body) > 2

    def walk(cur: int, left: int) -> bool:
        if left == 0:
            return body[-1] in grid.adj[cur]
        for v in grid.adj[cur]:
            if v not in taken:
                taken.add(v)
                if walk(v, left - 1):
                    return True
                taken.discard(v)
        return False

    starts = [v for v in grid.adj[body[0]] if v not in taken]
    for s in starts:
        taken.add(s)
        if walk(s, len(free) - 1):
            return True
        taken.discard(s)
    return False


def check_completion(grid: Grid, body: list[int], path: list[int]) -> None:
    """``path`` visits every free cell once, from beside the head to beside the tail."""
    free = {c for c in range(grid.cells) if grid.free[c]} - set(body)
    assert sorted(path) == sorted(free)
    walk = [body[0], *path, body[-1]]
    for a, b in itertools.pairwise(walk):
        assert b in grid.adj[a]


@settings(max_examples=100, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    width=st.integers(2, 5),
    height=st.integers(2, 5),
    wrap=st.booleans(),
    fill=st.floats(0.4, 1.0),
)
def test_completion_matches_brute_force(
    seed: int, width: int, height: int, wrap: bool, fill: float
) -> None:
    grid = grid_of(Board.open(width, height, wrap=wrap))
    rng = random.Random(seed)
    length = max(2, round(fill * width * height))
    body = random_body(rng, grid, length)
    if body is None:
        return
    path = completion(grid, body, Limit(1_000_000))
    assert (path is not None) == brute_force(grid, body)
    if path is not None:
        check_completion(grid, body, path)


def test_completion_of_a_snake_along_a_row() -> None:
    # 4x3, the snake fills the top row from right to left: the head is at the top left.
    grid = grid_of(Board.open(4, 3))
    body = [0, 1, 2, 3]
    path = completion(grid, body, Limit(2000))
    assert path is not None
    check_completion(grid, body, path)
    # A snake that walls off the corner cell has no completion.
    assert completion(grid, [8, 4, 5, 1, 2, 6], Limit(2000)) is None


def test_lock_route_moves_are_legal_and_end_on_a_cycle() -> None:
    board = Board.open(4, 4)
    grid = grid_of(board)
    # A snake coiled so that no completion exists yet: head beside its tail, free cells beyond.
    body = [5, 6, 2, 1, 0, 4]
    assert completion(grid, body, Limit(2000)) is None
    food = 15
    route = lock_route(grid, body, food, 8, Limit(400), Limit(300))
    assert route is not None
    level = Level(board, tuple(grid.points[c] for c in body), Direction.LEFT, grid.points[food])
    game = Game(level, 1)
    play_route(game, grid, route)
    assert game.outcome is None or game.outcome.value == "won"


def test_lock_route_respects_the_game_rules() -> None:
    rng = random.Random(3)
    board = Board.open(5, 5)
    grid = grid_of(board)
    for _ in range(40):
        body = random_body(rng, grid, rng.randint(8, 20))
        if body is None:
            continue
        free = [c for c in range(grid.cells) if c not in body]
        food = rng.choice(free)
        route = lock_route(grid, body, food, 6, Limit(400), Limit(300))
        if route is None:
            continue
        level = Level(board, tuple(grid.points[c] for c in body), Direction.UP, grid.points[food])
        play_route(Game(level, 1), grid, route)


def shortest_closing_by_the_rules(grid: Grid, game: Game, limit: int) -> int | None:
    """Brute force with the game's own rules: the fewest moves (at most ``limit``, never
    entering a cell the moves already passed) that eat the food and leave a body with a
    completion."""
    best: list[int] = []

    def walk(state: Game, passed: set[int], moves: int) -> None:
        if best and moves >= best[0]:
            return
        for direction in Direction:
            if not state.is_safe(direction):
                continue
            point = state.board.step(state.head, direction)
            assert point is not None
            target = grid.index(point)
            if target in passed:
                continue
            after = state.copy()
            if after.step(direction).ate:
                body = [grid.index(p) for p in after.body]
                if after.over or brute_force(grid, body):
                    best[:] = [moves + 1]
            elif moves + 1 < limit:
                walk(after, passed | {target}, moves + 1)

    walk(game, {grid.index(game.head)}, 0)
    return best[0] if best else None


def test_closing_path_is_the_shortest_safe_way_that_closes() -> None:
    rng = random.Random(11)
    checked = found = 0
    while checked < 60:
        width = rng.choice((4, 5))
        board = Board.open(width, 4, wrap=rng.random() < 0.3)
        grid = grid_of(board)
        body = random_body(rng, grid, rng.randint(2, 12))
        if body is None:
            continue
        free = [c for c in range(grid.cells) if c not in body]
        if len(free) < 2:
            continue
        food = rng.choice(free)
        level = Level(board, tuple(grid.points[c] for c in body), Direction.UP, grid.points[food])
        limit = 9
        want = shortest_closing_by_the_rules(grid, Game(level, 1), limit)
        got = closing_path(grid, body, food, limit, Limit(10**6), Limit(10**6))
        checked += 1
        if want is None:
            assert got is None
            continue
        found += 1
        assert got is not None
        moves, cycle = got
        assert len(moves) == want
        # The moves are legal and eat at the last; the cycle runs from the grown body's tail to
        # its head, then through every free cell back to the tail.
        game = Game(level, 1)
        assert play_route(game, grid, moves) == [i == len(moves) - 1 for i in range(len(moves))]
        grown = [grid.index(p) for p in game.body]
        assert cycle[: len(grown)] == grown[::-1]
        if not game.over:
            check_completion(grid, grown, cycle[len(grown) :])
        # A limit below the shortest way finds nothing.
        assert closing_path(grid, body, food, want - 1, Limit(10**6), Limit(2000)) is None
    assert found > 30  # most cases have a way, so the comparison is not vacuous


@pytest.mark.parametrize(
    "board",
    [
        Board.open(5, 4),
        Board.open(5, 4, wrap=True),
        Board.open(2, 3, wrap=True),  # two ways round to the same cell
        Board.from_rows(["..#..", ".....", "#...#", "....."]),
    ],
    ids=["open", "wrap", "narrow-wrap", "walls"],
)
def test_the_searches_step_the_snake_by_the_games_rules(board: Board) -> None:
    # The searches (lock_route, entry) step bodies of cell numbers by a rule of their own: it
    # must agree with Game's, which a search cannot afford to copy at every position.
    rng = random.Random(5)
    grid = grid_of(board)
    for _ in range(300):
        body = random_body(rng, grid, rng.randint(1, 10))
        free = [c for c in range(grid.cells) if grid.free[c] and body and c not in body]
        if body is None or not free:
            continue
        points = tuple(grid.points[c] for c in body)
        food = rng.choice(free)
        game = Game(Level(board, points, Direction.UP, grid.points[food]), 1)
        head = body[0]
        allowed = {grid.step[d][head] for d in range(4) if game.is_safe(DIRECTIONS[d])}
        assert set(legal_moves(grid, body)) == allowed
        for v in allowed:
            after = game.copy()
            direction = grid.direction(head, v)
            assert direction is not None
            after.step(direction)
            assert moved(tuple(body), v, food) == tuple(grid.index(p) for p in after.body)
