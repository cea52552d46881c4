"""The command line: ``termsnake [options]`` plays; subcommands list, check, replay and bench."""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Callable, Sequence

# subcommand -> "module:function"; each function takes the remaining argv and returns an exit code.
SUBCOMMANDS: dict[str, str] = {
    "levels": "termsnake.commands.levels:levels_main",
    "check": "termsnake.commands.levels:check_main",
    "replay": "termsnake.formats.replay:main",
    "bench": "termsnake.commands.bench:main",
    "scores": "termsnake.formats.scores:main",
}


EXIT_OUTPUT = 1  # the output could not be written (a full disk, a closed pipe)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``termsnake`` command; returns the exit code.

    Output that cannot be written ends the command with one line on stderr (or silently, for a
    reader that went away, like ``| head``), never a traceback."""
    if sys.stdout is None:  # started with stdout closed (``>&-``)
        print("termsnake: error: standard output is closed", file=sys.stderr)
        return EXIT_OUTPUT
    try:
        code = dispatch(list(sys.argv[1:] if argv is None else argv))
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_OUTPUT
    except OSError as e:
        if e.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG):
            raise
        _silence_stdout()
        print(f"termsnake: error: cannot write the output: {e.strerror}", file=sys.stderr)
        return EXIT_OUTPUT
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the flush at exit does not fail a second time."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):
        pass


def dispatch(args: list[str]) -> int:
    """Run the subcommand named first in ``args``, or play."""
    if args and args[0] in SUBCOMMANDS:
        module_name, _, attr = SUBCOMMANDS[args[0]].partition(":")
        run: Callable[[list[str]], int] = getattr(importlib.import_module(module_name), attr)
        return run(args[1:])
    from termsnake.commands.play import main as play_main

    return play_main(args)
