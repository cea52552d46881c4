"""The neuro bot's training, as the course report did it: score a population of networks by
games, keep the best, perturb them.

Generation g scores every network on the same games (seeds ``seed * 1_000_003 + g * games``
onwards), keeps the ``elite`` best (ties by their place in the population), and fills the next
population with those and copies of them perturbed by Gaussian noise drawn from a generator
seeded by (seed, g). A network's score depends only on its weights and those games, so the
result is the same whether the games run in one process, many, or on a cluster.
"""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Final

import numpy as np

from termsnake.core.level import Level
from termsnake.formats.fileio import describe_parse_error
from termsnake.formats.text import printable
from termsnake.learn.remote import Task, score
from termsnake.solvers.neuro import FloatArray, Network, is_finite_number

CHECKPOINT: Final = "termsnake-neuro-checkpoint/1"
SEED_STRIDE: Final = 1_000_003
POINT_KEYS: Final = ("generation", "best", "mean", "elite")


@dataclass(frozen=True, slots=True)
class Plan:
    """What to train: the board, the network's size and the evolution's settings."""

    level: Level
    hidden: int = 8
    population: int = 32
    elite: int = 6
    games: int = 8
    sigma: float = 0.3
    seed: int = 1


Runner = Callable[[Sequence[Task]], list[float]]


def run_here(tasks: Sequence[Task]) -> list[float]:
    """Score tasks one after another in this process."""
    return [score(t) for t in tasks]


@dataclass
class State:
    """Where training stands: the population, the generation, and the curve so far."""

    generation: int
    population: list[list[float]]
    best: list[float]
    curve: list[dict[str, float]] = field(default_factory=list)

    def to_json(self, plan: Plan) -> str:
        """The checkpoint file: enough to go on exactly where this left off."""
        return json.dumps(
            {
                "format": CHECKPOINT,
                "plan": _kept_plan(plan),
                "generation": self.generation,
                "population": self.population,
                "best": self.best,
                "curve": self.curve,
            }
        )

    @classmethod
    def from_json(cls, text: str, plan: Plan, name: str) -> State:
        """Read a checkpoint; ValueError (naming ``name``, escaped) if it is not one for this
        plan or anything in it is not what training wrote: it is all checked before a single
        game, so a damaged one never gets as far as overwriting the weights."""
        name = printable(name)
        obj = parse_checkpoint(text, name)
        wanted = _kept_plan(plan)
        kept = obj.get("plan")
        if isinstance(kept, dict) and "level" not in kept:
            del wanted["level"]  # a checkpoint of an earlier version, which kept the name only
        if isinstance(kept, dict) and "wrap" not in kept:
            del wanted["wrap"]  # kept before it was said apart: the name and level show it
        if kept != wanted:
            differ = [k for k in wanted if not isinstance(kept, dict) or kept.get(k) != wanted[k]]
            verb = "differs" if len(differ) == 1 else "differ"
            which = f" ({', '.join(differ)} {verb})" if differ else ""
            raise ValueError(
                f"{name}: a checkpoint of other settings{which}; resume with the same ones"
            )
        size = Network.size(plan.hidden)
        pop = obj.get("population")
        best = obj.get("best")
        for part, got, count in (("population", pop, plan.population), ("best network", [best], 1)):
            if (
                not isinstance(got, list)
                or len(got) != count
                or not all(isinstance(v, list) and len(v) == size for v in got)
            ):
                raise ValueError(f"{name}: the checkpoint's {part} does not fit its settings")
            if not all(is_finite_number(x) for v in got for x in v):
                raise ValueError(f"{name}: the checkpoint's {part} holds other than finite numbers")
        assert isinstance(pop, list) and isinstance(best, list)
        generation = obj.get("generation")
        curve = obj.get("curve")
        if not isinstance(generation, int) or isinstance(generation, bool) or generation < 0:
            raise ValueError(f"{name}: the checkpoint's generation is not a whole number >= 0")
        if not isinstance(curve, list) or len(curve) != generation:
            raise ValueError(f"{name}: the checkpoint's curve is not one point a generation")
        if not all(_is_point(p, g) for g, p in enumerate(curve)):
            raise ValueError(f"{name}: the checkpoint's curve holds a point that is not one")
        most = plan.level.board.free_count
        for g, p in enumerate(curve):
            if not _is_possible(p, most):
                raise ValueError(
                    f"{name}: the checkpoint's curve holds scores no games give (generation {g}):"
                    f" each is a mean length from 1 to {most}, the mean at most the elite's,"
                    " that at most the best"
                )
        vectors = [[float(x) for x in v] for v in pop]
        return cls(generation, vectors, [float(x) for x in best], curve)


def _kept_plan(plan: Plan) -> dict[str, Any]:
    """The plan as a checkpoint keeps it: the settings, the level's name, a digest of the
    level itself (another file of the same name is another board), and whether it wraps (said
    apart, so a --resume that left out --wrap is told so)."""
    settings = {k: v for k, v in asdict(plan).items() if k != "level"}
    level = plan.level
    food = [level.food.x, level.food.y] if level.food is not None else None
    whole = json.dumps(
        [level.board.rows(), level.board.wrap, [[p.x, p.y] for p in level.body],
         level.direction.value, food]
    )  # fmt: skip
    digest = hashlib.sha256(whole.encode()).hexdigest()[:16]
    return {**settings, "board": level.name, "level": digest, "wrap": level.board.wrap}


def parse_checkpoint(text: str, name: str) -> dict[str, Any]:
    """A checkpoint's JSON object, or ValueError naming ``name``: not JSON, too deep, a number
    too long to read, or no checkpoint's format tag."""
    try:
        obj: Any = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"{name}: not a checkpoint (not JSON: {e.msg})") from None
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{name}: not a checkpoint ({describe_parse_error(e)})") from None
    if not isinstance(obj, dict) or obj.get("format") != CHECKPOINT:
        raise ValueError(f'{name}: not a checkpoint (no "format": "{CHECKPOINT}")')
    return obj


def _is_point(point: object, generation: int) -> bool:
    # A point of the curve as step() makes it: its generation, and three finite scores.
    return (
        isinstance(point, dict)
        and set(point) == set(POINT_KEYS)
        and all(is_finite_number(point[k]) for k in POINT_KEYS)
        and point["generation"] == generation
    )


def _is_possible(point: dict[str, float], most: int) -> bool:
    # Scores are mean final lengths, and the mean of all is at most the mean of the best few,
    # which is at most the best (each mean may be an ulp out: it is rounded). A hand-edited
    # curve's 5e-324 or 1e308 overflowed the chart, or gave it a 300-digit axis label.
    best, mean, elite = point["best"], point["mean"], point["elite"]
    slack = 1e-9 * best
    in_range = all(1 <= x <= most for x in (best, mean, elite))
    return in_range and mean <= elite + slack and elite <= best + slack


def start(plan: Plan) -> State:
    """Generation 0: random networks, drawn from the plan's seed."""
    rng = np.random.default_rng([plan.seed, 0])
    size = Network.size(plan.hidden)
    population = [rng.normal(0.0, 1.0, size).tolist() for _ in range(plan.population)]
    return State(0, population, population[0])


def step(plan: Plan, state: State, runner: Runner = run_here) -> State:
    """Score the generation, keep the elite, breed the next one."""
    g = state.generation
    seeds = tuple(plan.seed * SEED_STRIDE + g * plan.games + i for i in range(plan.games))
    tasks = [Task(tuple(v), plan.hidden, plan.level, seeds) for v in state.population]
    scores = runner(tasks)
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    elite = [state.population[i] for i in order[: plan.elite]]
    rng = np.random.default_rng([plan.seed, g + 1])
    children: list[list[float]] = [list(v) for v in elite]
    while len(children) < plan.population:
        parent: FloatArray = np.array(elite[len(children) % len(elite)])
        children.append((parent + rng.normal(0.0, plan.sigma, parent.size)).tolist())
    point = {
        "generation": float(g),
        "best": scores[order[0]],
        "mean": statistics.fmean(scores),
        "elite": statistics.fmean(scores[i] for i in order[: plan.elite]),
    }
    return State(g + 1, children, elite[0], [*state.curve, point])
