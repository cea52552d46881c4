"""``termsnake``'s own options, those of playing (no subcommand), apart from play.py: every
command line is parsed with them, and only a game needs the terminal code play.py loads."""

from __future__ import annotations

import argparse

from termsnake.commands import args as cliargs
from termsnake.core.level import DEFAULT_LENGTH
from termsnake.core.speed import DEFAULT_SPEED
from termsnake.exits import signals_remembered
from termsnake.solvers.registry import registered_names
from termsnake.tui.controllers import KEY_PRESETS


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``termsnake`` when it plays (no subcommand)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--level",
        metavar="NAME|PATH",
        type=cliargs.level_name,
        help="a preset name or a level file",
    )
    where.add_argument(
        "--size", metavar="WxH", type=cliargs.size, help="an open board of WxH cells"
    )
    p.add_argument(
        "--wrap", action="store_true", help="with --size: the edges wrap around (a torus)"
    )
    p.add_argument(
        "--length",
        type=cliargs.positive_int,
        help=f"the starting length (default: the level's, {DEFAULT_LENGTH} on an open board)",
    )
    p.add_argument(
        "--ai",
        metavar="SOLVER",
        help=f"watch a bot: {', '.join(registered_names())}, a plugin's name (termsnake solvers "
        "lists them), exec:COMMAND or neuro:WEIGHTS",
    )
    p.add_argument(
        "--speed",
        type=cliargs.speed,
        help=f"moves per second (default {DEFAULT_SPEED:g}, or config.toml's speed)",
    )
    p.add_argument("--seed", type=cliargs.seed, help="the food sequence (default: random)")
    p.add_argument("--record", metavar="FILE", help="save a replay of the game to FILE")
    cliargs.add_engine_timeout(p)
    p.add_argument(
        "--unicode", action="store_true", help="box-drawing frame and block body (UTF-8 only)"
    )
    p.add_argument("--no-color", action="store_true", help="no colours (so does NO_COLOR=1)")
    p.add_argument("--keys", choices=sorted(KEY_PRESETS), help="key preset (default: default)")
    p.set_defaults(run=_run_play)


def _run_play(args: argparse.Namespace) -> int:
    # A signal whose exception was lost as they load (in the import machinery's callback) ends
    # the command once they have, not after a game played deaf to it.
    with signals_remembered():
        from termsnake.commands import play  # blessed and the rest of the terminal code load here
    return play.run_play(args)
