"""`termsnake replay`: check a replay file, then play it back in the terminal."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final

from termsnake.commands import args as cliargs
from termsnake.commands.args import Subparsers
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.core.speed import DEFAULT_SPEED, MAX_SPEED, MIN_SPEED
from termsnake.exits import EXIT_USAGE, signals_held
from termsnake.formats.replay import Replay, ReplayError, load_replay
from termsnake.formats.text import printable, shorten
from termsnake.formats.verify import PlaybackGame, verify
from termsnake.tui.runner import watch
from termsnake.tui.view import as_bot

if TYPE_CHECKING:
    from termsnake.progressbar import Bar

BAR_DELAY: Final = 1.0  # seconds a replay is checked for before the check shows a bar


class ReplaySolver:
    """A Solver that plays back recorded moves in order."""

    has_plan = False  # PlanShowing: the help leaves out `c`, as there is no plan to show

    def __init__(self, moves: Sequence[Direction], name: str = "replay") -> None:
        """Play ``moves`` one per call of ``next_direction``."""
        self.name = name
        self._moves = tuple(moves)

    def setup(self, game: Game) -> None:
        """Nothing to prepare: the move for each step is looked up by the step number."""

    def next_direction(self, game: Game) -> Direction:
        """The recorded move for this step; ReplayError past the end of the recording."""
        if game.steps >= len(self._moves):
            raise ReplayError(f"the recording has no move {game.steps + 1}")
        return self._moves[game.steps]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """No plan to draw: a replay only knows the moves made."""
        return {}


def add_parsers(sub: Subparsers) -> None:
    """``termsnake replay``'s options."""
    parser = sub.add_parser(
        "replay",
        help="check a recorded game, then play it back",
        description=(
            "Play a recorded game (termsnake-replay/1 JSON) back in the terminal. The file is "
            "checked first: a replay whose moves do not reproduce its foods and result, or "
            "whose foods are not the ones its seed gives, is refused (exit 2). Keys: space "
            "pause, n one step while paused, +/- speed, q quit."
        ),
    )
    parser.add_argument("file", metavar="FILE", help="a replay file, as written by --record")
    parser.add_argument(
        "--speed",
        type=cliargs.speed,
        default=None,
        metavar="N",
        help=(
            f"moves per second, from {MIN_SPEED:g} to {MAX_SPEED:g} (default "
            f"{DEFAULT_SPEED:g}, or config.toml's speed)"
        ),
    )
    parser.set_defaults(run=run)


def checked_level(replay: Replay) -> Level:
    """The replay's level, once ``verify`` has passed it; a bar on a terminal while a long
    replay is checked (after BAR_DELAY), erased once it ends."""
    bar = LateBar(len(replay.moves))
    try:
        level = replay.level()
        verify(replay, level, progress=bar.update)
    finally:
        bar.close()
    return level


class LateBar:
    """The progress of a check of ``total`` moves: a tqdm bar on stderr if it is a terminal,
    made once the check has taken BAR_DELAY. Most checks take less, and load no tqdm."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.start = time.monotonic()
        self.on_terminal = sys.stderr.isatty()
        self.bar: Bar | None = None

    def update(self, done: int) -> None:
        """``done`` moves of the total are checked."""
        if self.bar is None:
            if not self.on_terminal or time.monotonic() - self.start < BAR_DELAY:
                return
            # A Ctrl-C as tqdm loads is raised once it has, not lost in the import machinery.
            with signals_held():
                from termsnake.progressbar import Bar  # lazy: tqdm only for a long check

            self.bar = Bar(
                total=self.total,
                desc="checking the replay",
                unit="move",
                unit_scale=True,
                file=sys.stderr,
                leave=False,
                delay=BAR_DELAY,
            )
            # As if made as the check started: its times, and tqdm's delay, count from then.
            late = time.monotonic() - self.start
            self.bar.start_t -= late
            self.bar.last_print_t -= late
        self.bar.update(done - self.bar.n)

    def close(self) -> None:
        """The bar, if one was made, closed and erased."""
        if self.bar is not None:
            self.bar.close()


def run(args: argparse.Namespace) -> int:
    """``termsnake replay FILE [--speed N]``: verify a replay, then watch it; the exit code."""
    try:
        replay = load_replay(args.file)
        level = checked_level(replay)
        game = PlaybackGame(replay, level)
    except ReplayError as e:
        message = str(e)
        if not message.startswith(f"{args.file}:"):
            message = f"{args.file}: {message}"
        print(f"termsnake replay: error: {printable(message)}", file=sys.stderr)
        return EXIT_USAGE
    solver = ReplaySolver(replay.moves, name=replay.solver or "person")
    # The names are the file's: long ones are cut, as a status line and a summary have room
    # for a name, not a page.
    who = f"replay of {as_bot(shorten(replay.solver, 60)) if replay.solver else 'a person'}"
    name = shorten(replay.board_name, 60)
    return watch(game, solver, speed=args.speed, who=who, level_name=name, headline=stopped(replay))


_ENDED: Final = {
    Outcome.WON: "the game was won",
    Outcome.DIED: "the snake died",
    Outcome.STALLED: "the game stalled",
    Outcome.QUIT: "the game was quit",
}


def stopped(replay: Replay) -> Callable[[Game], str | None]:
    """The summary's first line for a replay the viewer left before its end (q, Ctrl-C): where
    it stopped and how the recorded game ended, not "Game over: quit", which reads as the
    game's own result. None once it was played to its end, which the game's own line says."""

    def headline(game: Game) -> str | None:
        if game.steps >= len(replay.moves):
            return None
        result = replay.result
        ended = "its bot broke down" if result.forfeit is not None else _ENDED[result.outcome]
        return (
            f"Replay stopped at move {game.steps:,} of {len(replay.moves):,}; "
            f"{ended}, length {result.length}"
        )

    return headline
