"""High scores (format termsnake-scores/1): a locked file written atomically; `termsnake scores`."""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

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
from termsnake.formats.places import data_dir
from termsnake.formats.text import json_shown, printable, shorten

FORMAT: Final = "termsnake-scores/1"
FILE_NAME: Final = "scores.json"
PERSON: Final = "you"
# A game only holds the lock for a read and a write; waiting longer means something is stuck,
# and a finished game should not hang on it.
LOCK_TIMEOUT: Final = 10.0
# Far more than any player's scores; a bigger file (or a link to /dev/zero) is not read.
MAX_BYTES: Final = 16 * 1024 * 1024
# Players kept per board (level, size and start length), the best first: a server whose clients
# each log in under a new name would otherwise grow the file, and the time each game's end
# takes to read and write it, without end.
MAX_PLAYERS: Final = 100

# Seven digits a side: a level file (at most 1 MiB) can be a row of a million cells.
_SIZE: Final = re.compile(r"[1-9][0-9]{0,6}x[1-9][0-9]{0,6}")
# Bounds a file edited by hand must keep: no game comes near them, and what is past them would
# stretch the table (a name of 100,000 characters, a length of 400 digits).
MAX_NAME: Final = 200
MAX_COUNT: Final = 10**12
_FIELDS: Final = (
    "level",
    "size",
    "start_length",
    "player",
    "length",
    "steps",
    "won",
    "seed",
    "date",
)


def default_path() -> Path:
    """Where scores live: ``scores.json`` in the user's data directory (XDG_DATA_HOME on Linux)."""
    return data_dir() / FILE_NAME


def _is_int(value: object) -> bool:
    # bool is an int subclass in Python, but `true` is never a length or a seed.
    return isinstance(value, int) and not isinstance(value, bool)


def _is_count(value: object, least: int) -> bool:
    return _is_int(value) and least <= value <= MAX_COUNT  # type: ignore[operator]


def as_player(name: str) -> str:
    """A bot's ``name`` as the player of a score key: an engine's is its whole command line,
    which may be long or hold control characters, so it is escaped and cut to MAX_NAME."""
    text = printable(name)
    return text if len(text) <= MAX_NAME else text[: MAX_NAME - 1] + "…"


def _one_line(text: str) -> bool:
    return 0 < len(text) <= MAX_NAME and text.isprintable()


@dataclass(frozen=True, slots=True)
class ScoreKey:
    """What a best is kept for: level name, board size "WxH", start length, player."""

    level: str
    size: str
    length: int
    player: str = PERSON

    def __post_init__(self) -> None:
        if not isinstance(self.level, str) or not _one_line(self.level):
            raise ValueError(f"level must be a one-line string of 1 to {MAX_NAME} characters, "
                             f"not {json_shown(self.level)}")  # fmt: skip
        if not isinstance(self.size, str) or not _SIZE.fullmatch(self.size):
            raise ValueError(f"size must look like 20x10, not {json_shown(self.size)}")
        if not _is_count(self.length, 1):
            raise ValueError(f"start length must be a whole number from 1 to {MAX_COUNT}, "
                             f"not {json_shown(self.length)}")  # fmt: skip
        if not isinstance(self.player, str) or not _one_line(self.player):
            raise ValueError(f"player must be a one-line string of 1 to {MAX_NAME} characters, "
                             f"not {json_shown(self.player)}")  # fmt: skip

    @classmethod
    def of(cls, level: str, width: int, height: int, length: int, player: str = PERSON) -> ScoreKey:
        """The key for a game on a ``width`` x ``height`` board."""
        return cls(level, f"{width}x{height}", length, player)

    def sort_key(self) -> tuple[str, int, int, int, str]:
        """Level by name, then board width and height as numbers, start length, player."""
        w, _, h = self.size.partition("x")
        return (self.level, int(w), int(h), self.length, self.player)


@dataclass(frozen=True, slots=True)
class ScoreEntry:
    """One best result: final length, steps taken, won or not, the seed, and an ISO date."""

    length: int
    steps: int
    won: bool
    seed: int | None
    date: str

    def __post_init__(self) -> None:
        if not _is_count(self.length, 1):
            raise ValueError(f"length must be a whole number from 1 to {MAX_COUNT}, "
                             f"not {json_shown(self.length)}")  # fmt: skip
        if not _is_count(self.steps, 0):
            raise ValueError(f"steps must be a whole number from 0 to {MAX_COUNT}, "
                             f"not {json_shown(self.steps)}")  # fmt: skip
        if not isinstance(self.won, bool):
            raise ValueError(f"won must be true or false, not {json_shown(self.won)}")
        if self.seed is not None and not _is_int(self.seed):
            raise ValueError(f"seed must be an integer or null, not {json_shown(self.seed)}")
        if not isinstance(self.date, str):
            raise ValueError(f"date must be an ISO date string, not {json_shown(self.date)}")
        try:
            datetime.fromisoformat(self.date)
        except ValueError:
            raise ValueError(f"date must be an ISO date, not {json_shown(self.date)}") from None

    @classmethod
    def now(cls, length: int, steps: int, won: bool, seed: int | None) -> ScoreEntry:
        """An entry dated now, in local time with its UTC offset, to the second."""
        return cls(length, steps, won, seed, datetime.now().astimezone().isoformat("T", "seconds"))

    def beats(self, other: ScoreEntry | None) -> bool:
        """True if this is strictly better: longer, or as long in fewer steps."""
        if other is None:
            return True
        if self.length != other.length:
            return self.length > other.length
        return self.steps < other.steps


@dataclass(frozen=True, slots=True)
class RecordResult:
    """What recording a result did: new best or not, the best before, whether it was saved,
    and whether the player's row is in the file after it (not when a full board dropped it)."""

    new_best: bool
    previous: ScoreEntry | None
    saved: bool
    warnings: tuple[str, ...] = field(default=())
    kept: bool = True


@dataclass(frozen=True, slots=True)
class ReadResult:
    """The scores in a file, and why the file could not be read (None if it could, or is absent)."""

    scores: dict[ScoreKey, ScoreEntry]
    problem: str | None = None


class FormatError(Exception):
    """A scores file that is not valid termsnake-scores/1."""


def parse(data: bytes) -> dict[ScoreKey, ScoreEntry]:
    """The scores in the bytes of a scores file; FormatError saying what is wrong."""
    try:
        obj = json_of(data)
    except BadJSON as e:
        raise FormatError(str(e)) from None
    if not isinstance(obj, dict):
        raise FormatError("not a JSON object")
    if obj.get("format") != FORMAT:
        raise FormatError(f"format is {json_shown(obj.get('format'))}, expected {FORMAT!r}")
    if set(obj) != {"format", "scores"}:
        raise FormatError(f"expected the keys format and scores, found {_names(obj)}")
    rows = obj["scores"]
    if not isinstance(rows, list):
        raise FormatError("scores is not a list")
    scores: dict[ScoreKey, ScoreEntry] = {}
    for i, row in enumerate(rows):
        key, entry = _parse_row(row, i)
        # A hand-merged file may hold a key twice: keep the better, lose nothing that counts.
        if entry.beats(scores.get(key)):
            scores[key] = entry
    return scores


def _parse_row(row: Any, i: int) -> tuple[ScoreKey, ScoreEntry]:
    if not isinstance(row, dict):
        raise FormatError(f"scores[{i}] is not an object")
    if set(row) != set(_FIELDS):
        missing = [f for f in _FIELDS if f not in row]
        extra = [k for k in row if k not in _FIELDS]
        what = "; ".join(
            part
            for part in (
                f"missing {', '.join(missing)}" if missing else "",
                f"unknown {_names(extra)}" if extra else "",
            )
            if part
        )
        raise FormatError(f"scores[{i}]: {what}")
    try:
        key = ScoreKey(row["level"], row["size"], row["start_length"], row["player"])
        entry = ScoreEntry(row["length"], row["steps"], row["won"], row["seed"], row["date"])
    except ValueError as e:
        raise FormatError(f"scores[{i}]: {e}") from None
    return key, entry


def _names(keys: Iterable[str], most: int = 8) -> str:
    """JSON keys from a file, for a message: escaped, shortened, and only the first few."""
    names = sorted(keys)
    shown = ", ".join(shorten(k, 40) for k in names[:most])
    return shown + (f" and {len(names) - most} more" if len(names) > most else "")


def to_json(scores: dict[ScoreKey, ScoreEntry]) -> str:
    """The file text: sorted, one score a line so that the file reads and diffs well."""
    rows = []
    for key in sorted(scores, key=ScoreKey.sort_key):
        entry = scores[key]
        row = {
            "level": key.level,
            "size": key.size,
            "start_length": key.length,
            "player": key.player,
            "length": entry.length,
            "steps": entry.steps,
            "won": entry.won,
            "seed": entry.seed,
            "date": entry.date,
        }
        rows.append(json.dumps(row, ensure_ascii=False))
    body = ",\n  ".join(rows)
    scores_text = f"[\n  {body}\n ]" if rows else "[]"
    return f'{{"format": {json.dumps(FORMAT)},\n "scores": {scores_text}}}\n'


class ScoreStore:
    """The high-score file: read it any time; record under a lock, written atomically."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_path()
        self.shown = printable(str(self.path))  # as messages name it: from the environment
        # A server that stops must not wait past its shutdown wait for the games it scores.
        self.cutoff = Cutoff()

    @property
    def lock_path(self) -> Path:
        """The lock file beside the scores (kept, never deleted: deleting a lock file races)."""
        return lock_path(self.path)

    def read(self) -> ReadResult:
        """Every score in the file; never raises, never changes the file."""
        try:
            data = read_if_present(self.path, MAX_BYTES)
        except TooLarge as e:
            return ReadResult({}, e.describe("a scores file"))
        except OSError as e:
            return ReadResult({}, f"cannot be read ({describe_os_error(e)})")
        if data is None:
            return ReadResult({})
        try:
            return ReadResult(parse(data))
        except FormatError as e:
            return ReadResult({}, str(e))

    def best(self, key: ScoreKey) -> ScoreEntry | None:
        """The best stored for ``key``, or None (also when the file is unreadable)."""
        return self.read().scores.get(key)

    def record(self, key: ScoreKey, entry: ScoreEntry) -> RecordResult:
        """Keep ``entry`` if it beats the stored best; never raises for file-system trouble."""
        warnings: list[str] = []
        previous: ScoreEntry | None = None
        kept = True
        try:
            with self._locked():
                current = self.read()
                if current.problem is not None:
                    try:
                        warnings.append(
                            self._set_aside(current.problem) + " and started a new scores file"
                        )
                    except OSError as e:
                        # Never write over a file we could not read: the scores in it may matter.
                        warnings.append(
                            f"scores not saved: {self.shown}: {current.problem}, and it could not "
                            f"be moved aside ({describe_os_error(e)})"
                        )
                        return RecordResult(entry.beats(None), None, False, tuple(warnings))
                previous = current.scores.get(key)
                new_best = entry.beats(previous)
                if new_best or current.problem is not None:
                    scores = dict(current.scores)
                    if new_best:
                        scores[key] = entry
                    scores = _bounded(scores)
                    # A file from before the bound may hold the player's old row past it too.
                    kept = key in scores
                    new_best = scores.get(key) is entry  # not if the board's table is full
                    self._write(scores)
        except LockTimeout as e:
            # The stored best is still worth reporting, read without the lock.
            previous = self.best(key)
            why = self.cutoff.why(e, LOCK_TIMEOUT)
            warnings.append(f"scores not saved: {printable(str(self.lock_path))} {why}")
            return RecordResult(entry.beats(previous), previous, False, tuple(warnings))
        except OSError as e:
            if previous is None:
                previous = self.best(key)
            warnings.append(f"scores not saved: {describe_os_error(e)}")
            return RecordResult(entry.beats(previous), previous, False, tuple(warnings))
        return RecordResult(new_best, previous, True, tuple(warnings), kept)

    def set_aside_unreadable(self) -> list[str]:
        """Move an unreadable scores file aside (under the lock); the warnings to show."""
        if self.read().problem is None:
            return []
        try:
            with self._locked():
                current = self.read()
                if current.problem is None:
                    return []
                return [self._set_aside(current.problem)]
        except (OSError, LockTimeout) as e:
            why = describe_os_error(e) if isinstance(e, OSError) else "it stayed locked"
            return [f"{self.shown}: {self.read().problem}; could not move it aside ({why})"]

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        # LOCK_TIMEOUT read at each call: a test shortens it.
        with locked(self.path, LOCK_TIMEOUT, self.cutoff):
            yield

    def _set_aside(self, problem: str) -> str:
        target = set_aside(self.path)
        return f"{self.shown}: {problem}; kept it as {target.name}"

    def _write(self, scores: dict[ScoreKey, ScoreEntry]) -> None:
        write_atomic(self.path, to_json(scores).encode("utf-8"))


def _bounded(scores: dict[ScoreKey, ScoreEntry]) -> dict[ScoreKey, ScoreEntry]:
    """``scores`` less the players past the MAX_PLAYERS best of each board (the first to
    reach a result keeps it)."""
    boards: dict[tuple[str, str, int], list[ScoreKey]] = {}
    for key in scores:
        boards.setdefault((key.level, key.size, key.length), []).append(key)
    out: dict[ScoreKey, ScoreEntry] = {}
    for keys in boards.values():
        keys.sort(key=lambda k: (-scores[k].length, scores[k].steps, _when(scores[k]), k.player))
        out.update((k, scores[k]) for k in keys[:MAX_PLAYERS])
    return out


def _when(entry: ScoreEntry) -> datetime:
    """The entry's date as a moment, so that dates written with other offsets (across a change
    of summer time) compare as times; one with no offset (edited by hand) is taken as UTC, as
    turning it into local time fails at the ends of the calendar."""
    when = datetime.fromisoformat(entry.date)
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
