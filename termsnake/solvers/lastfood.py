"""The last food: the shortest way to a food no safe way reaches, walked safe or not, once
waiting can only end the game in a stall. ``best`` asks on every board (``after_laps``,
``last_chance``); ``deadends`` when food falls in a one-wide alley (``eat_anyway``).
"""

from __future__ import annotations

from typing import Final

from termsnake.core.game import STALL_FACTOR, Game
from termsnake.core.geometry import Direction, Point
from termsnake.solvers.grid import body_free_at, grid_of, path_arrows, shortest_path

# ``after_laps`` takes the way to the food after this many laps of the free cells without food.
LAST_FOOD_LAPS: Final = STALL_FACTOR - 1
# ``last_chance`` takes the way to the food once it would end LAST_FOOD_SLACK moves and a
# LAST_FOOD_SHARE-th of the free cells before the stall (the way can grow as the body moves).
LAST_FOOD_SLACK: Final = 4
LAST_FOOD_SHARE: Final = 8


def eat_anyway(game: Game) -> Direction | None:
    """The first move of the shortest way to the food, safe or not (None if there is none): for
    a food no safe way reaches, where waiting can only end the game in a stall."""
    way = _way_to_food(game)
    return None if not way else _first_move(game, way)


def after_laps(game: Game) -> Direction | None:
    """``eat_anyway``'s move once LAST_FOOD_LAPS laps of the free cells have gone without food,
    else None: a safe solver that has found no way to the food by then finds none before the
    game stalls, a lap later (docs/tuning.md, "The last food")."""
    return eat_anyway(game) if game.since_food >= LAST_FOOD_LAPS * game.board.free_count else None


def last_chance(game: Game) -> Direction | None:
    """``eat_anyway``'s move once the way would reach the food only LAST_FOOD_SLACK moves and
    a LAST_FOOD_SHARE-th of the free cells before the game stalls (no food for ``stall_limit``
    moves), else None: eating then scores one more than the stall, and the solver had every
    move till then to find a safe way."""
    if game.since_food < game.stall_limit - game.board.free_count:
        return None  # no way is longer than the free cells
    way = _way_to_food(game)
    slack = LAST_FOOD_SLACK + game.board.free_count // LAST_FOOD_SHARE
    if not way or game.since_food + len(way) + slack < game.stall_limit:
        return None
    return _first_move(game, way)


def way_arrows(game: Game) -> dict[Point, str]:
    """The shortest way to the food that ``eat_anyway`` walks, drawn as arrows (an overlay)."""
    way = _way_to_food(game)
    if not way:
        return {}
    grid = grid_of(game.board)
    return path_arrows(grid, grid.index(game.head), way)


def _way_to_food(game: Game) -> list[int] | None:
    if game.food is None:
        return None
    grid = grid_of(game.board)
    head = grid.index(game.head)
    return shortest_path(grid, head, grid.index(game.food), body_free_at(grid, game.body))


def _first_move(game: Game, way: list[int]) -> Direction | None:
    grid = grid_of(game.board)
    return grid.direction(grid.index(game.head), way[0])
