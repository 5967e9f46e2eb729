"""The "Batch shapes" page's settings: which env, how many copies, which backend, which seed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import gymnasium as gym
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv

from burgerbot.app.caps import CAPS
from burgerbot.app.settings import ChoiceSetting, IntSetting, clamp_num_envs
from burgerbot.checks import MAX_SEED
from burgerbot.factories import ASYNC_START_METHOD, BACKENDS, make_vector_env

__all__ = [
    "ENVS",
    "ENV_NAMES",
    "PLAY_INTERVAL_SECONDS",
    "SPECS",
    "BatchSettings",
    "EnvChoice",
    "backend_option",
    "build_vector_env",
    "resolve_settings",
]

PLAY_INTERVAL_SECONDS = 0.5
"""Time between two automatic steps while playing."""


@dataclass(frozen=True)
class EnvChoice:
    """One environment the page offers, with the names of its observation components."""

    name: str
    columns: tuple[str, ...]
    """One name per observation component; a single name for a scalar observation."""
    scalar_observation: bool
    native_class: str | None
    """The natively batched vector env the page builds for "native" (None: there is none)."""
    about: str
    infos_about: str = ""
    """What the env's own info keys mean (empty when it reports none)."""

    @property
    def has_native(self) -> bool:
        return self.native_class is not None


ENVS: dict[str, EnvChoice] = {
    "BurgerBot": EnvChoice(
        "BurgerBot",
        ("row", "col", "heading", "sensor"),
        scalar_observation=False,
        native_class="BurgerBotVectorEnv",
        about=(
            "The 7x7 grid robot. Each observation is 4 whole numbers: row, col, heading "
            "(0 north, 1 east, 2 south, 3 west) and sensor (0 near, 1 medium, 2 far)."
        ),
    ),
    "CartPole-v1": EnvChoice(
        "CartPole-v1",
        ("cart position", "cart velocity", "pole angle", "pole angular velocity"),
        scalar_observation=False,
        native_class="CartPoleVectorEnv",
        about=(
            "A cart balancing a pole, the lesson's first example. Each observation is 4 "
            "decimal numbers (float32). Actions: 0 push left, 1 push right."
        ),
    ),
    "FrozenLake-v1": EnvChoice(
        "FrozenLake-v1",
        ("state",),
        scalar_observation=True,
        native_class=None,
        about=(
            "A walk on slippery ice over a 4x4 map. Each observation is ONE whole number: "
            "the tile the walker stands on (row x 4 + col, 0..15). Actions: 0 left, 1 down, "
            "2 right, 3 up."
        ),
        infos_about=(
            "`prob` is the probability of the move that really happened: the ice is slippery, "
            "so the walker goes the intended way only 1 time in 3 (reset reports 1)."
        ),
    ),
}
ENV_NAMES = tuple(ENVS)

SPECS = (
    ChoiceSetting("env", "Environment", "BurgerBot", ENV_NAMES),
    IntSetting("n", "NUM_ENVS", 4, 1, CAPS.max_envs),
    ChoiceSetting("backend", "Backend", "sync", BACKENDS),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)


def backend_option(env: str, backend: str) -> str:
    """How the backend radio names ``backend`` for ``env``: whose class "native" builds.

    Example:
        >>> backend_option("BurgerBot", "native")
        "native: BurgerBotVectorEnv (this project's class, not Gymnasium's)"
        >>> backend_option("CartPole-v1", "native"), backend_option("CartPole-v1", "sync")
        ("native: Gymnasium's CartPoleVectorEnv", 'Sync: SyncVectorEnv')
    """
    if backend == "sync":
        return "Sync: SyncVectorEnv"
    if backend == "async":
        return "Async: AsyncVectorEnv"
    native = ENVS[env].native_class
    if native is None:
        return f"native (none for {env}: uses Sync)"
    if native == "BurgerBotVectorEnv":
        return f"native: {native} (this project's class, not Gymnasium's)"
    return f"native: Gymnasium's {native}"


@dataclass(frozen=True)
class BatchSettings:
    """What the page runs: which env, how many copies, which vector env class, which seed."""

    env: str
    num_envs: int
    backend: str
    seed: int

    @property
    def key(self) -> tuple[str, int, str, int]:
        """The settings that need a new vector env when they change."""
        return (self.env, self.num_envs, self.backend, self.seed)

    @property
    def workers(self) -> int:
        """Worker processes the env starts (Async only)."""
        return self.num_envs if self.backend == "async" else 0


def resolve_settings(values: Mapping[str, Any]) -> tuple[BatchSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    FrozenLake has no native vector env, so "native" falls back to Sync; NUM_ENVS is
    clamped per backend (Async starts one process per env).

    Example:
        >>> settings, notes = resolve_settings(
        ...     {"env": "FrozenLake-v1", "n": 4, "backend": "native", "seed": 0}
        ... )
        >>> settings.backend, len(notes)
        ('sync', 1)
    """
    env = values["env"] if values["env"] in ENVS else ENV_NAMES[0]
    backend = values["backend"] if values["backend"] in BACKENDS else "sync"
    notes: list[str] = []
    if backend == "native" and not ENVS[env].has_native:
        backend = "sync"
        notes.append(
            f"{env} has no native (natively batched) vector env in gymnasium, so this page "
            "uses Sync for it instead."
        )
    num_envs, note = clamp_num_envs(backend, int(values["n"]))
    if note:
        notes.append(note)
    return BatchSettings(env, num_envs, backend, int(values["seed"])), notes


def build_vector_env(settings: BatchSettings) -> VectorEnv:
    """The vector env for ``settings`` (the caller closes it)."""
    n = settings.num_envs
    if settings.env == "BurgerBot":
        return make_vector_env(settings.backend, n)
    env_id = settings.env
    if settings.backend == "native":
        return gym.make_vec(env_id, num_envs=n, vectorization_mode="vector_entry_point")
    env_fns = [lambda: gym.make(env_id) for _ in range(n)]
    if settings.backend == "async":
        return AsyncVectorEnv(env_fns, context=ASYNC_START_METHOD)
    return SyncVectorEnv(env_fns)
