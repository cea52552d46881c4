"""Settings from config.toml in the user's config directory; command-line flags win over them."""

from __future__ import annotations

import dataclasses
import difflib
import re
import sys
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Literal, get_args

from termsnake.core.speed import DEFAULT_SPEED, MAX_SPEED, MIN_SPEED
from termsnake.formats.diagnostics import MAX_DIAGNOSTICS, too_many
from termsnake.formats.fileio import TooLarge, describe_parse_error, read_if_present
from termsnake.formats.places import config_dir
from termsnake.formats.text import printable, shorten

FILE_NAME: Final = "config.toml"
# A config file is a few lines; a bigger one is a mistake (or a link to /dev/zero), not read.
MAX_BYTES: Final = 1024 * 1024
MAX_PLAYER: Final = 32

Glyphs = Literal["ascii", "unicode"]
Keys = Literal["default", "azerty", "dvorak"]
GLYPHS: Final[tuple[str, ...]] = get_args(Glyphs)
KEY_PRESETS: Final[tuple[str, ...]] = get_args(Keys)


class SettingsError(Exception):
    """A config file that cannot be used; str() is one ``path:line: error: message`` a line."""


def _check_speed(value: object) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"speed must be a number of moves per second, not {_show(value)}"
    if not MIN_SPEED <= value <= MAX_SPEED:  # also false for nan
        return f"speed must be >= {MIN_SPEED:g} and <= {MAX_SPEED:g}, not {_show(value)}"
    return None


def _check_level(value: object) -> str | None:
    if not isinstance(value, str):
        return f"level must be a string (a preset name or a path), not {_show(value)}"
    if not value.strip():
        return "level must not be empty"
    return None


def _check_choice(name: str, allowed: tuple[str, ...]) -> Callable[[object], str | None]:
    def check(value: object) -> str | None:
        if value in allowed:
            return None
        choices = ", ".join(f'"{a}"' for a in allowed)
        return f"{name} must be one of {choices}, not {_show(value)}"

    return check


def _check_color(value: object) -> str | None:
    if not isinstance(value, bool):
        return f"color must be true or false, not {_show(value)}"
    return None


def _check_player(value: object) -> str | None:
    if not isinstance(value, str):
        return f"player must be a string, not {_show(value)}"
    # The name is a column of `termsnake scores`: one printable line, of a sensible width.
    if not value.strip() or not value.isprintable() or len(value) > MAX_PLAYER:
        return f"player must be 1 to {MAX_PLAYER} printable characters, not {_show(value)}"
    return None


_CHECKS: Final[Mapping[str, Callable[[object], str | None]]] = {
    "speed": _check_speed,
    "level": _check_level,
    "glyphs": _check_choice("glyphs", GLYPHS),
    "keys": _check_choice("keys", KEY_PRESETS),
    "color": _check_color,
    "player": _check_player,
}


def _show(value: object) -> str:
    # TOML spelling in messages, since that is what the user wrote.
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{shorten(value)}"'
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return shorten(repr(value)) if isinstance(value, int | float) else type(value).__name__


@dataclass(frozen=True, slots=True)
class Settings:
    """What config.toml can set; the defaults are what termsnake does without one."""

    speed: float = DEFAULT_SPEED
    level: str = "classic"
    glyphs: Glyphs = "ascii"
    keys: Keys = "default"
    color: bool = True
    player: str = "you"
    # The line that set each key the file set: a level is found bad only when it is loaded.
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        for name, check in _CHECKS.items():
            problem = check(getattr(self, name))
            if problem is not None:
                raise ValueError(problem)
        # TOML and flags may give `speed = 8`; keep the field a float as annotated.
        object.__setattr__(self, "speed", float(self.speed))


def settings_path() -> Path:
    """Where config.toml lives: the user's config directory (XDG_CONFIG_HOME on Linux)."""
    return config_dir() / FILE_NAME


_TOML_WHERE: Final = re.compile(r"\s*\((?:at line (\d+), column \d+|at end of document)\)$")


_ASSIGNED: Final = re.compile(r"""\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*[=.]""")
_HEADER: Final = re.compile(r"""\s*\[+\s*([A-Za-z0-9_-]+)\s*[\].]""")


def _key_lines(text: str) -> dict[str, int]:
    """The line where each key is first assigned (bare or quoted), else first opens a table
    (``[speed]`` sets the key too): tomllib keeps no positions for values. One pass, so
    a file of thousands of keys takes no longer than reading it."""
    assigned: dict[str, int] = {}
    headers: dict[str, int] = {}
    # Lines end at "\n" alone, as TOML's do: splitlines() would end one at a U+2028 or a
    # form feed in a comment or a string, and every key below would be said a line too low.
    for number, line in enumerate(text.split("\n"), 1):
        if m := _ASSIGNED.match(line):
            assigned.setdefault(next(g for g in m.groups() if g is not None), number)
        elif m := _HEADER.match(line):
            headers.setdefault(m.group(1), number)
    return headers | assigned


def parse_settings(text: str, path: str) -> Settings:
    """Settings from the text of a config file; SettingsError locating every problem."""
    if text.startswith("\ufeff"):
        text = text[1:]  # editors on Windows add a BOM; TOML does not allow it, users do
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        message = str(e)
        where = _TOML_WHERE.search(message)
        last = max(1, text.count("\n") + (not text.endswith("\n")))  # lines end at "\n" alone
        line = int(where.group(1)) if where and where.group(1) else last
        if where:
            message = message[: where.start()]
        message = message[:1].lower() + message[1:]
        raise SettingsError(f"{path}:{line}: error: {message}") from None
    except (ValueError, RecursionError) as e:  # a 5000-digit number, arrays 10,000 deep
        digits = re.search(rf"\d{{{sys.get_int_max_str_digits() + 1}}}", text)
        line = text.count("\n", 0, digits.start()) + 1 if digits else 1
        raise SettingsError(f"{path}:{line}: error: {describe_parse_error(e)}") from None
    errors: list[tuple[int, str]] = []
    values: dict[str, object] = {}
    lines = _key_lines(text)
    for key, value in table.items():
        line = lines.get(key, 1)
        if key not in _CHECKS:
            close = difflib.get_close_matches(key, list(_CHECKS), n=1)
            hint = f'; did you mean "{close[0]}"?' if close else ""
            known = ", ".join(_CHECKS)
            errors.append((line, f'unknown key "{shorten(key)}"{hint} (known keys: {known})'))
            continue
        problem = _CHECKS[key](value)
        if problem is not None:
            errors.append((line, problem))
        else:
            values[key] = value
    if errors:
        errors.sort()
        if len(errors) > MAX_DIAGNOSTICS:  # as a level file's: the first ones, and how many more
            more = too_many(len(errors) - MAX_DIAGNOSTICS)
            errors = [*errors[:MAX_DIAGNOSTICS], (errors[MAX_DIAGNOSTICS - 1][0], more)]
        raise SettingsError(
            "\n".join(f"{path}:{line}: error: {message}" for line, message in errors)
        )
    set_at = {key: lines.get(key, 1) for key in values}
    return Settings(**values, lines=set_at)  # type: ignore[arg-type]  # every value was checked


def load_settings(path: Path | None = None) -> Settings:
    """Settings from ``path`` (default: settings_path()); defaults if no file can be there."""
    target = Path(path) if path is not None else settings_path()
    where = printable(str(target))  # the path comes from the environment: it may hold anything
    try:
        data = read_if_present(target, MAX_BYTES)
    except TooLarge as e:
        raise SettingsError(f"{where}:1: error: {e.describe('a config file')}") from None
    except OSError as e:
        raise SettingsError(f"{where}:1: error: cannot read: {e.strerror or e}") from None
    if data is None:
        return Settings()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        raise SettingsError(
            f"{where}:{line}: error: not UTF-8 (byte {data[e.start]:#04x}); save the file as UTF-8"
        ) from None
    return parse_settings(text, where)


def merge(
    settings: Settings,
    *,
    speed: float | None = None,
    level: str | None = None,
    glyphs: str | None = None,
    keys: str | None = None,
    color: bool | None = None,
    player: str | None = None,
) -> Settings:
    """``settings`` with the flags the user gave (not None) in place; ValueError if one is bad."""
    given = {
        name: value
        for name, value in (
            ("speed", speed),
            ("level", level),
            ("glyphs", glyphs),
            ("keys", keys),
            ("color", color),
            ("player", player),
        )
        if value is not None
    }
    return dataclasses.replace(settings, **given)  # type: ignore[arg-type]
