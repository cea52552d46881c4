"""The ``termsnake`` command, and ``python -m termsnake``: load the program, then run it."""

import sys

from termsnake.exits import EXIT_INTERRUPTED, interrupt_after


def main() -> int:
    """Load the command line and run it. A Ctrl-C while the program loads (a tenth of a second,
    more on a busy machine) ends in the same one line as one at any later moment."""
    try:
        with interrupt_after():
            from termsnake.commands import cli
    except KeyboardInterrupt:
        if sys.stderr is not None:
            print("termsnake: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    return cli.main()


if __name__ == "__main__":
    sys.exit(main())
