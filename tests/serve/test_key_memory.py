"""The key presets the server keeps for players' next visits: stored and recalled, the names
kept bounded, and a file that is damaged, huge, odd or not a file at all read as nothing stored
with one line in the log, set aside (said so) or left alone, never overwritten unsaid."""

from __future__ import annotations

import fcntl
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from termsnake.formats.scores import ScoreStore
from termsnake.serve.hub import Hub
from termsnake.serve.keymemory import FORMAT, LOCK_TIMEOUT, MAX_BYTES, NAME, KeyMemory, to_json
from termsnake.serve.limits import MAX_KEPT_PRESETS, SHUTDOWN_WAIT
from termsnake.serve.trouble import MAX_HELD, Trouble


@pytest.fixture
def said() -> Iterator[list[str]]:
    """The server log's lines, as they come (a list filled as the test runs)."""
    lines: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            assert record.exc_info is None  # never a traceback
            lines.append(record.getMessage())

    handler = Keep()
    logger = logging.getLogger("termsnake.serve")
    logger.addHandler(handler)
    yield lines
    logger.removeHandler(handler)


def stored(path: Path) -> dict[str, str]:
    players: dict[str, str] = json.loads(path.read_text(encoding="utf-8"))["players"]
    return players


def test_a_choice_is_recalled_the_newest_last_and_default_is_no_entry(
    tmp_path: Path, said: list[str]
) -> None:
    path = tmp_path / "key-presets.json"
    memory = KeyMemory(path)
    assert memory.recall("ada") is None  # no file yet: nothing to say
    memory.remember("ada", "azerty")
    memory.remember("bob", "dvorak")
    memory.remember("ada", "dvorak")
    again = KeyMemory(path)  # another server's, or the next run's
    recalled = [again.recall(name) for name in ("ada", "bob", "cy")]
    assert recalled == ["dvorak", "dvorak", None]
    assert list(stored(path)) == ["bob", "ada"]  # oldest choice first
    memory.remember("bob", "default")
    assert stored(path) == {"ada": "dvorak"}
    assert path.read_text(encoding="utf-8") == to_json({"ada": "dvorak"})
    assert said == []


def test_a_hub_keeps_the_presets_beside_its_scores(tmp_path: Path) -> None:
    hub = Hub(ScoreStore(tmp_path / "serve" / "scores.json"))
    hub.key_presets.remember("ada", "azerty")
    assert stored(tmp_path / "serve" / "key-presets.json") == {"ada": "azerty"}


@pytest.mark.parametrize("wanted", ["ada", "", "ssh -l 'x'", "\x1b[2J" * 9, "a" * 40, "é.-_9"])
def test_every_name_the_hub_gives_is_a_name_the_file_may_hold(tmp_path: Path, wanted: str) -> None:
    hub = Hub(ScoreStore(tmp_path / "scores.json"))
    for _ in range(12):  # ada, ada-2, ... ada-12: the suffix keeps within the length too
        assert NAME.fullmatch(hub.claim_name(wanted))


def test_a_full_file_drops_the_oldest_choice(tmp_path: Path) -> None:
    # A client logging in under a new name each time, choosing a preset each time, would grow
    # the file (read at every login) without end.
    path = tmp_path / "key-presets.json"
    players = {f"p{i:015d}": "azerty" for i in range(MAX_KEPT_PRESETS)}  # the longest names
    path.write_text(to_json(players), encoding="utf-8")
    assert path.stat().st_size < MAX_BYTES  # a full file of ours is never "too large"
    KeyMemory(path).remember("newcomer", "dvorak")
    now = stored(path)
    assert len(now) == MAX_KEPT_PRESETS and "p000000000000000" not in now
    assert list(now)[-1] == "newcomer" and "p000000000000001" in now


def test_a_preset_chosen_again_unchanged_is_the_newest_choice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The names kept are those that chose last: one choosing its preset again was left where
    # it stood (no write, as the dicts compared equal) and dropped as the oldest meanwhile.
    monkeypatch.setattr("termsnake.serve.keymemory.MAX_KEPT_PRESETS", 2)
    path = tmp_path / "key-presets.json"
    memory = KeyMemory(path)
    memory.remember("ada", "azerty")
    memory.remember("bob", "dvorak")
    assert memory.remember("ada", "azerty") is True
    assert list(stored(path)) == ["bob", "ada"]
    memory.remember("cy", "dvorak")
    assert stored(path) == {"ada": "azerty", "cy": "dvorak"}
    written = path.stat().st_mtime_ns
    memory.remember("cy", "dvorak")  # already the newest: nothing to write
    memory.remember("bob", "default")  # no entry already
    assert path.stat().st_mtime_ns == written and list(stored(path)) == ["ada", "cy"]


def test_players_choosing_at_once_lose_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every visit runs in a thread of its own: each write holds the lock, the others wait.
    # The lobby's 1 s wait is lifted: on a loaded machine 60 writes in a queue outlast it, a
    # choice then kept as the visit ends, which is not what this test is about.
    monkeypatch.setattr("termsnake.serve.keymemory.LOCK_TIMEOUT", 60.0)
    path = tmp_path / "key-presets.json"

    def choose(writer: int) -> None:
        memory = KeyMemory(path)
        for i in range(10):
            memory.remember(f"w{writer}-{i}", "azerty" if i % 2 else "dvorak")

    threads = [threading.Thread(target=choose, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(stored(path)) == 60
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


DAMAGED = {
    "junk": b"\x1b]0;owned\x07 not json\n",
    "not-utf8": b'{"format": "\xff"}',
    "deep": b"[" * 100_000,
    "huge-number": b'{"format": ' + b"9" * 5000 + b"}",
    "a-list": b"[]",
    "other-format": json.dumps({"format": "termsnake-scores/1", "scores": []}).encode(),
    "extra-key": json.dumps({"format": FORMAT, "players": {}, "x": 1}).encode(),
    "no-preset": json.dumps({"format": FORMAT, "players": {"ada": "colemak"}}).encode(),
    "a-list-preset": json.dumps({"format": FORMAT, "players": {"ada": ["azerty"]}}).encode(),
    "odd-name": json.dumps({"format": FORMAT, "players": {"\x1b[2Jada": "azerty"}}).encode(),
    "huge": b" " * (MAX_BYTES + 1),
}


@pytest.mark.parametrize("kind", list(DAMAGED))
def test_a_damaged_file_is_nothing_stored_said_once_then_set_aside_and_said(
    tmp_path: Path, said: list[str], kind: str
) -> None:
    path = tmp_path / "key-presets.json"
    path.write_bytes(DAMAGED[kind])
    memory = KeyMemory(path)
    for name in ("ada", "bob", "ada"):  # a login each: one line for all of them
        assert memory.recall(name) is None
    assert len(said) == 1
    assert said[0].startswith(f"{path}: ") and said[0].endswith("read as no key presets stored")
    assert "\x1b" not in said[0] and len(said[0]) < 300
    memory.remember("ada", "azerty")  # never over the file unsaid: kept aside, and said so
    (aside,) = tmp_path.glob("key-presets.json.corrupt-*")
    assert aside.read_bytes() == DAMAGED[kind]
    assert stored(path) == {"ada": "azerty"}
    assert len(said) == 2 and f"kept it as {aside.name}" in said[1] and "\x1b" not in said[1]
    assert memory.recall("ada") == "azerty" and len(said) == 2


@pytest.mark.parametrize("kind", ["directory", "pipe", "loop"])
def test_what_cannot_be_read_is_left_alone_and_said_once(
    tmp_path: Path, said: list[str], kind: str
) -> None:
    # The operator's own (a folder, a pipe, links that go round): not ours to move away.
    path = tmp_path / "key-presets.json"
    if kind == "directory":
        path.mkdir()
    elif kind == "pipe":
        os.mkfifo(path)  # opening it would wait for a writer for ever
    else:
        path.symlink_to(tmp_path / "other")
        (tmp_path / "other").symlink_to(path)
    memory = KeyMemory(path)
    assert memory.recall("ada") is None and memory.recall("ada") is None
    assert len(said) == 1 and said[0].endswith("read as no key presets stored")
    for name in ("ada", "bob", "cy"):  # a visit each: its login, then its choice
        memory.recall(name)
        assert memory.remember(name, "azerty") is False
    assert len(said) == 2 and said[1].startswith("key preset not saved: ")
    assert said[1].endswith("; left as it is")
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert kind != "directory" or path.is_dir()
    assert kind != "pipe" or path.is_fifo()
    assert kind != "loop" or ("loop" in said[1] and path.is_symlink())


def test_a_place_that_cannot_be_written_is_said_once(tmp_path: Path, said: list[str]) -> None:
    # Runs as root too: no permission bit lets anyone make a directory inside a regular file.
    blocker = tmp_path / "data"
    blocker.write_text("not a directory", encoding="utf-8")
    memory = KeyMemory(blocker / "serve" / "key-presets.json")
    for name in ("ada", "bob", "cy"):  # a visit each: a login read well, a choice not kept
        assert memory.recall(name) is None  # no file can be there: none stored
        assert memory.remember(name, "azerty") is False
    assert len(said) == 1 and said[0].startswith("key preset not saved: ")
    assert str(blocker) in said[0] and blocker.read_text(encoding="utf-8") == "not a directory"


def test_a_lock_held_too_long_is_said_and_the_next_choice_saved(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "key-presets.json"
    memory = KeyMemory(path)
    memory.remember("ada", "azerty")
    monkeypatch.setattr("termsnake.serve.keymemory.LOCK_TIMEOUT", 0.2)
    # flock locks belong to an open file, so a second open in this process is another holder.
    with open(f"{path}.lock", "rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        memory.remember("ada", "dvorak")
    assert said == [f"key preset not saved: {path}.lock stayed locked for 0.2 s"]
    assert memory.recall("ada") == "azerty"
    memory.remember("ada", "dvorak")
    assert memory.recall("ada") == "dvorak" and len(said) == 1


def test_a_held_lock_gives_the_choice_up_well_within_the_servers_wait_at_shutdown(
    tmp_path: Path, said: list[str]
) -> None:
    # The scores' wait: each lobby choice froze the visit for it, and the last one, as the
    # server stopped, kept the visit running past the server's wait for it.
    path = tmp_path / "key-presets.json"
    memory = KeyMemory(path)
    with open(f"{path}.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        began = time.monotonic()
        assert memory.remember("ada", "dvorak") is False
        waited = time.monotonic() - began
    assert waited < SHUTDOWN_WAIT / 2, waited
    assert said == [f"key preset not saved: {path}.lock stayed locked for {LOCK_TIMEOUT:g} s"]
    assert memory.remember("ada", "dvorak") is True and memory.recall("ada") == "dvorak"


def test_past_the_servers_deadline_a_held_lock_is_tried_once_and_said_as_such(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # After a score that waited for its own lock, the visit's last choice waited its second
    # more, past the server's wait for the visit. A longer wait of its own here, so that the
    # tries are told from a wait however loaded the machine.
    monkeypatch.setattr("termsnake.serve.keymemory.LOCK_TIMEOUT", 10.0)
    path = tmp_path / "key-presets.json"
    memory = KeyMemory(path)
    memory.cutoff.give_up_at(time.monotonic(), "was still locked as the server stopped")
    with open(f"{path}.lock", "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        began = time.monotonic()
        assert memory.remember("ada", "dvorak") is False
        assert memory.remember("bob", "dvorak") is False
        waited = time.monotonic() - began
    assert waited < 5, waited
    assert said == [f"key preset not saved: {path}.lock was still locked as the server stopped"]
    assert memory.remember("ada", "dvorak") is True  # a lock let go is taken, late as it is


def test_each_line_said_since_all_last_went_well_is_held_back(said: list[str]) -> None:
    trouble = Trouble()
    for _ in range(3):  # two kinds taking turns were said at every turn
        trouble.say("cannot be read")
        trouble.say("cannot be written")
    assert said == ["cannot be read", "cannot be written"]
    trouble.say(None)
    trouble.say("cannot be read")
    assert said[2:] == ["cannot be read"]
    for n in range(MAX_HELD * 3):  # lines that differ each time: the oldest are forgotten
        trouble.say(f"line {n}")
    trouble.say(f"line {MAX_HELD * 3 - 1}")
    assert said[-1] == f"line {MAX_HELD * 3 - 1}" and len(said) == 3 + MAX_HELD * 3
    trouble.say("line 0")
    assert said[-1] == "line 0"


def test_nothing_is_logged_once_the_server_has_said_it_stopped(
    tmp_path: Path, said: list[str]
) -> None:
    # "stopped" is the log's last line: a visit still running then may yet write its choice.
    blocker = tmp_path / "data"
    blocker.write_text("not a directory", encoding="utf-8")
    memory = KeyMemory(blocker / "key-presets.json")
    memory.close()
    memory.remember("ada", "azerty")
    assert said == []
