"""Solvers from other packages: the `termsnake.solvers` entry-point group, read lazily, and the
guard every plugin plays behind."""

from __future__ import annotations

import contextlib
import io
import itertools
import sys
import threading
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, TypeVar

from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.exits import (
    CtrlC,
    Signalled,
    came_first,
    check_remembered,
    handlers_kept,
    pressed,
    users_signal,
)
from termsnake.formats.text import columns, printable, shorten
from termsnake.solvers import plugindir
from termsnake.solvers.base import SolverFailed, SolverUnavailable, shows_plan
from termsnake.solvers.fdaside import descriptors_aside

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

GROUP: Final = "termsnake.solvers"
NAME_LIMIT: Final = 40  # the longest plugin name shown whole
WHY_LIMIT: Final = 160  # the longest error text of a plugin's shown whole
_T = TypeVar("_T")


class _Sink(io.TextIOBase):
    """Where a plugin's own prints go: termsnake owns the terminal and stdout (bench --json)."""

    def writable(self) -> bool:
        return True

    def write(self, s: str) -> int:
        return len(s)


_SINK: Final = _Sink()


class _NoInput(io.TextIOBase):
    """What a plugin reads from ``sys.stdin``: nothing, at once. termsnake reads the keys: a
    ``breakpoint()`` or ``input()`` would wait, unseen (its prompt goes to the sink), for the
    game's keys, or a bench's terminal, and the command with it."""

    def readable(self) -> bool:
        return True

    def read(self, size: int | None = -1) -> str:
        return ""

    def readline(self, size: int | None = -1) -> str:  # type: ignore[override]
        return ""


_NO_INPUT: Final = _NoInput()


class _Quiet:
    """The streams put aside while any plugin call runs, and the working directory
    (``plugindir``). The server plays bots in threads of their own: a count under a lock, so
    two calls at once put back the real streams, not the sink."""

    lock = threading.Lock()
    depth = 0
    saved: tuple[Any, Any, Any] = (None, None, None)


def quietly(call: Callable[..., _T], *args: Any) -> _T:
    """``call(*args)`` with sys.stdout and sys.stderr sent to a sink, and sys.stdin empty, put
    back after. A signal noted meanwhile is raised as it returns, in place of what it returned
    or raised: the plugin may have lost the signal's exception and gone on
    (``check_remembered``). A plugin that changes the working directory has it back in its
    next call, but termsnake keeps its own: the relative paths given to it (``--record``,
    ``--record-dir``, an engine's ``./bot``) would name other files, or none."""
    with _Quiet.lock:
        if _Quiet.depth == 0:
            _Quiet.saved = (sys.stdout, sys.stderr, sys.stdin)
            sys.stdout = sys.stderr = _SINK
            sys.stdin = _NO_INPUT
            plugindir.enter()
        _Quiet.depth += 1
    try:
        return call(*args)
    finally:
        with _Quiet.lock:
            _Quiet.depth -= 1
            if _Quiet.depth == 0:
                sys.stdout, sys.stderr, sys.stdin = _Quiet.saved
                plugindir.leave()
        check_remembered()


def _pass_on(e: BaseException) -> None:
    """Raise again what, of ``e`` that a plugin's call raised, is the user's: a Ctrl-C, or an
    ending signal's Terminated (SIGTERM while a plugin sets up: termsnake exits 128 + n, not
    "the plugin failed"), also as the RuntimeError Python 3.11 wraps one in as a module loads.
    A KeyboardInterrupt no Ctrl-C raised, or a Terminated no signal did, is the plugin's own
    failure, as its SystemExit is."""
    caught, came = users_signal(e), came_first(e)
    users = caught is came or (isinstance(caught, KeyboardInterrupt) and pressed(caught))
    if caught is not None and users:
        if caught is e:
            raise e
        raise caught from None
    # The plugin made the user's Ctrl-C or signal an error of its own.
    if isinstance(came, CtrlC):
        raise CtrlC from None
    if came is not None:
        raise Signalled(came.signum) from None


def what(e: BaseException) -> str:
    """``Type: message`` of an exception a plugin raised, escaped and cut for one line."""
    try:
        text = str(e)
    except BaseException as failed:  # a plugin's exception may fail even to say what it is
        _pass_on(failed)
        text = ""
    kind = type(e).__name__
    return shorten(f"{kind}: {text}" if text else kind, WHY_LIMIT)


@dataclass(frozen=True, slots=True)
class Plugin:
    """One advertised solver: its name, where it points, and the distribution that ships it."""

    name: str
    target: str
    source: str
    entry: EntryPoint
    taken: frozenset[str] = frozenset()  # the built-in names, which it may not go by

    def load(self) -> Callable[[], Any]:
        """Import the factory; PluginError (one line, naming the plugin) if that fails."""
        if self.entry.pattern.match(self.target) is None:  # load() raises AttributeError
            raise PluginError(f"{self.describe()} does not name a module (module:attribute)")
        # fds 1 and 2 put aside only while its module is imported: they are the whole
        # process's, and the server makes its bots in threads of their own once listening.
        aside = descriptors_aside() if self.entry.module not in sys.modules else None
        try:
            # The plugin's own handlers would outlive its import.
            with handlers_kept(), aside or contextlib.nullcontext():
                factory = quietly(self.entry.load)
        except BaseException as e:  # a broken plugin must not take termsnake down
            _pass_on(e)
            raise PluginError(f"{self.describe()} failed to import: {what(e)}") from None
        if not callable(factory):
            raise PluginError(f"{self.describe()} is not callable")
        return factory  # type: ignore[no-any-return]

    def make(self) -> Guarded:
        """A new solver from the plugin, behind its guard; PluginError if it cannot be made."""
        factory = self.load()
        try:
            with handlers_kept():
                solver = quietly(factory)
        except BaseException as e:  # its own BaseException subclasses, GeneratorExit too
            _pass_on(e)
            raise PluginError(f"{self.describe()} could not be made: {what(e)}") from None
        if problem := not_a_solver(solver):
            raise PluginError(f"{self.describe()} made {problem}")
        return Guarded(solver, self.name, self.taken)

    def describe(self) -> str:
        """``plugin 'name' (target, from dist)`` for messages."""
        return printable(f"plugin {self.name!r} ({self.target}, from {self.source})")


def not_a_solver(made: object) -> str | None:
    """``made`` (a factory's, a plugin's or ``register``'s) said as no solver, with the methods
    it lacks (``3, not a solver (it has no setup, ...)``), or None if it has them all."""
    missing = [m for m in ("setup", "next_direction", "overlay") if not _has(made, m)]
    if not missing:
        return None
    return f"{_show(made)}, not a solver (it has no {', '.join(missing)})"


def _has(obj: object, method: str) -> bool:
    try:
        return callable(getattr(obj, method, None))
    except BaseException as e:  # a plugin's own, SystemExit too: never past the guard
        _pass_on(e)
        return False


class PluginError(Exception):
    """A plugin could not be used; the message names it and says why, in one line."""


_warnings = [True]  # said here; a worker process says nothing its parent has said already


def quiet_warnings() -> None:
    """In a worker process: its parent has warned about the same plugins already."""
    _warnings[0] = False


def warn(message: str, then: str = "skipped") -> None:
    """One warning line on stderr, saying ``then`` what becomes of the plugin (a broken one is
    skipped; the rest work)."""
    if _warnings[0]:
        print(f"termsnake: warning: {printable(message)}; {then}", file=sys.stderr)


# What a name may not hold: a comma splits bench's --ai list, and a quote or a backslash
# there keeps a comma from splitting it (as in an engine's command); a colon reads as exec:'s
# or neuro:'s argument; a space makes two words of it in bench's table and a shell's line.
_NOT_IN_NAMES: Final = " :,'\"\\"


def name_problem(key: str) -> str | None:
    """Why ``--ai`` could not take ``key`` (stripped, lower case) whole, or None: the one rule
    for a plugin's name and ``register``'s."""
    if not key or not key.isprintable() or any(c in key for c in _NOT_IN_NAMES):
        return "a solver name is one word, without : , ' \" \\ or a control character"
    return None


def discover(builtin: Collection[str]) -> dict[str, Plugin]:
    """Every advertised plugin by name, without importing any; clashes are warned and skipped.

    A name that a built-in solver already has, or that two distributions both claim, is
    skipped with a warning, so the same name means the same solver on every machine; so is one
    that ``--ai`` could not take (``name_problem``).
    """
    # Imported here: importlib.metadata is slow to import (docs/tuning.md), and a game with a
    # built-in solver never reads it.
    from importlib.metadata import entry_points

    found: dict[str, list[Plugin]] = {}
    taken = frozenset(builtin)
    for ep in entry_points(group=GROUP):
        dist = ep.dist
        source = f"{dist.name} {dist.version}" if dist is not None else "an unknown package"
        name = ep.name.strip().lower()
        found.setdefault(name, []).append(Plugin(name, ep.value, source, ep, taken))
    plugins: dict[str, Plugin] = {}
    for name, claims in sorted(found.items()):
        if name in builtin:
            warn(f"{claims[0].describe()} has the name of a built-in solver")
        elif problem := name_problem(name):
            warn(f"{claims[0].describe()} has a name --ai cannot take ({problem})")
        elif len({c.source for c in claims}) > 1:
            sources = ", ".join(sorted({c.source for c in claims}))
            warn(f"plugin name {name!r} is claimed by more than one package ({sources})")
        else:
            plugins[name] = claims[0]
    return plugins


class Guarded:
    """A plugin's solver as termsnake plays it: whatever the plugin does, termsnake goes on.

    The plugin sees a copy of the game, kept in step with the live one, so it cannot change
    the game it plays. What it raises or answers wrongly becomes SolverUnavailable (in setup)
    or SolverFailed (in a move, losing the game), with an escaped one-line cause; a bad
    overlay is dropped; its prints go nowhere; its name is shown escaped.
    """

    def __init__(self, solver: Any, key: str, taken: Collection[str] = ()) -> None:
        self.solver = solver
        self.label = f"plugin {shorten(key, NAME_LIMIT)}"
        try:
            own = solver.name
        except BaseException as e:  # a plugin's own, SystemExit too: never past the guard
            _pass_on(e)
            own = None
        # Its own name, unless that is a built-in's: scores and replays would credit that one.
        usable = isinstance(own, str) and own.strip() and own.strip().lower() not in taken
        self.name = shorten(own if usable else key, NAME_LIMIT)
        self._shadow: Game | None = None
        self._live: Game | None = None

    @property
    def played(self) -> str:
        """What a composite plugin played, if it says so in text; escaped."""
        try:
            played = getattr(self.solver, "played", "")
        except BaseException as e:  # a plugin's own, SystemExit too: never past the guard
            _pass_on(e)
            return ""
        return shorten(played, NAME_LIMIT) if isinstance(played, str) else ""

    @property
    def has_plan(self) -> bool:
        """Whether the plugin has a plan to show (PlanShowing): yes unless it says False."""
        try:
            return shows_plan(self.solver)
        except BaseException as e:  # a plugin's own, SystemExit too: never past the guard
            _pass_on(e)
            return True

    def setup(self, game: Game) -> None:
        """The plugin's setup on a fresh copy; SolverUnavailable (escaped) if it fails."""
        self._shadow, self._live = game.copy(), game
        try:
            quietly(self.solver.setup, self._shadow)
        except (SolverUnavailable, SolverFailed) as e:
            raise SolverUnavailable(shorten(str(e), WHY_LIMIT) or self.label) from None
        except BaseException as e:  # its own BaseException subclasses, GeneratorExit too
            _pass_on(e)
            raise SolverUnavailable(f"{self.label} could not set up: {what(e)}") from None

    def next_direction(self, game: Game) -> Direction:
        """The plugin's move; SolverFailed saying what it did instead of giving one."""
        try:
            move = quietly(self.solver.next_direction, self._view(game))
        except SolverFailed as e:
            raise SolverFailed(shorten(str(e), WHY_LIMIT) or f"{self.label} failed") from None
        except BaseException as e:  # its own BaseException subclasses, GeneratorExit too
            _pass_on(e)
            raise SolverFailed(f"{self.label} raised {what(e)}") from None
        if type(move) is not Direction:  # not isinstance: a __class__ property could lie
            raise SolverFailed(f"{self.label} answered {_show(move)}, not a direction")
        return move

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The plugin's plan, less anything the view could not draw (all of it if it fails)."""
        board = game.board
        try:
            plan = quietly(self.solver.overlay, self._view(game))
            if not isinstance(plan, Mapping):
                return {}
            return {
                p: g
                for p, g in itertools.islice(plan.items(), board.free_count)
                if isinstance(p, Point)
                and type(p.x) is int
                and type(p.y) is int
                and 0 <= p.x < board.width
                and 0 <= p.y < board.height
                and _glyph(g)
            }
        except BaseException as e:  # a plugin's own, SystemExit too: the overlay is dropped
            _pass_on(e)
            return {}

    def finish(self, game: Game) -> None:
        """Tell the plugin its game ended, if it wants to know; what it raises is dropped."""
        # The game is over: nothing the plugin does now can change it, so its errors are moot.
        try:
            finish = getattr(self.solver, "finish", None)
            if callable(finish):
                quietly(finish, self._view(game))
        except BaseException as e:
            _pass_on(e)

    def _view(self, game: Game) -> Game:
        """The plugin's copy of ``game``: moved on by the live game's last move, or copied
        anew when that does not bring it in step (the plugin changed it, or a food plan)."""
        shadow = self._shadow
        if shadow is None or self._live is not game:
            shadow = None
        elif shadow.steps + 1 == game.steps and not shadow.over:
            try:
                shadow.step(game.moves[-1])
            except Signalled:  # a signal that came meanwhile, not the copy's failure
                raise
            except Exception:
                shadow = None
        if shadow is None or not _in_step(shadow, game):
            shadow = game.copy()
        self._shadow, self._live = shadow, game
        return shadow


def _in_step(a: Game, b: Game) -> bool:
    """Whether two games stand the same (the moves before aside): the plugin's copy is in step
    with the live game."""
    return (
        a.steps == b.steps
        and a.outcome is b.outcome
        and a.food == b.food
        and a.direction is b.direction
        and a.eaten == b.eaten
        and a.since_food == b.since_food
        and a.body == b.body
    )


def _glyph(g: object) -> bool:
    """One character the board can show in a cell: one column wide (a combining mark takes
    none, and would join the cell before it, pulling the rest of the row one column left)."""
    return isinstance(g, str) and len(g) == 1 and printable(g) == g and columns(g) == 1


def _show(obj: object) -> str:
    """A value a plugin gave, for a message: its repr escaped and cut."""
    try:
        return shorten(repr(obj), NAME_LIMIT)
    except BaseException as e:  # a plugin's own, SystemExit too: never past the guard
        _pass_on(e)
        return f"a {printable(type(obj).__name__)}"
