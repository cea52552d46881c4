"""One player's visit to the server: the lobby, games, watching, scores; in a thread of its own.

The visit draws on its ChannelTerminal with the same pure view, diffing screen and Session as
the local game. It ends when the player quits, the client goes away, the player idles too long,
the client stops reading, or the server shuts down; a game under way is scored first.
"""

from __future__ import annotations

import signal
import textwrap
import threading
import time
from collections.abc import Callable
from typing import Final

from termsnake.core.game import Game, new_seed
from termsnake.core.geometry import Direction
from termsnake.core.level import BOT_LENGTH, Level, with_length
from termsnake.exits import Signalled
from termsnake.formats.presets import load_preset, preset_names
from termsnake.formats.scores import ScoreKey
from termsnake.formats.scoretable import is_scored, keep_score, table
from termsnake.formats.text import clip, printable
from termsnake.serve import limits
from termsnake.serve.hub import Hub, Live
from termsnake.serve.keymemory import DEFAULT as DEFAULT_KEYS
from termsnake.serve.limits import Options
from termsnake.serve.menu import Menu, Pick, letter
from termsnake.serve.terminal import ChannelOutput, ChannelTerminal
from termsnake.solvers.base import Solver, SolverUnavailable, finish
from termsnake.solvers.registry import create, known_names, plugins
from termsnake.tui.controllers import (
    CTRL_C,
    KEY_PRESETS,
    Command,
    hints_for,
    key_name,
    normalize_key,
)
from termsnake.tui.screen import Screen
from termsnake.tui.session import Mode, Session, make_session
from termsnake.tui.summary import summary
from termsnake.tui.view import (
    Hud,
    as_bot,
    fits_in,
    pick_cell_width,
    place,
    render,
    render_too_small,
    screen_size,
)

LOBBY: Final = ("Play a level", "Watch a bot", "Watch a game in progress", "High scores", "Keys",
                 "Quit")  # fmt: skip
WATCH_WAIT: Final = 0.5  # a watcher is woken by each move; this only bounds a wait for a key
# Built-ins a visitor may start, in the lobby's order (plugins follow): those that need no file
# or program of their own, less hole-cycle and hole-tree (which refuse all but boards a cell or
# two short of a cycle, where best plays them) and astar (bfs's twin, to the eye).
BOTS: Final = ("best", "tree", "replan", "hamilton", "straight", "greedy", "neuro", "bfs")
# A farewell's end for a game the scores file did not take (the log says why: the operator's).
NOT_SAVED: Final = "; your game's score could not be saved"


def offered() -> list[str]:
    """The bots the lobby may offer, in its order: the built-ins above, then the plugins
    (watchable too); the server offers those of them that load."""
    known = known_names()
    return [b for b in BOTS if b in known] + sorted(plugins())


class Idle(Exception):
    """The player pressed nothing for too long where nothing moves."""


class TimeUp(Exception):
    """The visit has lasted as long as the server lets one last (a bot watched for hours,
    a game kept going for ever): it ends, its game scored."""


class Visit:
    """The lobby and everything reached from it, for one connected player.

    Its pages are drawn by ``draw_fitted`` (lines already printable and cut to the width),
    ``show_text`` (any text: made printable and cut first) and ``show_until_key`` (text wrapped
    to the width above a footer, left on screen until a key is pressed, whose name it returns).
    """

    def __init__(
        self,
        hub: Hub,
        term: ChannelTerminal,
        out: ChannelOutput,
        name: str,
        options: Options,
        bots: tuple[str, ...],
        keys: str | None = None,
    ) -> None:
        self.hub = hub
        # The key preset, for the games and the menus: the client's (TERMSNAKE_KEYS) if it
        # named one, else the one chosen in the lobby on the name's last visit.
        stored = hub.key_presets.recall(name) or DEFAULT_KEYS
        self.keys = keys or stored
        self.kept_keys = stored  # the name's preset in the file, as far as this visit knows
        self.unkept_keys: str | None = None  # chosen here, not yet written (keep_keys)
        self.kept_at = -limits.KEEP_PRESET_GAP
        self.bots = bots  # those that load (a player cannot mend one that does not)
        self.term = term
        self.out = out
        self.name = name
        self.options = options  # --idle, --max-time...; `limits.` below is the module
        self.screen = Screen(term, out)
        self._drawn_size = (0, 0)  # the terminal's size at the last page drawn
        self.session: Session | None = None
        self.idle_counts = True  # --idle seconds with no key end the visit; not while watching
        self.stopping: int | None = None
        # Whether the visit ended during the player's own game, which was then scored (it moved),
        # and whether the scores file took it (its lock held elsewhere as the server stopped).
        self.ended_in_scored_game = False
        self.score_saved = False
        self.started = time.monotonic()
        term.check = self._check

    # -- limits, checked whenever the visit waits for a key -----------------------------------
    # (``term.check``: an exception from here leaves that key read, and the game or menu that
    # waited for it, and ends the visit)

    def _check(self) -> None:
        now = time.monotonic()
        if self.stopping is not None:
            raise Signalled(self.stopping)
        session = self.session
        idle_here = self.idle_counts if session is None else session.mode is not Mode.RUNNING
        if idle_here and now - self.term.last_key > self.options.idle:
            raise Idle
        if now - self.started > self.options.max_time:
            raise TimeUp

    @property
    def scored(self) -> str:
        """What a farewell adds for a visit that ended in a game: whether it was scored."""
        if not self.ended_in_scored_game:
            return ""
        return "; your game was scored" if self.score_saved else NOT_SAVED

    def stop(self, signum: int = signal.SIGTERM) -> None:
        """The server is going down: unwind at the next wait (a game is scored first)."""
        self.stopping = signum
        self.out.ending = True
        if self.session is not None:
            self.session.request_stop(signum)
        self.term.wake()

    # -- drawing and reading --------------------------------------------------------------

    def show_text(self, lines: list[str]) -> None:
        """Draw a page of any text, made printable and cut to the terminal."""
        width = self.term.width
        self.draw_fitted([clip(printable(line), width) for line in lines[: self.term.height]])

    def draw_fitted(self, page: list[str]) -> None:
        """Draw lines already printable and cut to the terminal's width, padded to its height;
        whole after a resize, which may have moved what the terminal showed (tmux drops lines
        off the top)."""
        height = self.term.height
        if (self.term.width, height) != self._drawn_size:
            self._drawn_size = (self.term.width, height)
            self.screen.invalidate()
        self.screen.draw(page[:height] + [""] * (height - len(page)))

    def key(self, timeout: float = 0.5) -> str:
        """The next key's name, or '' after ``timeout`` seconds."""
        k = self.term.inkey(timeout=timeout)
        return key_name(k) if k else ""

    def choose(self, menu: Menu, refresh: Callable[[], list[str]] | None = None) -> int | None:
        """Let the player pick from ``menu``: the index chosen, or None to go back."""
        self.screen.invalidate()
        menu.keys = self.keys
        while True:
            if refresh is not None:
                menu.entries = refresh()
                menu.selected = min(menu.selected, max(0, len(menu.entries) - 1))
            self.show_text(menu.lines(self.term.width, self.term.height))
            pick = menu.key(self.key())
            if pick is Pick.CHOSEN:
                return menu.selected
            if pick is Pick.BACK:
                return None

    def show_until_key(
        self, lines: list[str], footer: str = "any key goes back", *, wrap: bool = True
    ) -> str:
        """Show ``lines`` above ``footer`` until a key is pressed; that key's name. They are
        wrapped to the terminal's width as it is at each look (or, not ``wrap``, as a table's
        rows, cut: wrapped, a row's last columns read as a row of their own)."""
        self.screen.invalidate()
        while True:
            width, room = self.term.width, max(1, self.term.height - 2)
            wrapped = (textwrap.wrap(line, width) or [""] if wrap else [line] for line in lines)
            self.show_text([*[w for parts in wrapped for w in parts][:room], "", footer])
            if key := self.key():
                return key

    # -- the lobby -----------------------------------------------------------------------------

    def run(self) -> None:
        """The lobby until the player quits."""
        if self.stopping is not None:  # begun as the server stops: told so, no lobby first
            raise Signalled(self.stopping)
        lobby = Menu(f"termsnake: hello, {self.name}", self.lobby())
        actions = (self.play_level, self.watch_bot, self.watch_live, self.high_scores,
                   self.choose_keys)  # fmt: skip
        try:
            while (choice := self.choose(lobby, self.lobby)) is not None and choice < len(actions):
                actions[choice]()
        finally:  # however the visit ends (idle, closed, the server stopping)
            self.keep_keys(at_end=True)

    def lobby(self) -> list[str]:
        """The lobby's entries: the keys entry names the visitor's preset."""
        return [f"{entry}: {self.keys}" if entry == "Keys" else entry for entry in LOBBY]

    def choose_keys(self) -> None:
        """Pick the key preset that steers this visitor's games and menus."""
        names = list(KEY_PRESETS)
        menu = Menu("Which keys?", [described(n) for n in names], names.index(self.keys))
        choice = self.choose(menu)
        if choice is not None:
            self.keys = names[choice]
            # A preset chosen again is a choice too: its name becomes the newest in the file,
            # the last to be dropped. The default is no entry, nothing to make newer.
            same_default = self.keys == self.kept_keys == DEFAULT_KEYS
            self.unkept_keys = None if same_default else self.keys
            self.keep_keys()

    def keep_keys(self, at_end: bool = False) -> None:
        """Store the preset chosen in the lobby for the name's next visit: at once, but once in
        KEEP_PRESET_GAP at most (a client choosing again and again would write the file each
        time), and the last choice as the visit ends. A choice the file did not take (its lock
        held, a folder that cannot be written) is tried again as the visit ends."""
        now = time.monotonic()
        if self.unkept_keys is None or (not at_end and now - self.kept_at < limits.KEEP_PRESET_GAP):
            return
        self.kept_at = now
        if self.hub.key_presets.remember(self.name, self.unkept_keys):
            self.kept_keys, self.unkept_keys = self.unkept_keys, None

    def pick_level(self, title: str) -> Level | None:
        """A preset chosen from a menu, or None."""
        names = list(preset_names())
        choice = self.choose(Menu(title, names))
        return None if choice is None else load_preset(names[choice])

    def play_level(self) -> None:
        """Play presets until the player goes back to the lobby."""
        level = self.pick_level("Play which level?")
        while level is not None:
            if not self.play(level, None):
                return

    def watch_bot(self) -> None:
        """Start a bot on a preset and watch it (others may watch it too)."""
        bots = self.bots
        choice = self.choose(Menu("Watch which bot?", bots))
        if choice is None:
            return
        level = self.pick_level(f"{bots[choice]} plays which level?")
        if level is not None:
            self.play(with_length(level, BOT_LENGTH), bots[choice])

    def play(self, level: Level, bot: str | None) -> bool:
        """One game of a person or a bot, scored and summed up; whether the player asked to play
        it again (r on the summary page; not after a bot that could not play)."""
        game = Game(level, new_seed())
        who = self.name if bot is None else bot
        solver = None
        if bot is not None:
            try:
                solver = create(bot)
            except ValueError as e:  # a plugin that cannot be made: on no board at all
                self.show_until_key([printable(f"{bot} cannot be used: {e}")])
                return False
            try:
                set_up(solver, game, bot)
            except (SolverUnavailable, ValueError) as e:
                self.show_until_key([printable(f"{bot} cannot play {level.name}: {e}")])
                return False
        shown = who if bot is None else as_bot(bot)  # on the status line and the watch list
        live = self.hub.start(shown, level.name, game)
        session = make_session(
            self.term, game, solver, shown, level.name,
            color=self.term.number_of_colors >= 8, stream=self.out, max_speed=limits.MAX_SPEED,
            keys=self.keys,
            on_change=lambda s: self.hub.publish(live, s.game, s.speed, s.paused),
        )  # fmt: skip
        self.session = session
        try:
            session.run()
        except BaseException:
            # Scored below: the farewell says so to a player whose game moved (a bot's is the
            # bot's, and a game with no move is not kept).
            self.ended_in_scored_game = bot is None and game.steps > 0
            raise
        finally:
            self.session = None
            self.term.last_key = time.monotonic()  # a summary's idleness counts from here
            self.hub.end(live)
            game.quit()
            if solver is not None:
                finish(solver, game)
            news = self._keep_score(level, who, game, bot=bot is not None)
        text = summary(game, who, session.seconds_played, width=self.term.width)
        lines = [*text.split("\n"), *news]
        again = self.show_until_key(lines, "r plays again, any other key goes back to the lobby")
        return again.lower() == "r"

    def _keep_score(self, level: Level, who: str, game: Game, *, bot: bool) -> list[str]:
        """Keep the ended ``game``'s score in the server's table; the lines the summary adds
        for the player (a new best), and whether the file took it (``score_saved``, which the
        farewell tells). Trouble with the scores file goes to the log instead."""
        key = ScoreKey.of(
            printable(level.name), level.board.width, level.board.height, len(level.body), who
        )
        best = self.hub.scores.best(key)
        news, trouble, self.score_saved = keep_score(self.hub.scores, key, game, best, bot=bot)
        for line in trouble:  # the operator's to mend: the log, not the player
            self.hub.score_trouble.say(line)
        if not trouble and is_scored(game, bot=bot):  # a score kept: all well
            self.hub.score_trouble.say(None)
        return news

    def watch_live(self) -> None:
        """Pick a game in progress and watch it, read-only, until it ends or q."""

        ids: list[int] = []

        def refresh() -> list[str]:
            # One look at the hub for both: a game that started or ended between two looks,
            # in another visit's thread, put each label beside another game's id.
            games = self.hub.watchable()
            ids[:] = [i for i, _ in games]
            return [label for _, label in games]

        choice = self.choose(Menu("Watch which game?", []), refresh)
        if choice is None or choice >= len(ids):
            return
        self.follow(ids[choice])

    def follow(self, live_id: int) -> None:
        """Draw another session's game each time it moves; q goes back."""
        self.screen.invalidate()
        shown: Live | None = None
        shown_size = (0, 0)
        self.hub.watch(live_id, self.term.wake)  # each move ends the wait for a key below
        # Not idle while watching, as while watching a bot: the game watched ends at its own
        # player's idle limit, and the visit at --max-time.
        self.idle_counts = False
        try:
            while (live := self.hub.look(live_id)) is not None:
                size = (self.term.width, self.term.height)
                # Draw only what changed: each move, pause or speed is a new Live; or a resize.
                if live is not shown or size != shown_size:
                    self.draw_fitted(watched_page(live, size))
                    shown, shown_size = live, size
                key = normalize_key(self.key(WATCH_WAIT))  # caps lock on: X, Q still leave
                quits = KEY_PRESETS[self.keys].commands.get(key) is Command.QUIT  # x on AZERTY
                if quits or key in ("q", "KEY_ESCAPE", CTRL_C):
                    return
        finally:
            self.idle_counts = True
            self.term.last_key = time.monotonic()  # idleness counts from the end of the watch
            self.hub.unwatch(live_id, self.term.wake)
        self.show_until_key(["That game is over."])

    def high_scores(self) -> None:
        """The server's high scores, per level, best first."""
        scores = self.hub.scores.read().scores
        if not scores:
            self.show_until_key(["No scores yet: play a level!"])
            return
        self.show_until_key(table(scores, self.screen.encoding), wrap=False)


def described(keys: str) -> str:
    """A key preset as the keys menu lists it: ``azerty: z q s d steer, x quits``."""
    preset = KEY_PRESETS[keys]
    steer = " ".join(letter(preset, d) for d in (Direction.UP, Direction.LEFT, Direction.DOWN,
                                                 Direction.RIGHT))  # fmt: skip
    return f"{keys}: {steer} steer, {hints_for(preset).quit} quits"


# Sizes of terminal whose page of one state is kept for other watchers of that size.
MAX_PAGES = 8


def watched_page(live: Live, size: tuple[int, int]) -> list[str]:
    """What a watcher whose terminal is ``size`` (columns, rows) sees of ``live``, centred as
    the player sees it: drawn once, shared by all watchers of that size."""
    page = live.pages.get(size)
    if page is None:
        if len(live.pages) >= MAX_PAGES:
            # A watcher that keeps changing its size while the game stands still would fill
            # the cache without end: start it again (clear is one step for other threads).
            live.pages.clear()
        outcome = live.game.outcome
        # Over, the game stays on its player's screen (its final board) until they go on.
        message = f"{outcome.value.upper()}: game over" if outcome else "watching"
        hud = Hud(
            who=live.who,
            level=live.level,
            speed=live.speed,
            paused=live.paused,
            message=f"{message} (q leaves)",
        )
        cell_width = pick_cell_width(live.game, size[0])
        need = screen_size(live.game, cell_width)
        if not fits_in(need, size):  # as the player is told, but the game goes on (or is over)
            ended = message if outcome else ""  # said first: the watcher did not play it
            page = live.pages[size] = render_too_small(
                need, size, watching=True, over=outcome is not None, ended=ended
            )
            return page
        lines = render(live.game, hud, cell_width=cell_width, width=size[0])
        lines = [printable(line) for line in lines]
        placed, (left, top) = place(lines, need, size)
        page = live.pages[size] = [""] * top + [" " * left + line for line in placed]
    return page


# One lock for each bot and board: the first visit to set a bot up on a board does the work
# (its cuts and cycles are then cached), and the visits that ask at the same moment wait for
# it instead of each doing it again, all in one interpreter with the players' frames.
_SETUPS: dict[tuple[str, str], threading.Lock] = {}
_SETUPS_LOCK = threading.Lock()


def set_up(solver: Solver, game: Game, bot: str) -> None:
    """``solver.setup(game)``, one at a time for each bot and board."""
    with _SETUPS_LOCK:
        lock = _SETUPS.setdefault((bot, game.board.name), threading.Lock())
    with lock:
        solver.setup(game)
