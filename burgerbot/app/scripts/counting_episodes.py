"""The "Counting finished episodes" page as a script: same robots, seed and random actions, same
counts."""

from __future__ import annotations

from burgerbot.app.logic.counting_episodes import MODES, CountingSettings
from burgerbot.app.scripts import LESSON_MAKE_ENV

__all__ = ["COUNT_LINE", "counting_script"]

COUNT_LINE = "{mode}: finished episodes per env {counts}, total {total}"
"""How the script prints one mode's counts (tests parse it back)."""


def counting_script(settings: CountingSettings) -> str:
    """A self-contained script that counts finished episodes per env in each mode, as the page.

    It builds a ``SyncVectorEnv`` from the lesson's ``make_env(seed)`` factory in each mode,
    draws the same random actions as the page (``np.random.default_rng(seed).integers``) and prints
    ``COUNT_LINE`` for each mode.
    """
    line = COUNT_LINE.format(
        mode="{mode.name}", counts="{finished.tolist()}", total="{finished.sum()}"
    )
    modes = ", ".join(f"AutoresetMode.{mode}" for mode in MODES)
    return f'''"""Count finished episodes per env, in NEXT_STEP and SAME_STEP mode, same actions."""

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from burgerbot import BurgerBotEnv

NUM_ENVS = {settings.num_envs}
STEPS = {settings.steps}
SEED = {settings.seed}


{LESSON_MAKE_ENV}

for mode in ({modes}):
    envs = gym.vector.SyncVectorEnv(
        [make_env(i) for i in range(NUM_ENVS)], autoreset_mode=mode
    )
    # The page's random actions: a row per call, a column per env.
    actions = np.random.default_rng(SEED).integers(0, 4, size=(STEPS, NUM_ENVS))
    finished = np.zeros(NUM_ENVS, dtype=np.int64)
    obs, infos = envs.reset(seed=SEED)
    for step_actions in actions:
        obs, rewards, terminated, truncated, infos = envs.step(step_actions)
        # True once per episode, on the call that ends it.
        finished += terminated | truncated
    envs.close()
    print(f"{line}")
'''
