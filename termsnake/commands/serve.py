"""`termsnake serve`: the game over SSH for anyone with an ssh client."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import sys
import time
import typing
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.exits import EXIT_USAGE, Noted, hear, signal_handlers, signals_remembered
from termsnake.formats.text import printable
from termsnake.serve.limits import ALWAYS_STOP, DEFAULTS, SHUTDOWN_WAIT, Options
from termsnake.serve.output import Output
from termsnake.solvers.registry import loading

if TYPE_CHECKING:  # asyncssh is loaded only once the serve extra is known to be there
    from termsnake.serve.server import Config


def add_parsers(sub: Subparsers) -> None:
    """``termsnake serve``'s options."""
    parser = sub.add_parser(
        "serve",
        help="run an SSH server: anyone with ssh plays, watches bots and others' games",
        description="Serve termsnake over SSH: `ssh -p PORT NAME@HOST` reaches a lobby where "
        "NAME plays any preset, watches a bot or another player's game live, and sees the "
        "server's high scores. Needs the serve extra (pip install 'termsnake[serve]').",
    )
    parser.add_argument(
        "--host",
        type=host_arg,
        default=DEFAULTS.host,
        help="address to listen on (default %(default)s; 0.0.0.0 or :: for every interface)",
    )
    parser.add_argument(
        "--port",
        type=cliargs.int_at_least(0, 65535),
        default=DEFAULTS.port,
        help="port (default %(default)s; 0: any free one)",
    )
    parser.add_argument(
        "--host-key", metavar="PATH", type=cliargs.not_empty("give the key file's path, not an "
        "empty string"), help="a private host key to use (made there if missing, and said)",
    )  # fmt: skip
    parser.add_argument(
        "--authorized-keys", metavar="FILE", type=cliargs.not_empty("give the file of keys, not "
        "an empty string"), help="admit only these public keys (default: anyone)",
    )  # fmt: skip
    parser.add_argument(
        "--max-sessions",
        type=cliargs.positive_int,
        metavar="N",
        default=DEFAULTS.max_sessions,
        help="players at once (default %(default)s)",
    )
    parser.add_argument(
        "--max-per-address",
        type=cliargs.positive_int,
        metavar="N",
        default=DEFAULTS.max_per_address,
        help="connections per address (default %(default)s)",
    )
    parser.add_argument(
        "--max-connect-rate", type=cliargs.positive_int, default=DEFAULTS.max_connect_rate,
        metavar="N", help="new connections an address may open a minute (N at once, then one "
        "every 60/N s); past it one is dropped before the key exchange (default %(default)s)",
    )  # fmt: skip
    parser.add_argument(
        "--idle", type=cliargs.seconds, default=DEFAULTS.idle, metavar="SECONDS",
        help="disconnect a player who presses nothing this long where nothing moves "
        "(default %(default)g)",
    )  # fmt: skip
    parser.add_argument(
        "--max-time", type=cliargs.seconds_up_to(7 * 86400), default=DEFAULTS.max_time,
        metavar="SECONDS",
        help="end a visit that has lasted this long, whatever it does; a game under way is "
        "scored (default %(default)g)",
    )  # fmt: skip
    parser.add_argument(
        "--stall", type=cliargs.seconds, default=DEFAULTS.stall, metavar="SECONDS",
        help="disconnect a client that reads nothing this long while --max-unsent bytes wait "
        "for it (default %(default)g)",
    )  # fmt: skip
    parser.add_argument(
        "--login-timeout", type=cliargs.seconds, default=DEFAULTS.login_timeout, metavar="SECONDS",
        help="close a connection that has not logged in and started its game within this long "
        "(default %(default)g)",
    )  # fmt: skip
    parser.add_argument(
        "--max-unsent", type=cliargs.positive_int, default=DEFAULTS.max_unsent, metavar="BYTES",
        help="output a client may leave unread before its game waits for it (default 1 MiB)",
    )  # fmt: skip
    parser.add_argument(
        "--max-input-rate", type=cliargs.positive_int, default=DEFAULTS.max_input_rate,
        metavar="BYTES", help="bytes a connection may send a second, every SSH message "
        "counted, before it is not read for the rest of the second (default 96 KiB)",
    )  # fmt: skip
    parser.set_defaults(run=run)


# asyncio takes an empty address as every interface: no one should get that by a slip.
_not_empty: Final = cliargs.not_empty(
    "give an address (0.0.0.0 or :: for every interface)", blank_too=True
)


def host_arg(text: str) -> str:
    """--host: an address or host name; an IPv6 address may come in brackets, as it is written
    before a port ([::1]), which asyncio would take for a host name."""
    text = _not_empty(text)
    if text.startswith("[") and text.endswith("]") and ":" in text:
        text = text[1:-1]
    if "[" in text or "]" in text:  # [::1]:2222: the port goes apart
        raise argparse.ArgumentTypeError("give the address alone (the port is --port's)")
    try:  # as the look-up encodes it: a traceback there (a.b..c, a label of 64 letters)
        text.encode("idna")
    except UnicodeError as e:
        why = e.__cause__ or e  # the codec's own reason ("label too long") is the cause
        raise argparse.ArgumentTypeError(f"not a host name or address ({why})") from None
    return text


def options_from(args: argparse.Namespace) -> Options:
    """The server's Options from the command line: each field is the option of its name
    (--max-time: max_time). argparse's values are untyped, so each is checked here: a field
    without its option, or an option whose type gives the wrong kind, fails as the server
    starts (in the tests), not on a player."""
    types = typing.get_type_hints(Options)
    values: dict[str, Any] = {}
    for f in dataclasses.fields(Options):
        option, kind = "--" + f.name.replace("_", "-"), types[f.name]
        if not hasattr(args, f.name):
            raise TypeError(f"Options.{f.name} has no option {option}")
        value = values[f.name] = getattr(args, f.name)
        if not isinstance(value, kind):
            wanted = getattr(kind, "__name__", kind)
            raise TypeError(f"Options.{f.name} is of type {wanted}; {option} gave {value!r}")
    return Options(**values)


class Escaped(logging.Formatter):
    """The server's log lines, each escaped: a plugin imported as the server starts may log
    anything at all, and the server's own lines quote what clients and files hold."""

    def format(self, record: logging.LogRecord) -> str:
        return "\n".join(map(printable, super().format(record).split("\n")))


LEFT_OUT: Final = "not offered in the lobby"


def lobby_bots(names: list[str], notes: list[str]) -> list[str]:
    """Those of the bots ``names`` that load, each imported now, before listening, where
    Ctrl-C ends a plugin's import that hangs: in a visit it would hold every visitor's bot
    menu. A player cannot mend a bot that does not load, so the lobby leaves it out and
    ``notes`` gets why. What a plugin's import does to the signal handlers is undone as it
    loads (``Plugin.load``): Ctrl-C must end the next one's, and the server's handlers go by
    those the shell or nohup left."""
    return loading(names, lambda why: notes.append(f"warning: {why}; {LEFT_OUT}"))


def run(args: argparse.Namespace) -> int:
    """Start the server; 0 after SIGTERM or Ctrl-C, 2 if it cannot start."""
    # A signal as it starts ends it, though its exception was lost: a weakref callback of the
    # import machinery, as a bot's module loads, takes it. Ctrl-C ends a bot's import that
    # hangs also where a shell's `&` ignored it, as it stops the server once it listens, and
    # the exit after it.
    hear(ALWAYS_STOP)
    with signals_remembered() as came:
        return _run(args, came)


def _run(args: argparse.Namespace, came: Noted) -> int:
    try:
        from termsnake.serve import listen, visit  # noqa: F401 - asyncssh, and all it needs
    except ImportError as e:
        print(f"termsnake serve: needs the serve extra ({e.name} is missing): "
              "pip install 'termsnake[serve]'", file=sys.stderr)  # fmt: skip
        return EXIT_USAGE
    # Written by threads of its own: a log nobody reads (a full pipe, a terminal paused by
    # Ctrl-S) must not freeze the server.
    output = Output(sys.stdout, sys.stderr)
    handler = output.handler()
    handler.setFormatter(Escaped("termsnake serve: %(message)s"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    logging.getLogger("asyncssh").setLevel(logging.WARNING)  # a line per packet is too many
    # asyncio warns at each write to a socket a client has reset, which it can do at will.
    logging.getLogger("asyncio").setLevel(logging.ERROR)
    try:
        config = _config(args, output)
        if config is None:
            return EXIT_USAGE
        came.check()
        return _listen(args, config, output)
    finally:
        # However it ends (a start-up error, Ctrl-C as a plugin loads): what a plugin logged
        # and the error after it are written, in order, before the process exits and drops
        # them (the shutdown has closed it already, with a wait of its own).
        output.close(time.monotonic() + SHUTDOWN_WAIT, SHUTDOWN_WAIT)


def _failed(output: Output, line: str) -> None:
    """Say why the server cannot start, after what its log said before, in the same order."""
    output.log(f"termsnake serve: {printable(line)}")


def _config(args: argparse.Namespace, output: Output) -> Config | None:
    """The server's keys, its bots and what it says once listening; None once it said why
    it cannot start."""
    from termsnake.serve import hostkey
    from termsnake.serve.server import Config
    from termsnake.serve.visit import offered

    path = Path(args.host_key) if args.host_key else hostkey.default_path()
    try:
        key, made = hostkey.load_or_create(path)
    except hostkey.HostKeyError as e:
        _failed(output, f"host key {path}: {e}")
        return None
    authorized = None
    notes = []  # said once listening
    if args.authorized_keys is not None:
        try:
            listed = hostkey.read_authorized_keys(Path(args.authorized_keys))
        except hostkey.HostKeyError as e:
            _failed(output, f"--authorized-keys {args.authorized_keys}: {e}")
            return None
        authorized = listed.keys
        if (skipped := listed.warning()) is not None:  # a key mistyped would keep its holder out
            where = printable(f"{args.authorized_keys}: {skipped}")
            notes.append(f"warning: --authorized-keys {where}")
    if made:  # so that a mistyped --host-key is seen: clients would meet a new key
        notes.append(f"made a new host key at {printable(str(path))}")
    bots = lobby_bots(offered(), notes)
    return Config(
        options_from(args), host_key=key, authorized_keys=authorized,
        notes=tuple(notes), bots=tuple(bots),
    )  # fmt: skip


def _listen(args: argparse.Namespace, config: Config, output: Output) -> int:
    """Serve until a signal stops it: 0, or 2 if it cannot listen, said in one line."""
    from termsnake.serve import address, listen

    # From here signals are only noted: one raised in a callback of the loop would be lost, and
    # with it the future it was to complete (the address create_server waits for, for ever).
    stopping: list[int] = []
    try:
        with signal_handlers(listen.stops(stopping)):
            asyncio.run(listen.serve(config, output=output, stopping=stopping))
    except address.CannotListen as e:
        _failed(output, f"cannot listen on {address.with_port(args.host, args.port)}: {e}")
        return EXIT_USAGE
    return 0
