"""The installed ``termsnake`` in a real pseudo-terminal: keys in, screen out, terminal restored."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pty_harness import Pty, quiet_env, termsnake_command

from termsnake.commands import cli
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify

pytestmark = pytest.mark.terminal


def test_play_with_keys_quit_and_see_the_summary(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "20x10", "--seed", "3", "--speed", "4")
    t.wait_for("a direction key starts")
    head = t.find("@")
    assert head is not None
    t.child.send(b"\xff\xe9\x80")  # Latin-1 keys, and a cut sequence: ignored, not read as q
    t.send("s")  # down: starts the game
    t.wait_for(lambda: (pos := t.find("@")) is not None and pos[1] > head[1])
    t.send("\x1b[C")  # right arrow
    moved = t.find("@")
    assert moved is not None
    t.wait_for(lambda: (pos := t.find("@")) is not None and pos[0] > moved[0])
    t.send("k")  # vi up
    t.send("q")
    assert t.wait_exit() == 0
    screen = t.text()
    assert "Game over: quit" in screen
    assert "Moves (" in screen and "D" in screen.split("Moves (")[1]
    assert "seed 3" in screen and "Traceback" not in screen
    assert t.restored()


def test_space_pauses_and_a_direction_steps_once(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "20x10", "--seed", "1", "--speed", "2")
    t.wait_for("a direction key starts")
    t.send(" ")  # start
    t.send(" ")  # pause at once
    t.wait_for("PAUSED")
    steps_before = t.text().split("steps ")[1].split()[0]
    t.send("w")
    t.wait_for(f"steps {int(steps_before) + 1} ")
    t.send("q")
    assert t.wait_exit() == 0


def test_sigterm_restores_the_terminal(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "20x10", "--seed", "1")
    t.wait_for("a direction key starts")
    t.child.kill(signal.SIGTERM)
    assert t.wait_exit() == 128 + signal.SIGTERM
    assert t.restored()
    assert "Game over: quit" in t.text()


def test_sighup_and_ctrl_c_restore_the_terminal(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "20x10", "--seed", "1")
    t.wait_for("a direction key starts")
    t.send("\x03")
    assert t.wait_exit() == 130
    assert t.restored()
    t = run("--size", "20x10", "--seed", "1")
    t.wait_for("a direction key starts")
    t.child.kill(signal.SIGHUP)
    assert t.wait_exit() == 128 + signal.SIGHUP
    assert t.restored()


def test_ctrl_backslash_restores_the_terminal_and_keeps_the_replay(  # type: ignore[no-untyped-def]
    run, tmp_path: Path
) -> None:
    # Ctrl-\ sends SIGQUIT, whose default would leave the alternate screen and lose the game.
    t = run("--size", "20x10", "--seed", "1", "--record", str(tmp_path / "q.json"))
    t.wait_for("a direction key starts")
    t.send("d")
    t.wait_steps(2)
    t.send("\x1c")
    assert t.wait_exit() == 128 + signal.SIGQUIT
    assert t.restored()
    assert '"outcome": "quit"' in (tmp_path / "q.json").read_text()


def test_ctrl_s_does_not_stop_the_game(run) -> None:  # type: ignore[no-untyped-def]
    # cbreak leaves XON/XOFF on: Ctrl-S would stop the output, and the game behind it.
    t = run("--ai", "hamilton", "--size", "20x10", "--seed", "2", "--speed", "40")
    t.wait_steps(1)
    t.send("\x13")
    t.wait_steps(40)
    t.send("q")
    assert t.wait_exit() == 0


def test_tty_modes_are_restored(tmp_path: Path) -> None:
    # Run inside a shell that prints the line discipline after termsnake has gone.
    cmd = f"'{termsnake_command()}' --size 20x10; stty -a"
    t = Pty(["-c", cmd], tmp_path, command="/bin/sh")
    try:
        t.wait_for("a direction key starts")
        t.send("q")
        t.wait_exit()
        out = t.raw.decode(errors="replace")
        modes = out[out.rfind("speed") :]
        assert " icanon" in modes and " echo " in modes and " ixon" in modes, modes
    finally:
        t.close()


def test_a_terminal_that_says_0x0_is_taken_as_lines_and_columns(tmp_path: Path) -> None:
    cmd = f"stty rows 0 cols 0; LINES=24 COLUMNS=80 '{termsnake_command()}' --size 8x4"
    t = Pty(["-c", cmd], tmp_path, command="/bin/sh")
    try:
        t.wait_for("a direction key starts")
        assert sum(line.count("#") for line in t.screen.display) == 2 * 18 + 2 * 4
        t.send("q")
        assert t.wait_exit() == 0
    finally:
        t.close()


def test_too_small_pauses_and_goes_on_when_enlarged(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "30x15", "--seed", "2", cols=40, rows=10)
    t.wait_for("need 32x18, have 40x10")
    t.resize(80, 24)
    t.wait_for("a direction key starts")
    assert t.find("@") is not None
    t.send("q")
    assert t.wait_exit() == 0


def test_narrow_terminal_uses_one_column_per_cell(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--size", "30x15", "--seed", "2", cols=50, rows=24)
    t.wait_for("a direction key starts")
    assert "#" * 32 in t.text() and "#" * 33 not in t.text()
    t.send("q")
    assert t.wait_exit() == 0


def test_not_a_terminal_is_a_one_line_error(tmp_path: Path) -> None:
    r = subprocess.run(
        [termsnake_command(), "--size", "10x10"],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        stdin=subprocess.DEVNULL,
        timeout=30,
    )
    assert r.returncode == 2
    assert "not a terminal" in r.stderr and "ssh -t" in r.stderr and "termsnake bench" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.stderr


def main_in(home: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> int:
    """``termsnake ARGS`` run in this process (``cli.main``), in ``home`` with the environment
    the installed command gets here (:func:`quiet_env`): for the refusals that come before any
    terminal is needed. The installed command's own one-line refusals are
    ``test_not_a_terminal_is_a_one_line_error``'s and
    ``test_a_bad_argument_is_a_one_line_error_of_the_installed_command``'s."""
    for name, value in quiet_env(home).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(home)
    return cli.main(list(args))


def test_unknown_solver_lists_the_known_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main_in(tmp_path, monkeypatch, "--ai", "nosuch") == 2
    err = capsys.readouterr().err
    assert "nosuch" in err and "hamilton" in err and "greedy" in err
    assert "Traceback" not in err


def test_watch_a_bot_move_pause_step_and_quit(run) -> None:  # type: ignore[no-untyped-def]
    t = run("--ai", "hamilton", "--size", "12x8", "--seed", "5", "--speed", "20")
    t.wait_for("steps ")
    first = t.find("@")
    t.wait_for(lambda: t.find("@") not in (None, first))
    t.send(" ")
    t.wait_for("PAUSED")
    steps = int(t.text().split("steps ")[1].split()[0])
    t.send("n")
    t.wait_for(f"steps {steps + 1} ")
    t.send("c")  # the plan: the cycle drawn as arrows under the snake
    t.wait_for(lambda: sum(t.text().count(a) for a in "<>^v") > 40)
    t.send("q")
    assert t.wait_exit() == 0
    assert "Game over: quit" in t.text() and "Moves (" in t.text()
    assert t.restored()


def test_a_board_without_a_cycle_is_refused_clearly(tmp_path: Path) -> None:
    # On a terminal: off one, the terminal is refused first, before the bot's set-up.
    t = Pty(["--ai", "hamilton", "--size", "7x7"], tmp_path)
    try:
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    said = bytes(t.raw).decode()
    assert code == 2 and "Traceback" not in said
    assert "odd number of free cells" in said and "--ai best" in said
    assert "\n" not in said.strip()  # one line (the "preparing" line was erased by a \r)


def test_record_then_the_replay_reproduces_the_game(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from termsnake.core.game import Outcome

    path = tmp_path / "game.json"
    t = run(
        "--ai",
        "best",
        "--size",
        "6x4",
        "--length",
        "1",
        "--seed",
        "9",
        "--speed",
        "300",
        "--record",
        str(path),
    )
    t.wait_for("WON")
    t.send(" ")
    assert t.wait_exit() == 0
    assert "Replay saved to" in t.text()
    replay = load_replay(path)
    assert replay.solver == "best" and replay.seed == 9
    game = verify(replay)
    assert game.outcome is Outcome.WON and game.length == 24


def test_record_never_overwrites_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine.json"
    mine.write_text("my precious replay")
    assert main_in(tmp_path, monkeypatch, "--record", str(mine)) == 2
    assert "exists" in capsys.readouterr().err
    assert mine.read_text() == "my precious replay"


@pytest.mark.parametrize(
    ("name", "said"), [("a" * 300, "too long"), ("new/", "not a folder"), ("new/.", "not a folder")]
)
def test_a_record_name_no_file_can_have_is_one_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    said: str,
) -> None:
    assert main_in(tmp_path, monkeypatch, "--record", name) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1, err
    assert err.startswith(f"termsnake: --record {name[:3]}") and said in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs /proc (Linux)")
def test_a_record_path_in_a_folder_no_file_can_be_made_in_is_refused_before_the_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # /proc passes the permission check, even root's; the game was played, then not saved.
    args = ("--size", "8x6", "--seed", "1", "--record", "/proc/nope.json")
    assert main_in(tmp_path, monkeypatch, *args) == 2
    assert capsys.readouterr().err == (
        "termsnake: --record /proc/nope.json: the system lets nothing new be made in '/proc'\n"
    )


@pytest.mark.parametrize(("key", "code"), [("\x03", 130), ("q", 0)])
def test_ctrl_c_or_q_ends_a_game_at_once_while_an_engine_thinks(  # type: ignore[no-untyped-def]
    run, tmp_path: Path, key: str, code: int
) -> None:
    # The wait for the engine's move went on to its time limit (here 30 s) before Ctrl-C, q or
    # SIGTERM was heard, and after a signal the game was lost for the engine instead of quit.
    script, asked = tmp_path / "thinker.py", tmp_path / "asked"
    script.write_text(
        "import json,sys,time\nsys.stdin.readline()\n"
        "print(json.dumps({'name': 'thinker'}), flush=True)\nsys.stdin.readline()\n"
        f"open({str(asked)!r}, 'w').close()\ntime.sleep(60)\n"
    )
    path = tmp_path / "g.json"
    engine = f"exec:{shlex.quote(sys.executable)} {shlex.quote(str(script))}"
    t = run("--ai", engine, "--engine-timeout", "30", "--size", "6x6", "--record", str(path))
    t.wait_for(lambda: asked.exists())  # the engine has been asked for its first move
    began = time.monotonic()
    t.send(key)
    assert t.wait_exit(5) == code
    assert time.monotonic() - began < 3 and t.restored()
    assert '"outcome": "quit"' in path.read_text()


def test_a_taken_record_path_is_refused_before_the_bot_is_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    mine, started = tmp_path / "mine.json", tmp_path / "started"
    mine.write_text("my precious replay")
    engine = f"{shlex.quote(sys.executable)} -c \"open({str(started)!r}, 'w')\""
    assert main_in(tmp_path, monkeypatch, "--ai", f"exec:{engine}", "--record", str(mine)) == 2
    assert "exists" in capsys.readouterr().err
    assert not started.exists()


def test_a_hang_up_still_keeps_the_replay_and_the_score(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import os

    from termsnake.core.game import Outcome
    from termsnake.formats.replay import load_replay
    from termsnake.formats.verify import verify

    # A person's game (a bot's stopped before its end is not scored), on a torus: going right
    # for ever, its snake neither dies nor stalls before the hang-up.
    path = tmp_path / "dropped.json"
    t = run("--size", "10x10", "--wrap", "--seed", "1", "--speed", "30", "--record", str(path))
    t.wait_for("a direction key starts")
    t.send("d")
    t.wait_for(lambda: re.search(r"steps \d\d", t.text()) is not None)  # ten moves or more
    os.close(t.child.child_fd)  # the SSH connection drops: the kernel sends SIGHUP
    deadline = time.monotonic() + 10
    while t.child.isalive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not t.child.isalive()
    game = verify(load_replay(path))
    assert game.outcome is Outcome.QUIT and game.steps >= 10
    scores = (tmp_path / "data" / "termsnake" / "scores.json").read_text()
    assert '"player": "you"' in scores


def test_a_game_with_hang_ups_ignored_still_ends_as_its_window_closes(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # bench and train keep such an ignored SIGHUP (nohup's), and run on; a game has nothing
    # left to do without its terminal, and ends at the hang-up as ever, its replay kept.
    path = tmp_path / "dropped.json"
    t = run("--ai", "hamilton", "--size", "10x10", "--record", str(path), ignored=[signal.SIGHUP])
    t.wait_steps(1)
    os.close(t.child.child_fd)  # the window closes: the kernel sends SIGHUP
    deadline = time.monotonic() + 10
    while t.child.isalive() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not t.child.isalive()
    assert t.child.exitstatus == 128 + signal.SIGHUP
    assert '"outcome": "quit"' in path.read_text()


def test_a_file_made_during_the_game_is_not_overwritten(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]

    path = tmp_path / "game.json"
    t = run("--ai", "hamilton", "--size", "6x6", "--speed", "5", "--record", str(path))
    t.wait_steps(1)  # the game is under way: the path was checked and found free
    path.write_text("made meanwhile")
    t.send("q")
    assert t.wait_exit() == 0
    assert path.read_text() == "made meanwhile"
    # Whitespace dropped: the line names tmp_path, so it wraps where a long TMPDIR makes it.
    assert "waskept" in "".join(t.text().split())
    assert verify(load_replay(tmp_path / "game-2.json")).steps >= 1


BAD_ARGUMENTS = [
    (["--ai", ""], "unknown solver ''"),
    (["--ai", "exec:''"], "the engine command \"''\" names no program: its first word is empty"),
    (["--size", "2x1", "--length", "2"], "leaves no free cell"),
    (["--size", "8x8", "--length", "9"], "does not fit"),
    (["--seed", "-1"], "at least 0"),
    (["--speed", "5000"], "from 0.1 to 1000"),
    (["--level", "classic", "--length", "30"], "length 30 (--length) does not fit"),
    (["--level", ""], "--level: give a preset name"),
    (["--record", ""], "--record: give the name of a new file"),
]


def test_a_bad_argument_is_a_one_line_error_of_the_installed_command(tmp_path: Path) -> None:
    args, expected = BAD_ARGUMENTS[0]
    r = subprocess.run(
        [termsnake_command(), *args],
        capture_output=True,
        text=True,
        env=quiet_env(tmp_path),
        timeout=30,
    )
    assert r.returncode == 2
    assert expected in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


@pytest.mark.parametrize(("args", "expected"), BAD_ARGUMENTS)
def test_bad_arguments_are_one_line_errors(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    expected: str,
) -> None:
    for name, value in quiet_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    assert cli.main(args) == 2
    said = capsys.readouterr()
    assert said.out == ""
    assert expected in said.err and len(said.err.strip().splitlines()) == 1, said.err


def test_a_bad_level_in_the_config_says_where_it_came_from(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "config" / "termsnake"
    config.mkdir(parents=True)
    (config / "config.toml").write_text('level = "nosuch"\n')
    assert main_in(tmp_path, monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        """config.toml:1: error: level = "nosuch": no preset or file named 'nosuch'; """
        "presets: classic, cross, dead-end, maze, open-12x12, open-20x20, open-8x8, pillars, "
        "rooms, spiral, torus (see `termsnake levels`)\n"
    )
    assert len(err.splitlines()) == 1


def test_a_level_name_with_unusual_spaces_plays(run, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    level = tmp_path / "nbsp.txt"
    level.write_text("name: two\u00a0rooms\n\n########\n#..>...#\n#......#\n########\n")
    t = run("--level", str(level), "--seed", "1")
    t.wait_for("a direction key starts")
    t.send("s")
    t.wait_steps(1)
    t.send("q")
    assert t.wait_exit() == 0
    assert "Game over" in t.text()
