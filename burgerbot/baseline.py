"""A straightforward per-object BurgerBot, as a learner first writes it: the speed baseline.

It follows the same rules as `burgerbot.env.BurgerBotEnv` (tests check it step for step), but
computes everything with Python objects on every call instead of looking it up in tables.
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from burgerbot.world import (
    GOAL,
    GOAL_REWARD,
    GRID_SIZE,
    HEADING_DELTAS,
    HIT_REWARD,
    MOVE_REWARD,
    OBSTACLES,
    START,
    START_HEADING,
    TURN_OR_STOP_REWARD,
)

__all__ = ["StraightforwardBurgerBot"]


class StraightforwardBurgerBot(gym.Env[np.ndarray, int]):
    """BurgerBot written the way a learner first writes it: attributes, ifs and a sensor loop.

    It follows the same rules as ``BurgerBotEnv`` step for step (the tests check that) and
    is kept as the honest baseline that the table-driven env is measured against.

    Example:
        >>> env = StraightforwardBurgerBot()
        >>> env.reset(seed=0)[0]
        array([0, 0, 1, 1])
        >>> obs, reward, terminated, truncated, info = env.step(0)
        >>> obs.tolist(), reward, terminated, truncated
        ([0, 1, 1, 0], 1.0, False, False)
    """

    observation_space: spaces.MultiDiscrete
    action_space: spaces.Discrete  # type: ignore[assignment]  # gymnasium types it Space[int]
    max_steps: int
    row: int
    col: int
    heading: int
    steps: int

    def __init__(self, max_steps: int = 150) -> None:
        self.observation_space = spaces.MultiDiscrete([7, 7, 4, 3], dtype=np.int64)
        self.action_space = spaces.Discrete(4)
        self.max_steps = max_steps
        self.row, self.col = START
        self.heading = START_HEADING
        self.steps = 0

    def is_free(self, row: int, col: int) -> bool:
        """True when (row, col) is on the grid and not an obstacle."""
        return 0 <= row < GRID_SIZE and 0 <= col < GRID_SIZE and (row, col) not in OBSTACLES

    def sensor(self) -> int:
        """Count clear cells ahead (at most 5) and turn the count into 0 near, 1 medium, 2 far."""
        d_row, d_col = HEADING_DELTAS[self.heading]
        row, col = self.row + d_row, self.col + d_col
        clear = 0
        while clear < 5 and self.is_free(row, col):
            clear += 1
            row += d_row
            col += d_col
        if clear <= 1:
            return 0
        if clear <= 3:
            return 1
        return 2

    def get_obs(self) -> np.ndarray:
        """The observation ``[row, col, heading, sensor]``."""
        return np.array([self.row, self.col, self.heading, self.sensor()], dtype=np.int64)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Put the robot back at the start, facing east."""
        super().reset(seed=seed)
        self.row, self.col = START
        self.heading = START_HEADING
        self.steps = 0
        return self.get_obs(), {}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """0 forward, 1 turn left, 2 turn right, 3 stop."""
        hit = False
        if action == 0:
            d_row, d_col = HEADING_DELTAS[self.heading]
            new_row, new_col = self.row + d_row, self.col + d_col
            if self.is_free(new_row, new_col):
                self.row, self.col = new_row, new_col
            else:
                hit = True
        elif action == 1:
            self.heading = (self.heading - 1) % 4
        elif action == 2:
            self.heading = (self.heading + 1) % 4
        elif action != 3:
            raise ValueError(f"`action` must be 0, 1, 2 or 3, got {action!r}")
        self.steps += 1

        if hit:
            reward, terminated = HIT_REWARD, True
        elif (self.row, self.col) == GOAL:
            reward, terminated = GOAL_REWARD, True
        elif action == 0:
            reward, terminated = MOVE_REWARD, False
        else:
            reward, terminated = TURN_OR_STOP_REWARD, False
        truncated = self.steps >= self.max_steps
        return self.get_obs(), reward, terminated, truncated, {}
