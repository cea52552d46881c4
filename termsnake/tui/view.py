"""The pure view: a game state in, lines of rogue-like ASCII text out. No terminal here."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

import wcwidth

from termsnake.core.game import Game
from termsnake.core.geometry import Point
from termsnake.formats.text import printable


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

# Two terminal columns per cell makes a horizontal move look as fast as a vertical one;
# the second column repeats walls (so they look solid) and is blank for everything else.
CELL_WIDTH: Final = 2


@dataclass(frozen=True, slots=True)
class Hud:
    """What the status line says besides the game itself."""

    who: str = "you"
    level: str = ""
    speed: float = 8.0
    paused: bool = False
    message: str = ""
    best: int | None = None


def board_size(game: Game, cell_width: int = CELL_WIDTH) -> tuple[int, int]:
    """Terminal columns and rows the frame, board and status line need."""
    return game.board.width * cell_width + 2, game.board.height + 3


def pick_cell_width(game: Game, columns: int) -> int:
    """Two columns a cell when the terminal is wide enough, else one."""
    return CELL_WIDTH if board_size(game, CELL_WIDTH)[0] <= columns else 1


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes (wide characters two, combining marks none)."""
    return int(wcwidth.width(text))


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` columns (half a wide character becomes a space)."""
    return text if columns(text) <= width else str(wcwidth.clip(text, 0, width))


def _format_speed(speed: float) -> str:
    return f"{speed:g}/s"


def status_line(game: Game, hud: Hud, width: int | None = None) -> str:
    """The status line: what needs attention first (pause, message), then level, length / free
    cells, steps, speed, who plays and the best score. Within ``width`` columns the least
    needed parts go first: the level name, then the speed, who plays, the best, the steps."""
    first = [p for p in ("PAUSED" if hud.paused else "", hud.message) if p]
    parts: dict[str, str] = {
        "level": printable(hud.level or game.board.name),
        "length": f"length {game.length}/{game.board.size}",
        "steps": f"steps {game.steps}",
        "speed": f"speed {_format_speed(hud.speed)}",
        "who": hud.who,
    }
    if hud.best is not None:
        parts["best"] = f"best {hud.best}"
    line = "  ".join([*first, *parts.values()])
    for expendable in ("level", "speed", "who", "best", "steps"):
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
    tiles: dict[Point, str] = {p: glyphs.wall for p in board.walls}
    if overlay:
        for p, glyph in overlay.items():
            if p not in tiles:
                tiles[p] = glyph
    if game.food is not None:
        tiles[game.food] = glyphs.food
    body = game.body
    for p in body:
        tiles[p] = glyphs.body
    tiles[body[-1]] = glyphs.tail
    tiles[body[0]] = glyphs.dead if game.cause and game.outcome is not None else glyphs.head

    def cell(glyph: str) -> str:
        if cell_width == 1:
            return glyph
        filler = glyph if glyph == glyphs.wall else " "
        return glyph + filler * (cell_width - 1)

    across, side, corners = glyphs.frame(board.wrap)
    lines = [corners[0] + across * (board.width * cell_width) + corners[1]]
    for y in range(board.height):
        row = "".join(cell(tiles.get(Point(x, y), glyphs.floor)) for x in range(board.width))
        lines.append(side + row + side)
    lines.append(corners[2] + across * (board.width * cell_width) + corners[3])
    lines.append(status_line(game, hud, width))
    return lines


def render_too_small(need: tuple[int, int], have: tuple[int, int]) -> list[str]:
    """The screen shown while the terminal is too small for the board: the game waits."""
    return [
        "termsnake: the terminal is too small; the game is paused.",
        f"need {need[0]}x{need[1]}, have {have[0]}x{have[1]}",
        "Enlarge the window to go on, or press q to quit.",
    ]


def with_box(lines: list[str], box: list[str]) -> list[str]:
    """``lines`` with ``box`` (framed, centred on the board) drawn over them, growing the
    screen downwards when the board is too short for it."""
    inner = max(len(b) for b in box)
    framed = ["+" + "-" * (inner + 2) + "+"]
    framed += [f"| {b.ljust(inner)} |" for b in box]
    framed.append(framed[0])
    width = len(lines[0])  # the board's frame
    top = max(0, (len(lines) - 1 - len(framed)) // 2)
    left = max(0, (width - len(framed[0])) // 2)
    out = list(lines)
    out += [""] * (top + len(framed) - len(out))
    for i, text in enumerate(framed):
        row = out[top + i].ljust(left)
        out[top + i] = row[:left] + text + row[left + len(text) :]
    return out
