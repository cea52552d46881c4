"""``termsnake`` without a subcommand: choose the level and the player, play, print a summary."""

from __future__ import annotations

import argparse
import os
import signal
import stat
import sys
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from termsnake.core.game import Game
from termsnake.core.level import DEFAULT_LENGTH, WRAP_NEEDS_SIZE, Level, open_level
from termsnake.exits import (
    ENDING_SIGNALS,
    EXIT_INTERRUPTED,
    EXIT_OUTPUT,
    EXIT_USAGE,
    Handler,
    Terminated,
    ignore_more_hangups,
    signal_handlers,
    signals_remembered,
)
from termsnake.formats import presets
from termsnake.formats.diagnostics import LevelError
from termsnake.formats.fileio import blocked, check_can_write_new, in_the_way, kind_of, write_new
from termsnake.formats.replay import replay_from_game
from termsnake.formats.scores import ScoreKey, ScoreStore, as_player
from termsnake.formats.scoretable import keep_score
from termsnake.formats.settings import (
    Settings,
    SettingsError,
    load_settings,
    merge,
    settings_path,
)
from termsnake.formats.text import printable, shorten
from termsnake.solvers.base import Solver, SolverUnavailable, engine_log, finish, log_problem
from termsnake.solvers.registry import create, resolve_name
from termsnake.tui.runner import (
    Look,
    Played,
    Round,
    preparing,
    report,
    run,
    terminal_width,
)
from termsnake.tui.summary import summary
from termsnake.tui.terminal import check_terminal
from termsnake.tui.view import as_bot


class UsageError(Exception):
    """A bad argument or level: printed as one line, exit 2."""


def choose_level(
    level: str | None,
    size: tuple[int, int] | None,
    length: int | None,
    *,
    default: str = presets.DEFAULT_LEVEL,
    origin: str = "",
    wrap: bool = False,
) -> Level:
    """The level the options ask for (``default`` when none, set at ``origin``: config.toml's
    path and line); UsageError with the located errors if it is bad."""
    if size is not None:
        try:
            start = DEFAULT_LENGTH if length is None else length
            return open_level(size[0], size[1], start, wrap=wrap)
        except ValueError as e:
            raise UsageError(f"termsnake: --size {size[0]}x{size[1]}: {e}") from None
    try:
        # --length is fitted in place of the level's own, which may not fit where it does.
        return presets.load_level(level or default, length=length)
    except LevelError as e:
        if origin and not level:
            raise UsageError(config_level_problem(origin, default, e)) from None
        raise UsageError(str(e)) from None


def config_level_problem(origin: str, name: str, error: LevelError) -> str:
    """Why the level config.toml names cannot be played: a line a problem, each saying where
    the name comes from, then where in the level file the problem is (if it is in one)."""
    where = f'{origin}: error: level = "{shorten(name)}"'
    if isinstance(error, presets.UnknownLevelError):
        return "\n".join(f"{where}: {d.message}" for d in error.diagnostics)
    return "\n".join(
        f"{where}: {shorten(d.path)}:{d.line}:{d.col}: {d.message}" for d in error.diagnostics
    )


def prepare_solver(
    name: str, game: Game, engine_timeout: float | None = None, *, level_file: str | None = None
) -> Solver:
    """The named solver, set up for this game; UsageError on an unknown name or a bad board.
    A board read from ``level_file`` that the bot refuses is named by that file, as `check`
    names a file's problems: the cells its reason names are that file's lines and columns."""
    try:
        solver = create(name, engine_timeout=engine_timeout)
    except (ValueError, SolverUnavailable) as e:
        raise UsageError(f"termsnake: {e}") from None
    try:
        solver.setup(game)
    except (ValueError, SolverUnavailable) as e:
        where = f"{printable(level_file)}: " if level_file is not None else ""
        raise UsageError(f"termsnake: {where}{e}") from None
    return solver


def run_play(args: argparse.Namespace) -> int:
    """Play (or watch) a game, and more while r is pressed on the final board; returns the
    exit code of the last."""
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
        level, game, solver = _first_game(args, config)
    except UsageError as e:
        print(e, file=sys.stderr)
        return EXIT_USAGE
    except Terminated as e:
        return 128 + e.signum
    who = as_player(solver.name) if solver is not None else config.player
    scores = ScoreStore()
    key = ScoreKey.of(
        printable(level.name), level.board.width, level.board.height, len(level.body), who
    )
    games = Games(
        Round(game, solver), args, level, who, scores, key, level_file=_level_file(args, config)
    )
    look = Look(config.glyphs, config.color, config.keys)
    played = Played(code=1, seconds=0.0)
    # A signal outside the game (the terminal closed: its input ends, then a hang-up comes)
    # waits until the score and the replay are kept; it then gives the exit code.
    later: list[int] = []
    waiting: dict[int, Handler] = {
        s: _after_saving(later) for s in ENDING_SIGNALS if s != signal.SIGINT
    }
    with signal_handlers(waiting):
        try:
            played = run(
                game,
                solver,
                speed=config.speed,
                who=who if solver is None else as_bot(who),
                level_name=level.name,
                look=look,
                high_score=games.high_score,
                again=games.again,
                noted=later,
            )
        finally:
            # Even after a crash or a hang-up: keep the score and the replay first, then report.
            games.end(played)
            report(games.lines, games.errors)
    return 128 + later[0] if later else games.code


def _after_saving(later: list[int]) -> Handler:
    """A handler that notes a signal in ``later`` (more hang-ups are ignored: the terminal is
    gone, and a closing window sends two)."""

    def note(signum: int, frame: object) -> None:
        ignore_more_hangups(signum)
        later.append(signum)

    return note


def _level_file(args: argparse.Namespace, config: Settings) -> str | None:
    """The level file the game is played on, None for a preset or a --size board."""
    return None if args.size is not None else presets.level_file(args.level or config.level)


def _first_game(args: argparse.Namespace, config: Settings) -> tuple[Level, Game, Solver | None]:
    """The level (config.toml's if none is asked for), the first game and its bot (set up), as
    the arguments ask; UsageError if they cannot be had, or if this terminal cannot play."""
    where = f"{printable(str(settings_path()))}:{config.lines.get('level', 1)}"
    level = choose_level(
        args.level,
        args.size,
        args.length,
        default=config.level,
        origin=where if config.level != presets.DEFAULT_LEVEL else "",
        wrap=args.wrap,
    )
    if args.wrap and args.size is None:
        raise UsageError(f"termsnake: {WRAP_NEEDS_SIZE}")
    if args.record is not None:  # before a set-up that can take long
        check_record_path(args.record)
    game = Game(level, args.seed)
    if args.ai is not None:
        try:  # here, not under the line below: looking for plugins may warn on stderr
            resolve_name(args.ai)
        except ValueError as e:
            raise UsageError(f"termsnake: {e}") from None
    # Before a bot's set-up, which can take long: no game follows it off a terminal.
    problem = check_terminal()
    if problem:
        raise UsageError(problem)
    if args.ai is None:
        return level, game, None
    # A solver's set-up can take long on a big board: say what is under way meanwhile.
    board = level.board
    what = f"preparing {printable(args.ai)} for a {board.width}x{board.height} board..."
    bot = set_up_bot(args, game, saying=what, level_file=_level_file(args, config))
    return level, game, bot


def set_up_bot(
    args: argparse.Namespace, game: Game, *, saying: str = "", level_file: str | None = None
) -> Solver:
    """The bot ``args.ai`` names, set up for ``game`` (``saying`` what is under way on the
    terminal, if anything); UsageError if it cannot be. Meanwhile the ending signals raise at
    once, Ctrl-C too: their default would end the process mid-line, with what is said left on
    it, and a game's own handlers would wait for that game's end. One whose exception was lost
    as the bot loaded (dropped by Python in the import machinery's callback, or made an error
    of numpy's) is raised once it is set up."""
    shown = bool(saying) and check_terminal() is None
    solver = None
    try:
        with signals_remembered(), preparing(saying, shown=shown):
            solver = prepare_solver(args.ai, game, args.engine_timeout, level_file=level_file)
    except BaseException:
        if solver is not None:  # it came as the set-up ended: an engine must not outlive it
            finish(solver, game)
        raise
    return solver


class Games:
    """The command's side of one run's games, one after another (r on the final board plays
    again; ``tui.runner`` puts each on screen): each one's score and replay are kept as it
    ends, and its summary is printed with the others at the end. The exit code is the last
    game's."""

    def __init__(
        self,
        first: Round,
        args: argparse.Namespace,
        level: Level,
        who: str,
        scores: ScoreStore,
        key: ScoreKey,
        *,
        level_file: str | None = None,
    ) -> None:
        self.current: Round | None = first
        self.args = args
        self.level = level
        self.who = who
        self.scores = scores
        self.key = key
        self.previous = scores.best(key)
        self.lines: list[str] = []
        self.errors: list[str] = []
        self.code = 0
        # The files this run's replays went to or were tried at: each game's goes to a new name,
        # so that no two lines name one file when the --record folder has gone.
        self.named: set[str] = set()
        self.level_file = level_file  # the level's file, which a bot's refusal names

    @property
    def high_score(self) -> int | None:
        """The best length so far, for the status line."""
        return self.previous.length if self.previous else None

    def again(self, played: Played) -> Round | None:
        """Keep and sum up the game that ended; the next one, on the next seed (a given
        ``--seed`` counts up by one, else a new random one), or None if it cannot start."""
        assert self.current is not None
        seed = None if self.args.seed is None else self.current.game.seed + 1
        self.end(played)
        game = Game(self.level, seed)
        try:
            solver = self._set_up(game)
        except UsageError as e:
            self.errors.append(str(e).removeprefix("termsnake: "))
            self.code = EXIT_USAGE
            return None
        except KeyboardInterrupt:
            self.code = EXIT_INTERRUPTED
            return None
        except Terminated as e:
            self.code = 128 + e.signum
            return None
        self.previous = self.scores.best(self.key)
        self.current = Round(game, solver, self.high_score)
        return self.current

    def _set_up(self, game: Game) -> Solver | None:
        """The bot for ``game``, set up (None for a person). Ctrl-C or a signal ends a long
        set-up at once, as it does the first game's; the last game's board stays up meanwhile,
        saying what is under way."""
        if self.args.ai is None:
            return None
        # The game on screen holds the signals (it would wait for that game's end): the set-up
        # takes them back.
        return set_up_bot(self.args, game, level_file=self.level_file)

    def end(self, played: Played) -> None:
        """Keep the score and the replay of the game under way and sum it up (once)."""
        if self.current is None:
            return
        game, solver = self.current.game, self.current.solver
        self.current = None
        news, warnings, _ = keep_score(
            self.scores, self.key, game, self.previous, bot=solver is not None
        )
        path = self.args.record
        saved = save_record(game, solver.name if solver else None, path, self.named)
        self.named.update(name for name in (saved.path, saved.tried) if name)
        text = summary(
            game,
            self.who,
            played.seconds,
            played.note,
            width=terminal_width(),
            full_history=history_hint(saved),
        )
        log = engine_log(solver)  # whatever the end: what it wrote is kept, so say where
        said = [f"The engine's stderr: {printable(log)}"] if log else []
        lost = log_problem(solver)  # a full disk: the game went on without its log
        self.lines += [*([""] if self.lines else []), text, *said, *news, *saved.lines]
        self.errors += [*played.errors, *warnings, *([lost] if lost else []), *saved.errors]
        self.code = played.code or saved.code


def history_hint(saved: Saved) -> str:
    """Where the whole move history of a game is, for a summary that shows only part of it."""
    return (
        f"the replay {printable(saved.path)}"
        if saved.path
        else "--record FILE keeps it in a replay"
    )


def check_record_path(path: str) -> None:
    """Refuse, before the game, a replay path that would overwrite a file or cannot be written."""
    if not path:
        raise UsageError("termsnake: --record: give the name of a new file")
    target, shown = Path(path), printable(path)
    if os.path.basename(path) in ("", ".", ".."):  # new/, new/. or ..: Path() would drop the
        # end, and a file would take the folder's name
        raise UsageError(f"termsnake: --record {shown}: give the name of a file, not a folder")
    try:
        taken = target.exists() or target.is_symlink()
    except OSError as e:  # a name too long for the system, say
        raise UsageError(f"termsnake: --record {shown}: {e.strerror or e}") from None
    if taken:
        raise UsageError(f"termsnake: --record {shown}: {_there(target)}")
    parent = target.parent
    if not parent.is_dir():
        why = in_the_way(parent) or f"no directory {str(parent)!r}"
        raise UsageError(f"termsnake: --record {shown}: {why}")
    try:
        check_can_write_new(parent)
    except OSError as e:
        why = blocked(e) or f"cannot make a file in {str(parent)!r}: {e.strerror or e}"
        raise UsageError(f"termsnake: --record {shown}: {why}") from None


def _there(target: Path) -> str:
    """What is at ``target`` already, where a replay was to be a new file."""
    try:
        mode = os.stat(target).st_mode
    except OSError:  # a link to nowhere (or round in a loop): replays never write through one
        return f"a link to {printable(repr(os.readlink(target)))} is there; pick a new name"
    if stat.S_ISDIR(mode):
        return "a folder; give the name of a new file"
    if not stat.S_ISREG(mode):
        return f"{kind_of(mode)} is there; pick a new name"
    return "the file exists; pick a new name"


@dataclass(frozen=True, slots=True)
class Saved:
    """What saving the replay did: lines for the summary, errors, the exit code; the file it
    went to, or the one it could not be written to."""

    lines: tuple[str, ...] = ()
    errors: tuple[str, ...] = ()
    code: int = 0
    path: str = ""
    tried: str = ""


def save_record(
    game: Game, solver_name: str | None, path: str | None, taken: Collection[str] = ()
) -> Saved:
    """Write the replay of ``game`` to ``path`` (nothing when None) without overwriting any
    file: if one appeared there during the game, the replay goes under a new name, as it
    does when the name is ``taken`` (an earlier game of this run went to it or tried it)."""
    if path is None:
        return Saved()
    data = replay_from_game(game, solver_name).to_json().encode("utf-8")
    shown = printable(path)  # a name given on the command line may hold anything
    try:
        target = write_new(path, data, taken=taken)
    except OSError as e:
        tried = e.filename if isinstance(e.filename, str) else path
        why = f"could not save the replay to {printable(tried)}: {e.strerror or e}"
        return Saved(errors=(why,), code=EXIT_OUTPUT, tried=tried)
    ours = Path(path) in {Path(name) for name in taken}
    # As paths: write_new's drops a "./" or a "//" the name was given with.
    moved = "" if target == Path(path) or ours else f" ({shown} appeared meanwhile and was kept)"
    return Saved(lines=(f"Replay saved to {printable(str(target))}{moved}",), path=str(target))
