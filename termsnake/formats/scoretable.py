"""The high scores as they are said: the table the ``scores`` command and the server's lobby
show, and the lines a game's summary ends with as its result is kept."""

from __future__ import annotations

from typing import Any, Final, NamedTuple

from termsnake.core.game import Game, Outcome
from termsnake.formats.scores import ScoreEntry, ScoreKey, ScoreStore
from termsnake.formats.text import align

TABLE_HEADERS: Final = ("level", "size", "start", "player", "best", "steps", "won", "date")
_TABLE_RIGHT: Final = frozenset({"start", "best", "steps"})


def table(scores: dict[ScoreKey, ScoreEntry], encoding: str | None = None) -> list[str]:
    """Aligned text rows: per level, size and start length, players from best to worst; names
    as a stream in ``encoding`` (stdout's when None) shows them."""

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
    return align(rows, {i for i, h in enumerate(TABLE_HEADERS) if h in _TABLE_RIGHT}, encoding)


# The summary's line for a bot's game that was stopped before it ended.
BOT_STOPPED: Final = "not scored: the bot was stopped before its game ended"


def is_scored(game: Game, *, bot: bool = False) -> bool:
    """Whether ``keep_score`` records the game in the file: one that moved, and for a ``bot``
    one the bot ended (won, died, stalled): one its watcher stopped is not the bot's result."""
    return game.steps > 0 and not _stopped(game, bot)


def _stopped(game: Game, bot: bool) -> bool:
    return bot and game.outcome in (None, Outcome.QUIT)


class Kept(NamedTuple):
    """What keeping a game's result did: the summary's lines, the warnings for whoever mends
    the files, and whether the file took the result (False where it was not recorded at all)."""

    lines: list[str]
    warnings: tuple[str, ...]
    saved: bool


def keep_score(
    scores: ScoreStore,
    key: ScoreKey,
    game: Game,
    previous: ScoreEntry | None,
    *,
    bot: bool = False,
) -> Kept:
    """Record the game's result (if it moved at all): the summary lines, any warnings and
    whether it was saved. A ``bot``'s game is recorded only if the bot ended it (won, died,
    stalled): one its watcher stopped (q, Ctrl-C, a signal) is not the bot's result."""
    said = [] if previous is None else [_best_so_far(previous)]
    if not is_scored(game, bot=bot):
        return Kept([BOT_STOPPED, *said] if _stopped(game, bot) else said, (), False)
    won = game.outcome is Outcome.WON
    entry = ScoreEntry.now(game.length, game.steps, won, game.seed)
    result = scores.record(key, entry)
    kept = (result.warnings, result.saved)
    if result.new_best and game.eaten > 0:  # no cheers for dying at the start length
        saved = "" if result.saved else " (not saved)"
        return Kept([f"new best! length {game.length} for {key.player} on {key.level}{saved}"],
                    *kept)  # fmt: skip
    if not result.kept:  # the board's best players are all better: no row to speak of
        return Kept([], *kept)
    best = entry if result.new_best else (result.previous or previous)
    if best is None:
        return Kept([], *kept)
    return Kept([_best_so_far(best)], *kept)


def _best_so_far(best: ScoreEntry) -> str:
    """The summary's line for the best result kept for the board and player."""
    steps = "1 step" if best.steps == 1 else f"{best.steps} steps"
    return f"best so far: length {best.length} in {steps}"
