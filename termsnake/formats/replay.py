"""Replay files (format termsnake-replay/1): a game recorded as a Replay, written as JSON, and
loaded back with its form checked. Whether its moves give its foods and result is checked in
``formats.verify``, whose PlaybackGame plays it back."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from termsnake.core.board import Board
from termsnake.core.game import STALL_FACTOR, Game, Outcome
from termsnake.core.geometry import Direction, Point
from termsnake.core.level import Level
from termsnake.core.moves import TooManyMoves, compress, expand_directions
from termsnake.formats.fileio import TooLarge, describe_parse_error, read_capped
from termsnake.formats.levelfile import MAX_FILE_BYTES
from termsnake.formats.text import first_hidden, json_kind, json_shown, printable

FORMAT: Final = "termsnake-replay/1"
# The longest board name read: a level file without a name header is named by its file name,
# which may be 255 characters long; the summary and the status line cut it further.
MAX_BOARD_NAME: Final = 255
# Files over this are refused unread: a replay within the limits below is far smaller.
MAX_REPLAY_BYTES: Final = 64 * 1024 * 1024
# At most this many moves whatever the board, so that a replay's expanded moves (a list of
# directions, 8 bytes a move) fit in memory.
MAX_MOVES: Final = 10_000_000
# What a replay may hold before it is decoded, counted in its text: decoded, each value is an
# object of its own, and 64 MiB of small ones take gigabytes. The body and the foods hold at
# most a level file's cells, the rows half as many strings; names (an engine's command, up to
# 128 KiB) and the forfeit cause add the rest.
_NAMES: Final = 256 * 1024
MOST_IN_TEXT: Final = {
    ",": 4 * MAX_FILE_BYTES + _NAMES,  # every value but one in each array or object
    "[": 2 * MAX_FILE_BYTES + _NAMES,
    '"': MAX_FILE_BYTES + 2 * _NAMES,
    "{": _NAMES,
}

_KEYS: Final = ("format", "board", "start", "seed", "solver", "moves", "foods", "result")
_BOARD_KEYS: Final = ("name", "rows", "wrap")
_START_KEYS: Final = ("body", "direction")
_RESULT_KEYS: Final = ("outcome", "length", "steps")
SHOWN_KEYS: Final = 3  # unknown keys an error names
# A game its bot lost by breaking down (``Game.forfeit``) says why: no move ends it.
_FORFEIT: Final = "forfeit"
MAX_FORFEIT: Final = 1000  # characters of the cause kept


class ReplayError(Exception):
    """A replay file that cannot be read, is malformed, or does not reproduce its own game."""


@dataclass(frozen=True, slots=True)
class Result:
    """How a recorded game ended: its outcome, final length and number of moves, and the
    cause if its bot lost it by breaking down (``Game.forfeit``) rather than by a move."""

    outcome: Outcome
    length: int
    steps: int
    forfeit: str | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """One recorded game, field for field the JSON of termsnake-replay/1 (moves expanded)."""

    board_name: str
    rows: tuple[str, ...]
    wrap: bool
    body: tuple[Point, ...]
    direction: Direction
    seed: int
    solver: str | None
    moves: tuple[Direction, ...]
    foods: tuple[tuple[int, Point], ...]
    result: Result

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of this replay, keys in the documented order."""
        return {
            "format": FORMAT,
            "board": {"name": self.board_name, "rows": list(self.rows), "wrap": self.wrap},
            "start": {
                "body": [[p.x, p.y] for p in self.body],
                "direction": self.direction.letter,
            },
            "seed": self.seed,
            "solver": self.solver,
            "moves": compress(self.moves),
            "foods": [[step, p.x, p.y] for step, p in self.foods],
            "result": {
                "outcome": self.result.outcome.value,
                "length": self.result.length,
                "steps": self.result.steps,
            }
            | ({} if self.result.forfeit is None else {_FORFEIT: self.result.forfeit}),
        }

    def to_json(self) -> str:
        """The file text: one top-level key a line, compact values, a final newline."""
        obj = self.to_dict()
        lines = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in obj.items()]
        return "{" + ",\n ".join(lines) + "}\n"

    @classmethod
    def from_json(cls, text: str) -> Replay:
        """Parse and validate replay text; ReplayError saying what is wrong, never anything else."""
        for mark, most in MOST_IN_TEXT.items():
            count = text.count(mark)
            if count > most:
                raise ReplayError(
                    f"holds {count} {mark!r} characters, more than a replay of any board has "
                    f"({most})"
                )
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as e:  # JSONDecodeError is a ValueError
            raise ReplayError(f"not valid JSON: {describe_parse_error(e)}") from None
        return cls.from_dict(obj)

    @classmethod
    def from_dict(cls, obj: object) -> Replay:
        """Validate a decoded JSON value field by field; ReplayError on anything malformed."""
        top = _object(obj, "the replay", _KEYS)
        if top["format"] != FORMAT:
            raise ReplayError(f"format must be {FORMAT!r}, not {json_shown(top['format'])}")
        board = _object(top["board"], "board", _BOARD_KEYS)
        name = _name(board["name"], "board.name")
        if len(name) > MAX_BOARD_NAME:  # it goes on status lines and summaries
            raise ReplayError(
                f"board.name is {len(name)} characters long; at most {MAX_BOARD_NAME}"
            )
        rows = _rows(board["rows"])
        wrap = board["wrap"]
        if not isinstance(wrap, bool):
            raise ReplayError(f"board.wrap must be true or false, not {json_shown(wrap)}")
        start = _object(top["start"], "start", _START_KEYS)
        free = sum(row.count(".") for row in rows)
        body = _points(start["body"], "start.body", free)
        if not body:
            raise ReplayError("start.body must hold at least one cell")
        direction = _direction(start["direction"], "start.direction")
        seed = _integer(top["seed"], "seed")
        solver = top["solver"]
        if solver is not None:
            solver = _name(solver, "solver")
        moves = _moves(_string(top["moves"], "moves"), rows)
        foods = _foods(top["foods"], free)
        result = _object(top["result"], "result", _RESULT_KEYS, optional=(_FORFEIT,))
        outcome_text = _string(result["outcome"], "result.outcome")
        try:
            outcome = Outcome(outcome_text)
        except ValueError:
            known = ", ".join(o.value for o in Outcome)
            raise ReplayError(
                f"result.outcome must be one of {known}, not {json_shown(outcome_text)}"
            ) from None
        length = _integer(result["length"], "result.length", minimum=1)
        steps = _integer(result["steps"], "result.steps", minimum=0)
        forfeit = result.get(_FORFEIT)
        if forfeit is not None:
            forfeit = _name(forfeit, "result.forfeit")  # shown as the game's cause
            if outcome is not Outcome.DIED or not forfeit or len(forfeit) > MAX_FORFEIT:
                raise ReplayError(
                    f"result.forfeit must be the cause of a game that died, 1 to {MAX_FORFEIT} "
                    "characters"
                )
        return cls(
            name, rows, wrap, body, direction, seed, solver, moves, foods,
            Result(outcome, length, steps, forfeit),
        )  # fmt: skip

    def board(self) -> Board:
        """The recorded board."""
        return Board.from_rows(self.rows, wrap=self.wrap, name=self.board_name)

    def level(self) -> Level:
        """The recorded start (board, body, direction), without a first food: foods come from
        the file's food list."""
        board = self.board()
        for i, (a, b) in enumerate(zip(self.body, self.body[1:], strict=False)):
            if all(board.step(a, d) != b for d in Direction):
                raise ReplayError(f"start.body[{i + 1}] is not next to start.body[{i}]")
        head, neck = self.body[0], self.body[1:2]
        # As a level file has it: the neck behind the head (on a board that wraps two cells
        # deep it is ahead as well, and the first move must turn).
        if neck and board.step(head, self.direction) == neck[0] != board.step(
            head, self.direction.opposite
        ):
            raise ReplayError("start.direction points back into the body (start.body[1])")
        try:
            return Level(board, self.body, self.direction, None, self.board_name)
        except ValueError as e:
            raise ReplayError(f"start: {e}") from None


# -- validation helpers ---------------------------------------------------------------------


def _object(
    value: object, what: str, keys: Sequence[str], optional: Sequence[str] = ()
) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ReplayError(f"{what} must be a JSON object, not {json_kind(value)}")
    missing = [k for k in keys if k not in value]
    if missing:
        raise ReplayError(f"{what} lacks {', '.join(repr(k) for k in missing)}")
    extra = [k for k in value if k not in keys and k not in optional]
    if extra:
        # Each cut short, and the first few only: a file may hold thousands, or a long one.
        shown = ", ".join(json_shown(k) for k in extra[:SHOWN_KEYS])
        more = f" and {len(extra) - SHOWN_KEYS} more" if len(extra) > SHOWN_KEYS else ""
        raise ReplayError(f"{what} has unknown {shown}{more}")
    return value


def _string(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ReplayError(f"{what} must be a string, not {json_kind(value)}")
    return value


def _name(value: object, what: str) -> str:
    # Names reach the terminal: a control character there could retitle or rewrite the screen.
    text = _string(value, what)
    bad = first_hidden(text)
    if bad is not None:
        raise ReplayError(f"{what} holds {text[bad]!r}, which is not a printable character")
    return text


def _integer(value: object, what: str, *, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ReplayError(f"{what} must be an integer, not {json_kind(value)}")
    if minimum is not None and value < minimum:
        raise ReplayError(f"{what} must be at least {minimum}, not {value}")
    return value


def _at_most(items: list[object], most: int, what: str) -> None:
    """Refused before its items are read: a body, or the foods that appear in a game (each
    eaten but the last), have at most one per free cell."""
    if len(items) > most:
        raise ReplayError(f"{what} holds {len(items)} items, more than the {most} free cells")


def _direction(value: object, what: str) -> Direction:
    text = _string(value, what)
    try:
        return Direction.from_letter(text)
    except ValueError:
        raise ReplayError(f"{what} must be one of U, D, L, R, not {json_shown(text)}") from None


def _rows(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ReplayError("board.rows must be a non-empty array of strings")
    # Sized before any row is read character by character: a board no level file could hold
    # would take minutes to check and to replay.
    cells = sum(len(row) for row in value if isinstance(row, str))
    if cells > MAX_FILE_BYTES:
        raise ReplayError(
            f"board.rows hold {cells} cells, more than the {MAX_FILE_BYTES} a level file can hold"
        )
    rows = []
    for y, row in enumerate(value):
        text = _string(row, f"board.rows[{y}]")
        bad = next((ch for ch in text if ch not in "#."), None)
        if bad is not None:
            raise ReplayError(f"board.rows[{y}] holds {bad!r}; rows hold only '#' and '.'")
        if not text:  # in words: "0 wide, row 0 is 0" did not say what was wrong
            whole = "the board has no cells" if cells == 0 else "each row holds one cell or more"
            raise ReplayError(f"board.rows[{y}] is empty: {whole}")
        if len(text) != len(value[0]):
            raise ReplayError(f"board.rows[{y}] is {len(text)} wide, row 0 is {len(value[0])}")
        rows.append(text)
    if not any("." in row for row in rows):
        raise ReplayError("board.rows has no free cell")
    return tuple(rows)


def move_limit(rows: Sequence[str]) -> int:
    """The most moves a game on a board of these rows can make, at most MAX_MOVES.

    A game eats at most once per free cell and stalls after ``STALL_FACTOR x free`` moves
    without food, so it ends within ``STALL_FACTOR * free * (free + 1)`` moves.
    """
    free = sum(row.count(".") for row in rows)
    return min(STALL_FACTOR * free * (free + 1), MAX_MOVES)


def _moves(text: str, rows: Sequence[str]) -> tuple[Direction, ...]:
    limit = move_limit(rows)
    try:
        return tuple(expand_directions(text, limit))
    except TooManyMoves as e:
        free = sum(row.count(".") for row in rows)
        why = (
            "the most a replay may hold"
            if limit == MAX_MOVES
            else f"the most a game on a board of {free} free cells can make"
        )
        raise ReplayError(f"moves: {e}, {why}") from None
    except ValueError as e:
        raise ReplayError(f"moves: {e}") from None


def _points(value: object, what: str, most: int) -> tuple[Point, ...]:
    if not isinstance(value, list):
        raise ReplayError(f"{what} must be an array of [x, y] pairs, not {json_kind(value)}")
    _at_most(value, most, what)
    points = []
    for i, item in enumerate(value):
        if not isinstance(item, list) or len(item) != 2:
            raise ReplayError(f"{what}[{i}] must be an [x, y] pair")
        x = _integer(item[0], f"{what}[{i}][0]")
        y = _integer(item[1], f"{what}[{i}][1]")
        points.append(Point(x, y))
    return tuple(points)


def _foods(value: object, most: int) -> tuple[tuple[int, Point], ...]:
    if not isinstance(value, list):
        raise ReplayError(f"foods must be an array of [step, x, y], not {json_kind(value)}")
    _at_most(value, most, "foods")
    foods: list[tuple[int, Point]] = []
    for i, item in enumerate(value):
        if not isinstance(item, list) or len(item) != 3:
            raise ReplayError(f"foods[{i}] must be a [step, x, y] triple")
        step = _integer(item[0], f"foods[{i}][0]", minimum=0)
        x = _integer(item[1], f"foods[{i}][1]")
        y = _integer(item[2], f"foods[{i}][2]")
        if foods and step <= foods[-1][0]:
            raise ReplayError(
                f"foods[{i}] appears after move {step}, not after foods[{i - 1}] ({foods[-1][0]})"
            )
        foods.append((step, Point(x, y)))
    return tuple(foods)


# -- building, saving, loading --------------------------------------------------------------


def replay_from_game(game: Game, solver_name: str | None) -> Replay:
    """The replay of ``game`` as it stands; a game not over is recorded as ``quit``. The
    solver's name is kept printable: it may come from a command line (``exec:``, ``neuro:``),
    with a tab or a byte that is not UTF-8 in it, which no replay may hold."""
    level = game.level
    return Replay(
        board_name=level.name[:MAX_BOARD_NAME],  # a level made in code is not capped
        rows=game.board.rows(),
        wrap=game.board.wrap,
        body=level.body,
        direction=level.direction,
        seed=game.seed,
        solver=None if solver_name is None else printable(solver_name),
        moves=tuple(game.moves),
        foods=tuple(game.foods),
        result=Result(
            game.outcome or Outcome.QUIT,
            game.length,
            game.steps,
            printable(game.cause or "its bot broke down")[:MAX_FORFEIT] if game.forfeited else None,
        ),
    )


def load_replay(path: str | os.PathLike[str]) -> Replay:
    """Read and validate a replay file; ReplayError (naming the file) on any problem, and for a
    file over MAX_REPLAY_BYTES, which is not read."""
    try:
        text = _read_bytes(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ReplayError(f"{os.fspath(path)}: not UTF-8 text") from None
    try:
        return Replay.from_json(text)
    except ReplayError as e:
        raise ReplayError(f"{os.fspath(path)}: {e}") from None


def _read_bytes(path: str | os.PathLike[str]) -> bytes:
    """The file's bytes, at most MAX_REPLAY_BYTES of them; ReplayError naming the file."""
    shown = os.fspath(path)
    try:
        return read_capped(path, MAX_REPLAY_BYTES)
    except TooLarge as e:
        raise ReplayError(f"{shown}: {e.describe('a replay')}") from None
    except OSError as e:
        raise ReplayError(f"{shown}: cannot read: {e.strerror or e}") from None
