"""`termsnake scores`: the high-score table, best first."""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

from termsnake.commands.args import Subparsers
from termsnake.formats.diagnostics import LevelError
from termsnake.formats.levelfile import load_level_file
from termsnake.formats.scores import PERSON, ScoreStore
from termsnake.formats.scoretable import table
from termsnake.formats.text import printable


def add_parsers(sub: Subparsers) -> None:
    """``termsnake scores``'s options."""
    parser = sub.add_parser(
        "scores",
        help="list the high scores",
        description="List the high scores kept in the user data directory (scores.json).",
    )
    parser.add_argument(
        "--level",
        metavar="NAME|PATH",
        help="only this level: its name, or a level file (its scores are kept under its name)",
    )
    parser.add_argument("--player", metavar="NAME", help=f"only this player ({PERSON!r} or a bot)")
    parser.set_defaults(run=run)


def level_names(level: str | None) -> set[str] | None:
    """The level names ``--level`` asks for (None: all): the name given and, for a level file
    there, the name its scores are kept under (its ``name:``, else its file name)."""
    if level is None:
        return None
    names = {level}
    if os.path.isfile(level):
        with contextlib.suppress(LevelError):  # not a level file: only its name as given
            names.add(load_level_file(level).name)
    return names


def run(args: argparse.Namespace) -> int:
    """``termsnake scores [--level NAME|PATH] [--player NAME]``: print the table; the exit code."""
    store = ScoreStore()
    for warning in store.set_aside_unreadable():
        print(f"termsnake scores: warning: {printable(warning)}", file=sys.stderr)
    scores = store.read().scores
    levels = level_names(args.level)
    chosen = {
        k: v
        for k, v in scores.items()
        if (levels is None or k.level in levels)
        and (args.player is None or k.player == args.player)
    }
    if not scores:
        print(f"no scores yet ({store.shown})")
    elif not chosen:
        print("no scores match")
    else:
        print("\n".join(table(chosen)))
    return 0
