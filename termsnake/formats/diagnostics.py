"""Located errors in a user's file: each one ``path:line:col: error: message``, at most
MAX_DIAGNOSTICS of them, and a last line saying how many more were found."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from termsnake.formats.text import printable

MAX_DIAGNOSTICS: Final = 100
"""At most this many errors are kept per file; a last one says how many more were dropped."""


def too_many(dropped: int) -> str:
    """The last line of a file's errors when ``dropped`` more were found than are shown."""
    return f"too many errors: {dropped} more not shown"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem in a file, at a 1-based line and column (in characters)."""

    path: str
    line: int
    col: int
    message: str

    def __str__(self) -> str:
        return f"{printable(self.path)}:{self.line}:{self.col}: error: {self.message}"


class LevelError(ValueError):
    """A level file that cannot be used; ``diagnostics`` holds every problem found."""

    def __init__(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> None:
        self.diagnostics: tuple[Diagnostic, ...] = tuple(diagnostics)
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class Collector:
    """Gathers diagnostics for one file, capped at MAX_DIAGNOSTICS."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.items: list[Diagnostic] = []
        self.dropped = 0

    def add(self, line: int, col: int, message: str) -> None:
        if len(self.items) < MAX_DIAGNOSTICS:
            self.items.append(Diagnostic(self.path, line, col, message))
        else:
            self.dropped += 1

    def raise_if_any(self) -> None:
        if not self.items:
            return
        items = sorted(self.items, key=lambda d: (d.line, d.col))
        if self.dropped:
            last = items[-1]
            items.append(Diagnostic(self.path, last.line, last.col, too_many(self.dropped)))
        raise LevelError(items)
