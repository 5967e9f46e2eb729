"""BurgerBot: a 7x7 grid-world robot, as a Gymnasium env and as a natively batched vector env."""

from __future__ import annotations

from gymnasium.envs.registration import register, registry

from burgerbot.env import BurgerBotEnv
from burgerbot.vector import BurgerBotVectorEnv

__all__ = ["ENV_ID", "BurgerBotEnv", "BurgerBotVectorEnv"]

ENV_ID = "BurgerBot-v0"

if ENV_ID not in registry:
    register(
        id=ENV_ID,
        entry_point="burgerbot.env:BurgerBotEnv",
        vector_entry_point="burgerbot.vector:BurgerBotVectorEnv",
        max_episode_steps=150,
    )
