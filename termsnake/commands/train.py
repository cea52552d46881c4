"""`termsnake train neuro`: evolve the neuro bot's weights, locally or on a Dask cluster."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Final

from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.exits import EXIT_USAGE, signals_remembered

# Memory and the checkpoint grow with each: a run must fit in memory and its checkpoint be
# one that --resume reads back (termsnake.learn.training.MAX_CHECKPOINT).
MAX_GENERATIONS: Final = 100_000
MAX_POPULATION: Final = 4096
MAX_GAMES_A_NETWORK: Final = 10_000


def add_parsers(sub: Subparsers) -> None:
    """``termsnake train neuro``'s options."""
    parser = sub.add_parser(
        "train",
        help="train a learning bot (neuro): its weights, a checkpoint and a learning curve",
        description="Evolve the neuro bot as the course report did: score a population of "
        "networks by the mean final length over games, keep the best, perturb them, repeat. "
        "The same seed gives the same weights whatever --jobs or --scheduler.",
    )
    parser.add_argument("bot", choices=["neuro"], help="the bot to train")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--size", type=cliargs.size, metavar="WxH", help="an open board (8x8)")
    where.add_argument(
        "--level", metavar="NAME|PATH", type=cliargs.level_name, help="a preset or level file"
    )
    parser.add_argument(
        "--wrap",
        action="store_true",
        help="with --size: the edges wrap around (a torus), as the game's --wrap",
    )
    for flag, least, most, default, what in (
        ("--generations", 1, MAX_GENERATIONS, 40, "generations to evolve"),
        ("--population", 2, MAX_POPULATION, 32, "networks a generation"),
        ("--games", 1, MAX_GAMES_A_NETWORK, 8, "games that score each network in a generation"),
    ):
        parser.add_argument(
            flag,
            type=cliargs.int_at_least(least, most),
            default=default,
            metavar="N",
            help=f"{what} (default {default})",
        )
    parser.add_argument(
        "--seed", type=cliargs.seed, default=1, metavar="S", help="the first seed (default 1)"
    )
    cliargs.add_jobs_and_scheduler(parser, "run the games on the Dask cluster at ADDRESS")
    parser.add_argument(
        "--out",
        required=True,
        type=_weights_path,
        metavar="PATH",
        help="the weights file to write: a new one, unless --resume",
    )
    parser.add_argument("--resume", action="store_true", help="go on from PATH's checkpoint")
    parser.set_defaults(run=run)


def _weights_path(text: str) -> str:
    """--out: a file's name. An empty one read as the current folder, and one that names a
    folder (``models/``, ``models/.``) wrote a file of the folder's name."""
    if not text:
        raise argparse.ArgumentTypeError("give the name of the weights file to write")
    if text.endswith(("/", os.sep)) or os.path.basename(text) in (".", ".."):
        raise argparse.ArgumentTypeError(
            "names a folder: give the name of the weights file to write, such as models/neuro.json"
        )
    return text


def run(args: argparse.Namespace) -> int:
    """Train; the learn extra (numpy) is imported only now, so the game starts without it."""
    # A signal whose exception numpy lost as it loaded (dropped, or made an ImportError of)
    # ends the command once it has, not after a whole run.
    with signals_remembered() as came:
        try:
            from termsnake.learn import training
        except ImportError as e:
            came.check()
            print(f"termsnake train: needs the learn extra ({e.name} is missing): "
                  "pip install 'termsnake[learn]'", file=sys.stderr)  # fmt: skip
            return EXIT_USAGE
    return training.main(args)
