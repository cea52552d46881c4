"""The benchmark's progress line on a terminal: games done of all, and the moves made so far,
so that a single long game shows it is alive too."""

from __future__ import annotations

import contextlib
import sys
import time
from types import TracebackType
from typing import Final, TextIO

from termsnake.bench.pool import Watcher
from termsnake.statusline import columns, redraw, unechoed

REFRESH: Final = 0.25  # seconds between redraws at most: a few a second
BAR: Final = 20  # cells of the bar


def line(done: int, total: int, moves: int, seconds: float, width: int | None = None) -> str:
    """The progress line: ``bench [####    ] D/T games, M moves, m:ss``; without its bar where
    it is wider than ``width`` columns (the last one left free, as ``redraw`` does): cut to the
    width, the bar hid the figures."""
    filled = BAR * done // total if total else BAR
    m, s = divmod(int(seconds), 60)
    figures = f"{done:,}/{total:,} games, {moves:,} moves, {m}:{s:02d}"
    text = f"bench [{'#' * filled}{' ' * (BAR - filled)}] {figures}"
    return text if width is None or len(text) < width else f"bench {figures}"


class Progress(Watcher):
    """One line on ``stream`` when it is a terminal (nothing otherwise), redrawn at most
    every REFRESH seconds, erased on close; keys typed on that terminal meanwhile are not
    echoed over it."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        """A line for ``total`` games on ``stream`` (stderr by default)."""
        self._stream = stream if stream is not None else sys.stderr
        self._on = self._stream is not None and self._stream.isatty()
        self._total = total
        self._done = 0
        self._moves = 0
        self._started = time.monotonic()
        self._drawn_at = self._started - REFRESH
        self._shown = False  # whether the line is on the terminal
        self._echo = contextlib.ExitStack()  # echo turned back on by close
        if self._on:
            self._echo.enter_context(unechoed(self._stream))
        self._draw()

    def done(self, games: int) -> None:
        """Count ``games`` more games done."""
        self._done += games
        self._draw()

    def moves(self, total: int) -> None:
        """``total`` moves have been made so far, by all games."""
        self._moves = total
        self._draw()

    def say(self, text: str) -> None:
        """Print ``text`` on the stream (a line), the progress line drawn again under it."""
        self._erase()
        self._put(text + "\n")
        self._drawn_at = time.monotonic() - REFRESH
        self._draw()

    def close(self) -> None:
        """Erase the line; keys typed are echoed again."""
        self._erase()
        self._on = False
        self._echo.close()

    def _draw(self) -> None:
        now = time.monotonic()
        if not self._on or now - self._drawn_at < REFRESH:
            return
        self._drawn_at = now
        # Fitted to the width at each redraw: a terminal may have been narrowed since the last.
        width = columns(self._stream)
        self._put(
            redraw(line(self._done, self._total, self._moves, now - self._started, width), width)
        )
        self._shown = True

    def _erase(self) -> None:
        if self._on and self._shown:
            self._put(redraw("", columns(self._stream)))
            self._shown = False

    def _put(self, text: str) -> None:
        if not self._on and text.startswith("\r"):
            return
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):
            self._on = False  # a terminal gone: the run goes on without its progress line

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
