"""Scripts equivalent to the "Why batches help" page's current settings (gymnasium, numpy,
burgerbot only)."""

from __future__ import annotations

__all__ = ["buffer_script"]


def _fill(template: str, **values: object) -> str:
    text = template.strip("\n")
    for name, value in values.items():
        text = text.replace(f"__{name.upper()}__", str(value))
    return text + "\n"


_BUFFER = """
import math

import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot import BurgerBotVectorEnv
from burgerbot.experiments import random_actions

BATCH, N, SEED = __BATCH__, __NUM_ENVS__, __SEED__
STEP_CALLS = math.ceil(BATCH / N)  # each step() call returns N rows

dones = np.zeros((STEP_CALLS, N), dtype=bool)  # the buffer: one row per call, one column per env
envs = BurgerBotVectorEnv(N, autoreset_mode=AutoresetMode.__MODE__)
envs.reset(seed=SEED)
actions = np.concatenate(list(random_actions(SEED, N, STEP_CALLS)))  # a random agent
for t in range(STEP_CALLS):
    obs, rewards, terminated, truncated, infos = envs.step(actions[t])
    dones[t] = terminated | truncated
envs.close()

print("step() calls:", STEP_CALLS, "| buffer shape:", dones.shape)
if envs.autoreset_mode == AutoresetMode.NEXT_STEP:
    resets = int(dones[:-1].sum())  # the call after an episode ends is a reset row
    print("reset rows to mask out:", resets, "| transitions:", dones.size - resets)
"""


def buffer_script(
    batch_size: int = 2048, num_envs: int = 4, seed: int = 0, autoreset_mode: str = "NEXT_STEP"
) -> str:
    """Fill one PPO-sized batch with a random agent on N BurgerBots; print what is in it."""
    if autoreset_mode not in ("NEXT_STEP", "SAME_STEP"):
        raise ValueError(f"`autoreset_mode` must be NEXT_STEP or SAME_STEP, got {autoreset_mode!r}")
    return _fill(
        _BUFFER,
        batch=int(batch_size),
        num_envs=int(num_envs),
        seed=int(seed),
        mode=autoreset_mode,
    )
