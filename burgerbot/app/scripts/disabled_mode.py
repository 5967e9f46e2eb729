"""The "DISABLED mode" page's scripts: step until an episode ends, reset with a mask, go on."""

from __future__ import annotations

from burgerbot.app.caps import CAPS
from burgerbot.app.scripts import fragment_header

__all__ = ["DISABLED_FIX", "DISABLED_SCRIPT_NAME", "disabled_fix_fragment", "disabled_fix_script"]


DISABLED_SCRIPT_NAME = "the DISABLED script below"

DISABLED_FIX = """ended = terminated | truncated
if ended.any():
    obs, infos = envs.reset(options={"reset_mask": ended})
"""
"""The fix, as the DISABLED script has it (the page shows it first as a labelled fragment)."""


def disabled_fix_fragment() -> str:
    """`DISABLED_FIX` labelled as a fragment of the whole DISABLED script."""
    return fragment_header(DISABLED_SCRIPT_NAME) + DISABLED_FIX


def disabled_fix_script(num_envs: int, seed: int) -> str:
    """A whole script: step in DISABLED mode until an episode ends, reset with a mask, go on."""
    return f'''"""DISABLED mode: nothing restarts by itself. Reset the ended envs, then step on."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

NUM_ENVS = {num_envs}
SEED = {seed}
MAX_CALLS = {CAPS.max_steps_per_run}

envs = gym.vector.SyncVectorEnv(
    [burgerbot_factory() for _ in range(NUM_ENVS)], autoreset_mode=AutoresetMode.DISABLED
)
# The page's random actions: one row per step() call, one column per env.
actions = np.random.default_rng(SEED).integers(0, 4, size=(MAX_CALLS + 1, NUM_ENVS))
obs, infos = envs.reset(seed=SEED)
for t in range(1, MAX_CALLS + 1):
    obs, rewards, terminated, truncated, infos = envs.step(actions[t - 1])
    if (terminated | truncated).any():
        break
print(f"step {{t}}: envs {{np.flatnonzero(terminated | truncated).tolist()}} ended")
print("obs:", obs.tolist())
# Stepping now would raise an AssertionError. The fix: reset only the envs that ended.
{DISABLED_FIX}print("after reset(reset_mask):", obs.tolist())
obs, rewards, terminated, truncated, infos = envs.step(actions[t])
print(f"step {{t + 1}} worked: obs {{obs.tolist()}}, rewards {{rewards.tolist()}}")
envs.close()
'''
