"""Invariants of the cell-tree solver: its cycle stays Hamiltonian and holds the snake; it wins."""

from __future__ import annotations

import pytest

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.solvers.base import play
from termsnake.solvers.tree import BlockGrid, TreeSolver, build_grid

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


def _level(rows: tuple[str, ...], *, wrap: bool = False) -> Level:
    board = Board.from_rows(rows, wrap=wrap)
    return Level(board, (Point(0, 0),), Direction.RIGHT)


def _cycle_of(game: Game, solver: TreeSolver) -> dict[Point, Point]:
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


def _assert_body_on_cycle(game: Game, solver: TreeSolver) -> None:
    if solver._lane:
        _assert_lane_closes(game, solver)
        return
    _assert_body_on(game, _cycle_of(game, solver))


def _assert_lane_closes(game: Game, solver: TreeSolver) -> None:
    """Late game, on the way to the food: the planned moves are legal, the last one eats, and
    the grown body then lies in order on the solver's new cycle."""
    board = game.board
    after = game.copy()
    w = board.width
    lane = [Point(c % w, c // w) for c in solver._lane]
    # The overlay shows the planned moves from the head.
    assert _cycle_of(game, solver)[game.head] == lane[0]
    for i, p in enumerate(lane):
        step = next(d for d in Direction if board.step(after.head, d) == p)
        result = after.step(step)
        assert after.outcome is not Outcome.DIED
        assert result.ate == (i == len(lane) - 1)
    ring = solver._ring
    assert ring is not None
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


def _play_checked(level: Level, seed: int, *, check_every: int = 1) -> Game:
    game = Game(level, seed=seed)
    solver = TreeSolver()
    solver.setup(game)
    while not game.over:
        if game.steps % check_every == 0:
            _assert_body_on_cycle(game, solver)
        game.step(solver.next_direction(game))
    return game


def _started(level: Level, seed: int) -> tuple[Game, TreeSolver, BlockGrid]:
    """A new game on ``level`` and a tree solver set up for it, with its grid."""
    game = Game(level, seed=seed)
    solver = TreeSolver()
    solver.setup(game)
    assert solver._grid is not None
    return game, solver, solver._grid


@pytest.mark.parametrize("size", [4, 6])
@pytest.mark.parametrize("seed", range(12))
def test_small_open_boards_hold_the_cycle_every_move(size: int, seed: int) -> None:
    game = _play_checked(open_level(size, size, length=1), seed)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", range(4))
def test_8x8_holds_the_cycle(seed: int) -> None:
    game = _play_checked(open_level(8, 8, length=1), seed, check_every=7)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize(
    ("size", "games"),
    [
        (4, 150),
        pytest.param(6, 100, marks=pytest.mark.slow),
        pytest.param(8, 60, marks=pytest.mark.slow),
    ],
)
def test_open_boards_are_always_won(size: int, games: int) -> None:
    for seed in range(1000, 1000 + games):
        game = Game(open_level(size, size, length=1), seed=seed)
        assert play(game, TreeSolver()) is Outcome.WON, seed


@pytest.mark.parametrize("length", [2, 3, 4])
def test_longer_start_snakes_are_won(length: int) -> None:
    for seed in range(10):
        game = Game(open_level(8, 6, length=length), seed=seed)
        assert play(game, TreeSolver()) is Outcome.WON


@pytest.mark.parametrize("rows", [ROOMS, RING], ids=["rooms", "ring"])
@pytest.mark.parametrize("seed", range(8))
def test_boards_with_block_walls_are_won(rows: tuple[str, ...], seed: int) -> None:
    game = _play_checked(_level(rows), seed, check_every=3)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", range(8))
def test_wrapping_board_is_won(seed: int) -> None:
    game = _play_checked(_level(("." * 8,) * 6, wrap=True), seed, check_every=3)
    assert game.outcome is Outcome.WON


def test_grid_has_two_moves_per_cell_and_a_tree_of_blocks() -> None:
    grid = build_grid(Board.open(6, 4), 0)
    assert not isinstance(grid, str)
    assert len(grid.blocks) == 6
    assert len(grid.ends) == 7  # 3x2 blocks: 2x2 horizontal + 3x1 vertical edges
    assert all(d >= 0 for d in grid.dflt)


def test_a_framed_board_is_cut_with_shifted_blocks() -> None:
    rows = ("#" * 10, *("#" + "." * 8 + "#" for _ in range(6)), "#" * 10)
    level = Level(Board.from_rows(rows), (Point(1, 1),), Direction.RIGHT)
    for seed in range(4):
        game = Game(level, seed=seed)
        solver = TreeSolver()
        solver.setup(game)
        assert solver.engine == "cell-tree"
        assert play(game, solver) is Outcome.WON


def test_boards_without_whole_blocks_fall_back_to_the_rebuilt_cycle() -> None:
    level = Level(Board.open(5, 4), (Point(0, 0),), Direction.RIGHT)
    for seed in range(4):
        game = Game(level, seed=seed)
        solver = TreeSolver()
        solver.setup(game)
        assert solver.engine == "replan"
        assert play(game, solver) is Outcome.WON


def test_odd_boards_are_won_with_a_moving_hole() -> None:
    game = Game(open_level(5, 5, length=1), seed=1)
    solver = TreeSolver()
    solver.setup(game)
    assert solver.engine == "hole-cycle"
    assert play(game, solver) is Outcome.WON


def test_boards_without_any_cycle_to_use_are_played_by_greedy() -> None:
    # A wall on a cell of the rarer colour: no cycle, and not an open odd rectangle either.
    board = Board.from_rows([".#...", ".....", ".....", ".....", "....."])
    game = Game(Level(board, (Point(0, 0),), Direction.RIGHT), seed=1)
    solver = TreeSolver()
    solver.setup(game)
    assert solver.engine == "greedy"
    assert play(game, solver) is not None


def test_look_ahead_leaves_the_live_game_alone() -> None:
    game = Game(open_level(8, 8, length=1), seed=3)
    solver = TreeSolver()
    solver.setup(game)
    while not game.over:
        before = (list(game.body), game.food, game.steps, game.rng.getstate(), len(game.moves))
        direction = solver.next_direction(game)
        after = (list(game.body), game.food, game.steps, game.rng.getstate(), len(game.moves))
        assert before == after
        game.step(direction)
    assert game.outcome is Outcome.WON


@pytest.mark.parametrize("seed", range(3))
def test_without_look_ahead_the_plain_policy_still_wins(seed: int) -> None:
    solver = TreeSolver()
    solver.lookahead = False
    game = Game(open_level(8, 8, length=1), seed=seed)
    assert play(game, solver) is Outcome.WON


def test_a_stale_route_is_dropped_not_followed() -> None:
    # A kept route is checked step by step against the live body; one that no longer fits
    # (here: cells that are not even next to the head) must be dropped, never followed.
    game = Game(open_level(8, 8, length=1), seed=5)
    solver = TreeSolver()
    solver.setup(game)
    for _ in range(40):
        game.step(solver.next_direction(game))
    solver._commit.extend([63, 0, 7])
    while not game.over:
        _assert_body_on_cycle(game, solver)
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON


def test_sparse_boards_rebranch_every_few_moves_and_hold_the_cycle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 16x12 is 48 blocks: more than sparse_blocks, so the move a kept route does not take is
    # played out only at every rebranch_every-th move of the route.
    assert TreeSolver.sparse_blocks < 48 <= TreeSolver.rebranch_blocks
    calls: list[tuple[int, bool]] = []
    real = TreeSolver._rebranch

    def spy(
        self: TreeSolver, game: Game, other: int, food: int, score: int
    ) -> tuple[list[int], int] | None:
        out = real(self, game, other, food, score)
        if self.lookahead:  # the live solver, not a play-out's copy
            calls.append((score, out is not None))
        return out

    monkeypatch.setattr(TreeSolver, "_rebranch", spy)
    game = _play_checked(open_level(16, 12, length=1), seed=3, check_every=11)
    assert game.outcome is Outcome.WON
    assert calls and all((score // 1000) % TreeSolver.rebranch_every == 0 for score, _ in calls)
    assert any(taken for _, taken in calls)  # and a re-branch was taken at least once


def test_a_star_plans_the_same_paths_as_dijkstra() -> None:
    # The A* bound (distance along the blocks' ways with no body) must never overestimate:
    # if it did, A* would return longer paths than Dijkstra somewhere in these games.
    compared = 0
    for size, seed in ((12, 1), (20, 2)):
        game = Game(open_level(size, size, length=1), seed=seed)
        solver = TreeSolver()
        solver.setup(game)
        while not game.over and game.steps < 1500:
            solver._sync(game)
            food = solver._food_index(game)
            goal = [False] * size * size
            goal[food] = True
            slow = solver._plan(goal)
            assert solver._plan(goal, bound=solver._bound_to(food)) == slow
            compared += slow is not None
            game.step(solver.next_direction(game))
    assert compared > 1000


def test_the_mirrors_edge_constraints_follow_the_body() -> None:
    # Each edge's constraint is kept as the body moves; read again from the body cells (the
    # cells of rank > keep, but the head), it must agree at every move, whatever the rank,
    # until the late game leaves the blocks' ways.
    game, solver, grid = _started(open_level(12, 12, length=1), 4)
    checked = 0
    while solver._ring is None:
        solver._sync(game)
        body = [grid.index(p) for p in game.body]
        for keep in (-1, 0, len(body) // 2, len(body) - 2):
            want = [-1] * len(grid.ends)
            for i, c in enumerate(body[1:], start=1):
                rank = len(body) - 1 - i
                if rank > keep and grid.cedge[c] >= 0:
                    want[grid.cedge[c]] = 1 if body[i - 1] == grid.cross[c] else 0
            assert [solver._edge_now(e, keep) for e in range(len(grid.ends))] == want
            checked += sum(v >= 0 for v in want)
        game.step(solver.next_direction(game))
    assert game.length > 100
    assert checked > 10_000


@pytest.mark.parametrize(("width", "height", "seed"), [(12, 12, 2), (16, 12, 5)])
def test_the_move_check_agrees_with_a_whole_tree_search(width: int, height: int, seed: int) -> None:
    # The live check of each move (one edge at a time) must say what a search for a spanning
    # tree over the whole body after that move says, for both moves, at every move of a game.
    game, solver, grid = _started(open_level(width, height, length=1), seed)
    verdicts = set()
    while solver._ring is None and not game.over:
        solver._sync(game)
        head = solver._body[0]
        for target in (grid.dflt[head], grid.cross[head]):
            if target < 0 or solver._occ[target] >= 0:
                continue
            after = game.copy()
            after.step(solver._direction(head, target))
            fresh = TreeSolver()
            fresh._grid = grid
            fresh._sync(after, force=True)
            whole = fresh._check_state() is None
            assert solver._move_keeps_tree(target, target == solver._food_index(game)) == whole
            verdicts.add(whole)
        game.step(solver.next_direction(game))
    assert verdicts == {True, False}


def test_a_solver_used_again_plays_as_a_fresh_one() -> None:
    # Nothing cached for one game (such as the A* bounds, per food cell) may leak into the
    # next, on another board whose blocks are cut another way.
    boards = [open_level(8, 8, length=1), open_level(10, 8, length=1), _level(ROOMS)]
    reused = TreeSolver()
    for level in boards:
        game_a, game_b = Game(level, seed=1), Game(level, seed=1)
        fresh = TreeSolver()
        cached = reused._toward[0]  # the last food cell of the game before, if any
        reused.setup(game_a)
        fresh.setup(game_b)
        if cached >= 0:
            assert reused._bound_to(cached) == fresh._bound_to(cached)
        while not game_a.over:
            move = reused.next_direction(game_a)
            assert move == fresh.next_direction(game_b)
            game_a.step(move)
            game_b.step(move)
        assert game_a.outcome is Outcome.WON


def test_without_a_star_the_games_are_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    # A* only finds the planner's paths sooner: switched off, a whole game is move for move the
    # same (the play-outs then bound their length by the distance, walls aside).
    def moves(seed: int) -> list[Direction]:
        game = Game(open_level(8, 8, length=1), seed=seed)
        assert play(game, TreeSolver()) is Outcome.WON
        return game.moves

    with_a_star = [moves(seed) for seed in range(3)]
    monkeypatch.setattr(TreeSolver, "astar", False)
    assert [moves(seed) for seed in range(3)] == with_a_star


def test_a_play_out_is_a_legal_game_that_eats_at_its_end() -> None:
    # A play-out moves only the solver's mirror, by the game's rules: its route, played on a
    # copy of the live game, never dies and eats at its last move and not before.
    game, solver, grid = _started(open_level(12, 12, length=1), 6)
    routes = 0
    while solver._ring is None and not game.over:
        solver._sync(game)
        head = solver._body[0]
        for first in (grid.dflt[head], grid.cross[head]):
            if first < 0 or not solver._move_keeps_tree(first, first == solver._food_index(game)):
                continue
            out = solver._rollout(game, first, 2 * len(grid.points), solver.shut, 0)
            assert out is not None
            route, _ = out
            copy = game.copy()
            for i, cell in enumerate(route):
                step = copy.step(solver._direction(grid.index(copy.head), cell))
                assert copy.outcome is not Outcome.DIED
                assert step.ate == (i == len(route) - 1)
            routes += 1
        game.step(solver.next_direction(game))
    assert routes > 100


def test_a_play_out_is_cut_short_only_when_it_could_not_win() -> None:
    # A play-out stops once its moves so far, the distance left and the least its after-eating
    # term can be reach its bound. That least term must never be over the real one: a bound
    # just above a play-out's score must still let it finish.
    game, solver, grid = _started(open_level(12, 12, length=1), 4)
    limit = 2 * len(grid.points)
    checked = 0
    while solver._ring is None and not game.over:
        solver._sync(game)
        head, food = solver._body[0], solver._food_index(game)
        for first in (grid.dflt[head], grid.cross[head]):
            if game.steps % 7 or first < 0 or not solver._move_keeps_tree(first, first == food):
                continue
            out = solver._rollout(game, first, limit, solver.shut, 0)
            assert out is not None
            route, score = out
            floor = solver._after_floor(food, len(solver._open) - len(solver._body) - 1)
            assert 0 < floor <= score - 1000 * len(route)
            assert solver._rollout(game, first, limit, solver.shut, 0, score + 1) == out
            checked += 1
        game.step(solver.next_direction(game))
    assert checked > 200


@pytest.mark.parametrize(
    ("width", "height", "shuts"), [(12, 12, 4), pytest.param(16, 12, 3, marks=pytest.mark.slow)]
)
def test_the_look_ahead_keeps_the_best_of_every_play_out_it_tries(
    width: int, height: int, shuts: int
) -> None:
    # Where both moves keep the tree, each is played out with the plain shut cost and with
    # the board's other ones (12x12: three more; larger boards: two more); the route
    # kept must score the least of all those play-outs, each run in full.
    game, solver, grid = _started(open_level(width, height, length=1), 2)
    limit = 2 * len(grid.points)
    checked = won_by_other = 0
    while solver._ring is None and not game.over:
        solver._sync(game)
        head, food = solver._body[0], solver._food_index(game)
        moves = [c for c in (grid.dflt[head], grid.cross[head]) if c >= 0 and solver._occ[c] < 0]
        both = len(moves) == 2 and all(solver._move_keeps_tree(c, c == food) for c in moves)
        if both and game.steps % 5 == 0:
            variants = solver._variants()
            assert len(variants) == shuts and variants[0][0] == solver.shut
            scores = {
                (c, shut): out
                for c in moves
                for shut, hug in variants
                if (out := solver._rollout(game, c, limit, shut, hug)) is not None
            }
            least = min(score for _, score in scores.values())
            solver._commit.clear()
            first = solver._choose(food, game.since_food, game)
            route = [first, *solver._commit]
            assert solver._commit_score == least - 1000
            assert (route, least) in scores.values()
            plain = min(s for (_, shut), (_, s) in scores.items() if shut == solver.shut)
            won_by_other += least < plain
            checked += 1
        game.step(solver.next_direction(game))
    while not game.over:
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON
    assert checked > 40 and won_by_other > 5


def test_a_path_is_taken_again_only_while_the_head_walks_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # While the head takes the moves of its last path to the food, the planner takes the rest of
    # that path again instead of searching. At every plan of a 12x12 game and its play-outs:
    # where the head walked the last path, a new search must nearly always find that same rest,
    # and a new cut check of the rest must give the kept one (eating at its end leaves the same
    # body); elsewhere, the plan must be the one a solver with nothing kept makes.
    original = TreeSolver._first_step
    counts = {"kept": 0, "same": 0, "fresh": 0}

    def checked(self: TreeSolver, food: int) -> tuple[int, list[int]]:
        serial, path, cut = self._kept
        walked = serial == self._serial - 1 and len(path) > 2 and path[1] == self._body[0]
        if walked and path[-1] == food:
            goal = [False] * len(self._occ)
            goal[food] = True
            counts["kept"] += 1
            counts["same"] += self._plan(goal, bound=self._bound_to(food)) == path[1:]
            again = self._path_cuts(path[1:])
            assert (again is None) == (cut is None)
            assert sorted(again or []) == sorted(cut or [])
            made = original(self, food)
            assert self._kept[1] == path[1:]
            return made
        made = original(self, food)
        kept = self._kept
        self._kept = (-1, [], None)
        assert original(self, food) == made
        assert self._kept == kept
        counts["fresh"] += 1
        return made

    monkeypatch.setattr(TreeSolver, "_first_step", checked)
    game = Game(open_level(12, 12, length=1), seed=2)
    assert play(game, TreeSolver()) is Outcome.WON
    assert counts["kept"] > 1000
    assert counts["fresh"] > 1000
    assert counts["same"] >= 0.9 * counts["kept"]  # 95.6% here: the hug costs move with the body


def _state_after(grid: BlockGrid, body: list[int], path: list[int]) -> list[int] | None:
    """Edge -> 1 in the tree, 0 not, -1 free once the snake (``body``, head first) has eaten at
    the end of ``path``, read off the cells that are body then; None if two disagree."""
    cells = [*reversed(path), *body[1:]][: len(body) + 1]  # the body after eating, head first
    state = [-1] * len(grid.ends)
    for i, c in enumerate(cells[1:], start=1):
        e = grid.cedge[c]
        if e >= 0:
            v = 1 if cells[i - 1] == grid.cross[c] else 0
            if state[e] not in (-1, v):
                return None
            state[e] = v
    return state


def _cut_by_whole_search(grid: BlockGrid, state: list[int], head_block: int) -> list[int] | None:
    """The blocks that edges not forbidden by ``state`` leave apart from the head's, or None if
    the forced edges close a loop: the spanning-tree question asked over every edge."""
    parent = list(range(len(grid.adj)))

    def root(a: int) -> int:
        while parent[a] != a:
            a = parent[a]
        return a

    for e, (a, b) in enumerate(grid.ends):
        if state[e] == 1:
            if root(a) == root(b):
                return None
            parent[root(a)] = root(b)
    reached = {head_block}
    todo = [head_block]
    while todo:
        for e, other in grid.adj[todo.pop()]:
            if state[e] != 0 and other not in reached:
                reached.add(other)
                todo.append(other)
    return [b for b in grid.blocks if b not in reached]


@pytest.mark.parametrize(
    ("level", "seed"),
    [
        (open_level(12, 12, length=1), 3),
        pytest.param(open_level(16, 12, length=1), 8, marks=pytest.mark.slow),
        (_level(ROOMS), 2),
        (_level(("." * 8,) * 6, wrap=True), 5),
        (_level(RING), 4),
    ],
)
def test_the_path_check_agrees_with_a_whole_tree_search(level: Level, seed: int) -> None:
    # Which blocks a path cuts off (or whether it breaks the tree) is read along the walk of the
    # body and the path; a search over every edge of the state after eating must agree, for
    # the planner's paths to the food and to other cells, at every move of a game.
    game, solver, grid = _started(level, seed)
    verdicts = set()
    goals = [c for c in range(len(grid.points)) if grid.block[c] >= 0]
    while solver._ring is None and not game.over:
        solver._sync(game)
        for target in (solver._food_index(game), goals[game.steps * 7919 % len(goals)]):
            goal = [False] * len(grid.points)
            goal[target] = True
            for first in (-1, grid.dflt[solver._body[0]], grid.cross[solver._body[0]]):
                path = solver._plan(goal, first)
                if path is None or len(path) < 2:
                    continue
                state = _state_after(grid, [grid.index(p) for p in game.body], path)
                want = (
                    None
                    if state is None
                    else _cut_by_whole_search(grid, state, grid.block[path[0]])
                )
                got = solver._path_cuts(path)
                assert (got if got is None else sorted(got)) == want
                verdicts.add("loop" if want is None else "cut" if want else "whole")
        game.step(solver.next_direction(game))
    # Small boards do not show every verdict; the open ones do.
    assert "whole" in verdicts and len(verdicts) >= (3 if len(grid.blocks) >= 36 else 2)


@pytest.mark.parametrize(("size", "seed"), [(8, 1), pytest.param(12, 2, marks=pytest.mark.slow)])
def test_the_after_eating_search_costs_moves_as_the_planner_does(size: int, seed: int) -> None:
    # The mean distance after eating comes from a leaner copy of the planner's search: for each
    # cell, its number of moves must be the length of the planner's own path there (-1 where
    # the planner finds none), including the hugging costs of small boards.
    game, solver, grid = _started(open_level(size, size, length=1), seed)
    compared = 0
    while solver._ring is None and not game.over:
        solver._sync(game)
        moves = solver._moves_to_cells()
        assert moves is not None
        for cell in range(game.steps % 5, len(grid.points), 5):
            goal = [False] * len(grid.points)
            goal[cell] = True
            path = solver._plan(goal)
            if cell == solver._body[0]:
                continue
            assert moves[cell] == (-1 if path is None else len(path) - 1)
            compared += path is not None
        game.step(solver.next_direction(game))
    assert solver._hug > 0 or size > 8
    assert compared > 2000
