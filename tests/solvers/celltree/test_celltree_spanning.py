"""The body mirror and the spanning-tree checks: the mirror's edge constraints follow the body,
and the fast checks of a move and of a path agree with a search over every edge."""

from __future__ import annotations

import pytest
from celltree_checks import RING, ROOMS, level_of, started

from termsnake.core.level import Level, open_level
from termsnake.solvers.celltree.blocks import BlockGrid, direction
from termsnake.solvers.celltree.lookahead import food_index
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.spanning import body_fits, keeps_tree, path_cuts


def test_the_mirrors_edge_constraints_follow_the_body() -> None:
    # Each edge's constraint is kept as the body moves; read again from the body cells (the
    # cells of rank > keep, but the head), it must agree at every move, whatever the rank,
    # until the late game leaves the blocks' ways.
    game, solver, policy, grid = started(open_level(12, 12, length=1), 4)
    mirror = policy.mirror
    checked = 0
    while solver.late is None:
        mirror.sync(game)
        body = [grid.index(p) for p in game.body]
        for keep in (-1, 0, len(body) // 2, len(body) - 2):
            want = [-1] * len(grid.ends)
            for i, c in enumerate(body[1:], start=1):
                rank = len(body) - 1 - i
                if rank > keep and grid.cedge[c] >= 0:
                    want[grid.cedge[c]] = 1 if body[i - 1] == grid.cross[c] else 0
            assert [mirror.edge_now(e, keep) for e in range(len(grid.ends))] == want
            checked += sum(v >= 0 for v in want)
        game.step(solver.next_direction(game))
    assert game.length > 100
    assert checked > 10_000


def test_a_copy_of_the_mirror_moves_apart() -> None:
    # Play-outs move a copy: the original must not see its moves.
    _, _, policy, grid = started(open_level(8, 8, length=1), 1)
    mirror = policy.mirror
    before = (list(mirror.occ), list(mirror.body), mirror.serial, list(mirror.fixed))
    twin = mirror.copy()
    twin.advance(grid.dflt[twin.head], grow=False)
    assert twin.serial == mirror.serial + 1 and twin.head != mirror.head
    assert (list(mirror.occ), list(mirror.body), mirror.serial, list(mirror.fixed)) == before
    assert twin.marks is mirror.marks and twin.grid is mirror.grid


@pytest.mark.parametrize(
    ("width", "height", "seed"), [(12, 12, 2), pytest.param(16, 12, 5, marks=pytest.mark.slow)]
)
def test_the_move_check_agrees_with_a_whole_tree_search(width: int, height: int, seed: int) -> None:
    # The live check of each move (one edge at a time) must say what a search for a spanning
    # tree over the whole body after that move says, for both moves, at every move of a game.
    game, solver, policy, grid = started(open_level(width, height, length=1), seed)
    mirror = policy.mirror
    verdicts = set()
    while solver.late is None and not game.over:
        mirror.sync(game)
        head = mirror.head
        for target in (grid.dflt[head], grid.cross[head]):
            if target < 0 or mirror.occ[target] >= 0:
                continue
            after = game.copy()
            after.step(direction(grid, head, target))
            whole = body_fits(BodyMirror.of(grid, after)) is None
            assert keeps_tree(mirror, target, target == food_index(game)) == whole
            verdicts.add(whole)
        game.step(solver.next_direction(game))
    assert verdicts == {True, False}


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
        pytest.param(open_level(12, 12, length=1), 3, marks=pytest.mark.slow),
        pytest.param(open_level(16, 12, length=1), 8, marks=pytest.mark.slow),
        (level_of(ROOMS), 2),
        (level_of(("." * 8,) * 6, wrap=True), 5),
        (level_of(RING), 4),
    ],
)
def test_the_path_check_agrees_with_a_whole_tree_search(level: Level, seed: int) -> None:
    # Which blocks a path cuts off (or whether it breaks the tree) is read along the walk of the
    # body and the path; a search over every edge of the state after eating must agree, for
    # the planner's paths to the food and to other cells, at every move of a game.
    game, solver, policy, grid = started(level, seed)
    mirror = policy.mirror
    verdicts = set()
    goals = grid.open_cells
    while solver.late is None and not game.over:
        mirror.sync(game)
        for target in (food_index(game), goals[game.steps * 7919 % len(goals)]):
            goal = [False] * len(grid.points)
            goal[target] = True
            for first in (-1, grid.dflt[mirror.head], grid.cross[mirror.head]):
                path = policy.planner.plan(goal, first)
                if path is None or len(path) < 2:
                    continue
                state = _state_after(grid, [grid.index(p) for p in game.body], path)
                want = (
                    None
                    if state is None
                    else _cut_by_whole_search(grid, state, grid.block[path[0]])
                )
                got = path_cuts(mirror, path)
                assert (got if got is None else sorted(got)) == want
                verdicts.add("loop" if want is None else "cut" if want else "whole")
        game.step(solver.next_direction(game))
    # Small boards do not show every verdict; the open ones do.
    assert "whole" in verdicts and len(verdicts) >= (3 if len(grid.blocks) >= 36 else 2)
