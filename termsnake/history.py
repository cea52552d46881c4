"""Move histories in run-length form: ``RRRDDL`` <-> ``3R2DL``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from itertools import groupby

from termsnake.geometry import Direction

_TOKEN = re.compile(r"(\d*)([UDLR])")


def compress(moves: Iterable[Direction] | str) -> str:
    """Run-length encode moves: a run of n > 1 equal moves is ``nX``, a single one ``X``."""
    letters = moves if isinstance(moves, str) else "".join(d.value for d in moves)
    out = []
    for letter, run in groupby(letters):
        n = sum(1 for _ in run)
        out.append(f"{n}{letter}" if n > 1 else letter)
    return "".join(out)


def expand(text: str) -> str:
    """Undo ``compress``: ``3R2DL`` -> ``RRRDDL``; ValueError on anything malformed."""
    out = []
    pos = 0
    for m in _TOKEN.finditer(text):
        if m.start() != pos:
            break
        count = m.group(1)
        if count and (count.startswith("0") or int(count) < 2):
            raise ValueError(f"bad run count {count!r} at position {pos} of a move history")
        out.append(m.group(2) * (int(count) if count else 1))
        pos = m.end()
    if pos != len(text):
        raise ValueError(f"bad move history at position {pos}: {text[pos : pos + 10]!r}")
    return "".join(out)


def expand_directions(text: str) -> list[Direction]:
    """Expand a compressed history into directions."""
    return [Direction(ch) for ch in expand(text)]
