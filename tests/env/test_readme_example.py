"""The README's Gymnasium example runs as written, and the replay it saves is one termsnake
replay takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify

README = Path(__file__).resolve().parents[2] / "README.md"


def gymnasium_example() -> str:
    """The first Python block of the README's "A Gymnasium environment" section."""
    section = README.read_text(encoding="utf-8").split("### A Gymnasium environment", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "the section has no python block"
    return found.group(1)


def test_the_readme_example_runs_and_saves_a_replay_that_checks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # It told readers replay() gave the file; it gives a Replay, and only to_json() is text.
    monkeypatch.chdir(tmp_path)
    exec(compile(gymnasium_example(), str(README), "exec"), {})
    replay = load_replay(tmp_path / "episode.json")
    assert replay.seed == 7 and replay.solver == "env"
    verify(replay)
