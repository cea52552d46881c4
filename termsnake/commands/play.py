"""``termsnake`` without a subcommand: choose the level and the player, play, print a summary."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from termsnake.commands import args as cliargs
from termsnake.core.game import Game, Outcome
from termsnake.core.level import DEFAULT_LENGTH, Level, open_level, with_length
from termsnake.core.moves import compress
from termsnake.formats import presets
from termsnake.formats.fileio import write_new
from termsnake.formats.levelfile import LevelError
from termsnake.formats.replay import replay_from_game
from termsnake.formats.scores import ScoreEntry, ScoreKey, ScoreStore
from termsnake.formats.settings import Settings, SettingsError, load_settings, merge, settings_path
from termsnake.formats.text import printable
from termsnake.solvers.base import Solver, SolverUnavailable, finish
from termsnake.solvers.registry import create, known_names, resolve_name
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


class UsageError(Exception):
    """A bad argument or level: printed as one line, exit 2."""


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of ``termsnake`` when it plays (no subcommand)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--level", metavar="NAME|PATH", help="a preset name or a level file")
    where.add_argument(
        "--size", metavar="WxH", type=cliargs.size, help="an open board of WxH cells"
    )
    p.add_argument("--length", type=cliargs.positive_int, help="the starting length (default 3)")
    p.add_argument("--ai", metavar="SOLVER", help=f"watch a bot: {', '.join(known_names())}")
    p.add_argument("--speed", type=cliargs.speed, help="moves per second (default 8)")
    p.add_argument("--seed", type=cliargs.seed, help="the food sequence (default: random)")
    p.add_argument("--record", metavar="FILE", help="save a replay of the game to FILE")
    p.add_argument(
        "--engine-timeout",
        type=cliargs.seconds,
        metavar="SECONDS",
        help="an exec: engine's time limit for each move (default 1)",
    )
    p.add_argument(
        "--unicode", action="store_true", help="box-drawing frame and block body (UTF-8 only)"
    )
    p.add_argument("--no-color", action="store_true", help="no colours (so does NO_COLOR=1)")
    p.add_argument("--keys", choices=sorted(KEY_PRESETS), help="key preset (default: default)")
    p.set_defaults(run=run_play)


def choose_level(
    level: str | None,
    size: tuple[int, int] | None,
    length: int | None,
    *,
    default: str = presets.DEFAULT_LEVEL,
    origin: str = "",
) -> Level:
    """The level the options ask for (``default`` when none, from ``origin`` such as the
    config file); UsageError with the located errors if it is bad."""
    if size is not None:
        try:
            return open_level(size[0], size[1], DEFAULT_LENGTH if length is None else length)
        except ValueError as e:
            raise UsageError(f"termsnake: --size {size[0]}x{size[1]}: {e}") from None
    if level == "":
        raise UsageError("termsnake: --level: give a preset name (termsnake levels) or a file")
    try:
        base = presets.load_level(level or default)
    except LevelError as e:
        where = f"{origin}: level = {default!r}:\n" if origin and not level else ""
        raise UsageError(f"{where}{e}") from None
    if length is None:
        return base
    try:
        return with_length(base, length)
    except ValueError as e:
        raise UsageError(f"termsnake: --length {length}: {e}") from None


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


def prepare_solver(name: str, game: Game, engine_timeout: float | None = None) -> Solver:
    """The named solver, set up for this game; UsageError on an unknown name or a bad board."""
    try:
        resolve_name(name)
        solver = create(name, engine_timeout=engine_timeout)
        solver.setup(game)
    except ValueError as e:
        raise UsageError(f"termsnake: {e}") from None
    except SolverUnavailable as e:
        raise UsageError(f"termsnake: {e}") from None
    return solver


@dataclass(frozen=True, slots=True)
class Look:
    """How the game is drawn and steered: glyph set, colours, key preset."""

    glyphs: str = "ascii"
    color: bool = True
    keys: str = "default"


def run_play(args: argparse.Namespace) -> int:
    """Play (or watch) one game; returns the exit code."""
    try:
        config = merge(
            load_settings(),
            speed=args.speed,
            glyphs="unicode" if args.unicode else None,
            keys=args.keys,
            color=False if args.no_color else None,
        )
    except SettingsError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    try:
        level = choose_level(
            args.level,
            args.size,
            args.length,
            default=config.level,
            origin=str(settings_path()) if config.level != presets.DEFAULT_LEVEL else "",
        )
        game = Game(level, args.seed)
        solver = prepare_solver(args.ai, game, args.engine_timeout) if args.ai is not None else None
        if args.record is not None:
            check_record_path(args.record)
    except UsageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    from termsnake.tui import session as app

    problem = app.check_terminal()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    who = solver.name if solver is not None else config.player
    scores = ScoreStore()
    key = ScoreKey.of(
        printable(level.name), level.board.width, level.board.height, len(level.body), who
    )
    previous = scores.best(key)
    look = Look(config.glyphs, config.color, config.keys)
    code, seconds = 1, 0.0
    try:
        code, seconds = run(
            game,
            solver,
            speed=config.speed,
            who=who,
            level_name=level.name,
            look=look,
            best=previous.length if previous else None,
        )
    finally:
        # Even after a crash or a hang-up: keep the score and the replay first, then report.
        news, warnings = keep_score(scores, key, game, previous)
        saved = save_record(game, solver.name if solver else None, args.record)
        report([summary(game, who, seconds), *news, *saved.lines], [*warnings, *saved.errors])
    return code or saved.code


def report(lines: Sequence[str], errors: Sequence[str]) -> None:
    """Print the summary and warnings; a terminal that hung up is not an error of ours."""
    try:
        print("\n".join(lines), flush=True)
        for e in errors:
            print(f"termsnake: {e}", file=sys.stderr, flush=True)
    except OSError:
        # Nobody is there to read it; keep interpreter shutdown from complaining as well.
        sys.stdout = sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def keep_score(
    scores: ScoreStore, key: ScoreKey, game: Game, previous: ScoreEntry | None
) -> tuple[list[str], tuple[str, ...]]:
    """Record the game's result (if it moved at all): the summary lines and any warnings."""
    if game.steps == 0:
        return ([] if previous is None else [f"best so far: length {previous.length}"]), ()
    won = game.outcome is Outcome.WON
    entry = ScoreEntry.now(game.length, game.steps, won, game.seed)
    result = scores.record(key, entry)
    if result.new_best and game.eaten > 0:  # no cheers for dying at the start length
        saved = "" if result.saved else " (not saved)"
        return [f"new best! length {game.length} for {key.player} on {key.level}{saved}"], (
            result.warnings
        )
    best = entry if result.new_best else (result.previous or previous)
    if best is None:
        return [], result.warnings
    return [f"best so far: length {best.length} in {best.steps} steps"], result.warnings


def check_record_path(path: str) -> None:
    """Refuse, before the game, a replay path that would overwrite a file or cannot be written."""
    if not path:
        raise UsageError("termsnake: --record: give the name of a new file")
    target = Path(path)
    if target.exists() or target.is_symlink():
        raise UsageError(f"termsnake: --record {path}: the file exists; pick a new name")
    parent = target.parent
    if not parent.is_dir():
        raise UsageError(f"termsnake: --record {path}: no directory {str(parent)!r}")
    if not os.access(parent, os.W_OK):
        raise UsageError(f"termsnake: --record {path}: cannot write in {str(parent)!r}")


@dataclass(frozen=True, slots=True)
class Saved:
    """What saving the replay did: lines for the summary, errors, the exit code."""

    lines: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    code: int = 0


def save_record(game: Game, solver_name: str | None, path: str | None) -> Saved:
    """Write the replay of ``game`` to ``path`` (nothing when None) without overwriting any
    file: if one appeared there during the game, the replay goes under a new name."""
    if path is None:
        return Saved()
    data = replay_from_game(game, solver_name).to_json().encode("utf-8")
    try:
        target = write_new(path, data)
    except OSError as e:
        return Saved(errors=(f"could not save the replay to {path}: {e.strerror or e}",), code=1)
    moved = "" if str(target) == path else f" ({path} appeared meanwhile and was kept)"
    return Saved(lines=(f"Replay saved to {target}{moved}",))


def watch(game: Game, solver: Solver, *, speed: float | None, who: str, level_name: str) -> int:
    """Show ``solver`` playing ``game`` in the terminal (bot keys live); returns the exit code."""
    from termsnake.tui import session as app

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
    from termsnake.tui import session as app

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
        waiting=solver is None,
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
