"""Home page script: count the transitions one `step()` call collects, 1 env vs N."""

from __future__ import annotations

__all__ = ["speed_script"]


def speed_script(num_envs: int) -> str:
    """A script that times Sync and native BurgerBot vector envs at 1 and ``num_envs`` envs."""
    return f"""import time

import gymnasium as gym
import numpy as np

import burgerbot  # registers BurgerBot-v0
from burgerbot.factories import make_env

for num_envs in (1, {num_envs}):
    steps = max(50, min(1_000, 100_000 // num_envs))
    actions = np.random.default_rng(0).integers(0, 4, size=(steps, num_envs))
    for name, envs in (
        ("sync", gym.vector.SyncVectorEnv([make_env() for _ in range(num_envs)])),
        ("native", gym.make_vec("BurgerBot-v0", num_envs=num_envs,
                                vectorization_mode="vector_entry_point")),
    ):
        obs, infos = envs.reset(seed=0)
        start = time.perf_counter()
        for step_actions in actions:
            obs, rewards, terminated, truncated, infos = envs.step(step_actions)
        seconds = time.perf_counter() - start
        envs.close()
        print(f"{{name:6s}} N={{num_envs:<5d}} transitions per step() call: {{len(rewards):<5d}}"
              f" per second: {{steps * num_envs / seconds:,.0f}}")
"""
