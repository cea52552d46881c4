"""Plugins found through entry points: lazy, and a broken or clashing one is skipped aloud."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from plugin_dist import make_dist

from termsnake.commands import cli
from termsnake.formats.replay import load_replay
from termsnake.solvers import registry
from termsnake.solvers.plugins import PluginError, discover


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on the path to install packages in; the plugins are looked up afresh (an
    earlier test in this process may have found them without these)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    registry.plugins.cache_clear()
    yield tmp_path
    registry.plugins.cache_clear()


def test_a_plugin_is_found_without_being_imported(site: Path) -> None:
    make_dist(site, "circlebot", {"circler": "circlebot_mod:Circler"}, module="circlebot_mod")
    plugins = discover({"greedy"})
    assert plugins["circler"].source == "circlebot 1.0"
    assert "circlebot_mod" not in sys.modules
    solver = plugins["circler"].load()()
    assert solver.name == "circler"
    assert "circlebot_mod" in sys.modules
    del sys.modules["circlebot_mod"]


def test_a_plugin_that_fails_to_import_says_so_in_one_line(site: Path) -> None:
    make_dist(site, "brokenbot", {"broken": "no_such_module_here:Bot"})
    plugin = discover(set())["broken"]
    with pytest.raises(PluginError) as info:
        plugin.load()
    message = str(info.value)
    assert "\n" not in message
    assert "plugin 'broken'" in message and "brokenbot 1.0" in message
    assert "ModuleNotFoundError" in message


def test_a_target_that_names_no_module_says_so(site: Path) -> None:
    # Python's own load() raised "AttributeError: 'NoneType' object has no attribute 'group'".
    make_dist(site, "oddbot", {"odd": "not a target"})
    with pytest.raises(PluginError, match=r"plugin 'odd' \(not a target, from oddbot 1.0\) does"):
        discover(set())["odd"].load()


def test_a_clash_with_a_builtin_is_warned_and_skipped(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dist(site, "greedier", {"greedy": "x:Y", "fine": "x:Z"})
    plugins = discover({"greedy"})
    assert "greedy" not in plugins and "fine" in plugins
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "termsnake: warning: plugin 'greedy' (x:Y, from greedier 1.0) has the name of a "
        "built-in solver; skipped"
    ]


def test_a_name_that_ai_could_not_take_is_warned_and_skipped(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # neuro:x (read as a weights file) and a,b (split by bench) were listed, and could not be had;
    # "sp ace" was listed and played, where register() refused "my bot" as not one word; bench's
    # --ai "it's,greedy" read the comma as quoted.
    odd = ["neuro:x", "exec:y", "a,b", "sp ace", "it's", 'a"b', "a\\b", "evil\x1b[31mred"]
    make_dist(site, "odd", {**{name: "x:Y" for name in odd}, "fine": "x:W"})
    plugins = discover(set())
    # Only this test's names: a plugin installed beside termsnake is found too.
    assert [name for name in plugins if name in (*odd, "fine")] == ["fine"]
    err = capsys.readouterr().err
    for name in odd:
        assert f"plugin {name!r} (" in err  # escaped, as repr shows it
    assert "\x1b" not in err
    said = "has a name --ai cannot take (a solver name is one word, without : , ' \" \\ or a "
    assert err.count(said + "control character); skipped") == len(odd)


def test_a_name_claimed_by_two_packages_is_skipped(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_dist(site, "one", {"twin": "a:B"})
    make_dist(site, "two", {"twin": "c:D"})
    assert "twin" not in discover(set())
    assert "claimed by more than one package (one 1.0, two 1.0)" in capsys.readouterr().err


def test_a_clash_is_warned_once_whatever_the_jobs(
    site: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    # Each worker process looks the plugins up again: with --jobs 2 the warning came 3 times.
    make_dist(
        site, "clashy", {"greedy": "circlebot_mod:Circler", "circler": "circlebot_mod:Circler"},
        module="circlebot_mod",
    )  # fmt: skip
    argv = ["bench", "--ai", "circler", "--size", "4x4", "--games", "8", "--jobs", "2"]
    assert cli.main(argv) == 0
    err = capfd.readouterr().err  # the workers' lines too
    assert err.count("termsnake: warning: plugin 'greedy'") == 1


def test_bench_replays_name_a_plugin_by_its_own_name_as_a_watched_game_s_do(
    site: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The entry point is "mybot"; the solver's own name is "circler" (README, Plugins).
    make_dist(site, "mybotdist", {"mybot": "mybot_own:Circler"}, module="mybot_own")
    args = ["bench", "--ai", "mybot", "--size", "4x4", "--games", "1", "--json"]
    assert cli.main([*args, "--record-dir", str(site / "games")]) == 0
    assert json.loads(capsys.readouterr().out)[0]["solver"] == "mybot"  # the name asked for
    replay = load_replay(site / "games" / "mybot-open-4x4-len1-seed1.json")
    assert replay.solver == registry.create("mybot").name == "circler"
    del sys.modules["mybot_own"]
