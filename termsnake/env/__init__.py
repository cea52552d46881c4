"""A Gymnasium environment on termsnake's own game (the `learn` extra: gymnasium, numpy)."""

from __future__ import annotations

import gymnasium

ENV_ID = "termsnake/Snake-v1"


def register_envs() -> None:
    """Register ``termsnake/Snake-v1`` with Gymnasium (importing this package does)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="termsnake.env.snake:SnakeEnv")


register_envs()
