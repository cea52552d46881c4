#!/usr/bin/env python3
"""Steps a second of termsnake's Gymnasium environment on one core, default observation.

The policy is as cheap as one can be while still playing real episodes: the first move the
action mask allows, turning in a different order each step. Usage:
    python scripts/env_throughput.py [--steps N] [--size WxH]
"""

from __future__ import annotations

import argparse
import time

from termsnake.env.snake import SnakeEnv


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--steps", type=int, default=300_000)
    parser.add_argument("--size", default="8x8")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    env = SnakeEnv(size=(width, height))
    _, info = env.reset(seed=1)
    episodes = 1
    start = time.perf_counter()
    for step in range(args.steps):
        mask = info["action_mask"]
        action = 0
        for k in range(4):
            if mask[(step + k) % 4]:
                action = (step + k) % 4
                break
        _, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            _, info = env.reset()
            episodes += 1
    seconds = time.perf_counter() - start
    print(
        f"{args.steps / seconds:,.0f} steps/s on {args.size} "
        f"({args.steps:,} steps, {episodes:,} episodes, {seconds:.2f} s)"
    )


if __name__ == "__main__":
    main()
