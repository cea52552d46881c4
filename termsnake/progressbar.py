"""tqdm's bar (train's, and replay's while it checks a file) drawn as a status line: as wide as
the terminal is at each redraw, and erased whole after the terminal was narrowed under it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TextIO

from tqdm import tqdm

from termsnake.statusline import columns, redraw


class Bar(tqdm):  # type: ignore[misc]  # tqdm has no type annotations
    """A tqdm bar whose width follows the terminal's, redrawn by ``statusline.redraw``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """tqdm's arguments; the width is the terminal's at each redraw."""
        super().__init__(*args, dynamic_ncols=True, **kwargs)

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        """Closed; erased where the block ended in an exception (Ctrl-C, a signal, an error),
        as bench's progress line is, so that the line saying why comes under no stale bar."""
        if kind is not None:
            self.leave = False
        super().__exit__(kind, *rest)

    @staticmethod
    def status_printer(file: TextIO) -> Callable[[str], None]:
        """What tqdm draws its line with: tqdm's own pads it to the last line's length, which
        wraps on a terminal narrowed since, and leaves its cursor at its end."""

        def show(text: str) -> None:
            file.write(redraw(text, columns(file)))
            file.flush()

        return show
