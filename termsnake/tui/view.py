"""The pure view: a game state in, lines of text out (rogue-like ASCII, or the unicode tiles).
No terminal here."""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from termsnake.core.board import Board
from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import Point
from termsnake.core.speed import DEFAULT_SPEED
from termsnake.formats.text import clip, columns, shown, shown_printable


@dataclass(frozen=True, slots=True)
class Glyphs:
    """One glyph per tile and frame part; each must be a single terminal column wide."""

    wall: str = "#"
    floor: str = "."
    head: str = "@"
    body: str = "o"
    tail: str = "o"
    food: str = "%"
    dead: str = "X"
    horizontal: str = "#"
    vertical: str = "#"
    corners: str = "####"  # top left, top right, bottom left, bottom right
    wrap_horizontal: str = ":"
    wrap_vertical: str = ":"

    def frame(self, wrap: bool) -> tuple[str, str, str]:
        """The horizontal edge, the vertical edge and the corners for a board."""
        if wrap:
            return self.wrap_horizontal, self.wrap_vertical, self.corners
        return self.horizontal, self.vertical, self.corners

    def roles(self) -> dict[str, str]:
        """Glyph -> what it shows (wall, floor, head, body, food, dead, frame), for colouring."""
        table = {g: "frame" for g in (*self.corners, self.horizontal, self.vertical)}
        table.update({self.wrap_horizontal: "frame", self.wrap_vertical: "frame"})
        table.update({self.wall: "wall", self.floor: "floor", self.food: "food"})
        table.update({self.body: "body", self.tail: "body", self.head: "head", self.dead: "dead"})
        return table


ASCII: Final = Glyphs()
# Box drawing and blocks: single-width in the terminals we know; used only with UTF-8 output.
UNICODE: Final = Glyphs(
    wall="\u2593",  # ▓
    floor="\u00b7",  # ·
    head="@",
    body="\u25a0",  # ■
    tail="\u25aa",  # ▪
    food="\u2666",  # ♦
    dead="X",
    horizontal="\u2500",  # ─
    vertical="\u2502",  # │
    corners="\u250c\u2510\u2514\u2518",  # ┌┐└┘
    wrap_horizontal="\u2504",  # ┄
    wrap_vertical="\u2506",  # ┆
)
GLYPH_SETS: Final = {"ascii": ASCII, "unicode": UNICODE}

# Two terminal columns per cell makes a horizontal move look as fast as a vertical one.
CELL_WIDTH: Final = 2


@dataclass(frozen=True, slots=True)
class Hud:
    """What the status line says besides the game itself."""

    who: str = "you"
    level: str = ""
    speed: float = DEFAULT_SPEED
    paused: bool = False
    message: str = ""
    high_score: int | None = None  # the player's (a length) here, if any
    encoding: str = "utf-8"  # the terminal's: the names it cannot show are escaped to fit


def as_bot(name: str) -> str:
    """How the status line (and a watcher's list) names a bot: ``bot best``. Bare, its name
    read as a word of the line: ``best`` beside the high score's ``best 42``."""
    return f"bot {name}"


@functools.lru_cache(maxsize=64)
def framed(board: Board) -> bool:
    """Whether the board gets a frame: not when its own walls already close it all round."""
    if board.wrap:
        return True
    w, h = board.width, board.height
    ring = [Point(x, y) for x in range(w) for y in (0, h - 1)]
    ring += [Point(x, y) for y in range(h) for x in (0, w - 1)]
    return not all(p in board.walls for p in ring)


def screen_size(game: Game, cell_width: int = CELL_WIDTH) -> tuple[int, int]:
    """Terminal columns and rows the frame (if any), board and status line need."""
    edge = 2 if framed(game.board) else 0
    return game.board.width * cell_width + edge, game.board.height + edge + 1


def pick_cell_width(game: Game, columns: int) -> int:
    """Two columns a cell when the terminal is wide enough, else one."""
    return CELL_WIDTH if screen_size(game, CELL_WIDTH)[0] <= columns else 1


# The most columns the level's name takes on the status line: the parts after it stay in sight.
LEVEL_COLUMNS: Final = 20


def _format_speed(speed: float) -> str:
    return f"{speed:g}/s"


def status_line(game: Game, hud: Hud, width: int | None = None) -> str:
    """The status line: what needs attention first (pause, message), then level, length / free
    cells, steps, speed, who plays and the best score; the level's name cut to LEVEL_COLUMNS.
    Within ``width`` columns the least needed parts go first (the speed, who plays, the best,
    the steps, then the level's name), so a wider terminal never shows less."""
    first = [shown(p, hud.encoding) for p in ("PAUSED" if hud.paused else "", hud.message) if p]
    level = shown_printable(hud.level or game.board.name, hud.encoding)
    if columns(level) > LEVEL_COLUMNS:  # a long name would push out every part after it
        level = clip(level, LEVEL_COLUMNS - 3) + "..."
    parts: dict[str, str] = {
        "level": level,
        "length": f"length {game.length}/{game.board.free_count}",
        "steps": f"steps {game.steps}",
        "speed": f"speed {_format_speed(hud.speed)}",
        "who": shown(hud.who, hud.encoding),
    }
    if hud.high_score is not None:
        parts["best"] = f"best {hud.high_score}"
    line = "  ".join([*first, *parts.values()])
    for expendable in ("speed", "who", "best", "steps", "level"):
        if width is None or columns(line) <= width:
            break
        parts.pop(expendable, None)
        line = "  ".join([*first, *parts.values()])
    return line if width is None else clip(line, width)


def render(
    game: Game,
    hud: Hud,
    *,
    cell_width: int = CELL_WIDTH,
    overlay: Mapping[Point, str] | None = None,
    glyphs: Glyphs = ASCII,
    width: int | None = None,
) -> list[str]:
    """The whole screen as lines: frame, board, status line (which may be wider than the board;
    ``width`` makes it fit, dropping its least needed parts).

    ``overlay`` draws the plan (one glyph per cell) on floor cells, under the snake and food.
    """
    board = game.board
    w, h = board.width, board.height

    def cell(glyph: str) -> str:
        return _cell(glyph, glyphs.wall, cell_width)

    grid = [list(row) for row in _ground(board, glyphs, cell_width)]
    if overlay:
        for p, glyph in overlay.items():
            if 0 <= p.x < w and 0 <= p.y < h and p not in board.walls:
                grid[p.y][p.x] = cell(glyph)
    if game.food is not None:
        grid[game.food.y][game.food.x] = cell(glyphs.food)
    body = game.body
    body_cell = cell(glyphs.body)
    for p in body:
        grid[p.y][p.x] = body_cell
    tail, head = body[-1], body[0]
    grid[tail.y][tail.x] = cell(glyphs.tail)
    dead = game.outcome is Outcome.DIED  # a stall has a cause too, but the snake lives
    grid[head.y][head.x] = cell(glyphs.dead if dead else glyphs.head)
    rows = ["".join(row) for row in grid]
    if framed(board):
        across, side, corners = glyphs.frame(board.wrap)
        edge = across * (w * cell_width)
        rows = [corners[0] + edge + corners[1], *(side + r + side for r in rows)]
        rows.append(corners[2] + edge + corners[3])
    return [*rows, status_line(game, hud, width)]


def place(
    lines: Sequence[str], need: tuple[int, int], size: tuple[int, int]
) -> tuple[list[str], tuple[int, int]]:
    """Centre a frame on a terminal of ``size``: its lines, cut to the terminal, and the origin
    to draw them at (in ``Screen.draw``'s order). ``need`` is the columns and rows of the
    frame, board and status line (``screen_size``). A line wider than the board (the status
    line, the help) starts under the board's left edge, or as far left as it must to fit; the
    lines are padded so that each one starts where it should."""
    cols, rows = size
    top = max(0, min((rows - need[1]) // 2, rows - len(lines)))
    left = max(0, (cols - need[0]) // 2)
    kept: list[str] = []
    starts: list[int] = []
    for line in lines[: max(0, rows - top)]:
        width = columns(line)
        if width > cols:
            line, width = clip(line, cols), cols
        kept.append(line)
        starts.append(max(0, min(left, cols - width)))
    x = min(starts, default=0)
    return [" " * (s - x) + line for s, line in zip(starts, kept, strict=True)], (x, top)


def _cell(glyph: str, wall: str, cell_width: int) -> str:
    """A glyph as ``cell_width`` columns: walls repeat (so they look solid), the rest is blank."""
    return glyph + (glyph if glyph == wall else " ") * (cell_width - 1)


@functools.lru_cache(maxsize=64)
def _ground(board: Board, glyphs: Glyphs, cell_width: int) -> tuple[tuple[str, ...], ...]:
    """The board's walls and floor, cell by cell: what every frame of it starts from."""
    wall, floor = (_cell(g, glyphs.wall, cell_width) for g in (glyphs.wall, glyphs.floor))
    walls = board.walls
    return tuple(
        tuple(wall if Point(x, y) in walls else floor for x in range(board.width))
        for y in range(board.height)
    )


def fits_in(need: tuple[int, int], size: tuple[int, int]) -> bool:
    """Whether a screen that needs ``need`` (columns, rows) fits a terminal of ``size``."""
    return need[0] <= size[0] and need[1] <= size[1]


def render_too_small(
    need: tuple[int, int],
    have: tuple[int, int],
    *,
    watching: bool = False,
    over: bool = False,
    keys: tuple[str, str] = ("space", "q"),
    ended: str = "",
) -> list[str]:
    """The screen shown while the terminal is too small for the board: the game waits (or,
    ``watching`` another's game, goes on unseen; or it is ``over``, its final board unseen).
    ``keys``: the names of the keys that go on and that quit (or leave). ``ended``: how the
    game ended, said first (a watcher did not play it, and must not think it still goes on).
    Each sentence is wrapped to the terminal's width; what does not fit its height is left
    out, the sizes last."""
    go_key, quit_key = keys
    if over:
        why = " to show the final board."
        hint = (
            f"to see it, or press {quit_key} to leave."
            if watching
            else "to see it, or press a key to go on."
        )
    elif watching:
        why, hint = " to watch this game.", f"to go on, or press {quit_key} to leave."
    else:  # enlarged, the game stays paused: a player who was not told waited at "PAUSED"
        # "waits", not "is paused": before the first key the game has not started yet.
        why, hint = "; the game waits.", f"and press {go_key} to go on, or {quit_key} to quit."
    sentences = {
        **({"ended": ended} if ended else {}),
        "sizes": f"need {need[0]}x{need[1]}, have {have[0]}x{have[1]}",
        "headline": f"termsnake: the terminal is too small{why}",
        "hint": f"Enlarge the window {hint}",
    }
    width, height = max(1, have[0]), max(1, have[1])
    wrapped = {k: textwrap.wrap(v, width, break_on_hyphens=False) for k, v in sentences.items()}
    kept: list[str] = []
    for key in sentences:  # in order of need
        if sum(len(wrapped[k]) for k in kept) + len(wrapped[key]) > height:
            break
        kept.append(key)
    order = ("ended", "headline", "sizes", "hint")
    lines = [line for key in order if key in kept for line in wrapped[key]]
    return [clip(line, width) for line in (lines or wrapped["sizes"])[:height]]


def help_page(text: Sequence[str], size: tuple[int, int]) -> list[str]:
    """The key help ``text`` alone, for a terminal too small to show it boxed over the board
    (it was cut off there, the line that says how to close it first): each line wrapped to the
    width; where the rows are too few, the blank lines left out, then the lines before the last
    one, which says how to close it."""
    cols, rows = max(1, size[0]), max(1, size[1])

    def wrapped(lines: Sequence[str]) -> list[str]:
        # A key's line (indented) goes on under its words, after its name's column.
        indent = " " * min(8, cols // 2)
        return [
            part
            for line in lines
            for part in textwrap.wrap(
                line,
                cols,
                subsequent_indent=indent if line.startswith(" ") else "",
                break_on_hyphens=False,
            )
            or [""]
        ]

    page = wrapped(text)
    if len(page) > rows:
        page = wrapped([line for line in text if line])
    if len(page) > rows:
        close = wrapped(text[-1:])
        page = page[: max(0, rows - len(close))] + close
    return [clip(line, cols) for line in page[:rows]]


def with_help(
    lines: list[str], help_text: list[str], board: tuple[int, int], size: tuple[int, int]
) -> tuple[list[str], tuple[int, int]]:
    """``lines`` (a game's ``board`` of that size and its status line) placed on a terminal
    of ``size`` (as ``place``) with the key help boxed over the board, or the help alone
    where that box would be cut off."""
    boxed = with_box(lines, help_text)
    if fits_in((max(map(columns, boxed)), len(boxed)), size):
        return place(boxed, board, size)
    page = help_page(help_text, size)
    return place(page, (max(map(columns, page)), len(page)), size)


def with_box(lines: list[str], box: list[str]) -> list[str]:
    """``lines`` (the board, then the status line) with ``box`` (framed, centred on the
    board) drawn over the board, growing it downwards when the board is too short for it;
    the status line stays below, whole, where ``place`` puts a status line."""
    inner = max(len(b) for b in box)
    box_lines = ["+" + "-" * (inner + 2) + "+"]
    box_lines += [f"| {b.ljust(inner)} |" for b in box]
    box_lines.append(box_lines[0])
    board, status = list(lines[:-1]), lines[-1]
    width = len(board[0])  # the board's frame
    top = max(0, (len(board) - len(box_lines)) // 2)
    left = max(0, (width - len(box_lines[0])) // 2)
    board += [""] * (top + len(box_lines) - len(board))
    for i, text in enumerate(box_lines):
        row = board[top + i].ljust(left)
        board[top + i] = row[:left] + text + row[left + len(text) :]
    return [*board, status]
