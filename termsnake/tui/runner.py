"""Running a game in this process's own terminal: enter it, play, restore it, sum up."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from termsnake.core.game import Game, Outcome
from termsnake.core.moves import compress
from termsnake.formats.settings import Settings, SettingsError, load_settings
from termsnake.solvers.base import Solver, finish
from termsnake.tui import session as app
from termsnake.tui.controllers import (
    KEY_PRESETS,
    AIController,
    Controller,
    KeyboardController,
    help_lines,
)
from termsnake.tui.view import GLYPH_SETS

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def format_duration(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``)."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def summary(game: Game, who: str, seconds: float) -> str:
    """The lines printed on the normal screen after a game."""
    outcome = game.outcome or Outcome.QUIT
    if outcome is Outcome.WON:
        headline = "You won! The snake fills the board." if who == "you" else f"{who} won!"
    else:
        headline = f"Game over: {outcome.value}" + (f" ({game.cause})" if game.cause else "")
    return "\n".join(
        [
            headline,
            f"Level {game.level.name}  length {game.length}/{game.board.size}  "
            f"steps {game.steps}  time {format_duration(seconds)}  seed {game.seed}",
            f"Moves ({game.steps}): {compress(game.moves)}",
        ]
    )


@dataclass(frozen=True, slots=True)
class Look:
    """How the game is drawn and steered: glyph set, colours, key preset."""

    glyphs: str = "ascii"
    color: bool = True
    keys: str = "default"


def report(lines: Sequence[str], errors: Sequence[str]) -> None:
    """Print the summary and warnings; a terminal that hung up is not an error of ours."""
    try:
        print("\n".join(lines), flush=True)
        for e in errors:
            print(f"termsnake: {e}", file=sys.stderr, flush=True)
    except OSError:
        # Nobody is there to read it; keep interpreter shutdown from complaining as well.
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def watch(game: Game, solver: Solver, *, speed: float | None, who: str, level_name: str) -> int:
    """Show ``solver`` playing ``game`` in the terminal (bot keys live); returns the exit code."""
    problem = app.check_terminal()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_settings()
    except SettingsError:
        config = Settings()  # a replay does not need the user's settings to be right
    look = Look(config.glyphs, config.color, config.keys)
    code, seconds = run(
        game, solver, speed=speed or config.speed, who=who, level_name=level_name, look=look
    )
    report([summary(game, who, seconds)], [])
    return code


def run(
    game: Game,
    solver: Solver | None,
    *,
    speed: float,
    who: str,
    level_name: str,
    look: Look = Look(),
    best: int | None = None,
) -> tuple[int, float]:
    """The interactive part: enter the terminal, play, restore it. Returns the exit code and
    the seconds the snake was moving. Ctrl-Z restores the terminal and stops; after `fg` the
    game waits."""
    preset = KEY_PRESETS[look.keys]
    controller: Controller
    if solver is None:
        controller = KeyboardController(preset.directions, preset.commands)
        controller.who = who
    else:
        controller = AIController(solver, who, preset.commands, preset.directions)
    glyphs = GLYPH_SETS[look.glyphs]
    if glyphs is not GLYPH_SETS["ascii"] and not utf8_output():
        glyphs = GLYPH_SETS["ascii"]  # box drawing would come out as mojibake
    term = app.make_terminal()
    session = app.Session(
        term,
        game,
        controller,
        level_name,
        speed=speed,
        mode=app.Mode.WAITING if solver is None else app.Mode.RUNNING,
        best=best,
        glyphs=glyphs,
        color=look.color and app.colours_wanted() and term.number_of_colors >= 8,
        help_text=help_lines(preset, bot=solver is not None),
    )
    code = 0
    try:
        while True:
            with app.terminal_mode(term, session.request_stop, session.request_suspend):
                ended = session.run()
            if ended:
                break
            app.stop_process()
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except app.Terminated as e:
        code = 128 + e.signum
    finally:
        game.quit()  # a no-op unless the game was cut short
        if solver is not None:
            finish(solver, game)  # an engine is told the end and stopped, however we leave
    return code, session.played


def utf8_output() -> bool:
    """Whether stdout takes UTF-8 (else the unicode glyphs fall back to ASCII)."""
    encoding = getattr(sys.stdout, "encoding", None) or ""
    return encoding.lower().replace("-", "").replace("_", "") == "utf8"
