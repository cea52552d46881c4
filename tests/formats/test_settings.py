"""Settings: defaults, every key, flags over the file, and located errors instead of tracebacks."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import pytest

from termsnake.formats.settings import (
    Settings,
    SettingsError,
    load_settings,
    merge,
    parse_settings,
    settings_path,
)

FULL = """\
# every key, none at its default
speed = 12.5
level = "maze"
glyphs = "unicode"
keys = "azerty"
color = false
player = "ada"
"""


FIELDS = [f.name for f in dataclasses.fields(Settings) if f.name != "lines"]  # the keys


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(SettingsError) as info:
        load_settings(path)
    return str(info.value).replace(str(path), "config.toml")


def test_a_missing_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "nowhere" / "config.toml") == Settings()
    assert Settings() == Settings(
        speed=8.0, level="classic", glyphs="ascii", keys="default", color=True, player="you"
    )


def test_a_path_through_a_regular_file_gives_the_defaults(tmp_path: Path) -> None:
    # HOME=/dev/null or XDG_CONFIG_HOME set to a file: no config file can be there (ENOTDIR).
    blocker = tmp_path / "home"
    blocker.write_text("not a directory", encoding="utf-8")
    assert load_settings(blocker / ".config" / "termsnake" / "config.toml") == Settings()


def test_an_empty_file_gives_the_defaults(tmp_path: Path) -> None:
    assert load_settings(write(tmp_path, "# nothing set yet\n")) == Settings()


def test_every_key_is_read(tmp_path: Path) -> None:
    settings = load_settings(write(tmp_path, FULL))
    assert settings == Settings(
        speed=12.5, level="maze", glyphs="unicode", keys="azerty", color=False, player="ada"
    )
    assert settings.lines == {
        "speed": 2,
        "level": 3,
        "glyphs": 4,
        "keys": 5,
        "color": 6,
        "player": 7,
    }
    assert set(FIELDS) == {"speed", "level", "glyphs", "keys", "color", "player"}


@pytest.mark.parametrize(
    ("line", "field", "value"),
    [
        ("speed = 3", "speed", 3.0),
        ("speed = 1000", "speed", 1000.0),
        ("level = 'levels/mine.txt'", "level", "levels/mine.txt"),
        ('glyphs = "ascii"', "glyphs", "ascii"),
        ('keys = "dvorak"', "keys", "dvorak"),
        ("color = true", "color", True),
        ('"player" = "Grace H."', "player", "Grace H."),
    ],
)
def test_each_key_alone(tmp_path: Path, line: str, field: str, value: object) -> None:
    settings = load_settings(write(tmp_path, line + "\n"))
    assert getattr(settings, field) == value
    assert type(getattr(settings, field)) is type(value)
    others = {f: getattr(Settings(), f) for f in FIELDS if f != field}
    assert all(getattr(settings, f) == v for f, v in others.items())


def test_flags_win_over_the_file_and_only_given_flags_count(tmp_path: Path) -> None:
    from_file = load_settings(write(tmp_path, FULL))
    merged = merge(from_file, speed=20, level=None, glyphs=None, keys="dvorak", color=None)
    assert merged == Settings(
        speed=20, level="maze", glyphs="unicode", keys="dvorak", color=False, player="ada"
    )
    assert type(merged.speed) is float
    assert merge(from_file) == from_file
    assert merge(Settings(), color=False, glyphs="unicode", player="bob", level="x") == Settings(
        glyphs="unicode", color=False, player="bob", level="x"
    )


def test_a_bad_flag_is_a_value_error() -> None:
    with pytest.raises(ValueError, match='glyphs must be one of "ascii", "unicode"'):
        merge(Settings(), glyphs="emoji")
    with pytest.raises(ValueError, match=r"speed must be >= 0\.1"):
        merge(Settings(), speed=0)


def test_a_syntax_error_is_located(tmp_path: Path) -> None:
    text = 'speed = 8\nlevel = "classic\nglyphs = "ascii"\n'
    assert error_of(tmp_path, text).startswith("config.toml:2: error: ")
    message = error_of(tmp_path, "speed = 8\n\n[display\n")
    assert message == "config.toml:3: error: expected ']' at the end of a table declaration"


def test_a_syntax_error_at_the_end_points_at_the_last_line(tmp_path: Path) -> None:
    assert error_of(tmp_path, "color = true\nspeed =").startswith("config.toml:2: error: ")


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_a_line_separator_in_a_comment_or_a_string_ends_no_line(
    tmp_path: Path, separator: str
) -> None:
    # TOML ends a line at "\n" alone; each key below one of these was said a line too low.
    settings = load_settings(write(tmp_path, f'# mine{separator}\nlevel = "a{separator}b"\n'))
    assert settings.lines == {"level": 2}
    text = f"# mine{separator}\nspeed = 0\n"
    assert error_of(tmp_path, text).startswith("config.toml:2: error: speed must be")
    assert error_of(tmp_path, f"# {separator}\nspeed =").startswith("config.toml:2: error: ")


@pytest.mark.parametrize("end", ["\n", "\r\n"])
def test_an_error_at_the_end_is_said_at_the_last_line_whatever_the_line_ends(
    tmp_path: Path, end: str
) -> None:
    # Counting "\n" after stripping them said line 1 for a file ended by blank lines.
    for text in (f"a = [1,{end}{end}{end}", f'x = """abc{end}{end}{end}'):
        assert error_of(tmp_path, text).startswith("config.toml:3: error: "), text


def test_an_unknown_key_suggests_the_nearest(tmp_path: Path) -> None:
    message = error_of(tmp_path, 'speed = 8\n\n  glyph = "unicode"\n')
    assert message.startswith('config.toml:3: error: unknown key "glyph"; did you mean "glyphs"?')
    assert "known keys: speed, level, glyphs, keys, color, player" in message
    far = error_of(tmp_path, "zzz = 1\n")
    assert far.startswith('config.toml:1: error: unknown key "zzz" (known keys:')


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('speed = "fast"', 'speed must be a number of moves per second, not "fast"'),
        ("speed = true", "speed must be a number of moves per second, not true"),
        ("speed = 0", "speed must be >= 0.1 and <= 1000, not 0"),
        ("speed = 1e-320", "speed must be >= 0.1 and <= 1000, not 1e-320"),
        ("speed = -2.5", "speed must be >= 0.1 and <= 1000, not -2.5"),
        ("speed = 1001", "speed must be >= 0.1 and <= 1000, not 1001"),
        ("speed = nan", "speed must be >= 0.1 and <= 1000, not nan"),
        ('glyphs = "emoji"', 'glyphs must be one of "ascii", "unicode", not "emoji"'),
        ('keys = "qwertz"', 'keys must be one of "default", "azerty", "dvorak", not "qwertz"'),
        ('color = "yes"', 'color must be true or false, not "yes"'),
        ("level = 3", "level must be a string (a preset name or a path), not 3"),
        ('level = ""', "level must not be empty"),
        ("player = [1]", "player must be a string, not an array"),
        ('player = "a\\tb"', "player must be 1 to 32 printable characters"),
        ('player = "a\\u0007b"', 'player must be 1 to 32 printable characters, not "a\\x07b"'),
        ("[color]\nx = 1", "color must be true or false, not a table"),
    ],
)
def test_a_bad_value_is_located_at_its_key(tmp_path: Path, text: str, expected: str) -> None:
    message = error_of(tmp_path, "# my settings\n\n" + text + "\n")
    assert message.startswith(f"config.toml:3: error: {expected}")
    assert "\n" not in message


def test_every_problem_is_reported_in_line_order(tmp_path: Path) -> None:
    text = 'keys = "qwerty"\nspeed = 8\nsped = 9\nglyphs = 1\n'
    lines = error_of(tmp_path, text).splitlines()
    assert [line.split(": error: ")[0] for line in lines] == [
        "config.toml:1",
        "config.toml:3",
        "config.toml:4",
    ]


def test_not_utf8_is_a_located_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'speed = 8\nplayer = "Ren\xe9e"\n')
    with pytest.raises(SettingsError) as info:
        load_settings(path)
    assert str(info.value) == f"{path}:2: error: not UTF-8 (byte 0xe9); save the file as UTF-8"


def test_a_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b'\xef\xbb\xbfglyphs = "unicode"\n')
    assert load_settings(path).glyphs == "unicode"


def test_an_unreadable_path_is_a_located_error(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    with pytest.raises(SettingsError) as info:
        load_settings(tmp_path / "config.toml")
    assert str(info.value).startswith(f"{tmp_path / 'config.toml'}:1: error: cannot read: ")


def test_parse_settings_names_the_given_path() -> None:
    with pytest.raises(SettingsError, match=r"^<flags>:1: error: unknown key"):
        parse_settings("speedd = 1", "<flags>")


def test_xdg_config_home_is_honoured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if sys.platform != "linux":
        pytest.skip("XDG_CONFIG_HOME is the Linux convention")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert settings_path() == tmp_path / "termsnake" / "config.toml"
    assert load_settings() == Settings()
    (tmp_path / "termsnake").mkdir()
    (tmp_path / "termsnake" / "config.toml").write_text("speed = 4\n", encoding="utf-8")
    assert load_settings().speed == 4.0


@pytest.mark.parametrize(
    "text", ["speed = " + "9" * 5000, "x = " + "[" * 5000 + "]" * 5000], ids=["huge", "deep"]
)
def test_toml_that_python_refuses_is_a_located_error(tmp_path: Path, text: str) -> None:
    assert error_of(tmp_path, text).startswith("config.toml:1: error: ")


def test_a_config_path_with_control_characters_is_shown_escaped(tmp_path: Path) -> None:
    # The path comes from XDG_CONFIG_HOME or HOME, which may hold anything.
    folder = tmp_path / "c\x1b[31mx\nnext"
    folder.mkdir()
    (folder / "config.toml").write_text('speed = "x"\n')
    with pytest.raises(SettingsError) as info:
        load_settings(folder / "config.toml")
    message = str(info.value)
    assert "\x1b" not in message and "\n" not in message and "c\\x1b[31mx\\nnext" in message


def test_thousands_of_unknown_keys_are_a_hundred_lines(tmp_path: Path) -> None:
    text = "".join(f"key{i} = 1\n" for i in range(5000)) + "x" * 1000 + " = 2\n"
    lines = error_of(tmp_path, text).splitlines()
    assert len(lines) == 101
    assert lines[0].startswith('config.toml:1: error: unknown key "key0"')
    assert lines[99].startswith('config.toml:100: error: unknown key "key99"')
    assert lines[-1] == "config.toml:100: error: too many errors: 4901 more not shown"
    one = error_of(tmp_path, "x" * 1000 + " = 2\n")
    assert len(one) < 300 and "… (1000 characters)" in one
