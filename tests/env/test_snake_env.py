"""The Gymnasium environment: the game's own rules, seeded, masked, rendered and replayable."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.spaces import Box
from gymnasium.utils.env_checker import check_env

from termsnake.core.game import Outcome
from termsnake.core.geometry import DIRECTIONS, Direction
from termsnake.env import ENV_ID
from termsnake.env.snake import BODY, FOOD, HEAD, WALL, SnakeEnv
from termsnake.formats.replay import load_replay
from termsnake.formats.verify import verify
from termsnake.tui.view import Hud, render


def masked_policy(info: dict[str, Any], step: int) -> int:
    mask = info["action_mask"]
    allowed = [a for a in range(4) if mask[(a + step) % 4]]
    return (allowed[0] + step) % 4 if allowed else 0


def test_it_passes_gymnasiums_checker() -> None:
    check_env(gymnasium.make(ENV_ID).unwrapped, skip_render_check=False)
    check_env(gymnasium.make(ENV_ID, level="rooms", render_mode="ansi").unwrapped)


def test_the_registered_id_makes_the_open_8x8_board_with_a_snake_of_one() -> None:
    env = gymnasium.make(ENV_ID)
    obs, _info = env.reset(seed=3)
    assert obs.shape == (8, 8)
    assert (obs == HEAD).sum() == 1 and (obs == BODY).sum() == 0 and (obs == FOOD).sum() == 1
    env = gymnasium.make("termsnake.env:termsnake/Snake-v1", level="maze", length=3)
    obs, _ = env.reset(seed=1)
    assert (obs == WALL).sum() > 0 and (obs == BODY).sum() == 2


def test_the_same_seed_gives_the_same_episode() -> None:
    runs = []
    for _ in range(2):
        env = SnakeEnv(size=(6, 5))
        obs, info = env.reset(seed=11)
        trace = [obs.tobytes()]
        for step in range(300):
            obs, reward, terminated, truncated, info = env.step(masked_policy(info, step))
            trace.append(obs.tobytes() + bytes([int(reward + 5), terminated, truncated]))
            if terminated or truncated:
                obs, info = env.reset()  # the next seed comes from the first one
                trace.append(obs.tobytes())
        runs.append(trace)
    assert runs[0] == runs[1]


@pytest.mark.parametrize(
    ("level", "length"), [(None, 3), (None, 1), ("torus", 1), ("maze", 1), ("maze", 4)]
)
def test_the_observation_and_mask_follow_the_game(level: str | None, length: int) -> None:
    # With a snake of length 1, the cell its head left stayed BODY in the observation.
    env = SnakeEnv(level, size=None if level else (7, 7), length=length)
    board = env.level.board
    obs, info = env.reset(seed=5)
    for step in range(400):
        game = env.game
        expected = np.zeros((board.height, board.width), dtype=np.uint8)
        for p in board.walls:
            expected[p.y, p.x] = WALL
        for p in game.body:
            expected[p.y, p.x] = BODY
        expected[game.head.y, game.head.x] = HEAD
        if game.food is not None:
            expected[game.food.y, game.food.x] = FOOD
        if not game.over:
            assert np.array_equal(obs, expected)
        assert list(info["action_mask"]) == [not game.over and game.is_safe(d) for d in DIRECTIONS]
        if game.over:
            obs, info = env.reset()
            continue
        obs, _, _, _, info = env.step(masked_policy(info, step))


def outcome_of(env: SnakeEnv) -> Outcome | None:
    return env.game.outcome


def test_death_terminates_and_the_stall_limit_truncates() -> None:
    env = SnakeEnv(size=(4, 4))
    env.reset(seed=1)
    _, reward, terminated, truncated, _ = env.step(0)  # up, up, ... into the wall
    while not terminated:
        _, reward, terminated, truncated, _ = env.step(0)
    assert env.game.outcome is Outcome.DIED and reward < 0 and not truncated
    env.reset(seed=1)
    env.game.stall_limit = 3  # round and round a square never reaches the food in time
    terminated = truncated = False
    for action in [1, 2, 0, 3] * 4:
        _, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            break
    assert truncated and not terminated and outcome_of(env) is Outcome.STALLED


def test_ansi_render_is_the_games_own_view() -> None:
    env = SnakeEnv(size=(5, 4), render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text == "\n".join(render(env.game, Hud(who="env", level="open-5x4"))) + "\n"
    assert SnakeEnv().render() is None


def test_an_episode_saved_as_a_replay_verifies(tmp_path: Path) -> None:
    env = SnakeEnv("classic")
    _, info = env.reset(seed=9)
    step = 0
    while True:
        _obs, _, terminated, truncated, info = env.step(masked_policy(info, step))
        step += 1
        if terminated or truncated or step > 500:
            break
    path = tmp_path / "episode.json"
    path.write_text(env.replay().to_json())
    game = verify(load_replay(path))
    assert game.moves == env.game.moves and game.seed == 9


def test_a_bad_render_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="render_mode"):
        SnakeEnv(render_mode="human")


@pytest.mark.parametrize("action", [-1, 4, 1.9, "2", True, np.int64(7), None])
def test_an_action_outside_the_space_is_refused(action: Any) -> None:
    # -1 moved right and "2" left; 4 raised a bare IndexError.
    env = SnakeEnv()
    env.reset(seed=1)
    with pytest.raises(ValueError, match="an action is a whole number from 0 to 3"):
        env.step(action)
    assert env.game.steps == 0
    for good in (np.int64(3), np.array(3), 2, np.uint8(3)):  # np.array(3): what predict() gives
        env.step(good)
    assert env.game.steps == 4


def test_a_level_and_a_size_together_are_refused() -> None:
    # The size was dropped without a word: an agent trained on 12x12 played the maze.
    with pytest.raises(ValueError, match="level or a size, not both"):
        gymnasium.make(ENV_ID, level="maze", size=(12, 12))


def level_name(env: gymnasium.Env[Any, Any]) -> str:
    assert isinstance(env.unwrapped, SnakeEnv)
    return env.unwrapped.level.name


def test_wrap_makes_the_open_board_a_torus() -> None:
    # The game took --size WxH --wrap; the env had no wrap, so no agent could learn a torus.
    env = gymnasium.make(ENV_ID, size=(5, 4), wrap=True)
    check_env(env.unwrapped)
    obs, info = env.reset(seed=2)
    assert level_name(env) == "torus-5x4" and (obs == WALL).sum() == 0
    assert tuple(np.argwhere(obs == HEAD)[0]) == (2, 2)
    right = DIRECTIONS.index(Direction.RIGHT)
    for _ in range(3):  # off the right edge, in again on the left
        assert info["action_mask"][right] == 1
        obs, _, terminated, _, info = env.step(right)
        assert not terminated
    assert tuple(np.argwhere(obs == HEAD)[0]) == (2, 0)
    assert level_name(gymnasium.make(ENV_ID, wrap=True)) == "torus-8x8"
    assert level_name(gymnasium.make(ENV_ID, size=(5, 4))) == "open-5x4"


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        ({"level": "maze", "wrap": True}, "wrap is for an open board, not a level"),
        ({"level": "torus", "wrap": True}, "wrap is for an open board, not a level"),
        ({"size": (5, 4), "wrap": "no"}, "wrap must be True or False, not 'no'"),
    ],
)
def test_wrap_with_a_level_or_not_a_bool_is_refused(kwargs: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        gymnasium.make(ENV_ID, **kwargs)


PAIR = r"size must be a \(width, height\) pair of whole numbers, as \(12, 12\), not "
RANGE = r"is out of range \(at least 2 cells, at most 200 a side\)"


@pytest.mark.parametrize(
    ("kwargs", "said"),
    [
        # A board the command line refuses was made (and a step's grid was a million cells).
        ({"size": (1000, 1000)}, rf"^size 1000x1000 {RANGE}$"),
        ({"size": (1, 1)}, rf"^size 1x1 {RANGE}$"),
        ({"size": "8x8"}, rf"^{PAIR}'8x8'$"),  # was "too many values to unpack"
        ({"size": (8.0, 8)}, rf"^{PAIR}\(8.0, 8\)$"),
        ({"size": (True, 8)}, rf"^{PAIR}\(True, 8\)$"),
        ({"size": (8, 8, 8)}, rf"^{PAIR}\(8, 8, 8\)$"),
        ({"length": True}, r"^length must be a whole number, not True$"),  # was taken as 1
        ({"length": "3"}, r"^length must be a whole number, not '3'$"),
        ({"level": "maze", "length": 0}, r"^length must be at least 1, not 0$"),  # was maze's own
        ({"level": 5}, r"^level must be a Level, a preset's name or a file's path \(a str\), no"),
    ],
    ids=["huge", "one cell", "text", "float", "bool side", "three", "bool", "str", "0", "level"],
)
def test_a_bad_size_length_or_level_is_refused_by_name(kwargs: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        SnakeEnv(**kwargs)


def test_numpys_whole_numbers_are_whole_numbers() -> None:
    # What a sweep over numpy's arrays hands over; refused with the checks above, it must not be.
    size, length = (np.int64(9), np.int32(7)), np.int64(3)
    env = SnakeEnv(size=size, length=length)  # type: ignore[arg-type]
    assert (env.level.board.width, env.level.board.height, len(env.level.body)) == (9, 7, 3)


def test_a_copy_of_the_env_steps_on_its_own() -> None:
    # copy.copy shared the game and the grid: a step on the copy moved the original's snake
    # (its observation too), and a reset drew the original's next seed.
    env = SnakeEnv(size=(6, 6))
    obs, info = env.reset(seed=4)
    env.action_space.seed(5)
    twin = copy.copy(env)
    action = masked_policy(info, 0)
    moved, *_ = twin.step(action)
    assert env.game.steps == 0 and twin.game.steps == 1
    assert env.game.head != twin.game.head and (env._grid == obs).all()
    assert (env.step(action)[0] == moved).all()  # the original, stepped alike, is where it was
    env.reset()
    twin.reset()
    assert env.game.seed == twin.game.seed  # each drew from a generator of its own, alike
    samples = [[int(e.action_space.sample()) for _ in range(20)] for e in (env, twin)]
    assert samples[0] == samples[1]


def test_a_copy_shares_what_never_changes_and_draws_as_the_original_would() -> None:
    # deepcopy copied the spaces' bounds and pickled every generator, most of a copy's cost;
    # the generators are made anew, in the same state, and spawn the same children.
    env = SnakeEnv(size=(6, 6), length=3)
    env.reset(seed=4)
    env.observation_space.sample()  # its generator seeded from the system, the action's none
    twin = copy.copy(copy.copy(env))
    assert twin.level is env.level and twin._walls is env._walls
    box, its_box = env.observation_space, twin.observation_space
    assert isinstance(box, Box) and isinstance(its_box, Box) and its_box.low is box.low
    assert twin.action_space._np_random is None

    def draws(e: SnakeEnv) -> list[object]:
        shown = e.observation_space.sample().tolist()
        numbers = e.np_random.integers(1000, size=4).tolist()
        child = e.np_random.spawn(1)[0].integers(1000, size=4).tolist()
        e.reset()  # its game's seed drawn from the env's generator
        return [shown, numbers, child, e.game.seed]

    assert draws(env) == draws(twin)
    twin.action_space.sample()  # seeds the copy's own generator, not the original's
    assert env.action_space._np_random is None
