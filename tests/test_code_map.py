"""The README's Code map names every module of the package, in the row of its room."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOP = "top level"


def map_rows(readme: str) -> dict[str, str]:
    """The Code map's table: each room (``core/``, ..., ``top level``) -> what its row says."""
    section = readme.split("\n## Code map\n", 1)[1].split("\n### ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = re.fullmatch(r"\| `?([\w ]+/?)`? \| (.*) \|", line)
        if found and found.group(1) != "room":
            rows[found.group(1)] = found.group(2)
    return rows


def unmapped(readme: str, modules: list[Path]) -> list[str]:
    """The modules (paths inside the package) that their room's row does not name."""
    rows = map_rows(readme)
    missing = []
    for path in modules:
        room = f"{path.parts[0]}/" if len(path.parts) > 1 else TOP
        if path.name != "__init__.py" and f"`{path.stem}`" not in rows.get(room, ""):
            missing.append(path.as_posix())
    return missing


def test_every_module_is_named_in_its_rooms_row() -> None:
    # A module added without a word in the map leaves a newcomer to find it by grep: the map
    # had lagged behind five modules (bench/names, env/snake, serve/events, serve/listen,
    # solvers/engineproc) before this test.
    package = ROOT / "termsnake"
    modules = sorted(p.relative_to(package) for p in package.rglob("*.py"))
    assert len(modules) > 100
    assert unmapped((ROOT / "README.md").read_text(encoding="utf-8"), modules) == []


def test_a_module_missing_from_the_map_is_found() -> None:
    readme = "\n## Code map\n\n| room | what |\n| --- | --- |\n| `core/` | `game` (rules) |\n"
    paths = [Path("core/game.py"), Path("core/moves.py"), Path("workers.py")]
    assert unmapped(readme, paths) == ["core/moves.py", "workers.py"]
