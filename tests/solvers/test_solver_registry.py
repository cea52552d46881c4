"""Every solver by name: the registry, legal games on many boards, no change to the live game."""

from __future__ import annotations

import itertools
import re
import sys
from pathlib import Path

import pytest
from plugin_dist import INTERRUPTED_MODULE

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level
from termsnake.exits import Terminated
from termsnake.formats import presets
from termsnake.solvers import registry
from termsnake.solvers.base import Solver, SolverUnavailable
from termsnake.solvers.registry import create, known_names, resolve_name

NAMES = [
    *("best", "tree", "hamilton", "replan", "hole-cycle", "hole-tree", "greedy", "bfs", "astar")
]
# The solvers that refuse boards they cannot play safely.
REFUSING = ("tree", "hamilton", "replan", "hole-cycle", "hole-tree")


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="nosuch") as info:
        create("nosuch")
    for name in NAMES:
        assert name in str(info.value)


def test_best_is_a_solver_of_its_own() -> None:
    # `best` was once another name for `tree`; it is now the composite that plays each board
    # with the strongest solver that takes it.
    assert resolve_name(" Best ") == "best"
    assert "best" in known_names() and "tree" in known_names()
    assert create("best").name == "best"
    assert create("best") is not create("best")


@pytest.mark.parametrize("name", NAMES)
def test_each_name_makes_a_solver_of_that_name(name: str) -> None:
    solver = create(name)
    assert isinstance(solver, Solver)
    assert solver.name == name


def _boards() -> list[Level]:
    levels = [
        open_level(6, 6, 3),
        open_level(7, 5, 1),  # odd: hamilton is unavailable
        Level(Board.open(5, 5, wrap=True), (Point(2, 2),), Direction.UP),
        Level(Board.open(6, 4, wrap=True), (Point(3, 1), Point(2, 1)), Direction.RIGHT),
        Level(
            Board.from_rows(["......", "......", "..##..", "..##..", "......", "......"]),
            (Point(1, 0),),
            Direction.RIGHT,
        ),
        Level(
            Board.from_rows(["#######", "#.....#", "#.#.#.#", "#.....#", "#######"]),
            (Point(3, 1), Point(2, 1), Point(1, 1)),
            Direction.RIGHT,
        ),
    ]
    return levels


def _snapshot(game: Game) -> tuple[object, ...]:
    return (
        tuple(game.body),
        game.food,
        game.steps,
        game.direction,
        game.outcome,
        len(game.moves),
        tuple(game.foods),
        game.rng.getstate(),
    )


def _assert_legal(game: Game) -> None:
    body = list(game.body)
    assert len(set(body)) == len(body), "the body overlaps itself"
    assert all(game.board.is_free(p) for p in body)
    for a, b in itertools.pairwise(body):
        assert any(q == b for _, q in game.board.neighbours(a)), f"{a} and {b} are not adjacent"
    assert game.length == game.start_length + game.eaten


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("index", range(len(_boards())))
def test_solvers_play_legal_games_and_leave_the_live_game_alone(name: str, index: int) -> None:
    level = _boards()[index]
    game = Game(level, 7)
    solver = create(name)
    try:
        solver.setup(game)
    except SolverUnavailable:
        assert name in REFUSING
        return
    while not game.over and game.steps < 3000:
        before = _snapshot(game)
        direction = solver.next_direction(game)
        assert _snapshot(game) == before, "next_direction changed the live game"
        assert isinstance(direction, Direction)
        solver.overlay(game)
        game.step(direction)
        if game.outcome is not Outcome.DIED:
            _assert_legal(game)
    assert game.outcome is None or game.outcome in set(Outcome)


@pytest.mark.slow
@pytest.mark.parametrize("name", NAMES)
def test_every_preset_plays_legally(name: str) -> None:
    names = presets.preset_names()
    assert len(names) >= 10
    for preset in names:
        game = Game(presets.load_preset(preset), 5)
        solver = create(name)
        try:
            solver.setup(game)
        except SolverUnavailable as error:
            assert name in REFUSING, preset
            # The refusal names a solver that does take the board.
            hint = re.search(r"--ai (\S+)", str(error))
            assert hint is not None, str(error)
            create(hint.group(1)).setup(game)
            continue
        # Bounded: greedy is slow to finish the big presets, and the rules are what is tested.
        while not game.over and game.steps < 400:
            game.step(solver.next_direction(game))
            if not game.over:
                _assert_legal(game)


# A module that a signal interrupts while it makes a class: its handler's exception comes out
# of a __set_name__, as when SIGTERM lands while a dataclass of the module is being made.
def test_a_signal_while_a_solver_module_loads_ends_as_that_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.11 wraps it in a RuntimeError: `termsnake --ai best` on a big board, sent SIGTERM
    # while it loaded best, printed a traceback and exited 1 instead of 143.
    (tmp_path / "interrupted_bot.py").write_text(INTERRUPTED_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry._REGISTRY, "interrupted", "interrupted_bot:Bot")
    monkeypatch.delitem(sys.modules, "interrupted_bot", raising=False)
    with pytest.raises(Terminated):
        create("interrupted")
