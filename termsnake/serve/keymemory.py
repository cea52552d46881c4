"""The key preset each player of the server chose last (format termsnake-key-presets/1), kept
beside its scores with the same care: written atomically under a lock, a damaged file read as
nothing stored and set aside before a write, trouble said in one line of the log."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from termsnake.formats.fileio import TooLarge, read_if_present, write_atomic
from termsnake.formats.guarded import (
    BadJSON,
    Cutoff,
    LockTimeout,
    describe_os_error,
    json_of,
    lock_path,
    locked,
    set_aside,
)
from termsnake.formats.text import json_shown, printable
from termsnake.serve.limits import MAX_KEPT_PRESETS
from termsnake.serve.trouble import Trouble
from termsnake.tui.controllers import KEY_PRESETS

FORMAT: Final = "termsnake-key-presets/1"
FILE_NAME: Final = "key-presets.json"
DEFAULT: Final = "default"  # stored as no entry at all
# Far above what MAX_KEPT_PRESETS players' names and presets take: a bigger file (or a link
# to /dev/zero) is not one the server wrote, and it is read at every login.
MAX_BYTES: Final = 1024 * 1024
# Shorter than the scores' wait: a visit's thread waits for the lock, the lobby frozen meanwhile
# after each choice, and as the server stops the visit's last save must end within
# SHUTDOWN_WAIT. A choice not kept costs the player a choice again, not a result.
LOCK_TIMEOUT: Final = 1.0
# The names Hub.claim_name gives, the only ones looked up: a file with another is not ours.
NAME: Final = re.compile(r"[A-Za-z0-9_.-]{1,16}")


class Damaged(Exception):
    """A file that is not termsnake-key-presets/1."""


@dataclass(frozen=True, slots=True)
class Stored:
    """What the file holds, by player, oldest choice first; what is wrong with it, and whether
    it may be set aside to start a new one (read, and not ours), or must be left alone (it
    could not be read: a directory, a pipe, a file the server may not read)."""

    players: dict[str, str] = field(default_factory=dict)
    problem: str | None = None
    damaged: bool = False


def parse(data: bytes) -> dict[str, str]:
    """The presets in the bytes of a file; Damaged saying what is wrong."""
    try:
        obj = json_of(data)
    except BadJSON as e:
        raise Damaged(str(e)) from None
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        raise Damaged(f"not a {FORMAT} file")
    players = obj.get("players")
    if set(obj) != {"format", "players"} or not isinstance(players, dict):
        raise Damaged("expected the keys format and players, players an object")
    for name, keys in players.items():
        if not NAME.fullmatch(name):
            raise Damaged(f"{json_shown(name)} is no player's name")
        if not isinstance(keys, str) or keys not in KEY_PRESETS:
            raise Damaged(f"{name}: {json_shown(keys)} is no key preset")
    return players


def to_json(players: dict[str, str]) -> str:
    """The file's text: one player a line, oldest choice first."""
    rows = ",\n  ".join(f"{json.dumps(name)}: {json.dumps(keys)}" for name, keys in players.items())
    body = f"{{\n  {rows}\n }}" if players else "{}"
    return f'{{"format": {json.dumps(FORMAT)},\n "players": {body}}}\n'


class KeyMemory:
    """The presets stored, from every visit's thread: ``recall`` as a visit begins, ``remember``
    a choice. Neither raises for the file's trouble: each kind is one line in the log, said
    again only after the file has been read (a trouble reading it) or written (one keeping a
    choice) well: a client logging in and choosing again and again would repeat it otherwise,
    and a file read well at each login may yet be one that cannot be written."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.shown = printable(str(path))  # as the log names it: from the environment
        self.read_trouble = Trouble()  # its lines in the log, each said once
        self.write_trouble = Trouble()
        self.cutoff = Cutoff()  # the server stopping gives its waits for the lock a deadline

    def close(self) -> None:
        """Log nothing more: the server is about to say it stopped."""
        self.read_trouble.close()
        self.write_trouble.close()

    def read(self) -> Stored:
        """What the file holds; never raises, never changes the file."""
        try:
            data = read_if_present(self.path, MAX_BYTES)
        except TooLarge as e:
            return Stored(problem=e.describe("a key presets file"), damaged=True)
        except OSError as e:
            return Stored(problem=f"cannot be read ({describe_os_error(e)})")
        if data is None:
            return Stored()
        try:
            return Stored(parse(data))
        except Damaged as e:
            return Stored(problem=str(e), damaged=True)

    def recall(self, name: str) -> str | None:
        """The preset ``name`` chose last, or None (nothing stored, or a file that is not read)."""
        stored = self.read()
        if stored.problem is not None:
            self.read_trouble.say(f"{self.shown}: {stored.problem}; read as no key presets stored")
        else:
            self.read_trouble.say(None)
        return stored.players.get(name)

    def remember(self, name: str, keys: str) -> bool:
        """Store ``keys`` as the preset ``name`` chose last (``default``: none stored), the
        oldest choices dropped past MAX_KEPT_PRESETS players: whether the file holds it now."""
        timeout = LOCK_TIMEOUT
        try:
            with locked(self.path, timeout, self.cutoff):
                stored = self.read()
                if stored.problem is not None and not self._set_aside(stored):
                    return False
                players = dict(stored.players)
                players.pop(name, None)  # its choice is the newest, last
                if keys != DEFAULT:
                    players[name] = keys
                # In order: a preset chosen again unchanged moves its name last, among those
                # kept the longest (dicts that differ only in their order compare equal).
                moved = list(players.items()) != list(stored.players.items())
                if moved or stored.problem is not None:
                    kept = dict(list(players.items())[-MAX_KEPT_PRESETS:])
                    write_atomic(self.path, to_json(kept).encode("utf-8"))
        except LockTimeout as e:
            where = printable(str(lock_path(self.path)))
            why = self.cutoff.why(e, timeout)
            self.write_trouble.say(f"key preset not saved: {where} {why}")
            return False
        except OSError as e:
            self.write_trouble.say(f"key preset not saved: {describe_os_error(e)}")
            return False
        if stored.problem is None:
            self.write_trouble.say(None)
        return True

    def _set_aside(self, stored: Stored) -> bool:
        """Move a damaged file aside, saying so: whether a new one may be written. A file that
        could not be read is left as it is: it may be anything of the operator's."""
        trouble = f"{self.shown}: {stored.problem}"
        if not stored.damaged:
            self.write_trouble.say(f"key preset not saved: {trouble}; left as it is")
            return False
        try:
            target = set_aside(self.path)
        except OSError as e:
            why = describe_os_error(e)
            self.write_trouble.say(
                f"key preset not saved: {trouble}, and it could not be moved aside ({why})"
            )
            return False
        self.write_trouble.say(
            f"{trouble}; kept it as {target.name} and started a new key presets file"
        )
        return True
