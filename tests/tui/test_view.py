"""Golden frames of the pure view, and the screen writer that sends only what changed."""

from __future__ import annotations

import io
import os
import unicodedata
from dataclasses import replace
from pathlib import Path

import pytest
from blessed import Terminal

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.formats.presets import DEFAULT_LEVEL, load_preset
from termsnake.tui.screen import Screen, changed_spans
from termsnake.tui.view import (
    ASCII,
    UNICODE,
    Glyphs,
    Hud,
    as_bot,
    pick_cell_width,
    place,
    render,
    render_too_small,
    screen_size,
    status_line,
    with_box,
)

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
R, L, U, D = Direction.RIGHT, Direction.LEFT, Direction.UP, Direction.DOWN

ROOM = [
    "..........",
    "....#.....",
    "....#.....",
    "..........",
    "..........",
]


def room_game(wrap: bool = False) -> Game:
    board = Board.from_rows(ROOM, wrap=wrap, name="room")
    level = Level(board, (Point(2, 3), Point(1, 3), Point(0, 3)), R, Point(7, 1), "room")
    return Game(level, seed=4)


def frames() -> dict[str, list[str]]:
    start = room_game()
    moved = room_game()
    for d in (U, U, U, R, R, R, R, D, R):  # eats the food at (7, 1)
        moved.step(d)
    dead = room_game()
    for d in (R, U, U, U, U):
        dead.step(d)
    wrapped = room_game(wrap=True)
    overlay = {Point(x, 0): ">" for x in range(10)}
    return {
        "start": render(start, Hud(level="room", speed=8)),
        "moved-paused-1col": render(
            moved, Hud(who=as_bot("greedy"), level="room", speed=20, paused=True), cell_width=1
        ),
        "dead": render(dead, Hud(level="room", message="DIED: press any key")),
        "wrap-overlay": render(wrapped, Hud(level="room", high_score=12), overlay=overlay),
    }


def check_golden(path: Path, text: str) -> None:
    """``text`` is the golden file's; with UPDATE_GOLDEN set, the file is rewritten instead and
    the test skipped (a rewritten file compared with itself would prove nothing)."""
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
        pytest.skip(f"{path.name} rewritten")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", sorted(frames()))
def test_golden_frame(name: str) -> None:
    text = "\n".join(frames()[name]) + "\n"
    check_golden(GOLDEN / f"{name}.txt", text)


def test_frame_geometry() -> None:
    g = room_game()
    lines = render(g, Hud())
    assert screen_size(g) == (22, 8) and len(lines) == 8
    assert all(len(line) == 22 for line in lines[:-1])
    assert pick_cell_width(g, 22) == 2 and pick_cell_width(g, 21) == 1
    assert "need 22x8, have 20x5" in render_too_small((22, 8), (20, 5))


def test_changed_spans_cover_exactly_the_differences() -> None:
    assert changed_spans("abcdef", "abcdef") == []
    assert changed_spans("abcdef", "abXdef") == [(2, "X")]
    assert changed_spans("abcdef", "abc") == [(3, "   ")]
    old, new = "a.b.c.d.e.f.g", "a@b.c.d.e.f@g"
    rebuilt = list(old)
    for x, text in changed_spans(old, new):
        rebuilt[x : x + len(text)] = text
    assert "".join(rebuilt) == new


def test_screen_sends_only_what_changed_in_one_write() -> None:
    out = io.StringIO()
    term = Terminal(kind="xterm-256color", stream=out, force_styling=True)
    writes: list[str] = []

    class Recorder(io.StringIO):
        def write(self, s: str) -> int:
            writes.append(s)
            return len(s)

    screen = Screen(term, Recorder())
    g = room_game()
    screen.draw(render(g, Hud()))
    first = screen.bytes_written
    g.step(R)
    screen.draw(render(g, Hud()))
    second = screen.bytes_written - first
    assert len(writes) == 2
    assert term.clear in writes[0] and term.clear not in writes[1]
    assert second < first / 5
    assert term.move_xy(1, 4) + ". o o @" in writes[1]  # tail cell cleared, new head drawn
    screen.draw(render(g, Hud()))
    assert len(writes) == 2  # nothing changed, nothing sent


def test_golden_unicode_frame() -> None:
    text = "\n".join(render(room_game(), Hud(level="room"), glyphs=UNICODE)) + "\n"
    check_golden(GOLDEN / "unicode.txt", text)


@pytest.mark.parametrize("glyphs", [ASCII, UNICODE])
def test_glyphs_are_single_width_and_distinct(glyphs: Glyphs) -> None:
    tiles = [glyphs.wall, glyphs.floor, glyphs.head, glyphs.body, glyphs.food, glyphs.dead]
    assert len(set(tiles)) == len(tiles)
    for g in (*tiles, glyphs.tail, glyphs.horizontal, glyphs.vertical, *glyphs.corners):
        assert len(g) == 1 and unicodedata.east_asian_width(g) in ("Na", "N", "A", "H")
        assert not unicodedata.combining(g)


def test_help_box_is_drawn_over_the_board() -> None:
    lines = render(room_game(), Hud())
    boxed = with_box(lines, ["keys", "q quit"])
    assert boxed[0] == lines[0] and len(boxed) == len(lines)
    assert any("| q quit |" in line for line in boxed)
    tall = with_box(lines, [str(i) for i in range(12)])
    assert len(tall) > len(lines) and tall[-2].strip().startswith("+")
    # However tall the box, the status line stays below it, whole (place lines it up on its
    # own: a box row drawn into it would be shifted with it).
    for rows in (len(lines) - 3, len(lines) - 2, 12):
        boxed = with_box(lines, [str(i) for i in range(rows)])
        assert boxed[-1] == lines[-1] and sum("+--" in row for row in boxed[:-1]) == 2


def test_the_status_line_fits_by_dropping_the_least_needed_parts() -> None:
    g = room_game()
    hud = Hud(
        who="hamilton", level="a-long-level-name", message="a direction key starts", high_score=7
    )
    full = status_line(g, hud)
    assert full.startswith("a direction key starts  a-long-level-name  length 3/48")
    assert len(status_line(g, hud, 200)) == len(full)
    fitted = status_line(g, hud, 60)
    assert fitted == "a direction key starts  a-long-level-name  length 3/48"
    assert (
        status_line(g, hud, 70) == "a direction key starts  a-long-level-name  length 3/48  steps 0"
    )
    assert len(status_line(g, hud, 10)) == 10
    # A long level name is cut, so that it does not push every part after it out.
    huge = Hud(who="hamilton", level="n" * 50, message="a direction key starts", high_score=7)
    cut = "n" * 17 + "..."
    assert status_line(g, huge, 60) == f"a direction key starts  {cut}  length 3/48"
    wide = status_line(g, huge, 80)
    assert wide == f"a direction key starts  {cut}  length 3/48  steps 0  best 7"


def test_names_a_latin1_terminal_cannot_show_are_escaped_before_the_line_is_fitted() -> None:
    g = room_game()
    hud = Hud(who="bot 名", level="名前", message="a direction key starts", encoding="latin-1")
    line = status_line(g, hud, 60)
    assert line == "a direction key starts  \\u540d\\u524d  length 3/48  steps 0"
    assert status_line(g, hud).endswith("bot \\u540d")
    assert status_line(g, replace(hud, encoding="utf-8")).endswith(
        "  名前  length 3/48  steps 0  speed 8/s  bot 名"
    )


@pytest.mark.parametrize("best", [None, 3])
@pytest.mark.parametrize("message", ["", "heading right: a direction key starts (? keys)"])
def test_a_wider_terminal_never_shows_fewer_parts_of_the_status_line(
    best: int | None, message: str
) -> None:
    # Parts were kept greedily by need: at 16-19 columns `length 3/48  you`, at 20 the level
    # and the length without `you`; parts jumped in and out as a window was resized.
    g = room_game()
    for level in ("classic", "a-level-of-a-long-name-indeed", "\u5927" * 12):
        hud = Hud(who="you", level=level, message=message, high_score=best)
        whole = set(status_line(g, hud).split("  "))
        before: set[str] = set()
        for width in range(1, 121):
            parts = status_line(g, hud, width).split("  ")
            if not whole.issuperset(parts):
                continue  # so narrow that even the length is cut
            assert before <= set(parts), (level, width, parts)
            before = set(parts)
        assert before == whole


def test_the_status_line_names_the_level_with_the_start_hint_as_it_does_after() -> None:
    # On the default board in 80 columns the start hint pushed the level's name off the status
    # line, which named it once the game had started.
    g = Game(load_preset(DEFAULT_LEVEL), seed=1)
    hint = "heading right: a direction key starts (? keys)"
    for message in (hint, ""):
        line = status_line(g, Hud(level=g.level.name, message=message), 80)
        assert f"{DEFAULT_LEVEL}  length 3/" in line and len(line) <= 80


def test_a_board_closed_by_its_own_walls_gets_no_second_frame() -> None:
    rows = ["######", "#....#", "#....#", "######"]
    board = Board.from_rows(rows, name="walled")
    game = Game(Level(board, (Point(2, 1), Point(1, 1)), R, None, "walled"), seed=1)
    lines = render(game, Hud())
    assert lines[:4] == ["#" * 12, "##o @ . % ##", "##. . . . ##", "#" * 12]
    assert len(lines) == 5 and screen_size(game) == (12, 5) and screen_size(game, 1) == (6, 5)
    opened = Board.from_rows(["######", "#....#", "#.....", "######"], name="gap")
    gap = Game(Level(opened, (Point(2, 1), Point(1, 1)), R, None, "gap"), seed=1)
    assert len(render(gap, Hud())) == 7 and screen_size(gap) == (14, 7)


@pytest.mark.parametrize("have", [(80, 24), (40, 12), (20, 10), (12, 3), (5, 1)])
def test_the_too_small_message_fits_the_terminal(have: tuple[int, int]) -> None:
    lines = render_too_small((26, 19), have)
    assert 1 <= len(lines) <= have[1] and all(len(line) <= have[0] for line in lines)
    if have[0] >= 10:
        assert "need 26x19" in " ".join(lines) and f"have {have[0]}x{have[1]}" in " ".join(lines)
    if have == (40, 12):
        assert lines[0] == "termsnake: the terminal is too small;"


def test_place_centres_the_board_and_its_status_line() -> None:
    lines = ["#" * 10, "#" + " " * 8 + "#", "#" * 10, "length 3/8"]
    placed, origin = place(lines, (10, 4), (40, 20))
    assert origin == (15, 8) and placed == lines


def test_place_moves_a_status_line_left_only_as_far_as_it_must() -> None:
    status = "x" * 30
    placed, origin = place(["#" * 10, status], (10, 2), (40, 10))
    # The board would start at 15; the status line needs 30 columns, so starts at 10.
    assert origin == (10, 4) and placed == [" " * 5 + "#" * 10, status]
    placed, origin = place(["#" * 10, "y" * 50], (10, 2), (40, 10))
    assert origin == (0, 4) and placed == [" " * 15 + "#" * 10, "y" * 40]


def test_place_on_a_terminal_the_board_fills_is_the_top_left_corner() -> None:
    lines = ["#" * 40, "s" * 40, "help"]  # the help box can make a frame longer than the board
    assert place(lines, (40, 2), (40, 2)) == (lines[:2], (0, 0))
    assert place(lines, (40, 2), (40, 4)) == (lines, (0, 1))


def test_the_too_small_message_says_which_key_goes_on_once_enlarged() -> None:
    # Enlarged, the game stays paused; the message said only "Enlarge the window to go on".
    said = " ".join(render_too_small((26, 19), (80, 24)))
    assert "Enlarge the window and press space to go on, or q to quit." in said


def test_the_too_small_message_says_the_game_waits_not_that_it_is_paused() -> None:
    # Shown before the first key too, when the game had not started: "paused" was untrue there.
    said = " ".join(render_too_small((26, 19), (80, 24)))
    assert "the game waits." in said and "paused" not in said


def test_the_too_small_message_names_the_keys_it_is_given() -> None:
    # On AZERTY q steers left: the message must name x, the key that quits there.
    said = " ".join(render_too_small((26, 19), (80, 24), keys=("space", "x")))
    assert "press space to go on, or x to quit." in said and " q " not in said
    said = " ".join(render_too_small((26, 19), (80, 24), watching=True, keys=("space", "x")))
    assert "press x to leave." in said


def test_the_too_small_message_on_the_final_board_does_not_say_paused() -> None:
    said = " ".join(render_too_small((26, 19), (80, 24), over=True))
    assert "to show the final board" in said and "paused" not in said


def test_the_too_small_message_of_a_game_over_watched_says_so_first_and_how_to_leave() -> None:
    lines = render_too_small((26, 19), (30, 10), watching=True, over=True, ended="WON: game over")
    said = " ".join(lines)
    assert lines[0] == "WON: game over" and "to show the final board" in said
    assert "press q to leave" in said and "go on" not in said
    assert render_too_small(
        (26, 19), (30, 1), watching=True, over=True, ended="WON: game over"
    ) == ["WON: game over"]


def test_a_stalled_snake_keeps_its_head_and_only_a_dead_one_is_drawn_dead() -> None:
    board = Board.from_rows(["...."], name="line")
    stalled = Game(Level(board, (Point(1, 0),), L, Point(3, 0), "line"), seed=1)
    stalled.stall_limit = 2
    stalled.step(L)
    stalled.step(R)  # no food in two steps: stalled, with a cause, alive
    assert stalled.cause and stalled.outcome is not None and stalled.outcome.value == "stalled"
    dead = Game(Level(board, (Point(0, 0),), L, Point(3, 0), "line"), seed=1)
    dead.step(L)  # off the edge
    head_row = {
        name: render(game, Hud(level="line"))[1]
        for name, game in (("stalled", stalled), ("dead", dead))
    }
    assert ASCII.dead not in head_row["stalled"] and ASCII.head in head_row["stalled"]
    assert ASCII.dead in head_row["dead"]
