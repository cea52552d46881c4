"""In a real pseudo-terminal: r on the final board plays again (``tui.runner``, ``commands.play``'s
``Games``), and the board sits in the middle of the terminal, drawn again after a resize."""

from __future__ import annotations

import shlex
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from engine_doubles import dead
from pty_harness import Pty

from termsnake.core.game import Game, Outcome
from termsnake.core.level import open_level
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify
from termsnake.tui.runner import Round, _Rounds
from termsnake.tui.session import Session

pytestmark = pytest.mark.terminal


def test_the_board_is_centred_on_a_big_terminal(run: Callable[..., Pty]) -> None:
    t = run("--size", "12x6", "--seed", "1", cols=120, rows=40)
    t.wait_for("a direction key starts")
    # 12 cells of 2 columns and a frame: 26x8, and the status line under it: 9 rows.
    left, top = (120 - 26) // 2, (40 - 9) // 2
    assert t.find("#") == (left, top)
    assert t.screen.display[top][left:].rstrip() == "#" * 26
    assert t.screen.display[top + 7][left:].rstrip() == "#" * 26
    # The status line is wider than the columns right of the board: it ends at the edge.
    status = t.screen.display[top + 8].rstrip()
    assert len(status) == 120 and status.lstrip().startswith("heading right")
    t.resize(60, 20)  # smaller: centred again, the old copy gone
    left, top = (60 - 26) // 2, (20 - 9) // 2
    t.wait_for(lambda: t.find("#") == (left, top))
    assert sum(line.count("#") for line in t.screen.display) == 2 * 26 + 2 * 6
    t.send("q")
    assert t.wait_exit() == 0
    assert t.restored()


def test_the_final_board_is_drawn_again_after_a_resize(run: Callable[..., Pty]) -> None:
    t = run("--size", "12x6", "--seed", "1", cols=80, rows=24)
    t.wait_for("a direction key starts")
    t.send("w")  # up, then on into the top wall
    t.wait_for("DIED: r plays again")
    t.resize(120, 40)
    left, top = (120 - 26) // 2, (40 - 9) // 2
    t.wait_for(lambda: t.find("#") == (left, top))
    t.resize(15, 6)  # too small: what it needs, then whole and centred again
    t.wait_for("need")
    t.resize(50, 12)
    left, top = (50 - 26) // 2, (12 - 9) // 2
    t.wait_for(lambda: t.find("#") == (left, top))
    assert sum(line.count("#") for line in t.screen.display) == 2 * 26 + 2 * 6
    assert "DIED: r plays again" in t.screen.display[top + 8]

    def gone() -> bool:
        # Keys in the final board's first half second are ignored: press x until one counts.
        t.send("x")
        return not t.child.isalive()

    t.wait_for(gone)
    assert t.wait_exit() == 0
    assert t.restored()


def test_r_on_a_bots_final_board_plays_again_and_every_game_is_kept(
    run: Callable[..., Pty], tmp_path: Path
) -> None:
    path = tmp_path / "g.json"
    args = ["--ai", "hamilton", "--size", "4x4", "--length", "1", "--seed", "5"]
    t = run(*args, "--speed", "1000", "--record", str(path))
    t.wait_for("WON: r plays again")
    t.send("r")
    # The second game redraws the whole screen, so its final board is sent anew.
    t.wait_for(lambda: bytes(t.raw).count(b"WON: r plays again") >= 2)
    t.send(" ")
    assert t.wait_exit() == 0
    assert t.restored()
    text = t.text()
    assert text.count("hamilton won!") == 2
    assert text.index("seed 5") < text.index("seed 6")
    assert text.count("Replay saved to") == 2 and "appeared" not in text
    first, second = load_replay(path), load_replay(tmp_path / "g-2.json")
    assert (first.seed, second.seed) == (5, 6)
    assert all(verify(r).outcome is Outcome.WON for r in (first, second))


def test_a_person_plays_again_and_the_exit_code_is_the_last_games(
    run: Callable[..., Pty],
) -> None:
    t = run("--size", "6x4", "--length", "1", "--seed", "7", "--speed", "20")
    t.wait_for("a direction key starts")
    t.send("d")  # straight on, off the board
    t.wait_for("DIED: r plays again")

    def started() -> bool:
        # Keys in the final board's first half second are ignored: press r until one counts.
        t.send("r")
        return "a direction key starts" in t.text()

    t.wait_for(started)
    t.child.kill(15)  # SIGTERM in the second game
    assert t.wait_exit() == 143
    assert t.restored()
    text = t.text()
    assert text.index("Game over: died") < text.index("Game over: quit")
    assert text.index("seed 7") < text.index("seed 8")


# An engine that moves up until its snake dies; in the game of seed 4 it names itself in a file
# (its first argument) and never says its name: a set-up that takes long.
SLOW_SECOND = (
    "import json,os,sys,time\ngame=json.loads(sys.stdin.readline())\n"
    "if game['seed']==4: open(sys.argv[1],'w').write(str(os.getpid()));time.sleep(60)\n"
    "print(json.dumps({'name':'up'}),flush=True)\n"
    "for line in sys.stdin: print(json.dumps({'move':'U'}),flush=True)"
)


@pytest.mark.parametrize("stop", ["\x03", "SIGTERM"])
def test_a_signal_while_the_next_game_is_set_up_ends_the_run_at_once(
    run: Callable[..., Pty], tmp_path: Path, stop: str
) -> None:
    # It waited for the bot's set-up (an engine's 10 s to say its name), the first game's
    # board up, saying nothing; then played a game of no move.
    pidfile = tmp_path / "engine.pid"
    bot = f"exec:{sys.executable} -c {shlex.quote(SLOW_SECOND)} {shlex.quote(str(pidfile))}"
    t = run("--ai", bot, "--size", "10x6", "--seed", "3", "--record", str(tmp_path / "g.json"))
    t.wait_for("DIED: r plays again")
    t.send("r")
    t.wait_for("DIED: starting the next game")
    t.wait_for(lambda: pidfile.exists() and pidfile.read_text() != "")
    asked = time.monotonic()
    if stop == "SIGTERM":
        t.child.kill(signal.SIGTERM)
    else:
        t.send(stop)
    assert t.wait_exit() == (143 if stop == "SIGTERM" else 130)
    assert time.monotonic() - asked < 5
    assert t.restored()
    assert t.text().count("Game over:") == 1 and "Replay saved to" in t.text()
    assert not (tmp_path / "g-2.json").exists()
    assert dead(int(pidfile.read_text()))


class _Shown:
    """A stand-in for a game's session on screen: what the signal handlers set on it."""

    def __init__(self) -> None:
        self.stop_signal: int | None = None
        self.suspend_requested = False
        self.seconds_played = 0.0
        self.speed = 8.0
        self.show_overlay = False


@pytest.mark.parametrize("earlier", [None, signal.SIGHUP])
def test_a_signal_the_next_game_has_as_it_goes_on_screen_is_kept(earlier: int | None) -> None:
    # The handlers reach the new game as soon as it is on screen; what the old game carried
    # over must not wipe out a signal or Ctrl-Z that came to the new one meanwhile.
    shown: list[_Shown] = []

    def start(r: Round, speed: float, overlay: bool) -> Session:
        shown.append(_Shown())
        if len(shown) == 2:  # as if they came just after the new game went on screen
            shown[1].stop_signal = signal.SIGTERM
            shown[1].suspend_requested = True
        return shown[-1]  # type: ignore[return-value]

    rounds = _Rounds(Round(Game(open_level(6, 6), seed=1)), start, 8.0, lambda p: None)
    rounds.again = lambda played: Round(Game(open_level(6, 6), seed=2))
    shown[0].stop_signal = earlier
    assert rounds.next_round()
    assert rounds.session is shown[1]  # type: ignore[comparison-overlap]
    assert shown[1].stop_signal == (earlier or signal.SIGTERM)
    assert shown[1].suspend_requested
