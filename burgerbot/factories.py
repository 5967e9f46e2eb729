"""Factories for BurgerBot vector envs: the pattern learners copy, one entry point per backend."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from burgerbot.checks import positive_int
from burgerbot.env import BurgerBotEnv, check_max_steps
from burgerbot.vector import BurgerBotVectorEnv
from burgerbot.wrappers import StepCostWrapper, check_work

__all__ = [
    "ASYNC_START_METHOD",
    "BACKENDS",
    "burgerbot_factory",
    "check_backend",
    "make_vector_env",
]

BACKENDS = ("sync", "async", "native")
"""The vector envs `make_vector_env` builds: SyncVectorEnv, AsyncVectorEnv, BurgerBotVectorEnv."""


def check_backend(backend: Any) -> str:
    """Return ``backend`` if it names one of `BACKENDS`, else raise a ValueError."""
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}, got {backend!r}")
    return backend


# "spawn" starts each worker as a fresh interpreter: safe inside Streamlit's
# multi-threaded server (fork is not), and it leaves no helper process behind once the
# vector env is closed (forkserver would keep its server process alive).
ASYNC_START_METHOD = "spawn"


def burgerbot_factory(
    max_steps: int = 150,
    render_mode: str | None = None,
    work_seconds: float = 0.0,
    work_kind: str = "busy",
) -> Callable[[], gym.Env]:
    """Return a zero-argument function that builds one BurgerBot (give *that* to a vector env).

    ``work_seconds > 0`` makes every step cost that much more (``work_kind`` "busy" burns
    CPU, "sleep" waits), to model a heavier simulator.

    Example:
        >>> from gymnasium.vector import SyncVectorEnv
        >>> envs = SyncVectorEnv([burgerbot_factory() for _ in range(2)])
        >>> envs.reset(seed=0)[0].shape
        (2, 4)
        >>> envs.close()
    """

    max_steps = check_max_steps(max_steps)
    work_seconds, work_kind = check_work(work_seconds, work_kind)

    def thunk() -> gym.Env:
        env = BurgerBotEnv(max_steps=max_steps, render_mode=render_mode)
        return StepCostWrapper(env, work_seconds, work_kind) if work_seconds else env

    return thunk


def make_vector_env(
    backend: str,
    num_envs: int,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    max_steps: int = 150,
    render_mode: str | None = None,
    work_seconds: float = 0.0,
    work_kind: str = "busy",
) -> VectorEnv:
    """Build ``num_envs`` BurgerBots as a ``"sync"``, ``"async"`` or ``"native"`` vector env.

    A step cost (``work_seconds``, see :func:`burgerbot_factory`) needs sub-environments to slow
    down, so it applies to "sync" and "async" only.
    """
    autoreset_mode = AutoresetMode(autoreset_mode)
    if backend == "native" and work_seconds:
        raise ValueError(
            "`work_seconds` only applies to the 'sync' and 'async' backends (the native env "
            f"has no sub-environments to slow down), got backend {backend!r}"
        )
    if backend == "native":
        return BurgerBotVectorEnv(
            num_envs, max_steps=max_steps, autoreset_mode=autoreset_mode, render_mode=render_mode
        )
    check_backend(backend)
    num_envs = positive_int("num_envs", num_envs)
    env_fns = [
        burgerbot_factory(max_steps, render_mode, work_seconds, work_kind) for _ in range(num_envs)
    ]
    if backend == "sync":
        return SyncVectorEnv(env_fns, autoreset_mode=autoreset_mode)
    return AsyncVectorEnv(env_fns, context=ASYNC_START_METHOD, autoreset_mode=autoreset_mode)
