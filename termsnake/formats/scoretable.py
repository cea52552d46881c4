"""The scores table as the ``scores`` command and the server's lobby show it."""

from __future__ import annotations

from typing import Any, Final

from termsnake.formats.scores import ScoreEntry, ScoreKey
from termsnake.formats.text import align

TABLE_HEADERS: Final = ("level", "size", "start", "player", "best", "steps", "won", "date")
_TABLE_RIGHT: Final = frozenset({"start", "best", "steps"})


def table(scores: dict[ScoreKey, ScoreEntry]) -> list[str]:
    """Aligned text rows: per level, size and start length, players from best to worst."""

    def order(key: ScoreKey) -> tuple[Any, ...]:
        level, w, h, length, player = key.sort_key()
        entry = scores[key]
        return (level, w, h, length, -entry.length, entry.steps, player)

    rows = [TABLE_HEADERS]
    for key in sorted(scores, key=order):
        e = scores[key]
        date = e.date[:16].replace("T", " ")
        won = "yes" if e.won else "no"
        rows.append(
            (
                key.level,
                key.size,
                str(key.length),
                key.player,
                str(e.length),
                str(e.steps),
                won,
                date,
            )
        )
    return align(rows, {i for i, h in enumerate(TABLE_HEADERS) if h in _TABLE_RIGHT})
