"""Where the repository's example level files are, for the tests that play them."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "levels"
