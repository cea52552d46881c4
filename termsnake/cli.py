"""The command line: ``termsnake [options]`` plays; subcommands list, check, replay and bench."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

# subcommand -> "module:function"; each function takes the remaining argv and returns an exit code.
SUBCOMMANDS: dict[str, str] = {
    "levels": "termsnake.levelcmd:levels_main",
    "check": "termsnake.levelcmd:check_main",
    "replay": "termsnake.replay:main",
    "bench": "termsnake.bench:main",
    "scores": "termsnake.scores:main",
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``termsnake`` command; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] in SUBCOMMANDS:
        module_name, _, attr = SUBCOMMANDS[args[0]].partition(":")
        run: Callable[[list[str]], int] = getattr(importlib.import_module(module_name), attr)
        return run(args[1:])
    from termsnake.play import main as play_main

    return play_main(args)
