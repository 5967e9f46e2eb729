"""How spaces batch: ``batch_space`` checked against real vector envs, for the mistakes page."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces
from gymnasium.vector import SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space

from burgerbot.factories import make_env
from burgerbot.vector import BurgerBotVectorEnv
from burgerbot.wrappers import BurgerBotDictObservation

__all__ = [
    "ENV_MAKERS",
    "NATIVE_MAKERS",
    "SpaceRow",
    "returns_frame",
    "short_space",
    "spaces_frame",
    "spaces_table",
]


def short_space(space: spaces.Space) -> str:
    """A one-line repr that stays short at large N (a batched Box repr lists every bound)."""
    if isinstance(space, spaces.Box):
        return f"Box(shape={space.shape}, dtype={space.dtype})"
    if isinstance(space, spaces.MultiDiscrete):
        if space.nvec.size <= 8:
            return repr(space)
        text = np.array2string(space.nvec, threshold=6, edgeitems=2)
        return f"MultiDiscrete({text}, shape={space.shape})"
    if isinstance(space, spaces.Dict):
        inner = ", ".join(f"'{key}': {short_space(sub)}" for key, sub in space.spaces.items())
        return f"Dict({inner})"
    if isinstance(space, spaces.Tuple):
        return "Tuple(" + ", ".join(short_space(sub) for sub in space.spaces) + ")"
    return repr(space)


def _shape_and_dtype(batch: Any) -> tuple[Any, Any]:
    if isinstance(batch, dict):
        return (
            {key: tuple(value.shape) for key, value in batch.items()},
            {key: str(value.dtype) for key, value in batch.items()},
        )
    return tuple(batch.shape), str(batch.dtype)


@dataclass(frozen=True)
class SpaceRow:
    """One environment's spaces, batched by ``batch_space`` and by a real vector env."""

    env: str
    vector_env: str
    single_observation_space: str
    batched_observation_space: str  # batch_space(single, N), short form
    batched_observation_repr: str  # the same, full repr
    space_kinds: str  # e.g. "MultiDiscrete → Box"
    obs_shape: Any  # a tuple, or {key: tuple} for Dict observations
    obs_dtype: Any  # a dtype name, or {key: name}
    reward_shape: tuple
    reward_dtype: str
    terminated_dtype: str
    truncated_dtype: str
    single_action_space: str
    batched_action_space: str
    action_shape: tuple
    spaces_agree: bool  # vector env's spaces == batch_space(...), and its obs lie in them


def _measure(name: str, envs: VectorEnv, num_envs: int) -> SpaceRow:
    single_obs, single_act = envs.single_observation_space, envs.single_action_space
    batched_obs = batch_space(single_obs, num_envs)
    batched_act = batch_space(single_act, num_envs)
    obs, _ = envs.reset(seed=0)
    envs.action_space.seed(0)
    actions = envs.action_space.sample()
    next_obs, rewards, terminated, truncated, _ = envs.step(actions)
    agree = (
        envs.observation_space == batched_obs
        and envs.action_space == batched_act
        and batched_obs.contains(obs)
        and batched_obs.contains(next_obs)
        and batched_act.contains(actions)
    )
    obs_shape, obs_dtype = _shape_and_dtype(obs)
    return SpaceRow(
        env=name,
        vector_env=type(envs).__name__,
        single_observation_space=short_space(single_obs),
        batched_observation_space=short_space(batched_obs),
        batched_observation_repr=repr(batched_obs),
        space_kinds=f"{type(single_obs).__name__} → {type(batched_obs).__name__}",
        obs_shape=obs_shape,
        obs_dtype=obs_dtype,
        reward_shape=tuple(rewards.shape),
        reward_dtype=str(rewards.dtype),
        terminated_dtype=str(terminated.dtype),
        truncated_dtype=str(truncated.dtype),
        single_action_space=short_space(single_act),
        batched_action_space=short_space(batched_act),
        action_shape=tuple(np.shape(actions)),
        spaces_agree=bool(agree),
    )


ENV_MAKERS: dict[str, Callable[[], gym.Env]] = {
    "BurgerBot": make_env(),
    "CartPole-v1": lambda: gym.make("CartPole-v1"),
    "FrozenLake-v1": lambda: gym.make("FrozenLake-v1"),
    "BurgerBot, Dict observation": BurgerBotDictObservation,
}
"""The environments of the spaces table, each stacked N times in a SyncVectorEnv."""


NATIVE_MAKERS: dict[str, Callable[[int], VectorEnv]] = {
    "CartPole-v1": lambda n: gym.make_vec(
        "CartPole-v1", num_envs=n, vectorization_mode="vector_entry_point"
    ),
    "BurgerBot": BurgerBotVectorEnv,
}
"""Natively batched vector envs: Gymnasium's own CartPoleVectorEnv, and this project's
BurgerBotVectorEnv (not part of Gymnasium)."""


def spaces_table(num_envs: int) -> list[SpaceRow]:
    """Batch each env's spaces with ``batch_space`` and with a real vector env of ``num_envs``.

    One row per env of `ENV_MAKERS` in a SyncVectorEnv, then one per natively batched env.
    """
    rows = []
    builders = [
        *(
            (name, lambda make_one=make_one: SyncVectorEnv([make_one] * num_envs))
            for name, make_one in ENV_MAKERS.items()
        ),
        *((name, lambda make=make: make(num_envs)) for name, make in NATIVE_MAKERS.items()),
    ]
    for name, build in builders:
        envs = build()
        try:
            rows.append(_measure(name, envs, num_envs))
        finally:
            envs.close()
    return rows


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} {_describe(sub)}" for key, sub in value.items())
    return str(value)


def returns_frame(rows: Sequence[SpaceRow]) -> pd.DataFrame:
    """What ``reset``/``step`` returned: shapes and dtypes (one row per environment)."""
    return pd.DataFrame(
        {
            "env": [r.env for r in rows],
            "vector env": [r.vector_env for r in rows],
            "obs shape (real reset)": [_describe(r.obs_shape) for r in rows],
            "obs dtype": [_describe(r.obs_dtype) for r in rows],
            "rewards": [f"{r.reward_shape} {r.reward_dtype}" for r in rows],
            "terminated / truncated": [
                f"{r.reward_shape} {r.terminated_dtype} / {r.truncated_dtype}" for r in rows
            ],
            "sampled actions shape": [str(r.action_shape) for r in rows],
        }
    )


def spaces_frame(rows: Sequence[SpaceRow]) -> pd.DataFrame:
    """One env's spaces, batched by ``batch_space``, and whether the vector env agrees."""
    return pd.DataFrame(
        {
            "env": [r.env for r in rows],
            "vector env": [r.vector_env for r in rows],
            "vector env agrees": ["✅ same" if r.spaces_agree else "❌ differs" for r in rows],
            "space type": [r.space_kinds for r in rows],
            "single observation space": [r.single_observation_space for r in rows],
            "batch_space(single, N)": [r.batched_observation_space for r in rows],
            "batched action space": [r.batched_action_space for r in rows],
        }
    )
