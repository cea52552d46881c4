"""Preset levels: the board files shipped in ``levels/``, found by name, and NAME|PATH lookup."""

from __future__ import annotations

import difflib
import re
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Final

from termsnake.core.level import Level
from termsnake.formats.diagnostics import Diagnostic, LevelError
from termsnake.formats.levelfile import load_level_file, parse_level
from termsnake.formats.text import shorten

DEFAULT_LEVEL: Final = "classic"
"""The preset that plain ``termsnake`` plays."""

SUFFIX: Final = ".txt"
NAME_RE: Final = re.compile(r"[a-z0-9][a-z0-9-]*")


class UnknownLevelError(LevelError):
    """A ``--level`` argument that is neither a preset's name nor an existing file."""


def levels_dir() -> Traversable:
    """Where the presets live: inside the installed package, else the repo's ``levels/``."""
    packaged = resources.files("termsnake") / "levels"
    if packaged.is_dir():
        return packaged
    # an editable install or a checkout: the package directory sits next to levels/
    return Path(__file__).resolve().parents[2] / "levels"


def is_preset_name(name: str) -> bool:
    """Whether ``name`` has the form of a preset name (lowercase letters, digits and -)."""
    return NAME_RE.fullmatch(name) is not None


def preset_names() -> tuple[str, ...]:
    """The names of every preset, sorted."""
    folder = levels_dir()
    if not folder.is_dir():
        return ()
    names = (
        entry.name.removesuffix(SUFFIX)
        for entry in folder.iterdir()
        if entry.name.endswith(SUFFIX) and entry.is_file()
    )
    return tuple(sorted(name for name in names if is_preset_name(name)))


def preset_path(name: str) -> str:
    """How a preset's file is named in diagnostics and listings."""
    return str(levels_dir() / f"{name}{SUFFIX}")


def load_preset(name: str, *, length: int | None = None) -> Level:
    """The preset called ``name`` (the snake ``length`` long if given); UnknownLevelError
    (listing the presets) if there is none."""
    if name not in preset_names():
        raise UnknownLevelError([Diagnostic(name, 1, 1, unknown_level_message(name))])
    entry = levels_dir() / f"{name}{SUFFIX}"
    return parse_level(entry.read_bytes(), preset_path(name), length=length)


def unknown_level_message(name: str) -> str:
    """Why ``name`` is not a level: not a preset, not a file; suggests the nearest preset."""
    names = preset_names()
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return (
        f"no preset or file named '{shorten(name)}'; {hint}"
        f"presets: {', '.join(names)} (see `termsnake levels`)"
    )


def level_file(name_or_path: str) -> str | None:
    """The file ``load_level`` reads a level from for ``name_or_path``; None for a preset."""
    return None if is_preset_name(name_or_path) and name_or_path in preset_names() else name_or_path


def load_level(name_or_path: str, *, length: int | None = None) -> Level:
    """A preset by name, else the level file at that path; LevelError says what is wrong.

    A preset name wins over a file of the same name in the current directory; write ``./NAME``
    to mean the file. ``length``, if given, replaces the level's own before the snake is fitted
    on the map (``--length``).
    """
    if level_file(name_or_path) is None:
        return load_preset(name_or_path, length=length)
    path = Path(name_or_path)
    looks_like_path = "/" in name_or_path or "\\" in name_or_path or path.suffix != ""
    try:
        exists = path.exists()
    except OSError:  # a name too long for the file system is no file either
        exists = False
    stem = name_or_path.removesuffix(SUFFIX)
    if not exists and stem != name_or_path and stem in preset_names():
        # 'classic.txt', a preset's file name as levels/ lists it, is no file here
        message = f"no such file; the preset is --level {stem}"
        raise UnknownLevelError([Diagnostic(name_or_path, 1, 1, message)])
    if looks_like_path or exists:
        return load_level_file(name_or_path, length=length)
    raise UnknownLevelError([Diagnostic(name_or_path, 1, 1, unknown_level_message(name_or_path))])
