"""A thin screen writer: sends only the cells that changed since the last frame, in one write."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import wcwidth

from termsnake.formats.text import clip, columns, encoding_of, shown


class Stream(Protocol):
    """Where frames go: a text stream (a tty, a StringIO, an SSH channel)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


class CursorTerminal(Protocol):
    """The little of a blessed Terminal the writer needs."""

    @property
    def clear(self) -> str: ...

    @property
    def home(self) -> str: ...

    def move_xy(self, x: int, y: int) -> str: ...


def plain(line: str) -> bool:
    """Whether every character of ``line`` is printable ASCII: one column each."""
    return line.isascii() and line.isprintable()


def cells(line: str) -> list[str]:
    """``line`` as terminal columns: a character with its combining marks a column, and a wide
    one followed by '' for the second column it covers."""
    if plain(line):
        return list(line)  # the board and status line: grapheme segmentation is the slow part
    out: list[str] = []
    pending = ""  # zero-width characters with nothing before them to join
    for grapheme in wcwidth.iter_graphemes(line):
        width = wcwidth.width(grapheme)
        if width <= 0:
            if out:
                out[-1] += grapheme
            else:
                pending += grapheme
            continue
        out.append(pending + grapheme)
        out.extend([""] * (width - 1))
        pending = ""
    return out


def changed_spans(old: str, new: str) -> list[tuple[int, str]]:
    """The runs of ``new`` that differ from ``old``, as (column, text); a shorter ``new`` is
    padded with spaces so that stale characters are erased. Columns, not characters, are
    compared, so a wide or combining character does not shift what follows it."""
    if old == new:
        return []
    before: Sequence[str]
    after: Sequence[str]
    if plain(old) and plain(new):  # a string is its own list of columns
        width = max(len(old), len(new))
        before, after = old.ljust(width), new.ljust(width)
    else:
        old_cells, new_cells = cells(old), cells(new)
        width = max(len(old_cells), len(new_cells))
        before = old_cells + [" "] * (width - len(old_cells))
        after = new_cells + [" "] * (width - len(new_cells))
    spans: list[tuple[int, str]] = []
    x = 0
    while x < width:
        if before[x] == after[x]:
            x += 1
            continue
        start = x
        # Bridge short runs of equal columns: one move sequence costs more than a few bytes.
        while x < width and (before[x] != after[x] or before[x : x + 4] != after[x : x + 4]):
            x += 1
        spans.append((start, "".join(after[start:x])))
    return spans


class Screen:
    """Turns frames (lists of lines) into terminal writes, sending only what changed.

    ``style(text, row)`` may colour a run before it is sent; colours are not compared, so a
    change of styling needs ``invalidate``.
    """

    def __init__(
        self,
        term: CursorTerminal,
        stream: Stream,
        style: Callable[[str, int], str] | None = None,
    ) -> None:
        self.term = term
        self.stream = stream
        self.style = style
        self.encoding = encoding_of(stream)
        self._shown: list[str] | None = None
        self._origin = (0, 0)
        self.bytes_written = 0

    def invalidate(self) -> None:
        """Forget what is on screen: the next frame clears it and is drawn whole."""
        self._shown = None

    def draw(self, lines: Sequence[str], origin: tuple[int, int] = (0, 0)) -> None:
        """Show ``lines`` with their top left corner at ``origin`` (column, row), in a single
        write; a frame at another origin than the last one is drawn whole."""
        lines = [line if plain(line) else self._fit(line) for line in lines]
        out: list[str] = []
        old = self._shown if origin == self._origin else None
        self._origin = origin
        if old is None:
            out.append(self.term.home + self.term.clear)
            old = []
        for y in range(max(len(old), len(lines))):
            before = old[y] if y < len(old) else ""
            after = lines[y] if y < len(lines) else ""
            for x, text in changed_spans(before, after):
                out.append(self.term.move_xy(origin[0] + x, origin[1] + y))
                out.append(self.style(text, y) if self.style else text)
        self._shown = list(lines)
        if out:
            data = "".join(out)
            self.bytes_written += len(data)
            self.stream.write(data)
            self.stream.flush()

    def _fit(self, line: str) -> str:
        """``line`` as the stream's encoding can show it (``shown``), kept to the columns the
        view laid it out in: a glyph or a name a latin-1 terminal cannot show is no traceback."""
        text = shown(line, self.encoding)
        return text if text == line else clip(text, columns(line))
