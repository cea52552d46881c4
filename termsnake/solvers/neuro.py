"""The learning bot of the course report termsnake grew from ("random neural network"):
hand-chosen inputs, three outputs, evolved weights.

Each move the bot looks at its three choices (straight on, turn left, turn right) and feeds a
small network what the course report suggested: is there an obstacle that way, does the way
lead closer to the food, and two inputs of our own that make it far stronger than the report's
"poor" result: how much room is left behind that move and whether the tail can still be
reached from there. The output with the highest value is the move. The weights come from
`termsnake train neuro` (termsnake.learn): plain `neuro` plays the weights shipped with the
package, `neuro:PATH` a weights file.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

import numpy as np

from termsnake.core.board import Board
from termsnake.core.game import Game
from termsnake.core.geometry import Direction, Point
from termsnake.formats.fileio import TooLarge, describe_parse_error, read_capped
from termsnake.formats.text import printable, shorten
from termsnake.solvers.base import SolverUnavailable
from termsnake.solvers.grid import Grid, grid_of

FORMAT: Final = "termsnake-neuro/1"
PREFIX: Final = "neuro:"
MAX_WEIGHTS_BYTES: Final = 4 * 1024 * 1024
SHIPPED: Final = "neuro-8x8.json"
PER_CHOICE: Final = ("blocked", "closer", "room", "tail")
GLOBAL: Final = ("length", "food_ahead", "food_side")
INPUTS: Final = 3 * len(PER_CHOICE) + len(GLOBAL)
INPUT_NAMES: Final = [f"{c}:{k}" for c in ("straight", "left", "right") for k in PER_CHOICE] + list(
    GLOBAL
)
OUTPUTS: Final = 3
_TURNS: Final = {
    Direction.UP: (Direction.UP, Direction.LEFT, Direction.RIGHT),
    Direction.DOWN: (Direction.DOWN, Direction.RIGHT, Direction.LEFT),
    Direction.LEFT: (Direction.LEFT, Direction.DOWN, Direction.UP),
    Direction.RIGHT: (Direction.RIGHT, Direction.UP, Direction.DOWN),
}

FloatArray = np.ndarray[Any, np.dtype[np.float64]]


class WeightsError(ValueError):
    """A weights file that cannot be used; the message names the file and the problem."""


@dataclass(frozen=True)
class Network:
    """A one-hidden-layer network: tanh hidden units, linear outputs (straight, left, right)."""

    w1: FloatArray  # (hidden, INPUTS + 1): the last column is the bias
    w2: FloatArray  # (OUTPUTS, hidden + 1)

    @property
    def hidden(self) -> int:
        """The number of hidden units."""
        return int(self.w1.shape[0])

    @classmethod
    def from_vector(cls, weights: Sequence[float] | FloatArray, hidden: int) -> Network:
        """A network from its weights laid out flat (as evolution perturbs them)."""
        vector = np.asarray(weights, dtype=np.float64)
        cut = hidden * (INPUTS + 1)
        return cls(
            vector[:cut].reshape(hidden, INPUTS + 1),
            vector[cut:].reshape(OUTPUTS, hidden + 1),
        )

    def vector(self) -> FloatArray:
        """The weights laid out flat."""
        return np.concatenate([self.w1.ravel(), self.w2.ravel()])

    @staticmethod
    def size(hidden: int) -> int:
        """How many weights a network with ``hidden`` units has."""
        return hidden * (INPUTS + 1) + OUTPUTS * (hidden + 1)

    def outputs(self, inputs: Sequence[float]) -> FloatArray:
        """The three output values for one input vector."""
        # Weights may be any finite numbers: sums past the largest float become inf or nan
        # (argmax still picks a move), and numpy's warnings would be printed over the game.
        with np.errstate(all="ignore"):
            x = np.append(np.asarray(inputs, dtype=np.float64), 1.0)
            h = np.append(np.tanh(self.w1 @ x), 1.0)
            out: FloatArray = self.w2 @ h
        return out

    def to_json(self) -> str:
        """The termsnake-neuro/1 weights file."""
        return json.dumps(
            {
                "format": FORMAT,
                "inputs": INPUT_NAMES,
                "hidden": self.hidden,
                "w1": _rounded(self.w1).tolist(),
                "w2": _rounded(self.w2).tolist(),
            }
        )

    @classmethod
    def from_json(cls, text: str, name: str) -> Network:
        """Read a weights file's text; WeightsError naming ``name`` (escaped) on any problem."""
        name = printable(name)
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as e:
            raise WeightsError(f"{name}: not a weights file (not JSON: {e.msg})") from None
        except (ValueError, RecursionError) as e:
            why = describe_parse_error(e)
            raise WeightsError(f"{name}: not a weights file ({why})") from None
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise WeightsError(f'{name}: not a weights file (no "format": "{FORMAT}")')
        hidden = obj.get("hidden")
        if not isinstance(hidden, int) or isinstance(hidden, bool) or not 1 <= hidden <= 1024:
            raise WeightsError(f'{name}: "hidden" must be a whole number from 1 to 1024')
        w1 = _matrix(obj.get("w1"), (hidden, INPUTS + 1), "w1", name)
        w2 = _matrix(obj.get("w2"), (OUTPUTS, hidden + 1), "w2", name)
        _check_inputs(obj.get("inputs"), name)
        return cls(w1, w2)


def _rounded(w: FloatArray) -> FloatArray:
    """``w`` to 6 decimals for the file; a weight too big to have decimals left as it is
    (rounding it multiplies it by 10^6, which can overflow to inf: not a number JSON holds)."""
    with np.errstate(all="ignore"):
        out: FloatArray = np.where(np.abs(w) < 1e15, w.round(6), w)
    return out


def _check_inputs(value: object, name: str) -> None:
    # Weights mean something only for the inputs they were trained on, in that order.
    if not isinstance(value, list) or len(value) != INPUTS:
        raise WeightsError(
            f'{name}: "inputs" must list the {INPUTS} inputs this termsnake reads, '
            f'"{INPUT_NAMES[0]}" to "{INPUT_NAMES[-1]}", as `termsnake train` writes them'
        )
    for i, (given, wanted) in enumerate(zip(value, INPUT_NAMES, strict=True)):
        if given != wanted:
            shown = shorten(given, 40) if isinstance(given, str) else type(given).__name__
            raise WeightsError(
                f'{name}: "inputs"[{i}] is "{shown}", where this termsnake reads "{wanted}"'
            )


def _matrix(value: object, shape: tuple[int, int], key: str, name: str) -> FloatArray:
    rows, cols = shape
    ok = (
        isinstance(value, list)
        and len(value) == rows
        and all(isinstance(r, list) and len(r) == cols for r in value)
    )
    if not ok:
        raise WeightsError(f'{name}: "{key}" must be {rows} rows of {cols} numbers')
    assert isinstance(value, list)
    flat = [v for row in value for v in row]
    if not all(is_finite_number(v) for v in flat):
        raise WeightsError(f'{name}: "{key}" holds something other than finite numbers')
    return np.array(flat, dtype=np.float64).reshape(rows, cols)


def is_finite_number(value: object) -> bool:
    """Whether a value read from JSON is a number a float holds: JSON's integers have no
    limit, and one of 400 digits is no weight."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def load_network(path: str | None) -> Network:
    """The shipped network (``path`` None) or the one in a weights file."""
    if path is None:
        text = (resources.files("termsnake.solvers") / SHIPPED).read_text(encoding="utf-8")
        return Network.from_json(text, SHIPPED)
    shown = printable(path)
    try:
        data = read_capped(path, MAX_WEIGHTS_BYTES)
    except TooLarge as e:
        raise WeightsError(f"{shown}: {e.describe('a weights file')}") from None
    except OSError as e:
        raise WeightsError(f"{shown}: cannot read the weights: {e.strerror or e}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise WeightsError(f"{shown}: not a weights file (not UTF-8 text)") from None
    return Network.from_json(text, path)


def room_from(grid: Grid, start: int, blocked: bytearray, target: int) -> tuple[int, bool]:
    """How many cells are reachable from ``start`` around ``blocked`` (marked 1), and whether
    ``target`` is one of them."""
    adj = grid.adj
    seen = bytearray(blocked)
    seen[start] = 2
    todo = [start]
    count = 1
    while todo:
        for v in adj[todo.pop()]:
            if not seen[v]:
                seen[v] = 2
                count += 1
                todo.append(v)
    return count, seen[target] == 2


def features(game: Game) -> tuple[list[float], tuple[Direction, Direction, Direction]]:
    """The network's inputs for the game as it stands, and the three moves they describe."""
    board, head, food = game.board, game.head, game.food
    grid = grid_of(board)
    w = board.width
    choices = _TURNS[game.direction]
    free = board.free_count
    body = [p.y * w + p.x for p in game.body]
    # Blocked after a move that eats: all but the tail; one that does not also frees body[-2],
    # the new tail (unblocked below for that move only).
    blocked = bytearray(grid.cells)
    for c in body[:-1]:
        blocked[c] = 1
    inputs: list[float] = []
    for d in choices:
        target = board.step(head, d)
        if target is None or not game.is_safe(d):
            inputs += [1.0, 0.0, 0.0, 0.0]
            continue
        t = target.y * w + target.x
        eats = target == food
        moves_on = not eats and len(body) > 1
        tail = body[-2] if moves_on else (body[-1] if eats else t)
        blocked[tail] = 0
        room, tail_ok = room_from(grid, t, blocked, tail)
        if moves_on:
            blocked[tail] = 1
        closer = 0.0
        if food is not None:
            closer = float(_manhattan(board, head, food) - _manhattan(board, target, food))
        inputs += [0.0, closer, room / free, 1.0 if tail_ok or len(body) < 2 else 0.0]
    fx, fy = (0, 0) if food is None else (food.x - head.x, food.y - head.y)
    ahead, side = _relative(game.direction, fx, fy)
    span = max(board.width, board.height)
    inputs += [game.length / free, ahead / span, side / span]
    return inputs, choices


def _manhattan(board: Board, a: Point, b: Point) -> int:
    dx, dy = abs(a.x - b.x), abs(a.y - b.y)
    if board.wrap:
        dx, dy = min(dx, board.width - dx), min(dy, board.height - dy)
    return dx + dy


def _relative(heading: Direction, dx: int, dy: int) -> tuple[int, int]:
    """(ahead, to the right) of an offset, in the frame of the way the head faces."""
    return {
        Direction.UP: (-dy, dx),
        Direction.DOWN: (dy, -dx),
        Direction.LEFT: (-dx, -dy),
        Direction.RIGHT: (dx, dy),
    }[heading]


class NeuroSolver:
    """Plays the move whose network output is highest among straight on, left and right."""

    has_plan = False  # PlanShowing: the help leaves out `c`, as the network has no plan

    def __init__(self, path: str | None = None, network: Network | None = None) -> None:
        self.name = "neuro" if path is None else PREFIX + path
        self._path = path
        self.network = network

    def setup(self, game: Game) -> None:
        """Load the weights (once); SolverUnavailable naming the file if they cannot be used."""
        if self.network is None:
            try:
                self.network = load_network(self._path)
            except WeightsError as e:
                raise SolverUnavailable(str(e)) from None

    def next_direction(self, game: Game) -> Direction:
        """The move of the highest output."""
        assert self.network is not None, "setup() first"
        inputs, choices = features(game)
        return choices[int(np.argmax(self.network.outputs(inputs)))]

    def overlay(self, game: Game) -> Mapping[Point, str]:
        """The network has no plan to show."""
        return {}
