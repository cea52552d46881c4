"""Tests of the level file format: parsing, every error class, accepted variants, round trips."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from termsnake.core.board import Board
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level, open_level, straight_body
from termsnake.formats import fileio as capped
from termsnake.formats.diagnostics import MAX_DIAGNOSTICS, Diagnostic, LevelError
from termsnake.formats.levelfile import MAX_FILE_BYTES, load_level_file, parse_level
from termsnake.formats.levelprint import format_level
from termsnake.formats.text import describe_char, printable

TWO_ROOMS = """\
name: Two rooms
length: 3

############
#....#.....#
#..>.......#
#....#..%..#
############
"""


def errors_of(source: str | bytes, path: str = "t.txt") -> list[Diagnostic]:
    """The diagnostics that parsing ``source`` raises (the test fails if it parses)."""
    with pytest.raises(LevelError) as info:
        parse_level(source, path)
    return list(info.value.diagnostics)


def only_error(source: str | bytes, path: str = "t.txt") -> Diagnostic:
    """The single diagnostic of ``source``."""
    found = errors_of(source, path)
    assert len(found) == 1, found
    return found[0]


# -- the good case --------------------------------------------------------------------------------


def test_design_example_parses_into_its_level() -> None:
    level = parse_level(TWO_ROOMS)
    assert level.name == "Two rooms"
    assert (level.board.width, level.board.height) == (12, 5)
    assert level.body == (Point(3, 2), Point(2, 2), Point(1, 2))
    assert level.direction is Direction.RIGHT
    assert level.food == Point(8, 3)
    assert Point(5, 1) in level.board.walls and Point(5, 2) not in level.board.walls
    assert not level.board.wrap
    assert level.board.name == level.name
    assert level.meta == ()


def test_format_then_parse_gives_the_same_level() -> None:
    level = parse_level(TWO_ROOMS)
    text = format_level(level)
    assert parse_level(text) == level
    assert format_level(parse_level(text)) == text


@pytest.mark.parametrize(
    ("char", "direction", "body"),
    [
        (">", Direction.RIGHT, (Point(2, 1), Point(1, 1))),
        ("<", Direction.LEFT, (Point(2, 1), Point(3, 1))),
        ("^", Direction.UP, (Point(2, 1), Point(2, 2))),
        ("v", Direction.DOWN, (Point(2, 2), Point(2, 1))),
    ],
)
def test_each_head_character_lays_the_body_behind_it(
    char: str, direction: Direction, body: tuple[Point, ...]
) -> None:
    rows = ["#####", "#...#", "#...#", "#####"]
    head = body[0]
    rows[head.y] = rows[head.y][: head.x] + char + rows[head.y][head.x + 1 :]
    level = parse_level("length: 2\n" + "\n".join(rows))
    assert level.direction is direction
    assert level.body == body


def test_header_fields_and_meta() -> None:
    text = (
        "Name: Spiral\nAUTHOR: Ada\ndescription: winds in\nx-difficulty: hard\nlength: 2\n"
        "wrap: YES\n\n....\n..>.\n"
    )
    level = parse_level(text)
    assert level.name == "Spiral"
    assert level.meta == (("author", "Ada"), ("description", "winds in"), ("x-difficulty", "hard"))
    assert level.board.wrap
    assert len(level.body) == 2
    assert parse_level(format_level(level)) == level


@pytest.mark.parametrize(("word", "wraps"), [("yes", True), ("true", True), ("no", False)])
def test_wrap_words(word: str, wraps: bool) -> None:
    assert parse_level(f"wrap: {word}\n...>\n").board.wrap is wraps


def test_wrap_lets_the_body_run_over_the_edge() -> None:
    level = parse_level("wrap: yes\nlength: 3\n>...\n....\n")
    assert level.body == (Point(0, 0), Point(3, 0), Point(2, 0))
    assert parse_level(format_level(level)) == level


def test_default_name_comes_from_the_file_name() -> None:
    assert parse_level("#..>.#\n", "boards/my-board.txt").name == "my-board"
    assert parse_level("#..>.#\n", "<string>").name == "level"


# -- accepted variants ----------------------------------------------------------------------------

BASE = parse_level(TWO_ROOMS)


@pytest.mark.parametrize(
    "variant",
    [
        TWO_ROOMS.replace("\n", "\r\n"),
        TWO_ROOMS.replace("\n", "\r"),
        "\ufeff" + TWO_ROOMS,
        TWO_ROOMS.replace("\n", "  \n"),
        "; a comment\n" + TWO_ROOMS.replace("length: 3\n", "length: 3\n  ; indented comment\n"),
        TWO_ROOMS.replace("#..>", "; inside the map\n#..>"),
        TWO_ROOMS + "\n\n   \n",
        "\n\n" + TWO_ROOMS,
        TWO_ROOMS.replace("name: Two rooms", "name:\tTwo rooms \t"),
        TWO_ROOMS.replace("length: 3\n", ""),
    ],
    ids=[
        "crlf",
        "lone-cr",
        "bom",
        "trailing-spaces",
        "comments",
        "comment-in-map",
        "trailing-blank-lines",
        "leading-blank-lines",
        "tabs-around-value",
        "default-length",
    ],
)
def test_accepted_variants_parse_to_the_same_level(variant: str) -> None:
    assert parse_level(variant) == BASE
    assert parse_level(variant.encode("utf-8")) == BASE


def test_a_bom_in_bytes_is_dropped() -> None:
    assert parse_level(b"\xef\xbb\xbf" + TWO_ROOMS.encode()) == BASE


# -- one test per error class ---------------------------------------------------------------------


@pytest.mark.parametrize("source", ["", b"", "\n\n  \n", "\r\n"])
def test_empty_file(source: str | bytes) -> None:
    d = only_error(source)
    assert (d.line, d.col) == (1, 1)
    assert "empty file" in d.message


def test_no_map() -> None:
    d = only_error("name: x\nlength: 3\n; just a comment\n")
    assert (d.line, d.col) == (3, 1)
    assert "no map" in d.message


def test_ragged_rows() -> None:
    d = only_error("#####\n#>..#\n#..\n#####\n")
    assert (d.line, d.col) == (3, 4)
    assert "ragged map" in d.message and "3 cells wide" in d.message and "5" in d.message


def test_a_row_too_long_points_at_its_first_extra_cell() -> None:
    d = only_error("#####\n#>..##\n#...#\n")
    assert (d.line, d.col) == (2, 6)
    assert "6 cells wide" in d.message


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("#####\n#>:.#\n#...#\n#####\n", (2, 3)),  # the head on the row with the colon
        ("#:###\n#..>#\n#...#\n#####\n", (1, 2)),  # the first row, where headers may be
        ("name: x\n\n#####\n#..>#\n#..:#\n#####\n", (5, 4)),
    ],
)
def test_a_colon_in_a_map_row_is_an_unknown_map_character(
    source: str, where: tuple[int, int]
) -> None:
    # Not "a header line after the map" (and "no head" when the head was on that row).
    d = only_error(source)
    assert (d.line, d.col) == where
    assert d.message.startswith("unknown map character ':' (U+003A)")


def test_a_header_line_after_the_map_is_still_one() -> None:
    d = only_error("#####\n#..>#\n#...#\n#####\nname: late\n")
    assert (d.line, d.col) == (5, 1)
    assert d.message.startswith("a header line after the map")


@pytest.mark.parametrize("extra", ["\t", "\t\t", "\x07", " \t"])
def test_a_row_long_only_by_unknown_characters_is_not_also_ragged(extra: str) -> None:
    # A trailing tab: each unknown character is said where it is, not the row's width too.
    found = errors_of(f"#####\n#..>#{extra}\n#...#\n#####\n")
    assert [(d.line, d.col) for d in found] == [(2, 6 + i) for i in range(len(extra))]
    assert all(d.message.startswith("unknown map character") for d in found)


def test_a_row_long_by_map_characters_is_ragged_once() -> None:
    found = errors_of("#####\n#..>#\t#\n#...#\n#####\n")
    assert [(d.line, d.col) for d in found] == [(2, 6), (2, 6)]
    assert "ragged map: this row is 7 cells wide" in found[0].message
    assert "unknown map character '\\t'" in found[1].message


def test_a_ragged_row_of_one_cell_is_one_cell_wide() -> None:
    d = only_error("#####\n#>..#\n#\n#####\n")
    assert "this row is 1 cell wide," in d.message


def test_no_head() -> None:
    d = only_error("name: x\n\n#####\n#...#\n#####\n")
    assert (d.line, d.col) == (3, 1)
    assert "no head" in d.message and "> < ^ v" in d.message


def test_two_heads_say_where_both_are() -> None:
    d = only_error("#######\n#.>...#\n#...<.#\n#######\n")
    assert (d.line, d.col) == (3, 5)
    assert "second head" in d.message and "line 2 col 3" in d.message


def test_three_heads_give_two_errors() -> None:
    found = errors_of(">.\n>.\n>.\n")
    assert [(d.line, d.col) for d in found] == [(2, 1), (3, 1)]


@pytest.mark.parametrize(
    ("char", "shown"),
    [
        ("x", "'x' (U+0078)"),
        ("\t", "'\\t' (U+0009, a tab)"),
        (" ", "' ' (U+0020, a space)"),
        ("\x00", "'\\x00' (U+0000, a NUL byte)"),
        ("\x1b", "'\\x1b' (U+001B)"),
        ("\u00e9", "'\u00e9' (U+00E9)"),
    ],
)
def test_unknown_map_character_shows_it_and_its_code_point(char: str, shown: str) -> None:
    d = only_error(f"#>..#\n#.{char}.#\n")
    assert (d.line, d.col) == (2, 3)
    assert d.message.startswith(f"unknown map character {shown};")
    assert "\x1b" not in str(d) and "\x00" not in str(d)


@pytest.mark.parametrize(
    ("line", "col", "said"),
    [
        ("# My first level, by Ada", 1, "'; My first level, by Ada'"),
        ("  ## drawn by \x1b[31mAda", 3, "'; drawn by \\x1b[31mAda'"),
        ("#\tby Ada", 1, "'; by Ada'"),
    ],
)
def test_a_comment_begun_with_a_hash_is_said_once(line: str, col: int, said: str) -> None:
    # It was a row of the map: an error for each character, the header after it "a header line
    # after the map", a blank line a split map, and the v of "level" a second head.
    d = only_error(f"{line}\n{TWO_ROOMS}")
    assert (d.line, d.col) == (1, col)
    assert (
        d.message == f"a line starting with # is a row of the map; a comment starts with ; ({said})"
    )
    assert [e.line for e in errors_of(f"{TWO_ROOMS}\n{line}\n")] == [10]  # after the map too


@pytest.mark.parametrize("row", ["#.. .#", "#.oo>#", "#.. v.#", "#o o @ % #"])
def test_a_row_with_a_space_or_a_letter_is_no_comment(row: str) -> None:
    # Spaces for floor, or the body drawn: a map row with unknown characters, said as such.
    found = errors_of(f"######\n{row}\n######\n")
    assert any("unknown map character" in e.message for e in found)
    assert not any("comment" in e.message for e in found)


@pytest.mark.parametrize(
    ("char", "hint"),
    [
        ("@", "(the game draws the head as @; a map draws it as > < ^ v, the way it faces)"),
        ("o", "(the game draws the body as o; a map has only the head, the body lies behind it)"),
    ],
)
def test_what_the_game_draws_is_said_to_be_its_drawing(char: str, hint: str) -> None:
    # A board copied from the screen: the message named the character and no more.
    d = only_error(f"#>..#\n#.{char}.#\n")
    assert d.message.endswith(f"% food {hint}")


def test_a_leading_space_is_an_unknown_character() -> None:
    d = only_error(".>..\n ...\n")
    assert (d.line, d.col) == (2, 1)
    assert "U+0020" in d.message


def test_invalid_utf8_is_located() -> None:
    d = only_error(b"name: x\n#>.\xff.#\n")
    assert (d.line, d.col) == (2, 4)
    assert "invalid UTF-8" in d.message and "0xff" in d.message


UTF16_MAP = "name: notepad\r\n\r\n#####\r\n#..>#\r\n#...#\r\n#####\r\n"


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (
            ("\ufeff" + UTF16_MAP).encode("utf-16-le"),
            "it starts with the UTF-16 byte-order mark 0xff 0xfe",
        ),
        (
            ("\ufeff" + UTF16_MAP).encode("utf-16-be"),
            "it starts with the UTF-16 byte-order mark 0xfe 0xff",
        ),
        (UTF16_MAP.encode("utf-16-le"), "every other byte is a NUL"),
        (b"\xef\xbb\xbf" + UTF16_MAP.encode("utf-16-le"), "every other byte is a NUL"),
    ],
    ids=["le-bom", "be-bom", "le", "utf8-bom-then-le"],
)
def test_a_utf16_file_is_one_error_saying_so(data: bytes, why: str) -> None:
    # Saved as "Unicode" on Windows: one line, not an error for each NUL byte of every row.
    d = only_error(data)
    assert (d.line, d.col) == (1, 1)
    assert d.message == f"the file is UTF-16, not UTF-8 ({why}); save it as UTF-8"


@pytest.mark.parametrize(
    "data",
    [
        bytes(2000),  # zeros
        b"\x7fELF\x02\x01\x01" + bytes(500) + bytes(range(1, 256)) * 2,  # a program
        UTF16_MAP.encode("utf-32-le"),
    ],
    ids=["zeros", "elf", "utf-32"],
)
def test_a_file_full_of_nuls_that_is_no_utf16_is_not_called_so(data: bytes) -> None:
    # Any file a quarter NULs was "UTF-16 (every other byte is a NUL)".
    with pytest.raises(LevelError) as e:
        parse_level(data, "f.txt")
    (d,) = e.value.diagnostics
    assert (d.line, d.col) == (1, 1)
    assert d.message == f"the file holds {data.count(0)} NUL bytes: it is no UTF-8 text file"


def test_one_nul_byte_is_still_located() -> None:
    d = only_error(b"#####\n#..>#\n#.\x00.#\n#####\n")
    assert (d.line, d.col) == (3, 3)
    assert "NUL" in d.message


def test_every_invalid_utf8_sequence_is_reported() -> None:
    found = errors_of(b"\xc3(\n\r\n.\xe2\x82\n")
    assert [(d.line, d.col) for d in found] == [(1, 1), (3, 2)]
    assert "0xe2 0x82" in found[1].message


@pytest.mark.parametrize(
    ("key", "suggestion"), [("nmae", "name"), ("lenght", "length"), ("wrapp", "wrap")]
)
def test_unknown_header_key_suggests_the_nearest(key: str, suggestion: str) -> None:
    d = only_error(f"name: x\n{key}: 3\n..>.\n")
    assert (d.line, d.col) == (2, 1)
    assert f"unknown header key '{key}'; did you mean '{suggestion}'?" in d.message


def test_unknown_header_key_far_from_all_lists_them() -> None:
    d = only_error("colour: red\n..>.\n")
    assert "known keys: name, length, wrap, author, description" in d.message


@pytest.mark.parametrize("value", ["abc", "0", "-1", "3.5", "", "٣", "1" * 10])
def test_bad_length(value: str) -> None:
    d = only_error(f"length: {value}\n....>\n")
    assert (d.line, d.col) == (1, 9 if value else 8)
    assert d.message == f"length must be a whole number from 1 to 999999999, not '{value}'"


def test_a_long_bad_length_is_cut_as_other_values_are() -> None:
    d = only_error(f"length: {'12' * 500}\n....>\n")
    assert d.message.endswith(f"not '{'12' * 30}… (1000 characters)'")


@pytest.mark.parametrize("value", ["maybe", "", "2"])
def test_bad_wrap(value: str) -> None:
    d = only_error(f"wrap: {value}\n....>\n")
    assert (d.line, d.col) == (1, 7 if value else 6)
    assert d.message == f"wrap must be yes or no, not '{value}'"


def test_body_that_hits_a_wall() -> None:
    d = only_error("length: 4\n#####\n#.>.#\n#####\n")
    assert (d.line, d.col) == (3, 3)
    assert "length 4 (line 1) does not fit" in d.message
    assert "room for 2 cells before a wall at line 3 col 1" in d.message


SHORT = "name: short\nlength: 3\n\n##########\n#>.......#\n#........#\n##########\n"


def test_a_length_given_is_fitted_in_place_of_the_files() -> None:
    # --length overrides the file's length, even one that does not fit behind the head.
    assert "length 3 (line 2) does not fit" in only_error(SHORT).message
    assert parse_level(SHORT, length=1).body == (Point(1, 1),)
    d = only_error_with(SHORT, length=2)
    assert (d.line, d.col) == (5, 2)
    assert "length 2 (--length) does not fit" in d.message
    assert "room for 1 cell before a wall at line 5 col 1" in d.message


def test_a_length_given_drops_a_first_food_it_covers() -> None:
    fed = "#######\n#..%>.#\n#.....#\n#######\n"
    assert parse_level(fed, length=1).food == Point(3, 1)
    assert parse_level(fed, length=2).food is None
    assert only_error("length: 2\n" + fed).message.startswith("the food lies under the snake")


def only_error_with(source: str, *, length: int) -> Diagnostic:
    with pytest.raises(LevelError) as info:
        parse_level(source, "t.txt", length=length)
    [found] = info.value.diagnostics
    return found


def test_body_that_leaves_the_board() -> None:
    d = only_error("....\n.^..\n")
    assert (d.line, d.col) == (2, 2)
    assert "length 3 (the default)" in d.message and "edge of the board" in d.message


def test_body_that_wraps_into_itself() -> None:
    d = only_error("wrap: yes\nlength: 4\n>..\n...\n")
    assert "itself" in d.message


def test_a_snake_a_long_row_long_is_read_without_hanging() -> None:
    # Each cell was looked for in the cells before it: 100,000 cells took minutes.
    def hung(signum: int, frame: object) -> NoReturn:
        raise TimeoutError("the level took over 20 s to read")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        level = parse_level("length: 99999\n" + "." * 99_999 + ">\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    assert len(level.body) == 99_999 and level.body[-1] == Point(1, 0)


def test_snake_that_fills_the_board() -> None:
    d = only_error("length: 3\n#..>#\n")
    assert (d.line, d.col) == (2, 4)
    assert "fills all 3 free cells" in d.message


def test_two_foods() -> None:
    d = only_error("%...\n.>.%\n")
    assert (d.line, d.col) == (2, 4)
    assert "second food" in d.message and "line 1 col 1" in d.message


def test_food_under_the_body() -> None:
    d = only_error("....\n.%.>\n")
    assert (d.line, d.col) == (2, 2)
    assert "under the snake" in d.message


def test_a_name_too_long_for_a_status_line_is_an_error() -> None:
    assert parse_level("name: " + "n" * 100 + "\n..>.\n").name == "n" * 100
    d = only_error("name: " + "n" * 900_000 + "\n..>.\n")
    assert (d.line, d.col) == (1, 107)
    assert d.message == "the name is 900000 characters long; at most 100"


def test_duplicate_key() -> None:
    d = only_error("name: a\nname: b\n..>.\n")
    assert (d.line, d.col) == (2, 1)
    assert "'name' is given twice (first on line 1)" in d.message


def test_header_after_the_map() -> None:
    d = only_error("..>.\nname: late\n")
    assert (d.line, d.col) == (2, 1)
    assert "after the map" in d.message


def test_map_split_by_a_blank_line() -> None:
    d = only_error("..>.\n\n....\n")
    assert (d.line, d.col) == (3, 1)
    assert "contiguous" in d.message and "line 2 is blank" in d.message


def test_header_line_without_a_colon() -> None:
    d = only_error("name Two rooms\n..>.\n")
    assert (d.line, d.col) == (1, 1)
    assert "needs a colon: 'name: ...'" in d.message


def test_malformed_header_key() -> None:
    d = only_error("my key: x\n..>.\n")
    assert (d.line, d.col) == (1, 1)
    assert "'my key' is not a header key" in d.message


def test_empty_name() -> None:
    d = only_error("name:\n..>.\n")
    assert (d.line, d.col) == (1, 6)
    assert "name is empty" in d.message


def test_control_characters_in_a_name_are_refused_and_shown_escaped() -> None:
    d = only_error("name: evil\x1b[31m\x07\n..>.\n")
    assert (d.line, d.col) == (1, 11)
    assert "'evil\\x1b[31m\\x07'" in d.message and "U+001B" in d.message
    assert "\x1b" not in str(d) and "\x07" not in str(d)


def test_all_errors_are_reported_in_file_order() -> None:
    text = "lenght: 3\nwrap: maybe\n\n#####\n#>.x#\n#..#\n#####\n"
    found = errors_of(text)
    assert [(d.line, d.col) for d in found] == [(1, 1), (2, 7), (5, 4), (6, 5)]


def test_errors_are_capped() -> None:
    found = errors_of(">" + "x" * (MAX_DIAGNOSTICS + 50) + "\n")
    assert len(found) == MAX_DIAGNOSTICS + 1
    assert found[-1].message == "too many errors: 50 more not shown"


def test_diagnostic_format_is_exact() -> None:
    d = Diagnostic("boards/a.txt", 3, 7, "no head")
    assert str(d) == "boards/a.txt:3:7: error: no head"
    assert str(Diagnostic("a\x1bb.txt", 1, 1, "m")) == "a\\x1bb.txt:1:1: error: m"


def test_level_error_is_a_value_error_whose_text_lists_every_line() -> None:
    with pytest.raises(ValueError, match=r"^t\.txt:1:1: error: .*\nt\.txt:2:7: error: ") as info:
        parse_level("nmae: x\nwrap: maybe\n..>.\n", "t.txt")
    assert isinstance(info.value, LevelError)


# -- files ----------------------------------------------------------------------------------------


def test_load_a_good_file(tmp_path: Path) -> None:
    path = tmp_path / "two.txt"
    path.write_bytes(TWO_ROOMS.replace("\n", "\r\n").encode())
    assert load_level_file(path) == BASE


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.txt"
    with pytest.raises(LevelError) as info:
        load_level_file(path)
    assert [str(d) for d in info.value.diagnostics] == [f"{path}:1:1: error: no such file"]


def test_directory(tmp_path: Path) -> None:
    with pytest.raises(LevelError) as info:
        load_level_file(tmp_path)
    assert str(info.value) == f"{tmp_path}:1:1: error: is a directory, not a level file"


def test_file_too_large(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"." * (MAX_FILE_BYTES + 1))
    with pytest.raises(LevelError) as info:
        load_level_file(path)
    (d,) = info.value.diagnostics
    assert (d.line, d.col) == (1, 1)
    assert f"too large for a level ({MAX_FILE_BYTES + 1} bytes" in d.message


def test_a_file_of_exactly_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "edge.txt"
    row = "." * 1023 + ">" + "\n"
    path.write_text(row * (MAX_FILE_BYTES // len(row)) + "\n" * (MAX_FILE_BYTES % len(row)))
    assert path.stat().st_size == MAX_FILE_BYTES
    with pytest.raises(LevelError, match="second head"):
        load_level_file(path)


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_an_endless_device_is_refused_unread() -> None:
    with pytest.raises(LevelError, match="a pipe, socket or device, not a file"):
        load_level_file("/dev/zero")


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.txt"
    path.write_text(TWO_ROOMS)

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise PermissionError(13, "Permission denied")

    # root may read any file whatever its mode, so make the open itself fail
    monkeypatch.setattr(capped, "open", refuse, raising=False)
    with pytest.raises(LevelError) as info:
        load_level_file(path)
    assert str(info.value) == f"{path}:1:1: error: cannot read the file: Permission denied"


def test_invalid_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "latin1.txt"
    path.write_bytes("name: caf\u00e9\n..>.\n".encode("latin-1"))
    with pytest.raises(LevelError) as info:
        load_level_file(path)
    assert str(info.value).startswith(f"{path}:1:10: error: invalid UTF-8 (bytes 0xe9)")


# -- printing -------------------------------------------------------------------------------------


def test_format_refuses_what_a_file_cannot_hold() -> None:
    good = open_level(6, 4)
    with pytest.raises(ValueError, match="control characters"):
        format_level(
            Level(good.board, good.body, good.direction, None, good.name, (("author", "a\nb"),))
        )
    crooked = (Point(3, 2), Point(3, 1), Point(2, 1))
    with pytest.raises(ValueError, match="straight"):
        format_level(Level(good.board, crooked, Direction.DOWN, None, good.name))
    with pytest.raises(ValueError, match="header key"):
        format_level(
            Level(good.board, good.body, good.direction, None, good.name, (("length", "3"),))
        )
    with pytest.raises(ValueError, match="board's name"):
        format_level(Level(good.board, good.body, good.direction, None, "other"))


def test_printable_escapes_only_what_needs_it() -> None:
    assert printable("Two rooms \u00e9") == "Two rooms \u00e9"
    assert printable("a\x1b[2Jb\u202e\n") == "a\\x1b[2Jb\\u202e\\n"
    assert describe_char("\u2028") == "'\\u2028' (U+2028)"


# -- properties -----------------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_raise_only_level_error(data: bytes) -> None:
    try:
        level = parse_level(data, "fuzz.txt")
    except LevelError as exc:
        assert exc.diagnostics
        assert all(d.line >= 1 and d.col >= 1 and d.path == "fuzz.txt" for d in exc.diagnostics)
    else:
        assert parse_level(format_level(level)) == level


MAP_ALPHABET = st.sampled_from([*"#..........>%:;\r\n \t", "name: a\n", "length: 2\n"])


@settings(max_examples=150, deadline=None)
@given(st.lists(MAP_ALPHABET, max_size=80).map("".join))
def test_map_like_text_raises_only_level_error(text: str) -> None:
    try:
        level = parse_level(text)
    except LevelError as exc:
        lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        assert all(1 <= d.line <= max(len(lines), 1) for d in exc.diagnostics)
    else:
        assert parse_level(format_level(level)) == level


@st.composite
def levels(draw: st.DrawFn) -> Level:
    """Random levels that a file can hold: walls, a straight snake, maybe a food, meta."""
    width = draw(st.integers(1, 9))
    height = draw(st.integers(1, 7))
    wrap = draw(st.booleans())
    cells = [Point(x, y) for y in range(height) for x in range(width)]
    walls = frozenset(draw(st.lists(st.sampled_from(cells), max_size=len(cells) // 2)))
    name = draw(st.text(st.characters(categories=["L", "N", "P"]), min_size=1, max_size=12))
    board = Board(width, height, walls, wrap, name)
    free = [p for p in cells if p not in walls]
    if not free:
        walls = frozenset()
        board = Board(width, height, walls, wrap, name)
        free = cells
    head = draw(st.sampled_from(free))
    direction = draw(st.sampled_from(list(Direction)))
    length = draw(st.integers(1, 4))
    try:
        body = straight_body(board, head, direction, length)
    except ValueError:
        body = (head,)
    rest = [p for p in board.free_cells if p not in body]
    food = draw(st.none() | st.sampled_from(rest)) if rest else None
    author = draw(st.text(st.characters(categories=["L", "Zs"]), max_size=8)).strip(" ")
    meta = (("author", author),) if author and draw(st.booleans()) else ()
    return Level(board, body, direction, food, name, meta)


@settings(max_examples=100, deadline=None)
@given(levels())
def test_every_printable_level_round_trips(level: Level) -> None:
    if len(level.body) >= level.board.free_count or level.name != level.name.strip(" \t"):
        with pytest.raises(ValueError):
            format_level(level)
        return
    text = format_level(level)
    assert parse_level(text) == level
    assert parse_level(text.replace("\n", "\r\n").encode("utf-8")) == level
