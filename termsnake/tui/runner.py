"""Running a game in this process's own terminal: enter it, play, restore it, sum up."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import shutil
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TextIO

import blessed

from termsnake.core.game import Game
from termsnake.exits import (
    EXIT_INTERRUPTED,
    EXIT_TERMINAL_GONE,
    EXIT_USAGE,
    Signalled,
    Terminated,
)
from termsnake.formats.settings import Settings, SettingsError, load_settings
from termsnake.formats.text import encodes, encoding_of, locale_name, printable, utf8_terminal
from termsnake.solvers.base import Solver, finish
from termsnake.statusline import columns, redraw, unechoed
from termsnake.tui import terminal
from termsnake.tui.session import Session, make_session
from termsnake.tui.summary import summary
from termsnake.tui.view import GLYPH_SETS, Glyphs

INPUT_ENDED = "the terminal's input ended"


@contextlib.contextmanager
def preparing(what: str, shown: bool = True) -> Iterator[None]:
    """While a set-up that may take long runs, say on the terminal what is being prepared
    (when ``shown`` and stdout is a terminal), as a status line: within the width, and erased
    however the set-up ends (a Ctrl-C included, a terminal narrowed meanwhile too), so what is
    printed next starts on a clean line; keys typed meanwhile are not echoed on it."""
    stream = sys.stdout
    if not shown or stream is None or not stream.isatty():
        yield
        return
    _write(stream, [redraw(what, columns(stream))], end="")
    try:
        with unechoed(stream):
            yield
    except BaseException:  # Ctrl-C, a signal: no game will read the keys typed meanwhile
        terminal.drop_typed_ahead()
        raise
    finally:
        _write(stream, [redraw("", columns(stream))], end="")


def terminal_width() -> int:
    """The width of the terminal lines outside the game's screen are printed on (the
    summary): shutil's, COLUMNS if set, else stdout's terminal's, else 80."""
    return shutil.get_terminal_size().columns


@dataclass(frozen=True, slots=True)
class Look:
    """How the game is drawn and steered: glyph set, colours, key preset."""

    glyphs: str = "ascii"
    color: bool = True
    keys: str = "default"


def report(lines: Sequence[str], notes: Sequence[str]) -> None:
    """Print the summary on stdout and ``notes`` on stderr: why a game was stopped and what
    could not be done as asked (a score not kept, a replay not saved, the next game not set
    up), warnings and errors alike (the callers' ``errors``). When the terminal is gone the
    summary goes to stderr, which may still be a log; what nobody can read is dropped quietly."""
    text = "\n".join(lines)
    to_stderr = [f"termsnake: {printable(n)}" for n in notes]  # each one line, whatever it quotes
    if not _write(sys.stdout, [text]):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - keep the flush at exit quiet
        to_stderr.insert(0, text)
    if not _write(sys.stderr, to_stderr):
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115


def _write(stream: TextIO, texts: Sequence[str], end: str = "\n") -> bool:
    """Print ``texts`` to ``stream``; whether it could be written."""
    try:
        for text in texts:
            print(text, file=stream, end=end, flush=True)
    except (OSError, ValueError):
        return False
    return True


def watch(
    game: Game,
    solver: Solver,
    *,
    speed: float | None,
    who: str,
    level_name: str,
    headline: Callable[[Game], str | None] = lambda game: None,
) -> int:
    """Show ``solver`` playing ``game`` in the terminal (bot keys live); returns the exit code.
    The summary's first line is ``headline``'s for the game as it was left, if not None."""
    problem = terminal.check_terminal()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_settings()
    except SettingsError:
        config = Settings()  # a replay does not need the user's settings to be right
    look = Look(config.glyphs, config.color, config.keys)
    played = run(
        game, solver, speed=speed or config.speed, who=who, level_name=level_name, look=look
    )
    text = summary(
        game,
        who,
        played.seconds,
        played.note,
        width=terminal_width(),
        full_history="the replay file",
        headline=headline(game),
    )
    report([text], played.errors)
    return played.code


@dataclass(frozen=True, slots=True, kw_only=True)
class Played:
    """How a run ended: the exit code, the seconds the snake moved, why it was cut short."""

    code: int
    seconds: float
    note: str = ""
    warnings: tuple[str, ...] = ()
    cut_short: bool = True  # whether the game was still on when what ``note`` says happened

    @property
    def errors(self) -> list[str]:
        """Lines for stderr: why the game stopped (or, on the final board, why the program
        did), when that was not the player's doing, and what could not be done as asked."""
        why = f"{self.note}; the game was stopped" if self.cut_short else self.note
        return [*([why] if self.note else []), *self.warnings]


@dataclass(frozen=True, slots=True)
class Round:
    """One game to play: the game, the bot that plays it (None: a person), the player's high
    score there."""

    game: Game
    solver: Solver | None = None
    high_score: int | None = None


class _Rounds:
    """The screen's side of one run's games (``commands.play.Games`` keeps their scores and
    replays): the one on screen (``session``, playing ``current``), which the signal handlers
    reach, and, with ``again``, each next one r on the final board asks for."""

    def __init__(
        self,
        first: Round,
        start: Callable[[Round, float, bool], Session],
        speed: float,
        again: Callable[[Played], Round | None] | None,
    ) -> None:
        self.current = first
        self.start = start  # a session for a round, at a speed, with the plan shown or not
        self.again = again
        self.session = start(first, speed, False)
        self.handed_on = False  # ``current`` ended, and ``again`` had no game after it

    # The signal handlers reach whichever game is on screen: they look it up when called.
    def stop(self, signum: int) -> None:
        """A signal asks the game on screen to stop."""
        self.session.request_stop(signum)

    def suspend(self) -> None:
        """Ctrl-Z asks the game on screen to let the terminal go."""
        self.session.request_suspend()

    def play(self) -> bool:
        """Play the game on screen, and each next one r asks for, until the last ends (True)
        or Ctrl-Z asks to suspend (False)."""
        ended = self.session.run()
        while ended and self.session.again and self.next_round():
            ended = self.session.run()
        return ended

    def next_round(self) -> bool:
        """End the game on screen, hand it to ``again`` and put the game it gives on screen,
        at the same speed and overlay; whether there was one."""
        if self.again is None:
            return False
        end_round(self.current)
        following = self.again(Played(code=0, seconds=self.session.seconds_played))
        if following is None:
            self.handed_on = True
            return False
        ended = self.session
        self.current = following
        self.session = self.start(following, ended.speed, ended.show_overlay)
        # A signal or Ctrl-Z that came between the games is not lost, nor one the new game
        # has had since it went on screen.
        if ended.stop_signal is not None:
            self.session.stop_signal = ended.stop_signal
        self.session.suspend_requested |= ended.suspend_requested
        return True

    def end(self) -> None:
        """End the game on screen however it stopped (unless it was handed on already), and
        tell its bot."""
        if not self.handed_on:
            end_round(self.current)


def run(
    game: Game,
    solver: Solver | None,
    *,
    speed: float,
    who: str,
    level_name: str,
    look: Look = Look(),
    high_score: int | None = None,
    again: Callable[[Played], Round | None] | None = None,
    noted: Sequence[int] = (),
) -> Played:
    """Enter the terminal, play, restore it; how the last game went. Ctrl-Z stops (after `fg`
    the game waits); a signal the caller ``noted`` ends the game, one that came before the
    game's own handlers took over as one that came while stopped; with ``again``, r on the
    final board asks it for the next game."""
    glyphs, warnings = choose_glyphs(look, encoding_of(sys.stdout))
    term = terminal.make_terminal()
    known = terminal.terminfo_colours(os.environ.get("TERM", ""))
    color = look.color and terminal.colours_wanted() and term.number_of_colors >= 8
    color = color and (known is None or known >= 8)

    def start(r: Round, speed: float, overlay: bool) -> Session:
        return make_session(
            term,
            r.game,
            r.solver,
            who,
            level_name,
            keys=look.keys,
            speed=speed,
            show_overlay=overlay,
            high_score=r.high_score,
            glyphs=glyphs,
            color=color,
            offer_again=again is not None,
        )

    rounds = _Rounds(Round(game, solver, high_score), start, speed, again)
    code, note = 0, ""
    try:
        _play_in(term, rounds, noted)
        if rounds.session.stop_signal is not None:  # it came as the last game let the terminal go
            raise Signalled(rounds.session.stop_signal)
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    except Terminated as e:
        code = 128 + e.signum
    except EOFError:  # the keyboard is gone (a closed pty sends no SIGHUP to a non-owner)
        code, note = _gone(rounds.session), INPUT_ENDED
    except OSError as e:
        if e.errno != errno.EIO:
            raise
        code, note = _gone(rounds.session), "the terminal can no longer be written"
    finally:
        cut_short = not rounds.current.game.over  # the game was on when the terminal went
        rounds.end()
    return Played(
        code=code,
        seconds=rounds.session.seconds_played,
        note=note,
        warnings=warnings,
        cut_short=cut_short,
    )


def _play_in(term: blessed.Terminal, rounds: _Rounds, noted: Sequence[int]) -> None:
    """Play the rounds with ``term`` in the game's modes; at Ctrl-Z restore it and stop, and
    once continued enter the modes again."""
    while True:
        with terminal.terminal_mode(term, rounds.stop, rounds.suspend):
            if noted:  # came before these handlers took over from the caller's, which noted it
                rounds.stop(noted[0])
            if rounds.play():
                return
        _suspend(noted)


def _suspend(noted: Sequence[int]) -> None:
    """Stop, as Ctrl-Z asked; once continued, a signal noted meanwhile ends the game (`kill %1`
    sends a stopped job SIGTERM, then SIGCONT)."""
    terminal.stop_process()
    if noted:
        raise Signalled(noted[0])


def _gone(session: Session) -> int:
    """The exit code of a game whose terminal went away: a hang-up's, if one came too."""
    return EXIT_TERMINAL_GONE if session.stop_signal is None else 128 + session.stop_signal


def end_round(r: Round) -> None:
    """End a game however it stopped (a no-op for one already over) and tell its bot, so an
    engine is stopped."""
    r.game.quit()
    if r.solver is not None:
        finish(r.solver, r.game)


def choose_glyphs(look: Look, encoding: str = "utf-8") -> tuple[Glyphs, tuple[str, ...]]:
    """The glyphs ``look`` asks for, or ASCII (and why) where they would come out garbled: a
    locale that is not UTF-8, or a screen stream in ``encoding`` that cannot hold them all."""
    glyphs = GLYPH_SETS[look.glyphs]
    if glyphs is GLYPH_SETS["ascii"]:
        return glyphs, ()
    if not utf8_terminal():
        why = f"the unicode tiles need a UTF-8 terminal ({locale_name()}); drew ASCII"
        return GLYPH_SETS["ascii"], (why,)
    if not encodes("".join(dataclasses.astuple(glyphs)), encoding):
        # PYTHONIOENCODING can narrow stdout under a UTF-8 locale: the tiles came out escaped.
        said = os.environ.get("PYTHONIOENCODING")
        where = f"stdout's encoding is {encoding}" + (f", PYTHONIOENCODING={said}" if said else "")
        why = f"the unicode tiles need a UTF-8 terminal ({printable(where)}); drew ASCII"
        return GLYPH_SETS["ascii"], (why,)
    return glyphs, ()
