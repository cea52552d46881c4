"""The benchmark's figures: each (solver, board) summed up, as a table, and replay files."""

from __future__ import annotations

import re
import sys
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from termsnake.bench.games import GameRecord
from termsnake.bench.tally import Tally, median
from termsnake.core.game import Outcome
from termsnake.core.level import Level
from termsnake.formats.fileio import write_new
from termsnake.formats.replay import Replay
from termsnake.formats.text import align, encodes, printable


def played_by(solver: str, tally: Tally) -> str:
    """What played the games of the solver asked for as ``solver``: as its games name it
    (``best (tree)``)."""
    return ", ".join(tally.labels) or solver


def summarize(solver: str, level: Level, seed: int, tally: Tally) -> dict[str, Any]:
    """One row of the benchmark output (README, "Benchmark") from the games of one (solver,
    level): the documented keys in their order, ``solver`` the name asked for, then
    ``played``, both printable as a replay keeps them (a ``neuro:PATH``'s undecodable bytes,
    lone surrogates, are no UTF-8). Steps, lengths and medians cover every game, won or not."""
    games = tally.games
    wins = tally.outcomes[Outcome.WON]
    row: dict[str, Any] = {
        "solver": printable(solver),
        "level": level.name,
        "free_cells": level.board.free_count,
        "games": games,
        "seed": seed,
        "wins": wins,
        "deaths": tally.outcomes[Outcome.DIED],
        "stalls": tally.outcomes[Outcome.STALLED],
        "win_rate": round(wins / games, 4),
        "mean_steps": round(tally.total_steps / games, 2),
        "median_steps": float(median(tally.steps)),
        "mean_length": round(tally.total_length / games, 2),
        "steps_over_bound": (
            round(tally.total_steps / tally.total_bound, 4) if tally.total_bound else None
        ),
        "ms_per_move": round(median(tally.ms), 4) if tally.ms else 0.0,
        "played": printable(played_by(solver, tally)),
    }
    return row


# -- output ---------------------------------------------------------------------------------------

_COLUMNS: Final = (
    # header, key, format, left-aligned
    ("solver", "played", "{}", True),  # what played: ``best (tree)``
    ("level", "level", "{}", True),
    ("free", "free_cells", "{}", False),
    ("games", "games", "{}", False),
    ("wins", "wins", "{}", False),
    ("deaths", "deaths", "{}", False),
    ("stalls", "stalls", "{}", False),
    ("win rate", "win_rate", "{:.1%}", False),
    ("mean steps", "mean_steps", "{:.1f}", False),
    ("median", "median_steps", "{:.1f}", False),
    ("mean length", "mean_length", "{:.1f}", False),
    ("steps/bound", "steps_over_bound", "{:.2f}", False),
    ("ms/move", "ms_per_move", "{:.4f}", False),
    # last, so the columns before it stay where scripts read them; game i plays seed + i
    ("seed", "seed", "{}", False),
)


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as aligned text columns, a header first."""
    cells = [[header for header, _, _, _ in _COLUMNS]]
    for row in rows:
        cells.append(
            [fmt.format(row[key]) if row[key] is not None else "-" for _, key, fmt, _ in _COLUMNS]
        )
    right = {i for i, (_, _, _, left) in enumerate(_COLUMNS) if not left}
    return "\n".join(align(cells, right))


def replay_name(solver: str, level: str, length: int, seed: int) -> str:
    """The file name of one recorded benchmark game: ``{solver}-{level}-len{length}-seed{seed}
    .json``, the solver's and the level's names made safe for a file name (``file_part``)."""
    who = file_part(solver, MAX_SOLVER_BYTES) or "solver"
    return f"{who}-{file_part(level, MAX_LEVEL_BYTES) or 'level'}-len{length}-seed{seed}.json"


# The parts of a replay's file name, in UTF-8 bytes: with the lengths, seeds (30 digits at most)
# and the "-2" ... "-1000" of a name taken, the name stays within the 255 bytes file systems take.
MAX_SOLVER_BYTES: Final = 60
MAX_LEVEL_BYTES: Final = 120
# Letters and a mark that a terminal shows as nothing (Unicode's default-ignorable ones).
_BLANK_LETTERS: Final = frozenset("\u115f\u1160\u3164\uffa0\u034f\u17b4\u17b5")


def file_part(name: str, most: int) -> str:
    """``name`` as part of a file name: its letters, marks and digits of any script, ``.``,
    ``_`` and ``-`` kept (a level named Über stays Über), each run of anything else (a path
    separator, a space, a control or format character, a letter the file system's encoding
    cannot hold, as 名 under a latin-1 locale) one ``-``; cut to ``most`` UTF-8 bytes at a
    character's end; no ``-`` or ``.`` at either end, so never ``..`` or a hidden file."""
    kept: list[str] = []
    encoding = sys.getfilesystemencoding()
    for ch in unicodedata.normalize("NFC", name):
        kind = unicodedata.category(ch)[0]
        base = bool(kept) and kept[-1] not in "\0._-"
        # A mark only on a kept letter or digit; blank letters (Hangul fillers) go: either
        # alone would make a name no one can see.
        if (
            (ch in "._-" or kind in "LN" or (kind == "M" and base))
            and ch not in _BLANK_LETTERS
            and encodes(ch, encoding)
        ):
            kept.append(ch)
        else:
            kept.append("\0")
    safe = re.sub("\0+", "-", "".join(kept)).strip("-.")
    return safe.encode("utf-8")[:most].decode("utf-8", "ignore").strip("-.")


def save_new(replay: Replay, directory: Path, name: str) -> Path:
    """Write ``replay`` as ``directory/name``, never replacing a file; the path it is at.

    A file of that name with the very same bytes is this game already and is kept; any other
    file moves the replay on to ``-2``, ``-3``... before ``.json``. OSError if it cannot be
    written.
    """
    return write_new(directory / name, replay.to_json().encode("utf-8"))


class Recorder:
    """Writes each game's replay in ``folder`` until one cannot be written (a full disk), then
    none: the replays kept are the run's games up to that one, with no gap a later one that
    fitted would leave. ``stopped`` says which file failed and why."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.stopped: str | None = None

    @property
    def on(self) -> bool:
        """Whether replays are still written."""
        return self.stopped is None

    def keep(self, record: GameRecord, solver: str, level: Level, seed: int) -> bool:
        """Save the game's replay, if it has one and none failed before; False if this one
        failed (``stopped`` then says why)."""
        if record.replay is None or not self.on:
            return True
        name = replay_name(solver, level.name, len(record.replay.body), seed)
        try:
            save_new(record.replay, self.folder, name)
        except OSError as e:  # the name tried: the first may be another game's, kept
            tried = e.filename if isinstance(e.filename, str) else self.folder / name
            self.stopped = f"cannot write {printable(str(tried))}: {e.strerror or e}"
            return False
        return True
