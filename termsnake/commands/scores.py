"""`termsnake scores`: the high-score table, best first."""

from __future__ import annotations

import argparse
import sys

from termsnake.commands.args import Subparsers
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
    parser.add_argument("--level", metavar="NAME", help="only this level")
    parser.add_argument("--player", metavar="NAME", help=f"only this player ({PERSON!r} or a bot)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """``termsnake scores [--level NAME] [--player NAME]``: print the table; the exit code."""
    store = ScoreStore()
    for warning in store.set_aside_unreadable():
        print(f"termsnake scores: warning: {printable(warning)}", file=sys.stderr)
    scores = store.read().scores
    chosen = {
        k: v
        for k, v in scores.items()
        if (args.level is None or k.level == args.level)
        and (args.player is None or k.player == args.player)
    }
    if not scores:
        print(f"no scores yet ({store.shown})")
    elif not chosen:
        print("no scores match")
    else:
        print("\n".join(table(chosen)))
    return 0
