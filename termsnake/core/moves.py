"""Move histories in run-length form: ``RRRDDL`` <-> ``3R2DL``."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from itertools import groupby

from termsnake.core.geometry import Direction

# ASCII digits only: a run count is what ``compress`` writes, nothing else that int() reads.
_TOKEN = re.compile(r"([0-9]*)([UDLR])")
# A dict lookup a move, not Direction(letter): a history may expand to millions of moves.
_DIRECTIONS = {d.value: d for d in Direction}


class TooManyMoves(ValueError):
    """A history whose run counts add up to more moves than the caller's limit."""


def compress(moves: Iterable[Direction] | str) -> str:
    """Run-length encode moves: a run of n > 1 equal moves is ``nX``, a single one ``X``."""
    letters = moves if isinstance(moves, str) else "".join(d.value for d in moves)
    out = []
    for letter, run in groupby(letters):
        n = sum(1 for _ in run)
        out.append(f"{n}{letter}" if n > 1 else letter)
    return "".join(out)


def _runs(text: str) -> Iterator[tuple[int, str, str]]:
    """The runs of a compressed history as (position, count digits, letter), checked in
    order; ValueError at the first malformed one."""
    pos = 0
    last = ""
    while pos < len(text):
        # match() at pos, not finditer(): a search would rescan a long run of digits from
        # every position in it.
        m = _TOKEN.match(text, pos)
        if m is None:
            raise ValueError(f"bad move history at position {pos}: {text[pos : pos + 10]!r}")
        digits = m.group(1)
        if digits.startswith("0") or digits == "1":
            raise ValueError(f"bad run count {digits!r} at position {pos} of a move history")
        letter = m.group(2)
        if letter == last:
            # compress writes a run once: "RR" or "2R3R" is no history it wrote
            raise ValueError(
                f"two runs of {letter} one after the other at position {pos} of a move history"
                f" (a run is written once, as nX)"
            )
        yield pos, digits, letter
        last = letter
        pos = m.end()


def count_moves(text: str, limit: int | None = None) -> int:
    """The number of moves ``text`` expands to, found without expanding it; ValueError if it is
    malformed, TooManyMoves if the count is over ``limit`` (default: what a list can hold)."""
    cap = sys.maxsize if limit is None else limit
    cap_digits = len(str(cap))
    total = 0
    for pos, digits, letter in _runs(text):
        # A count longer than the limit is over it: never convert (let alone multiply) it.
        if len(digits) > cap_digits:
            shown = digits if len(digits) <= 30 else f"{digits[:20]}...({len(digits)} digits)"
            raise TooManyMoves(
                f"the run {shown}{letter} at position {pos} is more than the limit of {cap} moves"
            )
        total += int(digits) if digits else 1
        if total > cap:
            raise TooManyMoves(
                f"the run {digits}{letter} at position {pos} brings the history to {total} "
                f"moves, more than the limit of {cap}"
            )
    return total


def expand(text: str, limit: int | None = None) -> str:
    """Undo ``compress``: ``3R2DL`` -> ``RRRDDL``; ValueError on anything malformed, and
    TooManyMoves (a ValueError), before anything is built, if it holds more than ``limit``."""
    count_moves(text, limit)
    # count_moves has checked that the runs follow one another from the start to the end.
    return "".join(m[2] * (int(m[1]) if m[1] else 1) for m in _TOKEN.finditer(text))


def expand_directions(text: str, limit: int | None = None) -> list[Direction]:
    """Expand a compressed history into directions (at most ``limit`` of them, as ``expand``)."""
    return list(map(_DIRECTIONS.__getitem__, expand(text, limit)))
