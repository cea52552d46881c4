"""Look-ahead: the live move, chosen by playing moves out on copies of the mirror.

Where both moves keep the tree, each is played out (the plain policy, on a forked mirror) until
the snake eats, with the board's shut-cost variants too, and once chasing the tail where the
way to the food would cut blocks off (``StepCosts.chase``); the route that scores least (its
moves plus a term for the mean distance to a free cell after eating) is kept to, each step
checked again live. On mid-sized boards the move a kept route does not take is played out
as well at its steps (re-branching), and taken if it scores below the rest of the route.
"""

from __future__ import annotations

from dataclasses import dataclass

from termsnake.core.game import Game
from termsnake.solvers.celltree.config import FAR, STEP
from termsnake.solvers.celltree.mirror import BodyMirror
from termsnake.solvers.celltree.planner import Kept
from termsnake.solvers.celltree.policy import Policy
from termsnake.solvers.celltree.spanning import keeps_tree
from termsnake.solvers.grid import grid_of

Route = tuple[list[int], int]  # the cells of a play-out, and its score


@dataclass(frozen=True, slots=True)
class Fork:
    """Where a play-out's first detour round a cut began: the mirror and the path the planner
    kept then, the route up to the head, the moves since the last food, and the most its
    bound checks on the way asked of a route's score (``rollout``)."""

    mirror: BodyMirror
    kept: Kept
    route: list[int]
    since_food: int
    reach: int


def food_index(game: Game) -> int:
    """The food's cell index, -1 if there is no food."""
    food = game.food
    return -1 if food is None else food.y * game.board.width + food.x


def choose(policy: Policy, food: int, since_food: int, game: Game | None) -> int:
    """The cell to move to next, with the food at ``food`` (-1: none), ``since_food`` moves
    after the last one eaten; the policy's mirror must be in step with the game.

    With ``game`` (the live move) it looks ahead: it plays moves out and re-branches. Without
    (a play-out's move) it takes the plain policy.
    """
    options = policy.options()
    # 1. After a lap without food, a fixed cycle.
    c = policy.following(since_food)
    if c is not None:
        return c
    # 2. A route kept from earlier play-outs, while it keeps the tree; maybe re-branched.
    kept = policy.take_route(food, options)
    if kept is not None:
        c, score = kept
        blocks = len(policy.mirror.grid.blocks)
        if (
            game is not None
            and score >= 0
            and c != food
            and len(options) == 2
            and policy.config.rebranch_now(blocks, score)
        ):
            other = options[0] if options[1] == c else options[1]
            alt = rebranch(policy, game, other, food, score)
            if alt is not None:
                policy.route.clear()
                return policy.keep_play_out(*alt)
        return c
    # 3. The planner's first step, or the other move, whichever keep the tree.
    look = game is not None and policy.config.lookahead
    safe, route = policy.tree_keeping_moves(food, options, both=look)
    # 4. Where both do, the best play-out.
    if game is not None and len(safe) == 2:
        best = best_route(policy, game, safe)
        if best is not None:
            return policy.keep_play_out(*best)
    # 5. A path to the food that cuts nothing off is kept to.
    policy.keep_route(route, safe[0])
    return safe[0]


def best_route(policy: Policy, game: Game, safe: list[int]) -> Route | None:
    """The least-scoring play-out of every safe move with every cost variant, if any ends.

    The plan ignores what the body will look like after eating; the play-outs see it. The
    winner's route is kept to until the food, so this costs its work once per food, not per
    move."""
    best: Route | None = None
    best_score = FAR
    limit = len(policy.mirror.grid.points) * 2
    plain = policy.config.shut
    for c in safe:
        # The chasing play-out differs from the plain one only from the plain one's first detour
        # round a cut on: it goes on from there, and is not played where there was none.
        fork: list[Fork] = []
        for shut, hug, chase in variants(policy):
            if chase and not fork:
                continue
            plain_one = shut == plain and not chase
            out = rollout(
                policy,
                game,
                c,
                limit,
                shut,
                hug,
                best_score,
                chase=chase,
                fork=fork if plain_one else None,
                start=fork[0] if chase else None,
            )
            if out is not None and out[1] < best_score:
                best, best_score = out, out[1]
    return best


def variants(policy: Policy) -> list[tuple[int, int, bool]]:
    """The (shut cost, hug cost, chase) each play-out is tried with on this board."""
    config = policy.config
    blocks = len(policy.mirror.grid.blocks)
    hug = config.hug_on(blocks)
    out = [(config.shut, hug, False)] + [(s, hug, False) for s in config.variants_on(blocks)]
    if config.chase:
        out.append((config.shut, hug, True))
    return out


def rebranch(policy: Policy, game: Game, other: int, food: int, score: int) -> Route | None:
    """The play-out from ``other`` (the move a kept route does not take) and its score, if the
    board re-branches, ``other`` keeps the tree, and the play-out scores below ``score`` (the
    rest of the route's)."""
    config = policy.config
    grid = policy.mirror.grid
    if not config.rebranches_on(len(grid.blocks)):
        return None
    if not keeps_tree(policy.mirror, other, other == food):
        return None
    hug = config.hug_on(len(grid.blocks))
    out = rollout(policy, game, other, len(grid.points) * 2, config.shut, hug, score)
    return out if out is not None and out[1] < score else None


def rollout(
    policy: Policy,
    game: Game,
    first: int,
    limit: int,
    shut: int,
    hug: int,
    bound: int = FAR,
    *,
    chase: bool = False,
    fork: list[Fork] | None = None,
    start: Fork | None = None,
) -> Route | None:
    """The moves the plain policy (``choose`` without look-ahead, with ``shut`` and ``hug`` as
    its costs) makes from ``first`` until it eats, and their score: STEP a move, plus the
    after-eating term. With ``fork``, the state its first detour round a cut began in goes in
    it; with ``start`` (such a state), it goes on from there instead of from ``first``.

    None if it takes ``limit`` moves or more, if it cannot score below ``bound``, or if the game
    ends otherwise. The play-out moves only a fork of the mirror, by the rules of ``game``
    (which it leaves alone).
    """
    cells = grid_of(game.board)
    food = food_index(game)
    toward = policy.planner.maps.bound(food) if food >= 0 else []
    # No play-out scores less than its moves plus the least its after-eating term can be
    # (unless it stalls first, which ends it without that term).
    floor = 0
    if policy.config.after_weight and food >= 0 and game.since_food + limit < game.stall_limit:
        mirror = policy.mirror
        floor = after_floor(policy, food, len(mirror.grid.open_cells) - len(mirror.body) - 1)
    if start is None:
        sim = policy.fork(shut=shut, hug=hug, chase=chase)
        route, since_food, reach = [first], game.since_food, 0
    else:
        sim = policy.fork(shut=shut, hug=hug, chase=chase, at=(start.mirror, start.kept))
        route, since_food, reach = list(start.route), start.since_food, start.reach
    watch = sim.planner.watch = [] if fork is not None else None
    cell = route[-1]
    # Every chosen move keeps the tree, so none is fatal; the play-out ends when the snake eats
    # (and the game is won if the snake then fills the board) or stalls.
    while True:
        if start is None:
            if cell == food:
                sim.mirror.advance(cell, grow=True)
                over = len(sim.mirror.body) >= game.board.free_count
                break
            since_food += 1
            if since_food >= game.stall_limit:
                over = True
                break
            # No route eats in fewer moves than the distance to the food along the blocks'
            # ways with no body in the way (or, without A*, walls aside).
            ahead = toward[cell] // STEP if toward else cells.distance(cell, food)
            reach = max(reach, STEP * (len(route) + ahead))
            if len(route) >= limit or reach + floor >= bound:
                return None  # too long, or it cannot score below ``bound``
            sim.mirror.advance(cell, grow=False)
        elif reach + floor >= bound:
            return None  # the checks on the way to ``start``, with this bound
        start = None
        cell = choose(sim, food, since_food, None)
        if watch and fork is not None and not fork:
            fork.append(Fork(*watch[0], list(route), since_food, reach))
        route.append(cell)
    score = STEP * len(route)
    if not over and policy.config.after_weight:
        after = after_term(sim, food, bound - score)
        if after is None:
            return None  # it cannot score below ``bound``
        score += after
    return route, score


def after_term(sim: Policy, food: int, limit: int) -> int | None:
    """``after_weight`` times the mean number of moves (x 1000), in the play-out's state just
    after eating at ``food``, to reach a free cell (one out of reach counts as many moves as
    the board has cells); None as soon as that is sure to be ``limit`` or more."""
    occ = sim.mirror.occ
    free = [c for c in sim.mirror.grid.open_cells if occ[c] < 0]
    if not free:
        return 0
    if limit <= 0:
        return None
    weight, count = sim.config.after_weight, len(free)
    need = -(-1000 * limit // weight)  # the least mean (x 1000) whose term reaches limit
    cap = -(-need * count // 1000)  # the least sum of moves with that mean
    far = sim.planner.maps.spread(food)[0]
    reach = sim.planner.moves_to_cells(far, cap)
    if reach is None:
        return None
    n = len(occ)
    total = sum(k if k >= 0 else n for k in (reach[c] for c in free))
    return weighted_mean(sim, total, count)


def weighted_mean(policy: Policy, total: int, count: int) -> int:
    """``after_weight`` times the mean ``total / count`` (thousandths, rounded down, as the
    after-eating term counts it; it grows with ``total``)."""
    return policy.config.after_weight * (1000 * total // count) // 1000


def after_floor(policy: Policy, food: int, free: int) -> int:
    """The least after-eating term of a play-out that eats at ``food`` leaving ``free`` cells
    free: no way from there is shorter than along the blocks' ways with no body in the way, so
    the mean over any ``free`` cells is at least that of the ``free`` nearest ones."""
    if free <= 0:
        return 0
    return weighted_mean(policy, policy.planner.maps.spread(food)[1][free], free)
