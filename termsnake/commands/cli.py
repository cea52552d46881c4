"""The command line: one argparse tree; ``termsnake [options]`` plays, subcommands do the rest.

``dispatch`` reads a command line in three passes. ``_misplaced`` refuses an option given
before a subcommand (argparse would drop it, or read its value as the subcommand).
``named_command`` finds the subcommand with every subcommand a placeholder, so that only the
module of the one that runs is imported (start-up time). Then the parser of ``build_parser``,
with that one subcommand whole, parses for real. The two probes fail silently (``_Probe``):
the real parse says what is wrong.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import io
import os
import signal
import sys
from collections.abc import Callable, Sequence
from typing import Any, Final, NoReturn

from termsnake.commands.args import OneLineParser
from termsnake.exits import (
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    Terminated,
    signals_held,
)
from termsnake.formats.text import SHOWN_ERRORS, printable, terminal_encoding
from termsnake.streams import drop_unread_stderr, silence_stdout

# The commands are imported by build_parser, inside main: a Ctrl-C while they load then ends
# in one line, like one at any later moment.


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("termsnake")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "unknown"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked: importlib.metadata is slow to import
    (docs/tuning.md), and only --version and the plugins need it."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS) -> None:
        super().__init__(
            option_strings, dest, nargs=0, default=argparse.SUPPRESS, help="show the version"
        )

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> NoReturn:
        parser._print_message(f"termsnake {_version()}\n", sys.stdout)
        parser.exit()


# Each subcommand by name, in the order --help lists them, and the module that adds it.
_COMMANDS: Final = {
    "check": "levels",
    "levels": "levels",
    "replay": "replay",
    "bench": "bench",
    "scores": "scores",
    "solvers": "solvers",
    "serve": "serve",
    "train": "train",
}
_ALL: Final = "*"


def build_parser(only: str = _ALL) -> OneLineParser:
    """``termsnake``'s whole command line: the play options, then one subparser a command.

    With ``only`` (a subcommand's name, or "" for none) the other subcommands are placeholders:
    a command line parses the same, without importing the modules of commands it does not run.
    """
    from termsnake.commands import play_options

    parser = OneLineParser(
        prog="termsnake",
        formatter_class=_OptionalSubcommand,
        description="Snake in the terminal: play it, watch bots play it, measure them.",
        epilog="termsnake SUBCOMMAND --help tells more of each. Exit status: 0 ok, 2 bad "
        "usage or a bad file, 130 on Ctrl-C, 128+n on signal n.",
    )
    parser.add_argument("--version", action=_VersionAction)
    play_options.add_arguments(parser)
    _add_commands(parser, only, _Subcommand)
    return parser


class _OptionalSubcommand(argparse.HelpFormatter):
    """Usage shows ``[SUBCOMMAND ...]``: plain ``termsnake`` plays, yet argparse writes an
    optional subcommand as if it were required."""

    def _format_args(self, action: argparse.Action, default_metavar: str) -> str:
        text = super()._format_args(action, default_metavar)
        return f"[{text}]" if action.nargs == argparse.PARSER and not action.required else text


class _Subcommand(OneLineParser):
    """A subcommand's parser: an argument after the subcommand that it does not know is its
    error, so that the message names its own --help (termsnake's would name the top one)."""

    def parse_known_args(self, *args: Any, **kwargs: Any) -> Any:
        parsed, extra = super().parse_known_args(*args, **kwargs)
        if extra:
            self.error(f"unrecognized arguments: {' '.join(extra)}")
        return parsed, extra


def _add_commands(
    parser: argparse.ArgumentParser, only: str, kind: type[OneLineParser] | None = None
) -> None:
    sub = parser.add_subparsers(
        title="subcommands", metavar="SUBCOMMAND", dest="command", parser_class=kind or type(parser)
    )
    added: set[str] = set()
    for name, module in _COMMANDS.items():
        if only not in (_ALL, name) and _COMMANDS.get(only) != module:
            sub.add_parser(name, add_help=False)
        elif module not in added:
            added.add(module)
            importlib.import_module(f"termsnake.commands.{module}").add_parsers(sub)


class _Unparsed(Exception):
    pass


class _Probe(OneLineParser):
    """A parser that fails silently: it only finds which subcommand a command line names."""

    def error(self, message: str) -> NoReturn:
        raise _Unparsed


def named_command(argv: Sequence[str]) -> str:
    """The subcommand ``argv`` runs ("" for play; "*", all of them, for help and errors),
    found by parsing with placeholders only: argparse's own rules, so ``--level bench`` plays."""
    from termsnake.commands import play_options

    probe = _Probe(prog="termsnake", add_help=False)
    play_options.add_arguments(probe)
    _add_commands(probe, "")
    try:
        found, rest = probe.parse_known_args(argv)
    except _Unparsed:
        return _ALL
    if {"-h", "--help"} & set(rest):
        return _ALL
    return str(found.command or "")


def _misplaced(argv: Sequence[str]) -> str | None:
    """The error for an option before the subcommand, or None. argparse takes a game option
    there and the subcommand then runs without it; an option only a subcommand has makes it
    read the option's value as the subcommand's name."""
    from termsnake.commands import play_options

    # Only the options given before the first word that is no option's value are set here.
    probe = _Probe(prog="termsnake", add_help=False, argument_default=argparse.SUPPRESS)
    probe.add_argument("-h", "--help", action="store_true")
    probe.add_argument("--version", action="store_true")
    play_options.add_arguments(probe)
    probe.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        found, unknown = probe.parse_known_args(argv)
    except _Unparsed:
        return None  # a bad value: the whole parser says so
    given = {d: v for d, v in vars(found).items() if d not in ("rest", "run")}
    if "help" in given or "version" in given or {"-h", "--help"} & set(argv):
        return None  # answered before anything runs
    if unknown:
        option = unknown[0].partition("=")[0]
        owners = _commands_with(option)
        if not owners:
            return f"unrecognized arguments: {printable(unknown[0])} (see termsnake --help)"
        return (
            f"{printable(option)} is an option of {' and '.join(owners)}: put it after the "
            f"subcommand (see termsnake {owners[0]} --help)"
        )
    command = found.rest[0] if found.rest else ""
    if command not in _COMMANDS or not given:
        return None
    first = next(iter(given))  # the first option given: the namespace keeps their order
    option = next(a for a in probe._actions if a.dest == first).option_strings[-1]
    if command in _commands_with(option):
        return f"{option} goes after {command}, not before it (see termsnake {command} --help)"
    return (
        f"{option} is an option of the game, which {command} does not read "
        f"(see termsnake {command} --help)"
    )


def _commands_with(option: str) -> list[str]:
    """The subcommands that have ``option``, in the order --help lists them. Every command's
    module is imported for it, which only the wording of an error pays for."""
    # argparse lists a parser's subcommands and their options only in its private fields.
    subcommands = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    return [
        name
        for name, parser in subcommands.choices.items()
        if option in parser._option_string_actions
    ]


def main(argv: Sequence[str] | None = None, *, early: Callable[[], None] | None = None) -> int:
    """Entry point of the ``termsnake`` command; returns the exit code. ``early`` is called
    first where an ending signal is caught: it raises one that came as the program loaded.

    Output that cannot be written ends the command with one line on stderr (or silently, for a
    reader that went away, like ``| head``), never a traceback."""
    if sys.stderr is None:  # started with stderr closed (``2>&-``): print(file=None) would
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - put errors on stdout instead
    if sys.stdout is None:  # started with stdout closed (``>&-``)
        print("termsnake: error: standard output is closed", file=sys.stderr)
        return EXIT_OUTPUT
    _show_what_encodes()
    drop_unread_stderr()
    code = 0  # the command's, if it returned before its output failed
    try:
        if early is not None:
            early()
        code = dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except KeyboardInterrupt:
        # Ctrl-C where no command handles it (a long solver set-up, a replay being checked).
        print("termsnake: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Terminated as e:  # SIGTERM and the like, there too
        with contextlib.suppress(OSError):  # a hang-up's terminal may be gone
            print(f"termsnake: stopped by {signal.Signals(e.signum).name}", file=sys.stderr)
        return 128 + e.signum
    except BrokenPipeError:
        silence_stdout()
        return code or EXIT_OUTPUT
    except OSError as e:
        if e.errno == errno.EBADF and _stdout_closed():  # closed under us (a plugin's doing)
            said = "standard output is closed"
        elif e.errno == errno.EBADF:  # `1<file`, or a plugin's import lost it (fdaside)
            said = "standard output is not open for writing"
        elif e.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
            said = f"cannot write the output: {e.strerror}"
        else:
            raise
        silence_stdout()
        print(f"termsnake: error: {said}", file=sys.stderr)
        return code or EXIT_OUTPUT  # a hang-up's 129 says more than the lost output's 1
    return code


def _show_what_encodes() -> None:
    """Under a locale whose encoding cannot hold every character (latin-1, or ASCII under C),
    stdout and stderr escape the ones it cannot (``\\u540d``), as stderr did, and write the
    ellipsis as ``...``: a level's or a player's name is then never an encoding traceback.
    Under C they are ASCII, though Python would write UTF-8 (``terminal_encoding``)."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            with contextlib.suppress(OSError, ValueError):  # a stream closed or detached
                encoding = terminal_encoding(stream.encoding)
                stream.reconfigure(encoding=encoding, errors=SHOWN_ERRORS)


def _stdout_closed() -> bool:
    try:
        os.fstat(sys.stdout.fileno())
    except (OSError, ValueError):
        return True
    return False


def dispatch(argv: list[str]) -> int:
    """Parse ``argv`` and run the command it names; --help and usage errors give their code."""
    try:
        with signals_held():  # the commands' modules load here
            misplaced = _misplaced(argv)
            if misplaced:
                print(f"termsnake: error: {misplaced}", file=sys.stderr)
                return EXIT_USAGE
            parser = build_parser(named_command(argv))
        args = parser.parse_args(argv)
    except SystemExit as e:  # --help, --version (0) or a usage error (2), already printed
        return e.code if isinstance(e.code, int) else 2
    code: int = args.run(args)
    return code
