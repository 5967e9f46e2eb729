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
STEP_CALLS = math.ceil(BATCH / N)  # each step() call returns N rows (env-steps)

# The buffer PPO stores: one row per step() call, one column per env.
rewards = np.zeros((STEP_CALLS, N))
dones = np.zeros((STEP_CALLS, N), dtype=bool)
envs = BurgerBotVectorEnv(N, autoreset_mode=AutoresetMode.__MODE__)
try:
    envs.reset(seed=SEED)
    actions = np.concatenate(list(random_actions(SEED, N, STEP_CALLS)))  # a random agent
    for t in range(STEP_CALLS):
        obs, rewards[t], terminated, truncated, infos = envs.step(actions[t])
        dones[t] = terminated | truncated
finally:
    envs.close()

print("step() calls:", STEP_CALLS)
print("buffer shape:", rewards.shape, "=", rewards.size, "rows (env-steps)")
print("episodes ended:", int(dones.sum()))
if envs.autoreset_mode == AutoresetMode.NEXT_STEP:
    # The call after an episode ends resets that env: reward 0.0, its action is ignored.
    # Those rows are no transitions: a mask (True for each row to keep) leaves them out.
    resets = int(dones[:-1].sum())
    print("reset rows:", resets, "| transitions:", rewards.size - resets)
else:
    print("transitions:", rewards.size, "(SAME_STEP: every row is one)")
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
