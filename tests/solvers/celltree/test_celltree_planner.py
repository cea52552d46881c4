"""The path planner: A* finds Dijkstra's paths, a kept path stands in for a new search only while
the head walks it, and the after-eating count of moves is the planner's own."""

from __future__ import annotations

import pytest
from celltree_checks import started

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.solvers.base import play
from termsnake.solvers.celltree import TreeSolver
from termsnake.solvers.celltree.lookahead import food_index
from termsnake.solvers.celltree.planner import Planner
from termsnake.solvers.celltree.spanning import path_cuts


@pytest.mark.parametrize(
    ("size", "seed", "moves"), [(12, 1, 1000), pytest.param(16, 2, 600, marks=pytest.mark.slow)]
)
def test_a_star_plans_the_same_paths_as_dijkstra(size: int, seed: int, moves: int) -> None:
    # The A* bounds (distance along the blocks' ways with no body, to the food and to the tail)
    # must never overestimate: if one did, A* would return longer paths than Dijkstra somewhere
    # in these games.
    compared = 0
    game, solver, policy, _ = started(open_level(size, size, length=1), seed)
    planner, mirror = policy.planner, policy.mirror
    while not game.over and game.steps < moves:
        mirror.sync(game)
        food, tail = food_index(game), mirror.body[-1]
        for goal_cell, bound in (
            (food, planner.maps.bound),
            (tail, planner.maps.bound_to_tail),
        ):
            goal = [False] * size * size
            goal[goal_cell] = True
            slow = planner.plan(goal)
            assert planner.plan(goal, bound=bound(goal_cell)) == slow
            compared += slow is not None
        game.step(solver.next_direction(game))
    assert compared > moves


def test_a_path_is_taken_again_only_while_the_head_walks_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # While the head takes the moves of its last path to the food, the planner takes the rest of
    # that path again instead of searching. At every plan of a 10x10 game and its play-outs:
    # where the head walked the last path, a new search must nearly always find that same rest,
    # and a new cut check of the rest must give the kept one (eating at its end leaves the same
    # body); elsewhere, the plan must be the one a planner with nothing kept makes.
    original = Planner.first_step
    counts = {"kept": 0, "same": 0, "fresh": 0}

    def checked(self: Planner, food: int) -> tuple[int, list[int]]:
        serial, path, cut = self.kept
        m = self.mirror
        walked = serial == m.serial - 1 and len(path) > 2 and path[1] == m.head
        if walked and path[-1] == food:
            goal = [False] * len(m.occ)
            goal[food] = True
            counts["kept"] += 1
            counts["same"] += self.plan(goal, bound=self.maps.bound(food)) == path[1:]
            again = path_cuts(m, path[1:])
            assert (again is None) == (cut is None)
            assert sorted(again or []) == sorted(cut or [])
            made = original(self, food)
            assert self.kept[1] == path[1:]
            return made
        made = original(self, food)
        kept = self.kept
        self.kept = (-1, [], None)
        assert original(self, food) == made
        assert self.kept == kept
        counts["fresh"] += 1
        return made

    monkeypatch.setattr(Planner, "first_step", checked)
    game = Game(open_level(10, 10, length=1), seed=2)
    assert play(game, TreeSolver()) is Outcome.WON
    assert counts["kept"] > 500
    assert counts["fresh"] > 500
    assert counts["same"] >= 0.9 * counts["kept"]  # not all: the hug costs move with the body


@pytest.mark.parametrize(("size", "seed"), [(8, 1), pytest.param(12, 2, marks=pytest.mark.slow)])
def test_the_after_eating_search_costs_moves_as_the_planner_does(size: int, seed: int) -> None:
    # The mean distance after eating comes from the planner's own search run over the whole
    # board: for each cell, its number of moves must be the length of the planner's path there
    # (-1 where the planner finds none), including the hugging costs of small boards.
    game, solver, policy, grid = started(open_level(size, size, length=1), seed)
    planner = policy.planner
    compared = 0
    while solver.late is None and not game.over:
        policy.mirror.sync(game)
        moves = planner.moves_to_cells()
        assert moves is not None
        for cell in range(game.steps % 5, len(grid.points), 5):
            goal = [False] * len(grid.points)
            goal[cell] = True
            path = planner.plan(goal)
            if cell == policy.mirror.head:
                continue
            assert moves[cell] == (-1 if path is None else len(path) - 1)
            compared += path is not None
        game.step(solver.next_direction(game))
    assert planner.costs.hug > 0 or size > 8
    assert compared > 2000


def test_a_chasing_planner_goes_round_a_cut_after_the_tail() -> None:
    # Where the way to the food would cut blocks off (and no way through the other move is
    # near as short), the plain planner heads into those blocks and a chasing one (the
    # look-ahead's extra play-out) after the tail, whose leaving opens them again: the two must
    # differ there, and nowhere else.
    game, solver, policy, grid = started(open_level(14, 14, length=1), 3)
    differ = same = 0
    while solver.late is None and not game.over and game.steps < 1200:
        policy.mirror.sync(game)
        food = food_index(game)
        if food >= 0 and len(policy.mirror.body) > 2:
            plain = policy.fork(shut=policy.config.shut, hug=0)
            chasing = policy.fork(shut=policy.config.shut, hug=0, chase=True)
            step, route = plain.planner.first_step(food)
            chased, _ = chasing.planner.first_step(food)
            goal = [False] * len(grid.points)
            goal[policy.mirror.body[-1]] = True
            to_tail = plain.planner.plan(goal)
            if route or step < 0 or to_tail is None:
                assert chased == step
                same += 1
            elif chased != step:
                assert chased == to_tail[1]
                differ += 1
        game.step(solver.next_direction(game))
    assert differ > 40 and same > 600
