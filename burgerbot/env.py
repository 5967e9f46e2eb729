"""`BurgerBotEnv`: one BurgerBot robot as a Gymnasium environment, stepped by table lookup."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from burgerbot import world
from burgerbot.checks import positive_int

__all__ = ["BurgerBotEnv", "check_max_steps"]

# Python lists index faster than numpy arrays for one scalar at a time.
_NEXT = world.TABLES.next_state.tolist()
_REWARD = world.TABLES.reward.tolist()
_TERMINATED = world.TABLES.terminated.tolist()
_OBSERVATION = world.TABLES.observation


def check_max_steps(max_steps: Any) -> int:
    """Return `max_steps` as an int, or raise a ValueError naming the bad value."""
    return positive_int("max_steps", max_steps)


class BurgerBotEnv(gym.Env[np.ndarray, np.int64]):
    """A robot on a 7x7 grid that must reach the goal at (6, 6) without bumping into anything.

    Observation ``[row, col, heading, sensor]`` (``MultiDiscrete([7, 7, 4, 3])``, int64);
    actions 0 forward, 1 turn left, 2 turn right, 3 stop. Rules: ``burgerbot.world``.

    Example:
        >>> env = BurgerBotEnv()
        >>> obs, info = env.reset(seed=0)
        >>> obs
        array([0, 0, 1, 1])
        >>> obs, reward, terminated, truncated, info = env.step(0)
        >>> obs.tolist(), reward, terminated, truncated
        ([0, 1, 1, 0], 1.0, False, False)
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    observation_space: spaces.MultiDiscrete
    action_space: spaces.Discrete
    max_steps: int

    def __init__(self, max_steps: int = 150, render_mode: str | None = None) -> None:
        self.max_steps = check_max_steps(max_steps)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"`render_mode` must be one of {self.metadata['render_modes']} or None, "
                f"got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.observation_space = spaces.MultiDiscrete(
            [world.GRID_SIZE, world.GRID_SIZE, world.NUM_HEADINGS, 3], dtype=np.int64
        )
        self.action_space = spaces.Discrete(world.NUM_ACTIONS)
        self._state = world.START_STATE
        self._steps = 0

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Put the robot back at (0, 0) facing east; the seed changes nothing about the start."""
        super().reset(seed=seed)
        self._state = world.START_STATE
        self._steps = 0
        return _OBSERVATION[self._state].copy(), {}

    def step(
        self, action: int | np.integer
    ) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Apply one action; see ``burgerbot.world.transition`` for the rules."""
        if not 0 <= action <= 3:
            raise ValueError(f"`action` must be 0, 1, 2 or 3, got {action!r}")
        key = self._state * 4 + int(action)
        self._state = _NEXT[key]
        self._steps += 1
        return (
            _OBSERVATION[self._state].copy(),
            _REWARD[key],
            _TERMINATED[key],
            self._steps >= self.max_steps,
            {},
        )

    @property
    def robot(self) -> tuple[int, int, int]:
        """The robot's (row, col, heading)."""
        return world.state_of_index(self._state)

    def render(self) -> str | np.ndarray | None:
        """Draw the grid as text (`ansi`) or as a 224x224 RGB picture (`rgb_array`)."""
        if self.render_mode == "ansi":
            return world.render_ansi(*self.robot)
        if self.render_mode == "rgb_array":
            return world.render_rgb(*self.robot)
        return None
