"""SnakeEnv: the game as a Gymnasium environment, one cell a step, with an action mask."""

from __future__ import annotations

import copy
from typing import Any, Final

import gymnasium
import numpy as np
from gymnasium import spaces

from termsnake.core.game import Game, Outcome
from termsnake.core.geometry import DIRECTIONS, Point
from termsnake.core.level import (
    BOT_LENGTH,
    BOT_SIZE,
    Level,
    check_size,
    open_level,
    with_length,
)
from termsnake.formats.presets import load_level
from termsnake.formats.replay import Replay, replay_from_game
from termsnake.tui.view import Hud, render

# Observation codes, one per cell.
FLOOR: Final = 0
WALL: Final = 1
BODY: Final = 2
HEAD: Final = 3
FOOD: Final = 4
# Rewards: a food eaten, the board filled, a death.
EAT: Final = 1.0
WIN: Final = 10.0
DEATH: Final = -1.0
SEED_RANGE: Final = 2**31

Obs = np.ndarray[Any, np.dtype[np.uint8]]


def make_level(
    level: str | Level | None, size: tuple[int, int] | None, length: int, wrap: bool = False
) -> Level:
    """The board to play: a Level, a preset name or level file, an open size, or open 8x8
    (the open ones a torus with ``wrap``); ValueError naming the argument that is wrong, its
    type too (as ``wrap`` and an action are)."""
    if level is not None and size is not None:  # as the command line's --level and --size
        raise ValueError("give a level or a size, not both")
    if level is not None and wrap:  # a level has its own: wrap would be dropped unsaid
        raise ValueError("wrap is for an open board, not a level (a level file says `wrap: yes`)")
    # Checked here, each by name: the game's own checks would let True pass as 1, a board of
    # any size (the command line's --size stops at MAX_SIDE), and give "too many values to
    # unpack" for "8x8".
    if not _whole(length):
        raise ValueError(f"length must be a whole number, not {length!r:.60}")
    if length < 1:  # a level file's length would be used instead, unsaid
        raise ValueError(f"length must be at least 1, not {length}")
    if isinstance(level, Level):
        return with_length(level, int(length))
    if level is not None:
        if not isinstance(level, str):
            raise ValueError(
                f"level must be a Level, a preset's name or a file's path (a str), "
                f"not {level!r:.60}"
            )
        return load_level(level, length=int(length))
    width, height = BOT_SIZE if size is None else _size(size)
    return open_level(width, height, int(length), wrap=wrap)


def _size(size: object) -> tuple[int, int]:
    """``size`` as (width, height): whole numbers, at most MAX_SIDE each (as --size)."""
    if not isinstance(size, tuple | list) or len(size) != 2 or not all(map(_whole, size)):
        raise ValueError(
            f"size must be a (width, height) pair of whole numbers, as (12, 12), not {size!r:.60}"
        )
    return check_size(int(size[0]), int(size[1]))


def _whole(value: object) -> bool:
    """Whether ``value`` is a whole number: an int, or numpy's; not a bool or a float."""
    return isinstance(value, int | np.integer) and not isinstance(value, bool | np.bool_)


class SnakeEnv(gymnasium.Env[Obs, np.int64]):
    """termsnake's Game, stepped by actions 0-3 (up, down, left, right).

    Observation: the board as a (height, width) uint8 grid of FLOOR, WALL, BODY, HEAD and FOOD.
    ``info["action_mask"]`` marks the moves that do not kill at once. ``terminated`` when the
    snake dies or fills the board; ``truncated`` when it stalls (no food for 4 x free cells
    steps), an outside limit rather than an end of the game.
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "render_fps": 8}  # noqa: RUF012

    def __init__(
        self,
        level: str | Level | None = None,
        *,
        size: tuple[int, int] | None = None,
        length: int = BOT_LENGTH,
        wrap: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', not {render_mode!r}")
        if not isinstance(wrap, bool | np.bool_):  # a string such as "no" would be true
            raise ValueError(f"wrap must be True or False, not {wrap!r}")
        self.level = make_level(level, size, length, bool(wrap))
        self.render_mode = render_mode
        board = self.level.board
        self.observation_space = spaces.Box(
            FLOOR, FOOD, shape=(board.height, board.width), dtype=np.uint8
        )
        self.action_space = spaces.Discrete(len(DIRECTIONS))
        self._walls = np.zeros((board.height, board.width), dtype=np.uint8)
        for p in board.walls:
            self._walls[p.y, p.x] = WALL
        self._grid = self._walls.copy()
        self.game = Game(self.level, 0)

    def __copy__(self) -> SnakeEnv:
        """``copy.copy(env)`` that steps on its own: the game and the grid change with each
        step, and the generators with each draw (a ``reset`` without a seed, a space's
        ``sample``), so the copy has its own, in the same state; the level, the walls and the
        spaces' bounds never change and are shared."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.game = self.game.copy()
        other._grid = self._grid.copy()
        other._np_random = _copy_generator(self._np_random)
        other.action_space = _copy_space(self.action_space)
        other.observation_space = _copy_space(self.observation_space)
        return other

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Obs, dict[str, Any]]:
        """A new game; with ``seed`` the game's own food seed, so it can be replayed."""
        super().reset(seed=seed)
        game_seed = seed if seed is not None else int(self.np_random.integers(SEED_RANGE))
        self.game = Game(self.level, game_seed)
        grid = self._walls.copy()
        for p in self.game.body:
            grid[p.y, p.x] = BODY
        head = self.game.head
        grid[head.y, head.x] = HEAD
        if self.game.food is not None:
            grid[self.game.food.y, self.game.food.x] = FOOD
        self._grid = grid
        return grid.copy(), self._info()

    def step(self, action: object) -> tuple[Obs, float, bool, bool, dict[str, Any]]:
        """One move; the reward is EAT for a food, WIN on top for the last, DEATH for a death."""
        game = self.game
        if game.over:
            raise RuntimeError("the episode is over: call reset()")
        index = _action_index(action)
        if index < 0:
            raise ValueError(f"an action is a whole number from 0 to 3, not {action!r}")
        old_head, old_tail = game.head, game.tail
        result = game.step(DIRECTIONS[index])
        grid = self._grid
        reward = 0.0
        if result.outcome is not Outcome.DIED:
            # The old head is body, unless it was the tail too and left (a snake of length 1);
            # the new head last, as it may enter the cell the tail left.
            grid[old_head.y, old_head.x] = BODY
            if not result.ate:
                grid[old_tail.y, old_tail.x] = FLOOR
            grid[game.head.y, game.head.x] = HEAD
            if result.ate:
                reward = EAT + (WIN if result.outcome is Outcome.WON else 0.0)
                food: Point | None = game.food
                if food is not None:
                    grid[food.y, food.x] = FOOD
        else:
            reward = DEATH
        terminated = result.outcome in (Outcome.DIED, Outcome.WON)
        truncated = result.outcome is Outcome.STALLED
        return grid.copy(), reward, terminated, truncated, self._info()

    def _info(self) -> dict[str, Any]:
        game = self.game
        mask = np.array(game.safe_moves(), dtype=np.int8)
        return {"action_mask": mask, "length": game.length, "steps": game.steps}

    def render(self) -> str | None:
        """The frame as text, from the game's pure view (render_mode 'ansi')."""
        if self.render_mode != "ansi":
            return None
        return "\n".join(render(self.game, Hud(who="env", level=self.level.name))) + "\n"

    def replay(self) -> Replay:
        """The episode so far as a termsnake-replay/1 record (`termsnake replay` plays it)."""
        return replay_from_game(self.game, "env")


def _copy_space(space: spaces.Space[Any]) -> spaces.Space[Any]:
    """``space`` with a generator of its own, in the same state (None stays None: each seeds
    its own when first sampled); the rest, its bounds, shared. deepcopy copied the bounds and
    pickled the generator. Any other kind of space (set on the env by hand) is deep-copied:
    a Dict's or a Tuple's subspaces have generators of their own."""
    if type(space) not in (spaces.Box, spaces.Discrete):
        return copy.deepcopy(space)
    twin = object.__new__(type(space))
    twin.__dict__.update(space.__dict__)
    # None until first sampled, as Space.__init__ leaves it (its annotation says otherwise).
    twin._np_random = _copy_generator(space._np_random)  # type: ignore[assignment]
    return twin


def _copy_generator(rng: np.random.Generator | None) -> np.random.Generator | None:
    """A generator that draws as ``rng`` would from here on (and spawns the same children), on
    its own: a bit generator of the same kind, made from a copy of its seed sequence and set to
    its state. Anything else than a SeedSequence under it is deep-copied."""
    if rng is None:
        return None
    bits = rng.bit_generator
    seq = bits.seed_seq
    if type(seq) is not np.random.SeedSequence:
        return copy.deepcopy(rng)
    seq = np.random.SeedSequence(
        seq.entropy,
        spawn_key=seq.spawn_key,
        pool_size=seq.pool_size,
        n_children_spawned=seq.n_children_spawned,
    )
    twin = type(bits)(seq)
    twin.state = bits.state
    return np.random.Generator(twin)


def _action_index(action: object) -> int:
    """The move ``action`` stands for, 0-3, or -1 if it is none: an int (not a bool), a numpy
    integer, or a 0-d array of one (what a policy's predict() gives); a float or a string would
    be read as some move. Checked by hand: action_space.contains goes through numpy each step."""
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, int | np.integer) and not isinstance(action, bool) and 0 <= action < 4:
        return int(action)
    return -1
