"""The learning curve: best and mean score per generation, as a chart in text and as CSV."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

HEIGHT: Final = 10


def csv_text(curve: Sequence[dict[str, float]]) -> str:
    """generation,best,mean,elite: one line per generation."""
    lines = ["generation,best,mean,elite"]
    for p in curve:
        lines.append(f"{int(p['generation'])},{p['best']:.3f},{p['mean']:.3f},{p['elite']:.3f}")
    return "\n".join(lines) + "\n"


def chart(curve: Sequence[dict[str, float]], width: int = 60) -> list[str]:
    """A text chart: ``*`` the best network's score, ``.`` the population's mean."""
    if not curve:
        return ["(no generation yet)"]
    top = max(p["best"] for p in curve) or 1.0
    step = max(1, -(-len(curve) // width))
    points = curve[::step]
    rows = []
    for level in range(HEIGHT, 0, -1):
        cut = top * (level - 0.5) / HEIGHT
        marks = "".join(
            "*" if p["best"] >= cut else "." if p["mean"] >= cut else " " for p in points
        )
        rows.append(f"{top * level / HEIGHT:6.1f} |{marks}")
    rows.append("       +" + "-" * len(points))
    rows.append(f"        generation 0 .. {len(curve) - 1}   * best   . mean (mean final length)")
    return rows
