"""The "Auto-reset" page's script: its NEXT_STEP run's final observations, same random actions."""

from __future__ import annotations

from burgerbot.app.scripts import LESSON_MAKE_ENV

__all__ = ["FINAL_OBS_LINE", "final_obs_script"]

FINAL_OBS_LINE = "step {step} env {env}: {final}"
"""How the exercise's answer prints one final observation (tests parse it back)."""


def final_obs_script(num_envs: int, steps: int, seed: int) -> str:
    """The exercise's answer: collect every final observation of a NEXT_STEP run.

    Same robots, seed and random actions as the page, so its output matches the page's
    table of episode ends in NEXT_STEP mode. It builds the vector env from the lesson's
    ``make_env(seed)`` factory.
    """
    line = FINAL_OBS_LINE.format(step="{t}", env="{i}", final="{final.tolist()}")
    return f'''"""Collect every episode's final observation in NEXT_STEP mode (the default)."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot import BurgerBotEnv

NUM_ENVS = {num_envs}
STEPS = {steps}
SEED = {seed}


{LESSON_MAKE_ENV}

envs = gym.vector.SyncVectorEnv(
    [make_env(i) for i in range(NUM_ENVS)], autoreset_mode=AutoresetMode.NEXT_STEP
)
# The page's random actions: a row per call, a column per env.
actions = np.random.default_rng(SEED).integers(0, 4, size=(STEPS, NUM_ENVS))
finals = []  # (step, env, final observation)
obs, infos = envs.reset(seed=SEED)
for t, step_actions in enumerate(actions, start=1):
    obs, rewards, terminated, truncated, infos = envs.step(step_actions)
    # On the ending call obs[i] IS the final observation; the next call resets env i.
    # (In SAME_STEP mode it would be infos["final_obs"][i].)
    for i in np.flatnonzero(terminated | truncated):
        finals.append((t, int(i), obs[i].copy()))
envs.close()

print(f"{{len(finals)}} final observations")
for t, i, final in finals:
    print(f"{line}")
'''
