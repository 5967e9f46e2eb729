"""Wrappers around BurgerBot: a costlier step (Sync vs Async crossover), a dict observation."""

from __future__ import annotations

import math
import time
from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from burgerbot.env import BurgerBotEnv

__all__ = ["WORK_KINDS", "BurgerBotDictObservation", "StepCostWrapper", "check_work"]

WORK_KINDS = ("busy", "sleep")


class StepCostWrapper(gym.Wrapper):
    """Makes every ``step()`` of an environment cost ``work_seconds`` more.

    ``work_kind="busy"`` burns CPU (like a heavier simulator would), ``"sleep"`` waits
    without using the core (like waiting for a device or a network). It lives in an
    importable module so that AsyncVectorEnv's spawned workers can rebuild it.

    Example:
        >>> from burgerbot import BurgerBotEnv
        >>> env = StepCostWrapper(BurgerBotEnv(), work_seconds=0.001)
        >>> _ = env.reset(seed=0)
        >>> env.step(0)[1]
        1.0
    """

    work_seconds: float
    work_kind: str

    def __init__(self, env: gym.Env, work_seconds: float, work_kind: str = "busy") -> None:
        super().__init__(env)
        self.work_seconds = _work_seconds(work_seconds)
        self.work_kind = _work_kind(work_kind)

    def step(self, action: Any) -> tuple[Any, Any, bool, bool, dict[str, Any]]:
        """Spend ``work_seconds`` (busy or asleep), then step the wrapped environment."""
        if self.work_kind == "sleep":
            time.sleep(self.work_seconds)
        else:
            deadline = time.perf_counter() + self.work_seconds
            while time.perf_counter() < deadline:
                pass
        return self.env.step(action)


class BurgerBotDictObservation(gym.ObservationWrapper):
    """BurgerBot whose observation is a dict, to show how ``Dict`` spaces batch.

    The array ``[row, col, heading, sensor]`` becomes ``{"cell": [row, col], "heading":
    heading, "sensor": sensor}``; without an ``env`` it wraps a new `BurgerBotEnv`.

    Example:
        >>> env = BurgerBotDictObservation()
        >>> obs, info = env.reset(seed=0)
        >>> obs["cell"].tolist(), obs["heading"], obs["sensor"]
        ([0, 0], 1, 1)
        >>> env.observation_space.contains(obs)
        True
    """

    def __init__(self, env: gym.Env | None = None) -> None:
        super().__init__(BurgerBotEnv() if env is None else env)
        self.observation_space = spaces.Dict(
            {
                "cell": spaces.MultiDiscrete([7, 7]),
                "heading": spaces.Discrete(4),
                "sensor": spaces.Discrete(3),
            }
        )

    def observation(self, observation: np.ndarray) -> dict[str, Any]:
        """Split BurgerBot's observation array into the dict's three parts."""
        return {
            "cell": observation[:2].copy(),
            "heading": int(observation[2]),
            "sensor": int(observation[3]),
        }


def check_work(work_seconds: Any, work_kind: Any) -> tuple[float, str]:
    """Validate a step cost: seconds >= 0 and a kind from WORK_KINDS."""
    return _work_seconds(work_seconds), _work_kind(work_kind)


def _work_seconds(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.number):
        raise ValueError(f"`work_seconds` must be a number of seconds >= 0, got {value!r}")
    if not math.isfinite(value) or value < 0:
        raise ValueError(f"`work_seconds` must be a number of seconds >= 0, got {value!r}")
    return float(value)


def _work_kind(value: Any) -> str:
    if value not in WORK_KINDS:
        raise ValueError(f"`work_kind` must be one of {WORK_KINDS}, got {value!r}")
    return value
