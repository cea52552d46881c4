"""Look-ahead: play-outs are legal games that eat at their end, are cut short only when they
could not win, the best of every play-out is kept, and sparse boards re-branch every few moves."""

from __future__ import annotations

import pytest
from celltree_checks import play_checked, started

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.solvers.celltree import TreeConfig, lookahead
from termsnake.solvers.celltree.blocks import direction
from termsnake.solvers.celltree.config import FAR
from termsnake.solvers.celltree.lookahead import (
    after_floor,
    choose,
    food_index,
    rollout,
    variants,
)
from termsnake.solvers.celltree.policy import Policy
from termsnake.solvers.celltree.spanning import keeps_tree


def test_a_play_out_is_a_legal_game_that_eats_at_its_end() -> None:
    # A play-out moves only a copy of the solver's mirror, by the game's rules: its route,
    # played on a copy of the live game, never dies and eats at its last move and not before.
    game, solver, policy, grid = started(open_level(10, 10, length=1), 6)
    mirror = policy.mirror
    routes = 0
    while solver.late is None and not game.over:
        mirror.sync(game)
        head = mirror.head
        for first in (grid.dflt[head], grid.cross[head]):
            if first < 0 or not keeps_tree(mirror, first, first == food_index(game)):
                continue
            out = rollout(policy, game, first, 2 * len(grid.points), policy.config.shut, 0)
            assert out is not None
            route, _ = out
            copy = game.copy()
            for i, cell in enumerate(route):
                step = copy.step(direction(grid, grid.index(copy.head), cell))
                assert copy.outcome is not Outcome.DIED
                assert step.ate == (i == len(route) - 1)
            routes += 1
        game.step(solver.next_direction(game))
    assert routes > 100


def test_a_play_out_is_cut_short_only_when_it_could_not_win() -> None:
    # A play-out stops once its moves so far, the distance left and the least its after-eating
    # term can be reach its bound. That least term must never be over the real one: a bound
    # just above a play-out's score must still let it finish.
    game, solver, policy, grid = started(open_level(12, 12, length=1), 4)
    mirror = policy.mirror
    shut = policy.config.shut
    limit = 2 * len(grid.points)
    checked = 0
    while solver.late is None and not game.over:
        mirror.sync(game)
        head, food = mirror.head, food_index(game)
        for first in (grid.dflt[head], grid.cross[head]):
            if game.steps % 7 or first < 0 or not keeps_tree(mirror, first, first == food):
                continue
            out = rollout(policy, game, first, limit, shut, 0)
            assert out is not None
            route, score = out
            floor = after_floor(policy, food, len(grid.open_cells) - len(mirror.body) - 1)
            assert 0 < floor <= score - 1000 * len(route)
            assert rollout(policy, game, first, limit, shut, 0, score + 1) == out
            checked += 1
        game.step(solver.next_direction(game))
    assert checked > 200


def test_a_chasing_play_out_goes_on_from_the_plain_ones_first_detour() -> None:
    # The chasing play-out plays the plain one's moves up to its first detour round a cut, so
    # the look-ahead starts it there (``fork``). Started there it must end as it does from the
    # first move, bound checks on the way included; with no detour it is the plain one.
    game, solver, policy, grid = started(open_level(12, 12, length=1), 4)
    mirror = policy.mirror
    shut, hug, _ = variants(policy)[0]
    limit = 2 * len(grid.points)
    forks = same = 0
    while solver.late is None and not game.over:
        mirror.sync(game)
        head, food = mirror.head, food_index(game)
        for first in (grid.dflt[head], grid.cross[head]):
            if game.steps % 22 or first < 0 or not keeps_tree(mirror, first, first == food):
                continue
            fork: list[lookahead.Fork] = []
            plain = rollout(policy, game, first, limit, shut, hug, fork=fork)
            chased = rollout(policy, game, first, limit, shut, hug, chase=True)
            assert plain is not None and chased is not None
            if not fork:
                assert chased == plain
                same += 1
                continue
            start = fork[0]
            assert plain[0][: len(start.route)] == start.route
            for bound in (FAR, chased[1] + 1, chased[1]):
                on = rollout(policy, game, first, limit, shut, hug, bound, chase=True, start=start)
                from_start = rollout(policy, game, first, limit, shut, hug, bound, chase=True)
                assert on == from_start
            forks += 1
        game.step(solver.next_direction(game))
    assert forks > 8 and same > 50


@pytest.mark.slow  # every play-out of a look-ahead, played: CPU-heavy
@pytest.mark.parametrize(("width", "height", "shuts"), [(12, 12, 4), (16, 12, 3)])
def test_the_look_ahead_keeps_the_best_of_every_play_out_it_tries(
    width: int, height: int, shuts: int
) -> None:
    # Where both moves keep the tree, each is played out with the plain shut cost, with the
    # board's other ones (12x12: three more; larger boards: two more) and chasing the tail;
    # the route kept must score the least of all those play-outs, each run in full.
    game, solver, policy, grid = started(open_level(width, height, length=1), 2)
    mirror = policy.mirror
    shut = policy.config.shut
    limit = 2 * len(grid.points)
    checked = won_by_other = 0
    while solver.late is None and not game.over:
        mirror.sync(game)
        food = food_index(game)
        moves = policy.options()
        both = len(moves) == 2 and all(keeps_tree(mirror, c, c == food) for c in moves)
        if both and game.steps % 14 == 0:
            tried = variants(policy)
            assert len(tried) == shuts + 1 and tried[0] == (shut, tried[0][1], False)
            assert [chase for _, _, chase in tried] == [False] * shuts + [True]
            scores = {
                (c, s, chase): out
                for c in moves
                for s, hug, chase in tried
                if (out := rollout(policy, game, c, limit, s, hug, chase=chase)) is not None
            }
            least = min(score for _, score in scores.values())
            policy.route.clear()
            first = choose(policy, food, game.since_food, game)
            route = [first, *policy.route]
            assert policy.route_score == least - 1000
            assert (route, least) in scores.values()
            plain = min(score for (_, s, ch), (_, score) in scores.items() if s == shut and not ch)
            won_by_other += least < plain
            checked += 1
        game.step(solver.next_direction(game))
    while not game.over:
        game.step(solver.next_direction(game))
    assert game.outcome is Outcome.WON
    assert checked > 30 and won_by_other > 5


@pytest.mark.slow  # a whole 16x12 game; the rule itself is checked just below
def test_sparse_boards_rebranch_every_few_moves_and_hold_the_cycle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # 16x12 is 48 blocks: more than sparse_blocks, so the move a kept route does not take is
    # played out only at every rebranch_every-th move of the route. Only the live move
    # re-branches, never a play-out.
    config = TreeConfig()
    assert config.sparse_blocks < 48 <= config.rebranch_blocks
    calls: list[tuple[int, bool]] = []
    real = lookahead.rebranch

    def spy(
        policy: Policy, game: Game, other: int, food: int, score: int
    ) -> tuple[list[int], int] | None:
        out = real(policy, game, other, food, score)
        calls.append((score, out is not None))
        return out

    monkeypatch.setattr(lookahead, "rebranch", spy)
    game = play_checked(open_level(16, 12, length=1), seed=3, check_every=11)
    assert game.outcome is Outcome.WON
    assert calls and all((score // 1000) % config.rebranch_every == 0 for score, _ in calls)
    assert any(taken for _, taken in calls)  # and a re-branch was taken at least once


def test_bigger_boards_rebranch_less_often_and_the_biggest_not_at_all() -> None:
    # Every move up to sparse_blocks (36: 12x12), every 2nd up to sparser_blocks (100: 20x20),
    # every 3rd up to rebranch_blocks (256: 32x32), never beyond (40x40 is 400 blocks).
    config = TreeConfig()
    moves = [s * 1000 for s in range(6)]
    assert all(config.rebranch_now(36, m) for m in moves)
    assert [config.rebranch_now(100, m) for m in moves] == [True, False] * 3
    assert [config.rebranch_now(225, m) for m in moves] == [True, False, False] * 2
    assert config.rebranches_on(256) and not config.rebranches_on(400)
