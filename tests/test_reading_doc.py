"""docs/reading.md names only modules, classes, functions and constants that exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "termsnake"
# `tui/session.py:Session.run`: a module under termsnake/ and, after the colon, what is in it
# (a path under tests/ is left out: it is no module of the package).
REFERENCE = re.compile(r"`(?!tests/)([\w/]+\.py)(?::([\w.]+))?`")


def defines(body: list[ast.stmt], name: str) -> list[ast.stmt] | None:
    """The body of the class ``name`` in ``body`` ([] for a function or a constant), or None
    if ``body`` has nothing of that name."""
    for node in body:
        if isinstance(node, ast.ClassDef) and node.name == name:
            return node.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return []
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            return []
    return None


def missing(text: str, package: Path) -> list[str]:
    """The references in ``text`` to a module under ``package``, or a name in one, that are
    not there."""
    found = []
    for path, qualname in REFERENCE.findall(text):
        module = package / path
        if not module.is_file():
            found.append(path)
            continue
        if not qualname:
            continue
        body: list[ast.stmt] | None = ast.parse(module.read_text(encoding="utf-8")).body
        for part in qualname.split("."):
            body = defines(body, part) if body is not None else None
        if body is None:
            found.append(f"{path}:{qualname}")
    return found


def test_every_name_the_reading_doc_gives_exists() -> None:
    # A walk through the code that names a function renamed since sends the newcomer to grep.
    text = (ROOT / "docs" / "reading.md").read_text(encoding="utf-8")
    assert len(REFERENCE.findall(text)) > 80
    assert missing(text, PACKAGE) == []


def test_a_name_gone_is_found(tmp_path: Path) -> None:
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "game.py").write_text(
        "LIMIT: int = 3\nclass Game:\n    def step(self): ...\ndef new_seed(): ...\n"
    )
    text = (
        "`core/game.py:Game.step` `core/game.py:new_seed` `core/game.py:LIMIT` `core/game.py`"
        " `core/game.py:Game.undo` `core/game.py:Board` `core/gone.py` `core/game.py:new_seed.x`"
    )
    assert missing(text, tmp_path) == [
        "core/game.py:Game.undo",
        "core/game.py:Board",
        "core/gone.py",
        "core/game.py:new_seed.x",
    ]
