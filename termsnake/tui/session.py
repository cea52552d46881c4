"""The game on a terminal: runs the clock, reads the keys and draws (terminal.py sets its modes)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Final, TypedDict, Unpack

import blessed

from termsnake.core.game import Game, Outcome
from termsnake.core.speed import DEFAULT_SPEED, MAX_SPEED, faster, slower
from termsnake.exits import Signalled
from termsnake.solvers.base import Interrupted, Solver, decide, set_interrupt
from termsnake.tui.controllers import (
    AGAIN_KEY,
    KEY_PRESETS,
    Command,
    Controller,
    KeyboardController,
    KeyHints,
    help_for,
    hints_for,
    key_name,
    make_controller,
    normalize_key,
)
from termsnake.tui.screen import Screen, Stream
from termsnake.tui.view import (
    ASCII,
    Glyphs,
    Hud,
    fits_in,
    pick_cell_width,
    place,
    render,
    render_too_small,
    screen_size,
    with_help,
)

# Behind its clock (a frame's drawing or the bot's move took longer than a move lasts), the
# game makes the moves due before it draws and reads the keys again, up to two caps; whichever
# comes first ends the catch-up and lets the clock go (the game then runs slower than asked
# rather than skip more). MAX_TICKS_PER_FRAME caps the moves one frame jumps: at MAX_SPEED
# (1000 a second) ten a frame is still 100 frames a second, more than a terminal shows.
# CATCH_UP_TIME caps their time: a bot slow to move would make ten moves keep q and Ctrl-C waiting.
MAX_TICKS_PER_FRAME: Final = 10
CATCH_UP_TIME: Final = 0.05  # seconds of moves at most between two looks at the keys
END_WAIT: Final = 10.0  # seconds the final frame stays up unless a key is pressed
POLL: Final = 0.1  # the longest wait for a key: resizes and Ctrl-Z are noticed this fast
END_DEAF: Final = 0.5  # seconds after the end when keys do not dismiss the final board
MAX_DRAIN: Final = 4096  # keys read and dropped at most when the final board goes

# Colour by what a glyph shows; the names are blessed formatting attributes.
PALETTE: Final = {
    "wall": "blue",
    "frame": "blue",
    "floor": "bright_black",
    "head": "bold_yellow",
    "body": "green",
    "food": "bold_red",
    "dead": "bold_red",
}


def make_style(term: blessed.Terminal, glyphs: Glyphs) -> Callable[[str], str]:
    """Colour a run of board text glyph by glyph (runs of one role share one sequence)."""
    roles = glyphs.roles()
    # A terminal of 8 colours has no bright ones: blessed would send ESC[38m for bright_black,
    # which the Linux console reads as "underline"; those roles go uncoloured there.
    bright = term.number_of_colors >= 16
    paint = {
        role: getattr(term, name)
        for role, name in PALETTE.items()
        if bright or not name.startswith("bright_")
    }

    def style(text: str) -> str:
        out = []
        start = 0
        for i in range(1, len(text) + 1):
            if i == len(text) or roles.get(text[i]) != roles.get(text[start]):
                run = text[start:i]
                role = roles.get(text[start])
                out.append(paint[role](run) if role in paint and run.strip() else run)
                start = i
        return "".join(out)

    return style


class Mode(Enum):
    """Where a session stands: the clock moves the snake only while RUNNING."""

    WAITING = "waiting"  # before the first move: a person starts the game with a key
    RUNNING = "running"
    PAUSED = "paused"
    HELP = "help"  # the key help is up; closing it goes back to ``Session.after_help``


@dataclass(slots=True)
class Session:
    """One game on screen: the controller's moves on the clock, drawn after every change.

    Everything it touches is injected: the terminal (any blessed Terminal: its stream, its
    keys through ``inkey``, its size), where frames go (``stream``; this process's stdout
    only when none is given, as for a game in its own terminal), and the clock. It sets no
    terminal modes or signal handlers and reads no stdin itself (``tui.terminal`` and the
    runner do that for this process's terminal), so a server can run many at once.
    """

    term: blessed.Terminal
    game: Game
    controller: Controller
    level_name: str
    speed: float = DEFAULT_SPEED
    max_speed: float = MAX_SPEED  # what + may reach (a server keeps each client's CPU down)
    mode: Mode = Mode.RUNNING
    after_help: Mode = Mode.PAUSED
    show_overlay: bool = False  # a view toggle (c), not a mode: the game runs either way
    high_score: int | None = None  # the player's (a length) here: the status line says it
    glyphs: Glyphs = ASCII
    color: bool = False
    help_text: list[str] = field(default_factory=list)
    # The keys the hints on screen name (the too-small message, the start hint): the preset's.
    hints: KeyHints = field(default_factory=KeyHints)
    suspend_requested: bool = False  # set by the SIGTSTP handler
    stop_signal: int | None = None  # set by a signal handler; acted on between moves
    seconds_played: float = 0.0  # the snake moving (not waiting, paused or in the help)
    offer_again: bool = False  # the final board offers r: another game
    again: bool = False  # set when r dismissed the final board
    # Called after each move, and when the speed or the pause changes (watchers show both).
    on_change: Callable[[Session], None] | None = None
    stream: Stream | None = None  # where frames go; stdout when None
    clock: Callable[[], float] = time.monotonic
    # Whether the board fitted the terminal at the last ``_draw``: if not, the screen is a plain
    # message, not tiles.
    fits: bool = field(default=True, init=False, repr=False)

    def request_suspend(self) -> None:
        """Called from the SIGTSTP handler: ``run`` returns at its next wake-up."""
        self.suspend_requested = True

    def request_stop(self, signum: int) -> None:
        """Called from a signal handler: ``run`` raises Terminated at its next wake-up, never
        in the middle of a move, so the game (and its replay) stays consistent."""
        self.stop_signal = signum

    def run(self) -> bool:
        """Play until the game ends (True) or Ctrl-Z asks to suspend (False)."""
        styler = make_style(self.term, self.glyphs) if self.color else None
        board_rows = screen_size(self.game)[1] - 1  # the frame and the board: not the status line
        self.fits = True

        # make_style colours each character as the glyph it equals, so only the board's tiles
        # are styled: text would be painted letter by letter (the "o" of "you" as the body):
        # the status line, the help box drawn over the board, the too-small message.
        def style(text: str, y: int) -> str:
            if styler is None or not self.fits or y >= board_rows or self.mode is Mode.HELP:
                return text
            return styler(text)

        screen = Screen(self.term, self.stream or sys.stdout, style)
        # A bot that thinks long (an engine) stops as soon as a signal or q ends the game.
        set_interrupt(
            getattr(self.controller, "solver", None), lambda: self._keys_meanwhile(screen)
        )
        next_tick = self.clock() + 1 / self.speed
        shown_size: tuple[int, int] | None = None
        last, moving = self.clock(), False
        while not self.game.over and not self.suspend_requested and self.stop_signal is None:
            now = self.clock()
            if moving:
                self.seconds_played += now - last
            last = now
            size = (self.term.width, self.term.height)
            if size != shown_size:
                screen.invalidate()
                shown_size = size
            fits = self._draw(screen, size)
            moving = self._running() and fits
            if not fits:
                self._wait_too_small(screen)
                next_tick = self.clock() + 1 / self.speed
                continue
            wait = max(0.0, next_tick - self.clock()) if self._running() else POLL
            key = self.term.inkey(timeout=min(wait, POLL))
            if key:
                was_running = self._running()
                command = self._handle(key, screen, allow_steps=True)
                if self._running() and not was_running:
                    # Started (the first key) or resumed: its first move is a whole move away.
                    next_tick = self.clock() + 1 / self.speed
                elif command in (Command.FASTER, Command.SLOWER):
                    # The move already due comes no later than one at the new speed would:
                    # at 0.2 moves a second, `+` must not wait out the old 5 s.
                    next_tick = min(next_tick, self.clock() + 1 / self.speed)
                continue
            next_tick = self._moves_due(next_tick)
        if moving:
            self.seconds_played += self.clock() - last
        if self.stop_signal is not None:
            raise Signalled(self.stop_signal)
        if self.suspend_requested and not self.game.over:
            self.suspend_requested = False
            self.mode = Mode.PAUSED  # after `fg` the game waits for the player
            return False
        if self.game.outcome is not Outcome.QUIT:
            return self._show_end(screen)
        return True

    def _wait_too_small(self, screen: Screen) -> None:
        """One look at the keys while the board does not fit (the too-small message is up):
        the game is paused, and steps and turns typed meanwhile are dropped."""
        if self.mode is Mode.RUNNING:
            self.mode = Mode.PAUSED  # once enlarged, the player starts it again
            self._changed()  # watchers see the pause too
        self._handle(self.term.inkey(timeout=POLL), screen, allow_steps=False)
        if isinstance(self.controller, KeyboardController):
            self.controller.queue.clear()  # turns typed with the board hidden

    def _moves_due(self, next_tick: float) -> float:
        """Make the moves due by now, from the one due at ``next_tick``; when the next one is
        due. Behind the clock, several, but no more than a frame's worth of moves or of time:
        a bot slow to move must not keep the keys (q, Ctrl-C) and the screen waiting."""
        ticks = 0
        now = started = self.clock()
        while self._running() and now >= next_tick:
            self._tick()
            next_tick += 1 / self.speed
            ticks += 1
            now = self.clock()
            if ticks >= MAX_TICKS_PER_FRAME or now - started >= CATCH_UP_TIME:
                return max(next_tick, now)
        return next_tick

    def _keys_meanwhile(self, screen: Screen) -> bool:
        """Asked between looks while a bot thinks: the keys typed meanwhile act now (q ends the
        game, space pauses after this move), bar a step; whether the game is to end."""
        if self.stop_signal is None and not self.game.over:
            self._handle(self.term.inkey(timeout=0), screen, allow_steps=False)
        return self.stop_signal is not None or self.game.over

    def _running(self) -> bool:
        return self.mode is Mode.RUNNING and not self.game.over

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change(self)

    @property
    def paused(self) -> bool:
        """Whether the status line says paused: paused, or in the help of a paused game."""
        during_help = self.after_help if self.mode is Mode.HELP else None
        return not self.game.over and Mode.PAUSED in (self.mode, during_help)

    def _frame(
        self, cell_width: int, size: tuple[int, int], message: str, encoding: str
    ) -> tuple[list[str], tuple[int, int]]:
        """The lines of the screen and where they go: the board centred on the terminal; the
        status line laid out for ``encoding``, the screen's (what it cannot hold is escaped)."""
        if self.mode is Mode.WAITING and not message:
            heading = self.game.direction.name.lower()
            message = f"heading {heading}: a direction key starts ({self.hints.help} keys)"
        hud = Hud(
            who=self.controller.who,
            level=self.level_name,
            speed=self.speed,
            paused=self.paused,
            message=message,
            high_score=self.high_score,
            encoding=encoding,
        )
        overlay = self.controller.overlay(self.game) if self.show_overlay else None
        lines = render(
            self.game,
            hud,
            cell_width=cell_width,
            overlay=overlay,
            glyphs=self.glyphs,
            width=size[0],
        )
        if self.mode is Mode.HELP and self.help_text:
            return with_help(lines, self.help_text, screen_size(self.game, cell_width), size)
        return place(lines, screen_size(self.game, cell_width), size)

    def _tick(self) -> None:
        """One move: the controller's direction (a person's queued turn, or the bot's choice)
        played on the game, and the watchers told."""
        try:
            direction = decide(self.controller, self.game)
        except Interrupted:
            return  # a signal or q came while the bot thought: the game ends at the next look
        if direction is None:
            return  # the bot broke down: the game is lost, and its cause says why
        self.game.step(direction)
        self._changed()

    def _handle(
        self, key: blessed.keyboard.Keystroke, screen: Screen, *, allow_steps: bool
    ) -> Command | None:
        """Act on ``key`` (``_command``); the watchers are told if it changed the speed or the
        pause. ``allow_steps``: a direction key may step a paused game (not while the board is
        hidden, nor between a bot's looks at the keys)."""
        if not key:
            return None
        status = (self.speed, self.paused)
        command = self._command(key, screen, allow_steps=allow_steps)
        if (self.speed, self.paused) != status:
            self._changed()
        return command

    def _command(
        self, key: blessed.keyboard.Keystroke, screen: Screen, *, allow_steps: bool
    ) -> Command | None:
        """What ``key`` does: the controller maps it to a command, which this applies to the
        mode, the speed, the overlay or the game (a quit, a step); that command, or None."""
        name = key_name(key)
        if self.mode is Mode.HELP:  # any key closes the help; a started game stays paused
            self.mode = self.after_help
            screen.invalidate()
            if self.fits:
                return None
            # Hidden behind the too-small screen, the help only closes: the key does what that
            # screen says (its quit key quits).
        stepping = self.mode is Mode.PAUSED and allow_steps
        command = self.controller.on_key(name, self.game, stepping=stepping)
        if self.mode is Mode.WAITING and command in (Command.STEP, Command.PAUSE):
            self.mode = Mode.RUNNING  # the game starts: not a step, not a pause
            return command
        if command is Command.QUIT:
            self.game.quit()
        elif command is Command.PAUSE:
            self.mode = Mode.RUNNING if self.mode is Mode.PAUSED else Mode.PAUSED
        elif command is Command.HELP:
            self.after_help = Mode.WAITING if self.mode is Mode.WAITING else Mode.PAUSED
            self.mode = Mode.HELP
            screen.invalidate()
        elif command is Command.FASTER:
            self.speed = min(self.max_speed, faster(self.speed))
        elif command is Command.SLOWER:
            self.speed = slower(self.speed)
        elif command is Command.OVERLAY:
            self.show_overlay = not self.show_overlay
        elif (
            command is Command.STEP
            and self.mode is Mode.PAUSED
            and allow_steps
            and not self.game.over
        ):
            self._tick()
        return command

    def _show_end(self, screen: Screen) -> bool:
        """Leave the final frame up until a key is pressed, so the player sees what happened;
        False if Ctrl-Z asked to suspend meanwhile (``run`` shows it again after `fg`)."""
        self._changed()  # watchers see the end too, however it came (a bot's breakdown: no move)
        outcome = self.game.outcome.value if self.game.outcome else ""
        again = f"{AGAIN_KEY} plays again, any other key ends"
        hint = again if self.offer_again else "press any key"
        message = f"{outcome.upper()}: {hint}"
        shown_size = (-1, -1)
        shown = self.clock()
        deadline = shown + END_WAIT
        deaf = END_DEAF if isinstance(self.controller, KeyboardController) else 0.0
        while self.clock() < deadline and self.stop_signal is None and not self.suspend_requested:
            size = (self.term.width, self.term.height)
            if size != shown_size:  # drawn again whole after a resize, as during the game
                screen.invalidate()
                shown_size = size
                self._draw(screen, size, message)
            # A key pressed before the player can have seen the end (one held when the snake
            # died) does not dismiss the board; a bot's watcher holds no steering key.
            key = self.term.inkey(timeout=POLL)
            if key and self.clock() - shown >= deaf:
                self.again = self.offer_again and normalize_key(key_name(key)) == AGAIN_KEY
                break
        if self.stop_signal is not None:
            raise Signalled(self.stop_signal)  # a signal on the final board still counts
        if self.suspend_requested:
            self.suspend_requested = False
            return False
        for _ in range(MAX_DRAIN):  # what was typed meanwhile must not reach the shell
            if not self.term.inkey(timeout=0):
                break
        # A bot may take a while to set up for the next game: say so meanwhile (a person's
        # starts at once, and the line would only flash).
        if self.again and not isinstance(self.controller, KeyboardController):
            self._draw(screen, shown_size, f"{outcome.upper()}: starting the next game...")
        return True

    def _draw(self, screen: Screen, size: tuple[int, int], message: str = "") -> bool:
        """Draw the board (with ``message`` on its status line) on a terminal of ``size``, or,
        if it does not fit there, what it needs; whether it fits. It is also kept in ``fits``,
        set before drawing: the colours read it while the frame is drawn, and a key closing
        the help reads it later."""
        cell_width = pick_cell_width(self.game, size[0])
        need = screen_size(self.game, cell_width)
        self.fits = fits_in(need, size)
        if self.fits:
            screen.draw(*self._frame(cell_width, size, message, screen.encoding))
        else:
            keys = (self.hints.pause, self.hints.quit)
            screen.draw(render_too_small(need, size, over=self.game.over, keys=keys))
        return self.fits


class SessionOptions(TypedDict, total=False):
    """The Session's fields its makers set besides who plays (``make_session``'s options)."""

    speed: float
    max_speed: float
    show_overlay: bool
    high_score: int | None
    glyphs: Glyphs
    color: bool
    offer_again: bool
    on_change: Callable[[Session], None] | None
    stream: Stream | None
    clock: Callable[[], float]


def make_session(
    term: blessed.Terminal,
    game: Game,
    solver: Solver | None,
    who: str,
    level_name: str,
    *,
    keys: str = "default",
    **options: Unpack[SessionOptions],
) -> Session:
    """A session for a person (``solver`` None: the game waits for their first key) or a bot
    (it runs at once), steered with the key preset ``keys`` and with the help that fits;
    ``options`` are the Session's other fields (speed, colours, where frames go ...)."""
    return Session(
        term,
        game,
        make_controller(solver, who, keys),
        level_name,
        mode=Mode.WAITING if solver is None else Mode.RUNNING,
        help_text=help_for(KEY_PRESETS[keys], solver),
        hints=hints_for(KEY_PRESETS[keys]),
        **options,
    )
