"""The learning curve: each generation's best, mean and elite scores, as a chart in text (best
and mean) and as CSV, and the check that a file is such a CSV (before a run replaces it)."""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import Final

HEIGHT: Final = 10
POINTS: Final = 60  # generations across, at most, in a chart that is not for a terminal
_AXIS: Final = " " * 8  # the scores' column left of the chart, "  23.0 |"
CSV_HEADER: Final = "generation,best,mean,elite"
_CSV_LINE: Final = re.compile(r"\d+(,-?\d+\.\d+){3}")  # a line as csv_text writes it


def csv_text(curve: Sequence[dict[str, float]]) -> str:
    """CSV_HEADER, then one line per generation."""
    lines = [CSV_HEADER]
    for p in curve:
        lines.append(f"{int(p['generation'])},{p['best']:.3f},{p['mean']:.3f},{p['elite']:.3f}")
    return "\n".join(lines) + "\n"


def is_csv(text: str) -> bool:
    """Whether ``text`` is a curve as ``csv_text`` writes it."""
    lines = text.splitlines()
    return bool(lines) and lines[0] == CSV_HEADER and all(map(_CSV_LINE.fullmatch, lines[1:]))


def chart(curve: Sequence[dict[str, float]], columns: int | None = None) -> list[str]:
    """A text chart: ``*`` the best network's score, over a bar of ``.`` up to the population's
    mean (bars for the best would hide the mean, which is never above it). For a terminal
    ``columns`` wide, short of its last column (where some terminals wrap), with a generation
    across at least (under 10 columns the rows wrap); None, not a terminal: POINTS across."""
    if not curve:
        return ["(no generation yet)"]
    top = max(p["best"] for p in curve) or 1.0

    def row(score: float) -> int:
        return int(score / top * HEIGHT + 0.5)  # the rows a bar of this score fills

    width = POINTS if columns is None else max(1, columns - 1 - len(_AXIS))
    step = max(1, -(-len(curve) // width))
    points = [(row(p["best"]), row(p["mean"])) for p in curve[::step]]
    rows = []
    for level in range(HEIGHT, 0, -1):
        marks = "".join(
            "*" if best == level else "." if mean >= level else " " for best, mean in points
        )
        rows.append(f"{top * level / HEIGHT:6.1f} |{marks}")
    rows.append(_AXIS[:-1] + "+" + "-" * len(points))
    legend = f"generation 0 .. {len(curve) - 1}   * best   . mean (mean final length)"
    if columns is None or len(_AXIS + legend) < columns:
        return [*rows, _AXIS + legend]
    return [*rows, *textwrap.wrap(legend, max(1, columns - 1))]  # no indent to spare
