"""Tests of the preset levels: every one loads, round-trips, fits the terminal, and is found."""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path

import pytest

from termsnake.core.board import Board
from termsnake.core.geometry import Point
from termsnake.core.level import open_level
from termsnake.formats import presets
from termsnake.formats.diagnostics import LevelError
from termsnake.formats.levelfile import parse_level
from termsnake.formats.levelprint import format_level
from termsnake.formats.presets import (
    DEFAULT_LEVEL,
    UnknownLevelError,
    levels_dir,
    load_level,
    load_preset,
    preset_names,
)
from termsnake.solvers.hampath import Limit, find_cycle

REPO = Path(__file__).resolve().parents[2]
NAMES = preset_names()
# Largest board drawn in 80x24: two columns per cell plus a frame, and a status line.
MAX_WIDTH, MAX_HEIGHT = (80 - 2) // 2 - 1, 24 - 2 - 1
REQUIRED = {DEFAULT_LEVEL, "open-8x8", "open-12x12", "open-20x20", "rooms", "maze", "pillars"}


def test_there_are_at_least_ten_presets_with_the_required_ones() -> None:
    assert len(NAMES) >= 10
    assert set(NAMES) >= REQUIRED
    assert all(presets.is_preset_name(name) for name in NAMES)


def test_presets_are_the_files_of_the_repo_levels_folder() -> None:
    on_disk = sorted(p.stem for p in (REPO / "levels").glob("*.txt"))
    assert list(NAMES) == on_disk


@pytest.mark.parametrize("name", NAMES)
def test_preset_loads_round_trips_and_is_named_after_its_file(name: str) -> None:
    level = load_preset(name)
    assert level.name == name == level.board.name
    assert parse_level(format_level(level)) == level
    assert load_level(name) == level
    assert load_level(str(REPO / "levels" / f"{name}.txt")) == level


@pytest.mark.parametrize("name", NAMES)
def test_preset_fits_an_80x24_terminal_and_has_a_description(name: str) -> None:
    level = load_preset(name)
    assert level.board.width <= MAX_WIDTH and level.board.height <= MAX_HEIGHT
    assert dict(level.meta).get("description")
    assert len(level.body) < level.board.free_count


@pytest.mark.parametrize("size", [(8, 8), (12, 12), (20, 20)])
def test_benchmark_boards_are_the_open_boards_of_their_name(size: tuple[int, int]) -> None:
    width, height = size
    level = load_preset(f"open-{width}x{height}")
    assert level.board == Board.open(width, height)
    expected = open_level(width, height)
    assert (level.body, level.direction, level.food) == (
        expected.body,
        expected.direction,
        None,
    )


def test_the_default_preset_is_the_default_open_board() -> None:
    level = load_preset(DEFAULT_LEVEL)
    expected = open_level(24, 16)  # a person's board that fits an 80x24 terminal
    assert (level.board.width, level.board.height) == (24, 16)
    assert level.board.walls == expected.board.walls == frozenset()
    assert (level.body, level.direction) == (expected.body, expected.direction)
    assert not level.board.wrap


def test_some_preset_wraps() -> None:
    assert any(load_preset(name).board.wrap for name in NAMES)


def _dead_ends(board: Board) -> list[Point]:
    return [p for p in board.free_cells if len({q for _, q in board.neighbours(p)}) < 2]


def _colour_balance(board: Board) -> int:
    return sum(1 if (p.x + p.y) % 2 else -1 for p in board.free_cells)


def _assert_is_cycle(board: Board, cycle: tuple[Point, ...]) -> None:
    assert sorted(cycle) == sorted(board.free_cells)
    for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
        assert b in {q for _, q in board.neighbours(a)}, (a, b)


@pytest.mark.parametrize("name", NAMES)
def test_cycle_status_agrees_with_the_boards_shape(name: str) -> None:
    board = load_preset(name).board
    result = find_cycle(board, Limit.of_budget(5.0))
    if name == "dead-end":
        # the one board meant to have no cycle: its reason is plain to see
        assert _dead_ends(board) and board.free_count % 2 == 1
        assert result.status == "none"
        return
    # every other preset is built so that the bots can follow a cycle on it
    assert not _dead_ends(board)
    assert _colour_balance(board) == 0
    assert result.status == "found"
    assert result.cycle is not None
    _assert_is_cycle(board, result.cycle)


# -- finding levels by name or path ---------------------------------------------------------------


def test_unknown_name_suggests_the_nearest_and_lists_the_presets() -> None:
    with pytest.raises(UnknownLevelError) as info:
        load_level("clasic")
    (d,) = info.value.diagnostics
    assert d.message.startswith("no preset or file named 'clasic'; did you mean 'classic'?")
    assert all(name in d.message for name in NAMES)
    assert isinstance(info.value, ValueError)


def test_unknown_path_is_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LevelError, match="no such file"):
        load_level(str(tmp_path / "nope.txt"))


def test_a_missing_file_named_as_a_preset_file_points_at_the_preset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UnknownLevelError) as info:
        load_level(f"{DEFAULT_LEVEL}.txt")
    (d,) = info.value.diagnostics
    assert (
        str(d)
        == f"{DEFAULT_LEVEL}.txt:1:1: error: no such file; the preset is --level {DEFAULT_LEVEL}"
    )
    Path(f"{DEFAULT_LEVEL}.txt").write_text("name: mine\n#...>.#\n")
    assert load_level(f"{DEFAULT_LEVEL}.txt").name == "mine"  # a file there is read
    with pytest.raises(LevelError, match=r"no such file$"):
        load_level("sub/classic.txt")


def test_a_preset_name_wins_over_a_file_of_that_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path(DEFAULT_LEVEL).write_text("name: mine\n#...>.#\n")
    assert load_level(DEFAULT_LEVEL).name == DEFAULT_LEVEL
    assert load_level(f"./{DEFAULT_LEVEL}").name == "mine"
    Path("board").write_text("#...>.#\n")
    assert load_level("board").name == "board"


def test_a_broken_file_is_reported_by_load_level(tmp_path: Path) -> None:
    path = tmp_path / "broken.txt"
    path.write_text("#..#\n")
    with pytest.raises(LevelError) as info:
        load_level(str(path))
    assert str(info.value) == f"{path}:1:1: error: no head: " + (
        "put one of > < ^ v on the map where the snake starts"
    )


def test_presets_are_looked_up_in_the_installed_package_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "termsnake"
    (package / "levels").mkdir(parents=True)
    (package / "levels" / "tiny.txt").write_text("name: tiny\n..>.\n")
    (package / "levels" / "Not-A-Name.txt").write_text("..>.\n")
    monkeypatch.setattr(resources, "files", lambda _: package)
    assert preset_names() == ("tiny",)
    assert load_level("tiny").board.width == 4


def test_the_repo_levels_folder_is_the_fallback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an editable install: the package folder has no levels/ inside
    monkeypatch.setattr(resources, "files", lambda _: tmp_path)
    fallback = Path(presets.__file__).resolve().parents[2] / "levels"
    assert Path(str(levels_dir())) == fallback


def test_the_wheel_ships_the_levels_folder_inside_the_package() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text())
    wheel = config["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"]["levels"] == "termsnake/levels"
