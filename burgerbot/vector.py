"""`BurgerBotVectorEnv`: N BurgerBots stepped together with a few numpy array operations."""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from burgerbot import world
from burgerbot.checks import positive_int
from burgerbot.env import BurgerBotEnv, check_max_steps

__all__ = ["BurgerBotVectorEnv"]

# Fused tables, indexed by key = state * 8 + action, with states stored pre-multiplied
# by 8. Keys 4..7 of every state are a "reset" pseudo-action: it sends the robot to the
# start with reward 0.0, no flags and a step count of 0, which is exactly what a
# NEXT_STEP auto-reset does. In NEXT_STEP mode a transition that terminates leads to
# next_key = state * 8 + 4, so whatever action comes next lands on a reset entry:
# auto-reset costs no masked assignment (only truncation, which is rare, needs one).
_STRIDE = 8
_RESET_BIT = 4


def _fused_tables(reset_on_termination: bool) -> tuple[np.ndarray, ...]:
    t = world.TABLES
    size = world.NUM_STATES * _STRIDE
    next_key = np.full(size, world.START_STATE * _STRIDE, dtype=np.intp)
    reward = np.zeros(size, dtype=np.float64)
    terminated = np.zeros(size, dtype=np.bool_)
    keeps_count = np.zeros(size, dtype=np.int32)  # 0 on the reset entries
    observation = np.zeros((size, 4), dtype=np.int64)
    for s in range(world.NUM_STATES):
        base = s * _STRIDE
        real = slice(base, base + world.NUM_ACTIONS)
        source = slice(s * world.NUM_ACTIONS, (s + 1) * world.NUM_ACTIONS)
        next_key[real] = t.next_state[source] * _STRIDE
        if reset_on_termination:
            next_key[real] += _RESET_BIT * t.terminated[source]
        reward[real] = t.reward[source]
        terminated[real] = t.terminated[source]
        keeps_count[real] = 1
        observation[base : base + _STRIDE] = t.observation[s]
    for array in (next_key, reward, terminated, keeps_count, observation):
        array.flags.writeable = False
    return next_key, reward, terminated, keeps_count, observation


_NEXT_STEP_TABLES = _fused_tables(reset_on_termination=True)
_PLAIN_TABLES = _fused_tables(reset_on_termination=False)
_START_KEY = world.START_STATE * _STRIDE
_OBSERVATION = _PLAIN_TABLES[4]


def _out_of_range(actions: np.ndarray) -> bool:
    if actions.dtype == np.int64:  # the common case: one pass, negatives wrap to huge
        return bool(actions.view(np.uint64).max() > 3)
    return bool(actions.min() < 0 or actions.max() > 3)


class BurgerBotVectorEnv(VectorEnv):
    """``num_envs`` BurgerBots in one set of numpy arrays: a natively batched vector env.

    It behaves exactly like ``gymnasium.vector.SyncVectorEnv`` over ``BurgerBotEnv`` in
    every ``AutoresetMode`` (same observations, rewards, flags and infos for the same
    actions), but steps every robot with a handful of table look-ups instead of a
    Python loop.

    Example:
        >>> envs = BurgerBotVectorEnv(num_envs=3)
        >>> obs, infos = envs.reset(seed=0)
        >>> obs.shape, obs.dtype
        ((3, 4), dtype('int64'))
        >>> obs, rewards, terminated, truncated, infos = envs.step(np.array([0, 1, 3]))
        >>> rewards.tolist()
        [1.0, -0.1, -0.1]
        >>> envs.close()
    """

    metadata: dict[str, Any] = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(
        self,
        num_envs: int = 1,
        max_steps: int = 150,
        autoreset_mode: str | AutoresetMode = AutoresetMode.NEXT_STEP,
        render_mode: str | None = None,
        max_episode_steps: int | None = None,
    ) -> None:
        """Make ``num_envs`` robots.

        ``max_episode_steps`` is what ``gym.make_vec`` passes; when given it overrides
        ``max_steps``.
        """
        self.num_envs = positive_int("num_envs", num_envs)
        self.max_steps = check_max_steps(
            max_steps if max_episode_steps is None else max_episode_steps
        )
        self.autoreset_mode = AutoresetMode(autoreset_mode)
        single = BurgerBotEnv(render_mode=render_mode)  # validates render_mode
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "autoreset_mode": self.autoreset_mode}
        self.single_observation_space = single.observation_space
        self.single_action_space = single.action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

        n = self.num_envs
        self._keys = np.full(n, _START_KEY, dtype=np.intp)
        self._steps = np.zeros(n, dtype=np.int32)
        self._ended = np.zeros(n, dtype=np.bool_)  # ended on the previous call
        self._key_buffer = np.empty(n, dtype=np.intp)
        next_step = self.autoreset_mode == AutoresetMode.NEXT_STEP
        tables = _NEXT_STEP_TABLES if next_step else _PLAIN_TABLES
        self._next_key, self._reward, self._terminated, self._keeps_count, _ = tables

    def reset(
        self,
        *,
        seed: int | list[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Reset every robot, or with ``options={"reset_mask": mask}`` only the masked ones."""
        if isinstance(seed, list | tuple) and len(seed) != self.num_envs:
            raise ValueError(
                f"If seeds are passed as a list the length must match num_envs={self.num_envs} "
                f"but got length={len(seed)}."
            )
        mask: np.ndarray | slice = slice(None)
        if options is not None and "reset_mask" in options:
            mask = self._check_reset_mask(options["reset_mask"])
        self._keys[mask] = _START_KEY
        self._steps[mask] = 0
        self._ended[mask] = False
        return _OBSERVATION[self._keys], {}

    def _check_reset_mask(self, mask: Any) -> np.ndarray:
        # Same checks, exception types and wording as SyncVectorEnv.
        if not isinstance(mask, np.ndarray):
            raise TypeError(f"`options['reset_mask']` must be a numpy array, got {type(mask)}")
        if mask.shape != (self.num_envs,):
            raise ValueError(
                f"`options['reset_mask']` must have shape `({self.num_envs},)`, got {mask.shape}"
            )
        if mask.dtype != np.bool_:
            raise TypeError(f"`options['reset_mask']` must have `dtype=np.bool_`, got {mask.dtype}")
        if not mask.any():
            raise ValueError(
                "`options['reset_mask']` must contain a boolean array with at least one True "
                f"value, got reset_mask={mask}"
            )
        return mask

    def step(
        self, actions: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every robot at once. ``actions`` has shape ``(num_envs,)`` with values 0..3."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(
                f"`actions` must have shape ({self.num_envs},), one action per env, "
                f"got shape {actions.shape}"
            )
        if actions.dtype.kind not in "iu" or _out_of_range(actions):
            raise ValueError(f"`actions` must be whole numbers 0, 1, 2 or 3, got {actions}")
        if self.autoreset_mode == AutoresetMode.DISABLED and self._ended.any():
            ended = np.flatnonzero(self._ended).tolist()
            raise AssertionError(
                f"Sub-environments {ended} ended on the previous step and autoreset_mode is "
                "DISABLED: call envs.reset(options={'reset_mask': mask}) with mask True for "
                "them before stepping again."
            )

        # mode="clip" lets np.take write into `out` without an extra buffer; every key is valid.
        keys = np.add(self._keys, actions, out=self._key_buffer, casting="unsafe")
        np.take(self._next_key, keys, out=self._keys, mode="clip")
        rewards = self._reward.take(keys, mode="clip")
        terminated = self._terminated.take(keys, mode="clip")
        self._steps += 1
        self._steps *= self._keeps_count.take(keys, mode="clip")
        truncated = self._steps >= self.max_steps
        observations = _OBSERVATION.take(self._keys, axis=0, mode="clip")

        infos: dict[str, Any] = {}
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            if truncated.any():  # terminations already lead to a reset entry
                self._keys[truncated] |= _RESET_BIT
        else:
            np.logical_or(terminated, truncated, out=self._ended)
            if self.autoreset_mode == AutoresetMode.SAME_STEP and self._ended.any():
                infos = self._reset_ended_same_step(observations)
        return observations, rewards, terminated, truncated, infos

    def _reset_ended_same_step(self, observations: np.ndarray) -> dict[str, Any]:
        ended = self._ended.copy()
        final_rows = observations[ended]
        final_obs = np.full(self.num_envs, None, dtype=object)
        # An object array holding one (4,) array per ended env, as SyncVectorEnv gives.
        final_obs[ended] = np.fromiter(final_rows, dtype=object, count=len(final_rows))
        self._keys[ended] = _START_KEY
        self._steps[ended] = 0
        self._ended[:] = False
        observations[ended] = _OBSERVATION[_START_KEY]
        return {
            "final_obs": final_obs,
            "_final_obs": ended,
            "final_info": {},
            "_final_info": ended.copy(),
        }

    @property
    def robots(self) -> np.ndarray:
        """Each robot's (row, col, heading), shape ``(num_envs, 3)``."""
        return _OBSERVATION[self._keys][:, :3]

    def render(self) -> tuple[Any, ...] | None:
        """One frame per robot, like ``SyncVectorEnv.render()``."""
        if self.render_mode == "ansi":
            return tuple(world.render_ansi(*robot) for robot in self.robots.tolist())
        if self.render_mode == "rgb_array":
            return tuple(world.render_rgb(*robot) for robot in self.robots.tolist())
        return None

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release: the robots are plain arrays."""
