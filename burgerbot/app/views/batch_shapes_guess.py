"""The "Batch shapes" page's predictions (the batch's shape and dtype, and why) and takeaways.

Each is a multiple-choice question (`learning.prediction`), checked against the live batch: the
true option is read off the batch the page's vector env just returned, never typed in.
"""

from __future__ import annotations

import re

import numpy as np
from gymnasium.spaces import Space

from burgerbot.app.views.batch_shapes import ENVS
from burgerbot.app.views.batch_shapes_tables import short_repr

__all__ = [
    "DTYPE_OPTIONS",
    "SHAPE_OPTIONS",
    "dtype_explanation",
    "one_observation",
    "prediction_ids",
    "shape_explanation",
    "shape_truth",
    "takeaways",
]

ROWS, COLUMNS, FLAT, ONE_COLUMN = "(NUM_ENVS, k)", "(k, NUM_ENVS)", "(NUM_ENVS,)", "(NUM_ENVS, 1)"
SHAPE_OPTIONS = (ROWS, COLUMNS, FLAT, ONE_COLUMN)
"""The shapes a learner picks from; k is how many numbers one env's observation holds."""

DTYPE_OPTIONS = ("int64", "int32", "float32", "float64")
"""The dtypes a learner picks from (every env the page offers gives one of them)."""


def prediction_ids(env: str) -> tuple[str, str]:
    """The shape and dtype questions' ids: one pair per environment (a new env, a new question).

    >>> prediction_ids("CartPole-v1")
    ('batch_shapes_shape_cartpole_v1', 'batch_shapes_dtype_cartpole_v1')
    """
    slug = re.sub(r"[^a-z0-9]+", "_", env.lower()).strip("_")
    return f"batch_shapes_shape_{slug}", f"batch_shapes_dtype_{slug}"


def one_observation(env: str, single: Space) -> str:
    """What one env's observation is, in words, from its single observation space.

    >>> from gymnasium.spaces import Discrete, MultiDiscrete
    >>> one_observation("BurgerBot", MultiDiscrete([7, 7, 4, 3]))
    'k = 4 numbers (row, col, heading, sensor)'
    >>> one_observation("FrozenLake-v1", Discrete(16))
    'a single number (state), shape ()'
    """
    columns = ENVS[env].columns
    if single.shape == ():
        return f"a single number ({columns[0]}), shape ()"
    return f"k = {int(np.prod(single.shape))} numbers ({', '.join(columns)})"


def shape_truth(shape: tuple[int, ...], num_envs: int) -> str | None:
    """Which of `SHAPE_OPTIONS` a batch of ``shape`` from ``num_envs`` envs has (None: none).

    >>> shape_truth((4, 4), 4), shape_truth((5,), 5), shape_truth((3, 1), 3)
    ('(NUM_ENVS, k)', '(NUM_ENVS,)', '(NUM_ENVS, 1)')
    >>> shape_truth((4, 8), 8), shape_truth((2, 3, 4), 2)
    ('(k, NUM_ENVS)', None)
    """
    if shape == (num_envs,):
        return FLAT
    if shape == (num_envs, 1):
        return ONE_COLUMN
    if len(shape) == 2 and shape[0] == num_envs:
        return ROWS
    if len(shape) == 2 and shape[1] == num_envs:
        return COLUMNS
    return None


def shape_explanation(observations: np.ndarray, single: Space, env: str) -> str:
    """Why the batch has its shape: axis 0 is the env, then one env's observation shape."""
    n = len(observations)
    space = f"`single_observation_space` is `{short_repr(single)}`, shape `{single.shape}`"
    if single.shape == ():
        return (
            f"`observations.shape` is `{observations.shape}`: {n} envs on axis 0 and nothing "
            f"more, because each {env} observation is one single number ({space}). Stacking N "
            "single numbers gives a flat batch of shape (N,), not (N, 1)."
        )
    k = observations.shape[1]
    return (
        f"`observations.shape` is `{observations.shape}`: {n} envs on axis 0 (one row per env) "
        f"and k = {k} observation components on axis 1 ({', '.join(ENVS[env].columns)}). The "
        f"vector env stacks each env's `{single.shape}` observation ({space}) into one array."
    )


def dtype_explanation(observations: np.ndarray, single: Space) -> str:
    """Why the batch has its dtype: the single observation space's dtype, kept by batching."""
    return (
        f"`observations.dtype` is `{observations.dtype}`: one env's observation space has dtype "
        f"`{single.dtype}`, and batching keeps it."
    )


def takeaways(env: str, observations: np.ndarray, single: Space, batched: Space) -> list[str]:
    """The page's "Key takeaways", with this run's shapes and dtype in them.

    Example:
        >>> from gymnasium.spaces import Box, Discrete
        >>> bullets = takeaways("FrozenLake-v1", np.zeros(3, np.int64), Discrete(16), Box(0, 15, (3,)))
        >>> bullets[0]
        'Axis 0 of every batch is the env index: 3 envs give `observations` of shape `(3,)`, and `actions`, `rewards`, `terminated` and `truncated` of shape `(3,)`.'
        >>> bullets[2]
        'A scalar observation stacks to `(N,)`, not `(N, 1)`: FrozenLake-v1 gives `(3,)` here.'
    """  # noqa: E501
    n = len(observations)
    if single.shape == ():
        scalar = (
            f"A scalar observation stacks to `(N,)`, not `(N, 1)`: {env} gives "
            f"`{observations.shape}` here."
        )
    else:
        scalar = (
            "A scalar observation (FrozenLake's tile number) stacks to `(N,)`, not `(N, 1)`: "
            "pick FrozenLake-v1 above to see it."
        )
    return [
        f"Axis 0 of every batch is the env index: {n} envs give `observations` of shape "
        f"`{observations.shape}`, and `actions`, `rewards`, `terminated` and `truncated` of "
        f"shape `({n},)`.",
        f"`single_observation_space` describes one env (shape `{single.shape}`); "
        f"`observation_space` describes the batch (shape `{batched.shape}`).",
        scalar,
        f"Batching keeps the dtype: {env}'s `{single.dtype}` observations stay "
        f"`{observations.dtype}` in the batch.",
        "Give `SyncVectorEnv` a list of zero-argument functions (`make_env()`, not "
        "`make_env`): it calls each one to build one sub-environment.",
    ]
