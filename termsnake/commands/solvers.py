"""`termsnake solvers`: every bot by name, and where it comes from."""

from __future__ import annotations

import argparse
import sys
from typing import Final

from termsnake.commands.args import Subparsers
from termsnake.formats.text import columns, encoding_of, pad, printable, shown_printable
from termsnake.solvers.registry import listing


def add_parsers(sub: Subparsers) -> None:
    """``termsnake solvers``."""
    parser = sub.add_parser(
        "solvers",
        help="list the bots: built-in, registered and plugins",
        description="List every solver --ai and bench accept, with the package it comes from. "
        "Plugins (entry-point group termsnake.solvers) are loaded to check them; one that "
        "fails is named in a warning. Also accepted: exec:COMMAND (an engine) and "
        "neuro:PATH (a weights file).",
    )
    parser.set_defaults(run=run)


ALIGN_LIMIT: Final = 24


def run(args: argparse.Namespace) -> int:
    """Print one line a solver: name, source, and a problem if it does not load."""
    rows = listing()
    # A plugin's name is escaped (and shown as stdout's encoding can), then aligned.
    names = [shown_printable(r.name, encoding_of(sys.stdout)) for r in rows]
    # Aligned to the longest short name: one plugin's long name (shown whole, as --ai takes
    # it) overflows its own line instead of pushing every source off the screen.
    width = max((columns(n) for n in names if columns(n) <= ALIGN_LIMIT), default=0)
    for name, r in zip(names, rows, strict=True):
        note = f"  ({r.problem})" if r.problem else ""
        print(f"{pad(name, width)}  {printable(r.source)}{note}")
    return 0
