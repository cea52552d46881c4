"""The article's straight-to-the-food bot: L-shaped ways, checked against the cycle both ways."""

from __future__ import annotations

import pytest

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Point
from termsnake.core.level import open_level
from termsnake.formats.presets import load_preset
from termsnake.solvers import SolverUnavailable, play
from termsnake.solvers.hampath.limit import Limit
from termsnake.solvers.straight import StraightSolver, l_paths, walk


def test_l_paths_go_along_the_row_or_the_column_first() -> None:
    board = Board.open(5, 5)
    row_first, column_first = l_paths(board, Point(0, 0), Point(2, 1))
    assert row_first == [Point(1, 0), Point(2, 0), Point(2, 1)]
    assert column_first == [Point(0, 1), Point(1, 1), Point(2, 1)]
    assert l_paths(board, Point(0, 0), Point(3, 0)) == [[Point(1, 0), Point(2, 0), Point(3, 0)]]


def test_an_l_path_through_a_wall_is_not_offered() -> None:
    board = Board.from_rows(["...", ".#.", "..."])
    assert l_paths(board, Point(0, 1), Point(2, 1)) == []
    assert len(l_paths(board, Point(0, 0), Point(2, 2))) == 2


def test_walk_follows_the_rules_of_the_tail_and_the_food() -> None:
    body = [Point(1, 1), Point(1, 2), Point(2, 2), Point(2, 1)]  # a ring: the tail is next door
    assert walk(body, [Point(2, 1)], food=Point(0, 0))  # the tail leaves in time
    assert not walk(body, [Point(2, 1)], food=Point(2, 1))  # unless the snake eats
    assert not walk(body, [Point(1, 2)], food=Point(0, 0))  # the neck never


@pytest.mark.parametrize("size", [6, 8])
def test_it_plays_legal_games_wins_most_and_dies_only_on_itself(size: int) -> None:
    outcomes = []
    for seed in range(1, 13):
        game = Game(open_level(size, size, 1), seed)
        play(game, StraightSolver())
        assert game.outcome in (Outcome.WON, Outcome.DIED)
        assert game.cause in (None, "ran into itself")
        outcomes.append(game.outcome)
    assert outcomes.count(Outcome.WON) >= 6


def test_it_cuts_corners_that_hamilton_s_cycle_would_go_round() -> None:
    game = Game(open_level(8, 8, 1), 1)
    solver = StraightSolver()
    solver.setup(game)
    on_cycle = 0
    for _ in range(200):
        if game.over:
            break
        direction = solver.next_direction(game)
        target = game.board.step(game.head, direction)
        on_cycle += target == solver._along(game.head, solver._forward)
        game.step(direction)
    assert on_cycle < 150  # many moves leave the cycle for the straight way


def test_a_board_without_a_cycle_is_refused_naming_the_bot_and_the_board() -> None:
    # The game's line said "termsnake: this board has no Hamiltonian cycle to follow ...".
    with pytest.raises(SolverUnavailable) as info:
        StraightSolver().setup(Game(open_level(7, 7, 1), 1))
    assert str(info.value) == (
        "straight cannot play open-7x7: the board has no Hamiltonian cycle to follow (an odd "
        "number of free cells (49) on a board that does not wrap); try --ai best"
    )


def test_a_search_that_gave_up_is_not_said_to_prove_no_cycle() -> None:
    rooms = Game(load_preset("rooms"), 1)  # it has one: a search of 10 positions gives up
    with pytest.raises(SolverUnavailable) as info:
        StraightSolver(Limit(nodes=10)).setup(rooms)
    assert str(info.value).startswith(
        "straight cannot play rooms: the board has no Hamiltonian cycle that could be found to "
        "follow (the search gave up after 10 positions)"
    )


def test_the_same_seed_gives_the_same_game() -> None:
    games = [Game(open_level(8, 8, 1), 4) for _ in range(2)]
    for game in games:
        play(game, StraightSolver())
    assert games[0].moves == games[1].moves
