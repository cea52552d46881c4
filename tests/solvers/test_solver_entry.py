"""A body no Hamiltonian cycle holds (a bent start, or one a person steered while the bot was
paused) is walked onto one: no death on a board with a cycle, and the hole cycle reached on a
board short of one (helper-41's fuzz)."""

from __future__ import annotations

from collections.abc import Collection

import pytest

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Point
from termsnake.core.level import Level
from termsnake.solvers import create, play
from termsnake.solvers import hamilton as hamilton_mod
from termsnake.solvers import replan as replan_mod
from termsnake.solvers.entry import way_to_closure
from termsnake.solvers.grid import grid_of
from termsnake.solvers.hampath import Limit
from termsnake.solvers.hampath.holes import find_hole_cycle


def bent(rows: list[str], body: list[tuple[int, int]], *, wrap: bool) -> Level:
    board = Board.from_rows(rows, wrap=wrap)
    cells = tuple(Point(x, y) for x, y in body)
    heading = next(d for d in DIRECTIONS if board.step(cells[1], d) == cells[0])
    return Level(board, cells, heading)


# A 5x4 board that wraps (it has a cycle) and a body of 13 down and across it that no cycle
# holds for 18 moves: the roomiest move ate its way into a pocket and died.
TORUS = bent(
    ["....."] * 4,
    [(1, 1), (0, 1), (0, 0), (0, 3), (4, 3), (4, 2), (4, 1), (4, 0), (3, 0), (2, 0), (2, 1),
     (3, 1), (3, 2)],
    wrap=True,
)  # fmt: skip
# One light cell more than dark; the first hole a cycle leaves out that the search found, when
# helper-41 drew this board, is under the head (the search tries more holes now, and finds
# (3, 7) too: ``under_the_head`` holds it to the first).
HOLE_UNDER_HEAD = bent(
    [".....", ".....", ".....", ".....", "..#..", ".##.#", ".....", ".....", "....."],
    [(4, 8), (3, 8), (2, 8), (1, 8), (0, 8), (0, 7), (0, 6), (0, 5), (0, 4), (0, 3), (1, 3),
     (2, 3), (2, 2), (1, 2), (0, 2)],
    wrap=False,
)  # fmt: skip
# Two light cells more than dark (a snake can fill all but two), one hole under the body.
HOLE_UNDER_BODY = bent(
    ["....#.", "...#..", "......", "......"],
    [(3, 0), (2, 0), (2, 3), (2, 2), (2, 1), (1, 1), (0, 1), (0, 0), (1, 0), (1, 3), (1, 2),
     (0, 2)],
    wrap=True,
)  # fmt: skip


# A 6x5 board that wraps, a wall, a body of 18: the way is 15 moves and passes the food,
# which a search of 1,000 positions did not reach (helper-43's review).
WALLED_TORUS = bent(
    ["......", "......", "......", "#.....", "......"],
    [(3, 4), (3, 3), (4, 3), (4, 2), (4, 1), (5, 1), (5, 2), (0, 2), (1, 2), (2, 2), (2, 1),
     (2, 0), (2, 4), (1, 4), (0, 4), (5, 4), (5, 0), (4, 0)],
    wrap=True,
)  # fmt: skip


@pytest.mark.parametrize(
    ("level", "seed"),
    [(TORUS, 1), (TORUS, 5), (TORUS, 5516), (WALLED_TORUS, 9331)],
    ids=["torus-1", "torus-5", "torus-5516", "walled-9331"],
)
@pytest.mark.parametrize("solver", ["hamilton", "best"])
def test_a_body_no_cycle_holds_is_walked_onto_one_alive(
    solver: str, level: Level, seed: int
) -> None:
    game = Game(level, seed)
    play(game, create(solver))
    assert game.outcome is Outcome.WON, game.cause


@pytest.fixture
def under_the_head(monkeypatch: pytest.MonkeyPatch) -> None:
    """replan finds no cycle round a hole clear of the body and the food, only one round any."""

    def any_hole(board: Board, taken: Collection[int], limit: Limit) -> object:
        return find_hole_cycle(board, (), limit) if not taken else None

    monkeypatch.setattr(replan_mod, "find_hole_cycle", any_hole)


@pytest.mark.usefixtures("under_the_head")
def test_a_bent_body_on_the_only_hole_gets_onto_the_hole_cycle() -> None:
    game = Game(HOLE_UNDER_HEAD, 2542)
    best = create("best")
    play(game, best)
    assert game.outcome is Outcome.WON, (game.cause, game.length)


# Two light cells more than dark; the start body no cycle round two holes holds in order: one
# built round it left a hole no switch reaches, and food in it was never eaten.
BUILT_ROUND = bent(
    ["....", "....", "....", "...#", "....", "...#"],
    [(1, 0), (0, 0), (0, 5), (0, 4), (3, 4), (2, 4), (1, 4), (1, 3)],
    wrap=True,
)


@pytest.mark.parametrize(
    ("level", "seed"),
    [(HOLE_UNDER_BODY, 2389), (HOLE_UNDER_BODY, 6910), (BUILT_ROUND, 57)],
    ids=["under-2389", "under-6910", "built-57"],
)
def test_a_body_off_the_cycle_round_two_holes_fills_all_but_two(level: Level, seed: int) -> None:
    # All but two, then the food in a hole all the same (``best``: the game could only stall).
    game = Game(level, seed)
    play(game, create("best"))
    assert game.length == level.board.free_count - 1, game.cause


@pytest.mark.usefixtures("under_the_head")
def test_a_search_that_finds_no_way_waits_longer_each_time(monkeypatch: pytest.MonkeyPatch) -> None:
    # A failed search was tried again at every move off the cycle (each costs many closures).
    searches: list[int] = []

    def nothing(*args: object, **kwargs: object) -> None:
        searches.append(1)

    monkeypatch.setattr(hamilton_mod, "way_to_closure", nothing)
    game = Game(HOLE_UNDER_HEAD, 2542)
    solver = create("best")
    solver.setup(game)
    for _ in range(200):
        if game.over:
            break
        game.step(solver.next_direction(game))
    assert 1 <= len(searches) <= 10


def test_a_way_round_the_food_never_passes_over_it_uneaten() -> None:
    # The pass round the food walked through it as through a free cell: the body it said the
    # way ends with was one short of the body the game gives, which eats the food on the way.
    grid = grid_of(Board.open(5, 1))
    assert way_to_closure(grid, (1,), 2, lambda body: body[0] == 4 and len(body) == 1) is None
    assert way_to_closure(grid, (1,), 2, lambda body: body[0] == 4) == [2, 3, 4]  # eating it
