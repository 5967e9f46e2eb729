"""Home's script: transitions per second of a plain loop over one BurgerBot against a
SyncVectorEnv and BurgerBotVectorEnv of NUM_ENVS envs, random actions."""

from __future__ import annotations

__all__ = ["speed_script"]


def speed_script(num_envs: int = 16, seconds: float = 0.5) -> str:
    """A whole script measuring what Home shows, at ``num_envs`` envs, ``seconds`` per setup."""
    return f'''"""Each env.step() of one env gives one transition; each step() call of a
vector env of NUM_ENVS envs gives NUM_ENVS rows. Which collects more transitions per second,
with random actions?"""

import time

import gymnasium as gym
import numpy as np

from burgerbot.env import BurgerBotEnv
from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv

NUM_ENVS = {int(num_envs)!r}
SECONDS = {seconds!r}  # how long each setup runs
rng = np.random.default_rng(0)


def plain_loop():
    """One BurgerBotEnv, one env.step() per transition: transitions per second."""
    env = BurgerBotEnv()
    env.reset(seed=0)
    transitions, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        for action in rng.integers(0, 4, size=100).tolist():
            obs, reward, terminated, truncated, info = env.step(action)
            transitions += 1
            if terminated or truncated:
                env.reset()
    return transitions / (time.perf_counter() - start)


def vector(envs):
    """NUM_ENVS actions per envs.step() call, NUM_ENVS rows back: transitions per second."""
    envs.reset(seed=0)
    ended = np.zeros(envs.num_envs, dtype=bool)
    transitions, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        actions = rng.integers(0, 4, size=envs.num_envs)
        obs, rewards, terminated, truncated, infos = envs.step(actions)
        # an env whose episode ended is reset by this call: its row is not a transition
        transitions += envs.num_envs - int(np.count_nonzero(ended))
        ended = terminated | truncated
    rate = transitions / (time.perf_counter() - start)
    envs.close()
    return rate, len(obs)  # len(obs): the rows one call returned


if __name__ == "__main__":
    print(f"{{'plain loop (1 env)':<30}}{{plain_loop():>10,.0f}} transitions/s, 1 row per call")
    setups = {{
        f"SyncVectorEnv ({{NUM_ENVS}} envs)": gym.vector.SyncVectorEnv(
            [burgerbot_factory() for _ in range(NUM_ENVS)]
        ),
        f"BurgerBotVectorEnv ({{NUM_ENVS}} envs)": BurgerBotVectorEnv(NUM_ENVS),
    }}
    for name, envs in setups.items():
        rate, rows = vector(envs)
        print(f"{{name:<30}}{{rate:>10,.0f}} transitions/s, {{rows}} rows per call")
'''
