"""A plugin plays behind a guard: whatever it raises, answers, draws, prints or touches,
termsnake goes on, and nothing of it reaches the terminal raw."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from bad_plugin_dist import make_bad_dist
from plugin_dist import INTERRUPTED_MODULE, make_dist

from termsnake.bench.games import GameTask, Kit, LevelSpec, play_apart
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import open_level
from termsnake.exits import Terminated, ctrl_c, raise_terminated, signal_handlers
from termsnake.solvers import SolverUnavailable, create, play, registry
from termsnake.solvers.engine import EngineSolver
from termsnake.solvers.greedy import GreedySolver
from termsnake.solvers.plugins import Guarded
from termsnake.tui.controllers import KEY_PRESETS, help_for


@pytest.fixture
def bad(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The misbehaving plugins installed; found afresh, their modules forgotten after."""
    make_bad_dist(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.plugins.cache_clear()
    yield
    registry.plugins.cache_clear()
    for module in ("badbots", "badboom"):
        sys.modules.pop(module, None)


def game() -> Game:
    return Game(open_level(6, 6, 3), 1)


def assert_safe(text: str) -> None:
    assert "\x1b" not in text and "\x07" not in text and "\n" not in text


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("explodes", r"could not be made: RuntimeError: factory exploded \x1b[2J"),
        ("number", "made 42, not a solver (it has no setup, next_direction, overlay)"),
        ("doomsetup", "made <badbots.DoomSetup object"),  # its setup raises on being looked up
        ("importraises", r"failed to import: RuntimeError: import boom \x1b]0;pwned\x07"),
    ],
)
def test_a_plugin_that_cannot_be_made_is_a_one_line_escaped_error(
    bad: None, name: str, said: str
) -> None:
    with pytest.raises(ValueError) as info:
        create(name)
    assert said in str(info.value) and f"plugin '{name}'" in str(info.value)
    assert_safe(str(info.value))


def test_a_setup_that_raises_makes_the_plugin_unavailable(bad: None) -> None:
    with pytest.raises(SolverUnavailable) as info:
        create("setupraises").setup(game())
    assert (
        str(info.value) == r"plugin setupraises could not set up: RuntimeError: setup boom \x1b[2J"
    )


@pytest.mark.parametrize(
    ("name", "cause", "steps"),
    [
        (
            "moveraises",
            r"plugin moveraises raised ZeroDivisionError: move boom \x1b]0;title\x07",
            3,
        ),
        ("seven", "plugin seven answered 7, not a direction", 0),
        ("exits", "plugin exits raised SystemExit: 3", 0),
        ("basic", "plugin basic raised Doom", 0),  # a BaseException that cannot say what it is
        ("genexit", "plugin genexit raised GeneratorExit: closed", 0),
        ("spoof", "plugin spoof answered <badbots.FakeDirection object", 0),  # claims Direction
    ],
)
def test_a_plugin_that_fails_in_a_move_loses_the_game_saying_what_it_did(
    bad: None, name: str, cause: str, steps: int
) -> None:
    g = game()
    assert play(g, create(name)) is Outcome.DIED
    assert g.cause is not None and g.cause.startswith(cause) and g.steps == steps


def test_a_plugin_cannot_change_the_live_game(bad: None) -> None:
    g = game()
    solver = create("mutator")
    solver.setup(g)
    for _ in range(5):
        before = (g.steps, list(g.body), g.outcome)
        solver.next_direction(g)
        assert (g.steps, list(g.body), g.outcome) == before


def test_the_copy_a_plugin_sees_keeps_in_step_with_the_game() -> None:
    seen: list[tuple[int, list[Point], Point | None]] = []
    inner = create("greedy")

    class Watcher:
        name = "watcher"

        def setup(self, view: Game) -> None:
            inner.setup(view)

        def next_direction(self, view: Game):  # type: ignore[no-untyped-def]
            seen.append((view.steps, list(view.body), view.food))
            return inner.next_direction(view)

        def overlay(self, view: Game) -> dict[Point, str]:
            return {}

    g, alone = game(), game()
    play(g, Guarded(Watcher(), "watcher"))
    play(alone, create("greedy"))
    assert g.moves == alone.moves and g.outcome is alone.outcome  # the same game
    replayed = Game(g.level, g.seed)
    for (steps, body, food), move in zip(seen, g.moves, strict=False):
        assert (steps, list(replayed.body), replayed.food) == (steps, body, food)
        replayed.step(move)


def test_a_bad_overlay_is_cut_to_what_can_be_drawn(bad: None) -> None:
    g = game()
    solver = create("badoverlay")
    solver.setup(g)
    assert solver.overlay(g) == {Point(1, 0): "+"}


def test_a_name_with_control_characters_is_shown_escaped_and_plays(bad: None) -> None:
    solver = create("ctlname")
    assert solver.name == r"ctl\x1b[31mname\n2nd line"
    g = game()
    play(g, solver, max_steps=3)
    assert g.steps == 3


def test_a_plugins_prints_go_nowhere(bad: None, capfd: pytest.CaptureFixture[str]) -> None:
    play(game(), create("printer"), max_steps=3)
    out, err = capfd.readouterr()
    assert out == err == ""


class Terminating:
    """A plugin during whose calls a Terminated comes: its own, or an ending signal's (sent to
    the process, and termsnake's handler raises it; or one the plugin raises while it handles
    that)."""

    name = "terminating"

    def __init__(self, how: str, signum: int = signal.SIGTERM, *, in_setup: bool = False) -> None:
        self.how = how
        self.signum = signum
        self.in_setup = in_setup

    def setup(self, game: Game) -> None:
        if self.in_setup:
            self.next_direction(game)

    def next_direction(self, game: Game) -> Direction:
        if self.how == "signal":
            signal.raise_signal(self.signum)
        elif self.how == "signal, then its own":
            try:
                signal.raise_signal(self.signum)
            except Terminated:
                raise Terminated(signal.SIGTERM) from None
        elif self.how == "signal, then an error":
            try:
                signal.raise_signal(self.signum)
            except Terminated:
                raise RuntimeError("no signal for me") from None
        raise Terminated(self.signum)

    def overlay(self, game: Game) -> dict[Point, str]:
        self.next_direction(game)
        return {}


# SIGUSR1 for a second: a SIGHUP leaves more of them ignored, in the process running the tests.
SIGNALS = (signal.SIGTERM, signal.SIGUSR1)


@pytest.fixture
def signals_handled() -> Iterator[None]:
    """SIGTERM's and SIGUSR1's handler as the ``termsnake`` command has it."""
    with signal_handlers({s: raise_terminated for s in SIGNALS}):
        yield


# A plugin that turns the signal into an error of its own would lose one game to it, and the
# command go on.
@pytest.mark.parametrize("how", ["signal", "signal, then its own", "signal, then an error"])
@pytest.mark.parametrize("signum", SIGNALS, ids=["TERM", "USR1"])
def test_an_ending_signal_during_a_plugins_call_is_not_the_plugins_failure(
    signals_handled: None, how: str, signum: int
) -> None:
    # termsnake then exits 128 + n with its terminal restored, not 2 for a broken plugin.
    guarded = Guarded(Terminating(how, signum, in_setup=True), "term")
    for call in (guarded.setup, guarded.next_direction, guarded.overlay):
        with pytest.raises(Terminated) as info:
            call(game())
        assert info.value.signum == signum


def test_an_ending_signal_as_the_plugins_copy_moves_on_is_not_lost(
    signals_handled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It came as the guard moved the plugin's copy of the game on by the last move: taken for
    # a failure of that copy, it was dropped, and bench --jobs 1 played on, deaf to it.
    g = game()
    guarded = Guarded(GreedySolver(), "greedy")
    guarded.setup(g)
    g.step(guarded.next_direction(g))
    step = Game.step

    def signalled(self: Game, direction: Direction) -> object:
        if self is not g:
            signal.raise_signal(signal.SIGTERM)
        return step(self, direction)

    monkeypatch.setattr(Game, "step", signalled)
    with pytest.raises(Terminated) as info:
        guarded.next_direction(g)
    assert info.value.signum == signal.SIGTERM


def test_a_terminated_a_plugin_raises_itself_is_its_failure(signals_handled: None) -> None:
    # It was taken for SIGTERM: bench said "stopped by SIGTERM" (143, no rows), or, with
    # --jobs 2, that a worker died; a watched game ended as if signalled, serve's visit as if
    # the server were shutting down.
    with pytest.raises(SolverUnavailable) as info:
        Guarded(Terminating("own", in_setup=True), "term").setup(game())
    assert str(info.value) == "plugin term could not set up: Terminated: SIGTERM"
    guarded = Guarded(Terminating("own", signal.SIGHUP), "term")
    g = game()
    assert guarded.overlay(g) == {}
    assert play(g, guarded) is Outcome.DIED and g.cause == "plugin term raised Terminated: SIGHUP"


def test_a_terminated_in_a_thread_is_the_plugins() -> None:
    # The server plays each visit's bot in a thread of its own, where no signal is raised.
    played: list[Game] = []

    def in_a_thread() -> None:
        g = game()
        play(g, Guarded(Terminating("own"), "term"))
        played.append(g)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert played and played[0].cause == "plugin term raised Terminated: SIGTERM"


def test_unknown_names_list_plugin_names_cut(bad: None) -> None:
    # A name with a control character is no plugin's now (name_problem): a long one is cut.
    with pytest.raises(ValueError) as info:
        create("nosuch")
    assert "longooo" in str(info.value) and "o" * 296 not in str(info.value)
    assert_safe(str(info.value))


def test_listing_warns_about_a_plugin_that_fails_to_import_escaped(
    bad: None, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = {r.name: r for r in registry.listing()}
    assert rows["importraises"].problem == "does not load"
    err = capsys.readouterr().err
    # Listed, not skipped: the warning said "skipped" above the row that listed it.
    assert r"import boom \x1b]0;pwned\x07; listed as not loading" in err and "\x1b" not in err


def test_plugin_calls_in_threads_at_once_put_the_real_streams_back() -> None:
    # The server plays bots in threads: the call that began first may end first, and the
    # one still running must not put back the sink it found.
    import sys
    import threading

    from termsnake.solvers.plugins import quietly

    real = (sys.stdout, sys.stderr)
    began = [threading.Event(), threading.Event()]
    go = [threading.Event(), threading.Event()]

    def call(i: int) -> None:
        began[i].set()
        go[i].wait(5)

    threads = [threading.Thread(target=quietly, args=(call, i)) for i in (0, 1)]
    for i in (0, 1):
        threads[i].start()
        began[i].wait(5)
    for i in (0, 1):
        go[i].set()
        threads[i].join(5)
    assert (sys.stdout, sys.stderr) == real


@pytest.mark.parametrize("name", ["doomname", "exitname"])
def test_a_name_or_played_that_raises_anything_is_the_entry_point_s_name(
    bad: None, name: str
) -> None:
    # A BaseException of its own, or SystemExit, from these got past the guard: a traceback,
    # or (SystemExit(0)) termsnake ended silently with status 0.
    solver = create(name)
    assert solver.name == name
    assert getattr(solver, "played", None) == ""
    g = game()
    play(g, solver, max_steps=3)
    assert g.steps == 3


def test_an_overlay_that_exits_is_dropped(bad: None) -> None:
    # SystemExit(4) from it ended a watched game as "quit", with exit status 4.
    g = game()
    solver = create("exitoverlay")
    solver.setup(g)
    assert solver.overlay(g) == {}


def test_a_plugin_going_by_a_built_in_s_name_goes_by_its_own_entry_point_s(bad: None) -> None:
    # "Best" was credited with its scores, and written as the solver of its replays.
    assert create("namebest").name == "namebest"
    assert create("ctlname").name.startswith("ctl")  # any other name of its own is kept


def test_a_dask_worker_s_game_whose_bot_raises_keyboardinterrupt_is_lost(bad: None) -> None:
    # No Ctrl-C reaches a Dask worker's game (it plays in a thread): the bot raised it.
    spec = LevelSpec("size", "6x6", 3)
    records = []
    task, kit = GameTask("kbimove", spec, 1, False), Kit.read([spec], [])
    thread = threading.Thread(target=lambda: records.append(play_apart(task, kit)))
    thread.start()
    thread.join()
    [record] = records
    assert record.error is None and record.outcome is Outcome.DIED
    assert record.cause == "plugin kbimove raised KeyboardInterrupt"


class Interrupting:
    """A plugin during whose calls a KeyboardInterrupt comes: its own, or a Ctrl-C's (SIGINT
    sent to the process, or one it raises while it handles that)."""

    name = "interrupting"

    def __init__(self, how: str, *, in_setup: bool = False) -> None:
        self.how = how
        self.in_setup = in_setup

    def setup(self, game: Game) -> None:
        if self.in_setup:
            self.next_direction(game)

    def next_direction(self, game: Game) -> Direction:
        if self.how == "sigint":
            signal.raise_signal(signal.SIGINT)
        elif self.how == "sigint, then its own":
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                raise KeyboardInterrupt("cleaned up") from None
        elif self.how == "sigint, then an error":
            try:
                signal.raise_signal(signal.SIGINT)
            except KeyboardInterrupt:
                raise RuntimeError("no ctrl-c for me") from None
        raise KeyboardInterrupt

    def overlay(self, game: Game) -> dict[Point, str]:
        self.next_direction(game)
        return {}


@pytest.fixture
def ctrl_c_handled() -> Iterator[None]:
    """SIGINT's handler as the ``termsnake`` command has it."""
    with signal_handlers({signal.SIGINT: ctrl_c}):
        yield


def test_a_keyboardinterrupt_a_plugin_raises_itself_is_its_failure(ctrl_c_handled: None) -> None:
    # It was taken for the user's Ctrl-C: bench and play said "interrupted" and exited 130.
    with pytest.raises(SolverUnavailable) as info:
        Guarded(Interrupting("own", in_setup=True), "kbi").setup(game())
    assert str(info.value) == "plugin kbi could not set up: KeyboardInterrupt"
    guarded = Guarded(Interrupting("own"), "kbi")
    g = game()
    assert guarded.overlay(g) == {}
    assert play(g, guarded) is Outcome.DIED and g.cause == "plugin kbi raised KeyboardInterrupt"


# A plugin that turns the Ctrl-C into an error of its own lost one game a Ctrl-C, and bench
# went on to exit 0 with a row of deaths.
@pytest.mark.parametrize("how", ["sigint", "sigint, then its own", "sigint, then an error"])
def test_a_ctrl_c_during_a_plugins_call_still_ends_the_command(
    ctrl_c_handled: None, how: str
) -> None:
    guarded = Guarded(Interrupting(how, in_setup=True), "kbi")
    for call in (guarded.setup, guarded.next_direction, guarded.overlay):
        with pytest.raises(KeyboardInterrupt):
            call(game())


def test_a_keyboardinterrupt_in_a_thread_is_the_plugins(ctrl_c_handled: None) -> None:
    # The server plays each visit's bot in a thread of its own, where no Ctrl-C is raised: the
    # visit's thread died with a raw traceback on the server's stderr.
    played: list[Game] = []
    thread = threading.Thread(target=lambda: played.append(play_to_end(Interrupting("own"))))
    thread.start()
    thread.join()
    assert played and played[0].cause == "plugin kbi raised KeyboardInterrupt"


def play_to_end(solver: object) -> Game:
    g = game()
    play(g, Guarded(solver, "kbi"))
    return g


def test_where_python_s_own_handler_holds_sigint_a_keyboardinterrupt_is_taken_for_ctrl_c() -> None:
    # Outside the termsnake command (termsnake as a library) no one can tell the two apart.
    with (
        signal_handlers({signal.SIGINT: signal.default_int_handler}),
        pytest.raises(KeyboardInterrupt),
    ):
        Guarded(Interrupting("own"), "kbi").next_direction(game())


class Upward:
    """A plugin written before has_plan was part of the interface: it goes up, and draws no
    plan."""

    name = "upward"

    def setup(self, game: Game) -> None:
        pass

    def next_direction(self, game: Game) -> Direction:
        return Direction.UP

    def overlay(self, game: Game) -> dict[Point, str]:
        return {}


class NoPlan(Upward):
    """One that says it has no plan to show (PlanShowing)."""

    has_plan = False


class BrokenHasPlan(Upward):
    """One whose has_plan raises."""

    @property
    def has_plan(self) -> bool:
        raise ValueError("boom")


def offers_c(solver: object) -> bool:
    """Whether the help of a watched game offers `c` for the bot's plan."""
    lines = help_for(KEY_PRESETS["default"], solver)  # type: ignore[arg-type]
    return any("c shows the bot's plan" in line for line in lines)


def test_the_help_offers_c_for_a_plugins_plan_unless_it_says_it_has_none() -> None:
    # A plugin's has_plan was not looked at behind its guard: `c` was offered all the same.
    assert not offers_c(Guarded(NoPlan(), "noplan"))
    assert offers_c(Guarded(Upward(), "upward")) and offers_c(Guarded(BrokenHasPlan(), "b"))
    g = game()
    play(g, Guarded(Upward(), "upward"))  # the old plugin plays as it did
    assert g.outcome is Outcome.DIED and g.cause == "left the board"


def test_the_help_offers_no_c_for_an_engine_or_the_network() -> None:
    # `c` was offered for their plan, and showed nothing: neither has one.
    assert not offers_c(EngineSolver("./mybot")) and not offers_c(create("neuro"))
    assert offers_c(create("greedy"))


def test_a_signal_while_a_plugins_module_loads_ends_as_that_signal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Python 3.11 wraps it in a RuntimeError, which the guard took for the plugin's failure to
    # import: bench went on without it and exited 0.
    make_dist(tmp_path, "ibot", {"ibot": "interrupted_plugin:Bot"})
    (tmp_path / "interrupted_plugin.py").write_text(INTERRUPTED_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "interrupted_plugin", raising=False)
    registry.plugins.cache_clear()
    try:
        with pytest.raises(Terminated):
            registry.create("ibot")
    finally:
        registry.plugins.cache_clear()
        sys.modules.pop("interrupted_plugin", None)
