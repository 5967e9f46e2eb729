"""From a vector env's batches to training data: the buffer, its mask and one-step TD targets."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import checks, world
from burgerbot.env import check_max_steps
from burgerbot.factories import burgerbot_factory

__all__ = [
    "GAMMA",
    "Buffer",
    "collect_buffer",
    "distance_value",
    "follows_world_rules",
    "td_targets",
    "transition_mask",
    "world_outcomes",
]

GAMMA = 0.9
"""The discount factor the examples use."""

_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def _mode(autoreset_mode: AutoresetMode | str) -> AutoresetMode:
    mode = checks.autoreset_mode(autoreset_mode)
    if mode not in _MODES:
        raise ValueError(
            "`autoreset_mode` must be NEXT_STEP or SAME_STEP (in DISABLED mode you reset "
            f"ended envs yourself, so no buffer row is a reset step), got {mode!r}"
        )
    return mode


@dataclass(frozen=True)
class Buffer:
    """A ``(steps, envs)`` buffer: row ``t`` holds what ``step()`` call ``t + 1`` did.

    Every array's first two axes are ``(steps, envs)``.
    """

    autoreset_mode: AutoresetMode
    obs: np.ndarray
    """``(steps, envs, 4)``: the observation each action was chosen from."""
    actions: np.ndarray
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    returned_obs: np.ndarray
    """``(steps, envs, 4)``: the observation ``step()`` returned."""
    next_obs: np.ndarray
    """``(steps, envs, 4)``: the observation the action led to. It is ``returned_obs``
    except in SAME_STEP mode on a row that ended an episode, where ``returned_obs`` is
    already the next episode's start and the final observation is ``infos["final_obs"][i]``."""
    final_from_infos: np.ndarray
    """``(steps, envs)``: ``next_obs`` came from ``infos["final_obs"]`` (SAME_STEP ends)."""

    @property
    def ended(self) -> np.ndarray:
        """Rows whose ``step()`` ended the episode (terminated or truncated)."""
        return self.terminated | self.truncated

    @property
    def shape(self) -> tuple[int, int]:
        """``(steps, envs)``."""
        return self.rewards.shape


def collect_buffer(
    num_envs: int = 3,
    steps: int = 10,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    seed: int = 0,
    max_steps: int = 5,
    actions: np.ndarray | None = None,
) -> Buffer:
    """Step ``num_envs`` BurgerBots in a ``SyncVectorEnv`` with seeded random actions.

    ``envs.reset(seed=seed)`` and ``envs.action_space.seed(seed)`` make the run repeatable.
    A small ``max_steps`` makes episodes end (by truncation) within a short buffer.
    ``actions`` ``(steps, num_envs)``, if given, are sent instead of random ones.

    Example:
        >>> buffer = collect_buffer(num_envs=2, steps=6, max_steps=3)
        >>> buffer.shape, buffer.obs.shape
        ((6, 2), (6, 2, 4))
        >>> bool(buffer.ended[:3].any(axis=0).all())  # each env's first episode ends by step 3
        True
    """
    mode = _mode(autoreset_mode)
    num_envs = checks.positive_int("num_envs", num_envs)
    steps = checks.positive_int("steps", steps)
    seed = checks.seed(seed)
    max_steps = check_max_steps(max_steps)
    if actions is not None:
        actions = np.asarray(actions, dtype=np.int64)
        if actions.shape != (steps, num_envs):
            raise ValueError(
                f"`actions` must have shape (steps, num_envs) = ({steps}, {num_envs}), "
                f"got {actions.shape}"
            )
    envs = SyncVectorEnv(
        [burgerbot_factory(max_steps) for _ in range(num_envs)], autoreset_mode=mode
    )
    try:
        envs.action_space.seed(seed)
        obs, _ = envs.reset(seed=seed)
        rows: dict[str, list[np.ndarray]] = {name: [] for name in _ROW_FIELDS}
        for t in range(steps):
            sent = envs.action_space.sample() if actions is None else actions[t]
            returned, rewards, terminated, truncated, infos = envs.step(sent)
            next_obs = returned.copy()
            from_infos = np.zeros(num_envs, dtype=bool)
            if "_final_obs" in infos:  # SAME_STEP: the ended envs' last observations
                from_infos = infos["_final_obs"].copy()
                for i in np.flatnonzero(from_infos):
                    next_obs[i] = infos["final_obs"][i]
            for name, value in zip(
                _ROW_FIELDS,
                (obs, sent, rewards, terminated, truncated, returned, next_obs, from_infos),
                strict=True,
            ):
                rows[name].append(np.array(value))
            obs = returned
    finally:
        envs.close()
    return Buffer(mode, **{name: np.stack(values) for name, values in rows.items()})


_ROW_FIELDS = (
    "obs",
    "actions",
    "rewards",
    "terminated",
    "truncated",
    "returned_obs",
    "next_obs",
    "final_from_infos",
)


def transition_mask(
    terminated: np.ndarray,
    truncated: np.ndarray,
    autoreset_mode: AutoresetMode | str,
    ended_before: np.ndarray | None = None,
) -> np.ndarray:
    """Which rows of a ``(steps, envs)`` buffer are transitions (True) and may be trained on.

    In NEXT_STEP mode the ``step()`` call right after an episode ended resets that env: it
    ignores the action and returns the start observation with reward 0.0. That row is not a
    transition, so it is False. ``ended_before`` ``(envs,)``: which envs ended on the last
    row of the previous buffer (default: none). In SAME_STEP mode every row is a transition.

    Example:
        >>> ended = np.array([[False, True], [False, False], [True, False]])
        >>> transition_mask(ended, np.zeros_like(ended), "NEXT_STEP").tolist()
        [[True, True], [True, False], [True, True]]
        >>> bool(transition_mask(ended, np.zeros_like(ended), "SAME_STEP").all())
        True
    """
    mode = _mode(autoreset_mode)
    ended = np.asarray(terminated, dtype=bool) | np.asarray(truncated, dtype=bool)
    if ended.ndim != 2:
        raise ValueError(f"`terminated` must have shape (steps, envs), got {ended.shape}")
    mask = np.ones(ended.shape, dtype=bool)
    if mode == AutoresetMode.NEXT_STEP:
        mask[1:] = ~ended[:-1]
        if ended_before is not None:
            mask[0] = ~np.asarray(ended_before, dtype=bool)
    return mask


def distance_value(obs: np.ndarray) -> np.ndarray:
    """A hand-made value function: minus the grid distance (rows + columns) to the burger.

    Example:
        >>> distance_value(np.array([[0, 0, 1, 1], [6, 5, 1, 0]])).tolist()
        [-12.0, -1.0]
    """
    obs = np.asarray(obs)
    goal_row, goal_col = world.GOAL
    distance = np.abs(goal_row - obs[..., 0]) + np.abs(goal_col - obs[..., 1])
    return -distance.astype(np.float64)


def td_targets(
    rewards: np.ndarray,
    terminated: np.ndarray,
    next_obs: np.ndarray,
    value: Callable[[np.ndarray], np.ndarray] = distance_value,
    gamma: float = GAMMA,
    mask: np.ndarray | None = None,
) -> np.ndarray:
    """One-step TD targets ``reward + gamma * (1 - terminated) * value(next_obs)``.

    No bootstrap after termination (nothing follows); after truncation the value of the
    final observation is used, since the world would have gone on. Rows where ``mask`` is
    False get NaN (they are not transitions); without a mask every row gets a number.

    Example:
        >>> start = np.array([0, 0, 1, 1])
        >>> rewards, terminated = np.array([1.0, -10.0]), np.array([False, True])
        >>> td_targets(rewards, terminated, np.stack([start, start])).round(2).tolist()
        [-9.8, -10.0]
    """
    if not 0.0 <= gamma <= 1.0:
        raise ValueError(f"`gamma` must be in 0..1, got {gamma!r}")
    rewards = np.asarray(rewards, dtype=np.float64)
    keep_going = 1.0 - np.asarray(terminated, dtype=np.float64)
    targets = rewards + gamma * keep_going * value(next_obs)
    if mask is not None:
        targets = np.where(mask, targets, np.nan)
    return targets


def world_outcomes(obs: np.ndarray, actions: np.ndarray) -> tuple[np.ndarray, ...]:
    """What the world's rules say each action does from each observation.

    Returns ``(rewards, terminated, next_obs)`` shaped like ``actions`` (``next_obs`` with
    a last axis of 4), from `burgerbot.world.transition` (time limits aside).

    Example:
        >>> rewards, terminated, next_obs = world_outcomes(np.array([[0, 0, 1, 1]]), [0])
        >>> rewards.tolist(), terminated.tolist(), next_obs.tolist()
        ([1.0], [False], [[0, 1, 1, 0]])
    """
    obs, actions = np.asarray(obs), np.asarray(actions)
    rewards = np.zeros(actions.shape, dtype=np.float64)
    terminated = np.zeros(actions.shape, dtype=bool)
    next_obs = np.zeros((*actions.shape, 4), dtype=np.int64)
    for index in np.ndindex(*actions.shape):
        row, col, heading, _ = (int(v) for v in obs[index])
        outcome = world.transition(row, col, heading, int(actions[index]))
        rewards[index], terminated[index] = outcome.reward, outcome.terminated
        next_obs[index] = world.observe(outcome.row, outcome.col, outcome.heading)
    return rewards, terminated, next_obs


def follows_world_rules(buffer: Buffer, next_obs: np.ndarray | None = None) -> np.ndarray:
    """Whether each row is a real BurgerBot transition, checked against the world's rules.

    Row ``t`` passes when acting ``actions[t]`` from ``obs[t]`` gives ``rewards[t]``,
    ``terminated[t]`` and ``next_obs[t]`` (by default ``buffer.next_obs``) as
    `world_outcomes` says. Independent of any mask: it tests what a row holds.
    """
    next_obs = buffer.next_obs if next_obs is None else np.asarray(next_obs)
    rewards, terminated, expected = world_outcomes(buffer.obs, buffer.actions)
    return (
        (rewards == buffer.rewards)
        & (terminated == buffer.terminated)
        & (expected == next_obs).all(axis=-1)
    )
