"""Argument types and the parser class shared by every termsnake command."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NoReturn

from termsnake.core.level import parse_size
from termsnake.core.speed import MAX_SPEED, MIN_SPEED
from termsnake.exits import EXIT_USAGE
from termsnake.formats.text import printable, shorten

MAX_DIGITS: Final = 30  # more than any count or seed needs, few enough to show in a message
# ASCII digits with no sign (int() takes '+5', ' 5', '1_000', '٣'). A negative number passes
# only for the range check to name it ('at least 0, not -1'); '-0' is no number of ours.
_WHOLE: Final = re.compile(r"[0-9]+|-0*[1-9][0-9]*")
# A decimal number in ASCII, as float() reads one, less a '+', its spaces round it, '1_000',
# '٣', 'inf' and 'nan'. A '-' passes, as in _WHOLE, for the range check to name the number:
# every range of ours is above 0, so '-0' is named out of it too.
_DECIMAL: Final = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


class OneLineParser(argparse.ArgumentParser):
    """An argparse parser whose usage errors are one line (no usage dump) and exit 2, and
    that takes no option by the start of its name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # argparse read `--log x` as --login-timeout x, and `--lev` as --level: an option added
        # later would then change what an old command line means. Every parser of termsnake,
        # subcommands and the probes of cli included, is one of these.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        # argparse quotes some arguments it names (repr) but not the unrecognized ones.
        self.exit(
            EXIT_USAGE, f"{self.prog}: error: {printable(message)} (see {self.prog} --help)\n"
        )

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        # argparse drops write errors, so `--help >/dev/full` would exit 0 having printed
        # nothing: let those on stdout through to the command's own handling (cli.main).
        if message and file is sys.stdout:
            file.write(message)
            return
        super()._print_message(message, file)


# argparse names no public type for what add_subparsers returns.
if TYPE_CHECKING:
    from _typeshed import SupportsWrite

    Subparsers = argparse._SubParsersAction[OneLineParser]
else:
    Subparsers = argparse._SubParsersAction


def size(text: str) -> tuple[int, int]:
    """``WxH`` -> (W, H): ``core.level.parse_size`` as an argument type."""
    try:
        return parse_size(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def int_at_least(minimum: int, at_most: int | None = None) -> Callable[[str], int]:
    """An integer type of at least ``minimum`` (and, if given, at most ``at_most``)."""

    def parse(text: str) -> int:
        # ASCII digits only, as level files have them (_WHOLE), and few enough to echo: the
        # message shows the number it refuses.
        if not _WHOLE.fullmatch(text):
            raise argparse.ArgumentTypeError(f"expected a whole number, not '{shorten(text)}'")
        if len(text.lstrip("-").lstrip("0")) > MAX_DIGITS:
            raise argparse.ArgumentTypeError(
                f"expected a number of at most {MAX_DIGITS} digits, not '{shorten(text, 30)}'"
            )
        value = int(text)
        if at_most is not None and not minimum <= value <= at_most:
            raise argparse.ArgumentTypeError(
                f"expected a number from {minimum} to {at_most}, not {value}"
            )
        if value < minimum:
            raise argparse.ArgumentTypeError(
                f"expected a number of at least {minimum}, not {value}"
            )
        return value

    return parse


def not_empty(refusal: str, *, blank_too: bool = False) -> Callable[[str], str]:
    """A text argument that may not be empty (nor, with ``blank_too``, only spaces): an empty
    path or address means nothing, or something else than was meant; ``refusal`` says so."""

    def parse(text: str) -> str:
        if not (text.strip() if blank_too else text):
            raise argparse.ArgumentTypeError(refusal)
        return text

    return parse


# --level: an empty name is no level (it was looked for as the file "").
level_name: Final = not_empty("give a preset name or a level file, not an empty string")

positive_int: Final = int_at_least(1)

# Seeds are non-negative: Python's generator gives seed -n the same sequence as n.
seed: Final = int_at_least(0)


# The shortest time limit: a millisecond (1e-320 s is above 0, yet nothing could answer in it).
LEAST_SECONDS: Final = 0.001


def seconds_up_to(most: float) -> Callable[[str], float]:
    """A time limit type: a number of seconds from LEAST_SECONDS to ``most``."""

    def parse(text: str) -> float:
        value = decimal(text)
        if value is None:
            raise argparse.ArgumentTypeError(f"not a number of seconds: '{shorten(text, 30)}'")
        if not LEAST_SECONDS <= value <= most:
            raise argparse.ArgumentTypeError(
                f"must be at least {LEAST_SECONDS:g} and at most {most:g}, not {shorten(text, 30)}"
            )
        return value

    return parse


seconds: Final = seconds_up_to(3600)  # a time limit of at most an hour


def speed(text: str) -> float:
    """Moves per second, from MIN_SPEED to MAX_SPEED (core.speed)."""
    value = decimal(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"expected a number, not '{shorten(text, 30)}'")
    if not MIN_SPEED <= value <= MAX_SPEED:
        raise argparse.ArgumentTypeError(
            f"expected moves per second from {MIN_SPEED:g} to {MAX_SPEED:g}, "
            f"not {shorten(text, 30)}"
        )
    return value


def decimal(text: str) -> float | None:
    """``text`` as a number if it is one in ASCII decimal notation (as whole numbers are read:
    ``int_at_least``), else None."""
    return float(text) if _DECIMAL.fullmatch(text) else None


def add_jobs_and_scheduler(parser: argparse.ArgumentParser, scheduler_help: str) -> None:
    """``--jobs J`` (worker processes here) and ``--scheduler ADDRESS`` (a Dask cluster's
    workers), for the commands that play games in either."""
    parser.add_argument(
        "--jobs",
        type=int_at_least(0),
        default=None,  # not 1: only an option left out is not "given" beside --scheduler
        metavar="J",
        help="worker processes (default 1; 0: one per CPU; never more than the CPUs; "
        "not used with --scheduler)",
    )
    parser.add_argument("--scheduler", metavar="ADDRESS", help=scheduler_help)


def add_engine_timeout(parser: argparse.ArgumentParser) -> None:
    """``--engine-timeout SECONDS``, for every command that can run an exec: engine."""
    parser.add_argument(
        "--engine-timeout",
        type=seconds,
        metavar="SECONDS",
        help="an exec: engine's time limit for each move (default 1)",
    )
