"""What is printed on the normal screen after a game: pure text, for this process's terminal
and for the SSH server's players alike."""

from __future__ import annotations

import re
import textwrap

from termsnake.core.game import Game, Outcome
from termsnake.core.moves import compress
from termsnake.formats.levelfile import MAX_NAME
from termsnake.formats.text import shorten


def format_duration(seconds: float) -> str:
    """``m:ss`` (or ``h:mm:ss``)."""
    s = int(seconds)
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def summary(
    game: Game,
    who: str,
    seconds: float,
    note: str = "",
    *,
    width: int = 80,
    full_history: str = "",
    headline: str | None = None,
) -> str:
    """The lines printed on the normal screen after a game; ``note`` says why a game that was
    cut short ended (the terminal went away). A long move history is cut to its head and tail
    within ``width`` columns; ``full_history`` says where the whole of it is (if anywhere).
    ``headline``, if given, is the first line instead of how the game ended."""
    if headline is None:
        headline = ending(game, who, note)
    name = shorten(game.level.name, MAX_NAME)  # a level's name is capped; one made in code is not
    level = (
        f"Level {name}  length {game.length}/{game.board.free_count}  "
        f"steps {game.steps}  time {format_duration(seconds)}  seed {game.seed}"
    )
    moves = moves_lines(compress(game.moves), game.steps, width, full_history)
    return "\n".join([headline, level, *moves])


def ending(game: Game, who: str, note: str = "") -> str:
    """How the game ended, as a summary's first line."""
    outcome = game.outcome or Outcome.QUIT
    cause = game.cause or note
    if outcome is Outcome.WON:
        return "You won! The snake fills the board." if who == "you" else f"{who} won!"
    return f"Game over: {outcome.value}" + (f" ({cause})" if cause else "")


MOVES_LINES = 3  # the most lines the move history takes in a summary
MOVE_TOKEN = re.compile(r"\d*[UDLR]")


def moves_lines(history: str, steps: int, width: int, full_history: str = "") -> list[str]:
    """``Moves (N): 3R2DL...`` cut to ``width``; a history longer than ``MOVES_LINES`` lines
    shows its head and tail (cut between runs), then how long it is and where it all is."""
    width = max(20, width)
    prefix = f"Moves ({steps}): "
    if len(prefix + history) <= MOVES_LINES * width:
        return _chunks((prefix + history).rstrip(), width)  # no history: no space after
    room = (MOVES_LINES * width - len(prefix) - len(" ... ")) // 2
    tokens = MOVE_TOKEN.findall(history)
    head = _fit(tokens, room)
    tail = _fit(tokens[len(head) :][::-1], room)[::-1]
    where = f"; the whole history: {full_history}" if full_history else ""
    note = f"({len(history):,} letters in all{where})"
    shown = f"{prefix}{''.join(head)} ... {''.join(tail)}"
    return [*_chunks(shown, width), *textwrap.wrap(note, width, break_on_hyphens=False)]


def _fit(tokens: list[str], room: int) -> list[str]:
    """The first of ``tokens`` that fit in ``room`` characters."""
    kept: list[str] = []
    for token in tokens:
        room -= len(token)
        if room < 0:
            break
        kept.append(token)
    return kept


def _chunks(text: str, width: int) -> list[str]:
    """``text`` cut into lines of ``width`` characters."""
    return [text[i : i + width] for i in range(0, len(text), width)] or [""]
