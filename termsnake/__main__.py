"""The ``termsnake`` command, and ``python -m termsnake``: note the ending signals, load the
program, then run it."""

# _signal, not signal, which loads enum and more first: its core, loaded with Python, is
# enough here, and a signal while those loaded ended termsnake in a traceback.
import _signal
import sys

# termsnake.exits.ENDING_SIGNALS, by number (a test checks they are the same): that module
# loads signal, as above.
_ENDING = (
    _signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT,
    _signal.SIGUSR1, _signal.SIGUSR2, _signal.SIGALRM,
)  # fmt: skip
# termsnake.serve.limits.ALWAYS_STOP, likewise: they stop the server even where they were
# ignored as it started (a shell's `&` ignores Ctrl-C), from its first line on.
_SERVE_STOPS = (_signal.SIGTERM, _signal.SIGINT)


def main() -> int:
    """Load the command line and run it. An ending signal while the program loads (most of its
    start: docs/tuning.md) is noted from the first line here, and raised once it has loaded: it
    ends the command in one line and 128 + its number, as at any later moment, not in a
    traceback or a death without a word. One ignored (nohup's SIGHUP) stays so, but serve's (a
    subcommand comes first: one after an option is refused)."""
    came: list[int] = []
    done: list[int] = []  # the command's code, once it has returned one
    try:
        heard = _SERVE_STOPS if sys.argv[1:2] == ["serve"] else ()
        held = [s for s in _ENDING if s in heard or _signal.getsignal(s) is not _signal.SIG_IGN]
        for s in held:
            _signal.signal(s, lambda signum, frame: came.append(signum))
        # atexit runs the last registered first: this, registered before any module of the
        # program loads, runs last. Not if one was registered before (a .pth file's, such as
        # coverage's): that one would be skipped.
        import atexit  # after the handlers: a Ctrl-C as it loads is then noted too

        if not atexit._ncallbacks():
            atexit.register(_without_teardown, done)
        from termsnake.commands import cli
        from termsnake.exits import leave, loaded
    except KeyboardInterrupt:  # in the instant before Ctrl-C was set to be noted
        if sys.stderr is not None:
            print("termsnake: interrupted", file=sys.stderr)
        return 130  # exits.EXIT_INTERRUPTED, which may not have loaded
    code = 1  # an unexpected error's, whose traceback Python prints
    try:
        code = cli.main(early=lambda: loaded(held, came))
        done.append(code)
        return code
    finally:
        leave(code)


def _without_teardown(done: list[int]) -> None:
    """The end of Python's exit, once all of it that anyone sees is done (the threads waited
    for, every other atexit handler run): the process ends with the command's code, its
    output and every open file flushed (a temporary one deleted), without the teardown of every
    module loaded, which only frees memory and was much of a server's stop (docs/tuning.md).
    Left to Python if the command raised, or if a flush of stdout or stderr fails: Python then
    says so and exits as it would."""
    if not done:
        return
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except Exception:
        return
    import os

    from termsnake.streams import finish_files  # loaded with the command

    finish_files()  # what the teardown's freeing of a plugin's open files wrote and deleted
    os._exit(done[0])


if __name__ == "__main__":
    sys.exit(main())
