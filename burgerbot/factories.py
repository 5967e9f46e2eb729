"""Factories for BurgerBot vector envs: the pattern learners copy, one entry point per backend."""

from __future__ import annotations

from collections.abc import Callable

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from burgerbot.env import BurgerBotEnv
from burgerbot.vector import BurgerBotVectorEnv

__all__ = ["ASYNC_START_METHOD", "BACKENDS", "make_env", "make_vector_env"]

BACKENDS = ("sync", "async", "native")

# "spawn" starts each worker as a fresh interpreter: safe inside Streamlit's
# multi-threaded server (fork is not), and it leaves no helper process behind once the
# vector env is closed (forkserver would keep its server process alive).
ASYNC_START_METHOD = "spawn"


def make_env(max_steps: int = 150, render_mode: str | None = None) -> Callable[[], gym.Env]:
    """Return a zero-argument function that builds one BurgerBot (give *that* to a vector env).

    Example:
        >>> from gymnasium.vector import SyncVectorEnv
        >>> envs = SyncVectorEnv([make_env() for _ in range(2)])
        >>> envs.reset(seed=0)[0].shape
        (2, 4)
        >>> envs.close()
    """

    def thunk() -> gym.Env:
        return BurgerBotEnv(max_steps=max_steps, render_mode=render_mode)

    return thunk


def make_vector_env(
    backend: str,
    num_envs: int,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    max_steps: int = 150,
    render_mode: str | None = None,
) -> VectorEnv:
    """Build ``num_envs`` BurgerBots as a ``"sync"``, ``"async"`` or ``"native"`` vector env."""
    autoreset_mode = AutoresetMode(autoreset_mode)
    if backend == "native":
        return BurgerBotVectorEnv(
            num_envs, max_steps=max_steps, autoreset_mode=autoreset_mode, render_mode=render_mode
        )
    if backend not in BACKENDS:
        raise ValueError(f"`backend` must be one of {BACKENDS}, got {backend!r}")
    if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
        raise ValueError(f"`num_envs` must be a positive whole number, got {num_envs!r}")
    env_fns = [make_env(max_steps, render_mode) for _ in range(num_envs)]
    if backend == "sync":
        return SyncVectorEnv(env_fns, autoreset_mode=autoreset_mode)
    return AsyncVectorEnv(env_fns, context=ASYNC_START_METHOD, autoreset_mode=autoreset_mode)
