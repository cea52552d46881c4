"""ruff and mypy run clean on the package and its tests, as part of the test command."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str) -> str:
    found = shutil.which(name) or str(Path(sys.executable).parent / name)
    if not Path(found).exists():
        pytest.fail(f"{name} is not installed: pip install '.[test]'")
    return found


def test_ruff_is_clean() -> None:
    r = subprocess.run(
        [tool("ruff"), "check", "termsnake", "tests"], cwd=ROOT, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean() -> None:
    r = subprocess.run(
        [tool("mypy"), "--cache-dir", "/dev/null", "termsnake", "tests"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stdout + r.stderr
