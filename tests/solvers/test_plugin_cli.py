"""Misbehaving plugins through the installed `termsnake`: one escaped line or a lost game, never
a traceback, and a slow one does not keep the keys waiting."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import pytest
from bad_plugin_dist import make_bad_dist
from plugin_dist import make_dist
from pty_harness import Pty, quiet_env, run_plain

from termsnake.formats.text import columns
from termsnake.statusline import ERASE_BELOW


def with_plugins(home: Path) -> dict[str, str]:
    """An environment where the misbehaving plugins are installed."""
    site = home / "site"
    site.mkdir(exist_ok=True)
    make_bad_dist(site)
    env = quiet_env(home)
    paths = [str(site), *filter(None, [env.get("PYTHONPATH")])]
    return {**env, "PYTHONPATH": os.pathsep.join(paths)}


def termsnake(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_plain(home, *args, env=with_plugins(home))


def assert_clean(text: str) -> None:
    assert "Traceback" not in text and "\x1b" not in text and "\x07" not in text


@pytest.mark.parametrize(
    ("args", "said"),
    [
        pytest.param(
            ["--ai", "explodes", "--size", "6x6"],
            "could not be made: RuntimeError",
            marks=pytest.mark.slow,  # bench's line above is the same check
        ),
        (["--ai", "setupraises", "--size", "6x6"], r"could not set up: RuntimeError: setup boom"),
        (["--ai", "nosuch"], r"known solvers: astar, "),
    ],
)
def test_a_plugin_that_cannot_play_is_one_escaped_line_and_exit_2(
    tmp_path: Path, args: list[str], said: str
) -> None:
    # On a terminal: off one, that is said first, before the bot is made or set up.
    t = Pty(args, tmp_path, env=with_plugins(tmp_path))
    try:
        code = t.wait_exit(timeout=30)
    finally:
        t.close()
    # The "preparing" line, erased (the status line's own escape: nothing of the plugin's), then
    # the error.
    shown = bytes(t.raw).decode().replace(ERASE_BELOW, "").strip()
    assert code == 2
    assert said in shown and "\n" not in shown
    assert_clean(shown)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("explodes", r"could not be made: RuntimeError: factory exploded \x1b"),
        ("importraises", r"failed to import: RuntimeError: import boom \x1b]"),
    ],
)
def test_bench_says_in_one_escaped_line_that_a_plugin_cannot_be_made(
    tmp_path: Path, name: str, said: str
) -> None:
    # No row for it, as for a board it refuses; with nothing else to measure, exit 2.
    done = termsnake(tmp_path, "bench", "--ai", name, "--size", "6x6", "--games", "1")
    assert done.returncode == 2
    first, last = done.stderr.splitlines()
    assert first.startswith(f"termsnake bench: {name}: unavailable: plugin '{name}'")
    assert said in first
    assert last == "termsnake bench: error: nothing could be measured"
    assert_clean(done.stderr)


def test_bench_counts_a_failing_plugin_as_lost_games_and_keeps_its_prints_off_stdout(
    tmp_path: Path,
) -> None:
    done = termsnake(
        tmp_path, "bench", "--ai", "moveraises,seven,exits,printer,mutator,setupraises",
        "--games", "2", "--size", "6x6", "--json",
    )  # fmt: skip
    assert done.returncode == 0
    rows = {row["solver"]: row for row in json.loads(done.stdout)}
    assert [rows[s]["deaths"] for s in ("moveraises", "seven", "exits")] == [2, 2, 2]
    assert rows["moveraises"]["mean_steps"] == 3.0
    assert rows["printer"]["games"] == rows["mutator"]["games"] == 2
    assert r"unavailable: plugin setupraises could not set up" in done.stderr
    assert_clean(done.stdout + done.stderr)


def test_bench_says_game_by_game_how_a_plugin_broke_down_escaped(tmp_path: Path) -> None:
    # As it does for an engine; a plugin's lost games went by without a word.
    done = termsnake(
        tmp_path, "bench", "--ai", "moveraises,seven,ownfailure", "--games", "2", "--size", "6x6"
    )
    assert done.returncode == 0
    said = {
        "moveraises": r"plugin moveraises raised ZeroDivisionError: move boom \x1b]0;title\x07",
        "seven": "plugin seven answered 7, not a direction",
        "ownfailure": r"gave up \x1b[2J",
    }
    assert done.stderr.splitlines() == [
        f"termsnake bench: {name} on open-6x6 (seed {seed}): {cause}"
        for name, cause in said.items()
        for seed in (1, 2)
    ]
    assert_clean(done.stderr)


def test_solvers_lists_plugins_aligned_and_a_name_ai_cannot_take_escaped(tmp_path: Path) -> None:
    env = with_plugins(tmp_path)
    make_dist(tmp_path / "site", "evilbots", {"evil\x1b[31mred": "badbots:Walker"})
    done = run_plain(tmp_path, "solvers", env=env)
    assert done.returncode == 0
    assert_clean(done.stdout + done.stderr)
    # It was listed, escaped; register() refused such a name: one rule for both now.
    assert done.stderr.splitlines()[0] == (
        "termsnake: warning: plugin 'evil\\x1b[31mred' (badbots:Walker, from evilbots 1.0) has "
        "a name --ai cannot take (a solver name is one word, without : , ' \" \\ or a control "
        "character); skipped"
    )
    lines = done.stdout.splitlines()
    assert not any(x.startswith("evil") for x in lines)
    basic = next(x for x in lines if x.startswith("basic "))
    assert basic.index("badbots 1.0") == lines[0].index("termsnake")
    wide = next(x for x in lines if x.startswith("蛇蛇"))
    assert columns(wide[: wide.index("badbots 1.0")]) == lines[0].index("termsnake")
    # A 300-character name is shown whole on its own line; it does not push the others' out.
    assert lines[0].index("termsnake") < 30
    assert any(x.startswith("long" + "o" * 296 + "  badbots 1.0") for x in lines)


@pytest.mark.terminal
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("moveraises", r"plugin moveraises raised ZeroDivisionError: move boom"),
        # It ended the game as "quit", exit 130, as a Ctrl-C would.
        ("kbimove", "plugin kbimove raised KeyboardInterrupt"),
        # It ended the game as SIGTERM would, exit 143.
        ("termmove", "plugin termmove raised Terminated: SIGTERM"),
    ],
)
def test_watching_a_plugin_that_raises_ends_in_a_lost_game(
    tmp_path: Path, name: str, said: str
) -> None:
    p = Pty(
        ["--ai", name, "--size", "10x8", "--speed", "50"],
        tmp_path,
        env=with_plugins(tmp_path),
    )
    try:
        p.wait_for("DIED")
        p.send("x")
        assert p.wait_exit() == 0
        assert p.restored()
        text = p.text()
        assert f"Game over: died ({said}" in text
        assert "Traceback" not in text
    finally:
        p.close()


@pytest.mark.terminal
def test_a_bad_overlay_and_a_name_with_control_characters_are_drawn_safely(
    tmp_path: Path,
) -> None:
    env = with_plugins(tmp_path)
    p = Pty(["--ai", "badoverlay", "--size", "6x6"], tmp_path, env=env)
    try:
        p.wait_for("walker")
        p.send("c")
        p.wait_for(lambda: "+" in p.text())
        p.send("q")
        assert p.wait_exit() == 0 and "Traceback" not in p.text()
    finally:
        p.close()
    p = Pty(["--ai", "ctlname", "--size", "6x6"], tmp_path, env=env)
    try:
        p.wait_for(r"ctl\x1b[31mname\n2nd line")
        p.send("q")
        assert p.wait_exit() == 0 and "Traceback" not in p.text()
        assert "\x1b[31mname" not in bytes(p.raw).decode(errors="replace")
    finally:
        p.close()


@pytest.mark.terminal
def test_q_acts_after_the_move_of_a_slow_plugin_under_way(tmp_path: Path) -> None:
    # The plugin takes 0.3 s a move at 50 moves a second: q must not wait for ten of them.
    p = Pty(
        ["--ai", "sleeper", "--size", "6x6", "--speed", "50"], tmp_path, env=with_plugins(tmp_path)
    )
    try:
        p.wait_steps(1)
        sent = time.monotonic()
        p.send("q")
        assert p.wait_exit() == 0
        assert time.monotonic() - sent < 1.5
    finally:
        p.close()


@pytest.mark.terminal
def test_a_plugin_warning_comes_before_the_line_that_says_what_is_prepared(
    tmp_path: Path,
) -> None:
    # It came straight after "preparing ... board...", on the same line.
    env = with_plugins(tmp_path)
    make_dist(tmp_path / "site", "clashbot", {"greedy": "badbots:Walker"})
    p = Pty(["--ai", "badoverlay", "--size", "6x6", "--speed", "50"], tmp_path, env=env)
    try:
        p.wait_for("walker")  # the game is on: the status line names the bot
        p.send("q")
        assert p.wait_exit() == 0
    finally:
        p.close()
    raw = bytes(p.raw)
    warned = raw.index(b"termsnake: warning: ")
    assert b"clashbot" in raw[warned:] and warned < raw.index(b"preparing badoverlay")


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("name", "raised"),
    [("kbimove", "KeyboardInterrupt"), ("termmove", "Terminated: SIGTERM")],
    ids=["KeyboardInterrupt", "Terminated"],
)
def test_a_plugin_raising_a_signal_s_exception_loses_its_games_whatever_the_jobs(
    tmp_path: Path, jobs: str, name: str, raised: str
) -> None:
    # As its SystemExit does. A KeyboardInterrupt: with --jobs 1 the bench said "interrupted"
    # and exited 130 with no row at all; with --jobs 2 it was an error ("raised by the bot") and
    # exit 1. termsnake's own Terminated: "stopped by SIGTERM" and 143, or with --jobs 2 "a
    # worker process died (killed by SIGTERM)" and no row.
    done = termsnake(tmp_path, "bench", "--ai", f"{name},greedy", "--size", "6x6", "--games", "2",
                     "--jobs", jobs)  # fmt: skip
    assert done.returncode == 0
    assert done.stderr.splitlines() == [
        f"termsnake bench: {name} on open-6x6 (seed {seed}): plugin {name} raised {raised}"
        for seed in (1, 2)
    ]
    rows = {line.split()[0]: line.split() for line in done.stdout.splitlines()[1:]}
    assert rows[name][3:6] == ["2", "0", "2"] and rows["greedy"][3] == "2"
    assert_clean(done.stdout + done.stderr)
