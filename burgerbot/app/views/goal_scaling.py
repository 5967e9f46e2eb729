"""The "Goal scaling" page's settings, its caps and running a sweep of goal counts."""

from __future__ import annotations

import math
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_NAMES, backend_label
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.experiments import Progress, goal_scaling

__all__ = [
    "BACKEND_LABELS",
    "BUDGET_LABELS",
    "DEFAULT_NUM_ENVS",
    "LESSON_NUM_ENVS",
    "LESSON_STEPS",
    "SPECS",
    "ScalingSettings",
    "SweepResult",
    "check_budget",
    "resolve_settings",
    "run_sweep",
    "sweep_cap",
]

DEFAULT_NUM_ENVS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LESSON_STEPS = 500
"""The lesson's exercise: 500 random steps..."""
LESSON_NUM_ENVS = (4, 8)
"""...with 4 envs, then with 8: do goals roughly double?"""

BACKEND_LABELS = {
    "sync": backend_label("sync", with_class=True),
    # The radio's hint that native is the fast choice (labels.py has the plain names).
    "native": f"{BACKEND_NAMES['native']} ({BACKEND_CLASSES['native']}, fast)",
}
"""The backends this page offers, as its radio shows them."""
BUDGET_LABELS = {"per_env": "same steps per env", "total": "same total env-steps"}

SPECS = (
    IntListSetting("n", "NUM_ENVS values to compare", DEFAULT_NUM_ENVS, 1, CAPS.max_envs),
    IntSetting("steps", "Steps per env", LESSON_STEPS, 1, CAPS.max_sweep_env_steps),
    IntSetting("total", "Env-steps per run", 20_000, 1, CAPS.max_sweep_env_steps),
    IntSetting("seeds", "Seeds per NUM_ENVS", 10, 1, CAPS.max_seeds),
    ChoiceSetting("backend", "Backend", "sync", tuple(BACKEND_LABELS)),
    ChoiceSetting("budget", "Compare", "per_env", tuple(BUDGET_LABELS)),
)


@dataclass(frozen=True)
class ScalingSettings:
    """One goal-scaling sweep: which NUM_ENVS, how many steps, how many seeds, which backend.

    ``budget="per_env"``: every run makes ``steps_per_env`` step() calls, so larger N
    collects more env-steps. ``budget="total"``: every run gets about ``total_env_steps``
    env-steps (``total_env_steps // N`` calls each).

    Example:
        >>> s = ScalingSettings((4, 8), steps_per_env=500, seeds=2)
        >>> s.env_steps_for(8), s.planned_env_steps
        (4000, 12000)
    """

    num_envs: tuple[int, ...]
    steps_per_env: int = LESSON_STEPS
    total_env_steps: int = 20_000
    seeds: int = 10
    backend: str = "sync"
    budget: str = "per_env"

    @property
    def seed_list(self) -> list[int]:
        return list(range(self.seeds))

    def steps_for(self, num_envs: int) -> int:
        """step() calls one run with ``num_envs`` envs makes."""
        if self.budget == "total":
            return self.total_env_steps // num_envs
        return self.steps_per_env

    def env_steps_for(self, num_envs: int) -> int:
        return num_envs * self.steps_for(num_envs)

    @property
    def planned_env_steps(self) -> int:
        """Env-steps of the whole sweep, over every NUM_ENVS and seed."""
        return sum(self.env_steps_for(n) for n in self.num_envs) * self.seeds

    def describe(self, backend: bool = True) -> str:
        """The settings in words, e.g. "NUM_ENVS 4, 8; 500 steps per env; 10 seed(s); Sync"."""
        sizes = ", ".join(str(n) for n in self.num_envs)
        if self.budget == "total":
            what = f"{self.total_env_steps:,} env-steps per run"
        else:
            what = f"{self.steps_per_env:,} steps per env"
        text = f"NUM_ENVS {sizes}; {what}; {self.seeds} seed(s)"
        if backend:
            text += f"; {backend_label(self.backend)}"
        return text


def resolve_settings(values: Mapping[str, Any]) -> tuple[ScalingSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    Example:
        >>> s, notes = resolve_settings(
        ...     {"n": (4, 8), "steps": 500, "total": 5, "seeds": 3, "backend": "sync",
        ...      "budget": "total"}
        ... )
        >>> s.total_env_steps, len(notes)
        (8, 1)
    """
    notes: list[str] = []
    sizes = tuple(sorted({int(n) for n in values.get("n") or ()}))
    if not sizes:
        sizes = DEFAULT_NUM_ENVS
        notes.append("Pick at least one NUM_ENVS value: using the default list.")
    settings = ScalingSettings(
        num_envs=sizes,
        steps_per_env=int(values["steps"]),
        total_env_steps=int(values["total"]),
        seeds=int(values["seeds"]),
        backend=values["backend"] if values["backend"] in BACKEND_LABELS else "sync",
        budget=values["budget"] if values["budget"] in BUDGET_LABELS else "per_env",
    )
    if settings.total_env_steps < max(sizes):
        notes.append(
            f"Env-steps per run must be at least the largest NUM_ENVS ({max(sizes):,}), so "
            "each env makes at least one step: using that."
        )
        settings = replace(settings, total_env_steps=max(sizes))
    return settings, notes


def sweep_cap(backend: str, caps: Caps = CAPS) -> tuple[int, str]:
    """The env-step cap of one sweep on ``backend`` and the variable that raises it."""
    if backend == "native":
        return caps.max_sweep_env_steps, "BURGERBOT_MAX_SWEEP_ENV_STEPS"
    cap = min(caps.max_sync_sweep_env_steps, caps.max_sweep_env_steps)
    return cap, "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS"


def check_budget(settings: ScalingSettings, caps: Caps = CAPS) -> str | None:
    """None if the sweep fits its cap, else a message saying what to lower to make it fit.

    Example:
        >>> print(check_budget(ScalingSettings((4, 8), steps_per_env=500, seeds=2)))
        None
    """
    planned = settings.planned_env_steps
    cap, variable = sweep_cap(settings.backend, caps)
    if planned <= cap:
        return None
    name = backend_label(settings.backend)
    fixes = []
    per_seed = planned // settings.seeds
    if per_seed <= cap:
        fixes.append(f"use at most {cap // per_seed} seed(s)")
    sizes = sum(settings.num_envs) * settings.seeds
    if settings.budget == "per_env" and cap // sizes >= 1:
        fixes.append(f"lower the steps per env to {cap // sizes:,} or fewer")
    if settings.budget == "total":
        runs = len(settings.num_envs) * settings.seeds
        if cap // runs >= max(settings.num_envs):
            fixes.append(f"lower the env-steps per run to {cap // runs:,} or fewer")
    fixes.append("drop the largest NUM_ENVS values")
    native_cap, _ = sweep_cap("native", caps)
    if settings.backend == "sync" and planned <= native_cap:
        fixes.append(f"switch to native (its cap is {native_cap:,})")
    return (
        f"This sweep would take {planned:,} env-steps, over this app's cap of {cap:,} for "
        f"{name}. To run it, {', or '.join(fixes)}. (Running the app yourself? Raise the cap "
        f"with the environment variable {variable}.)"
    )


@dataclass(frozen=True)
class SweepResult:
    """A sweep's table (one row per NUM_ENVS and seed) and how long the whole call took."""

    settings: ScalingSettings
    frame: pd.DataFrame
    wall_seconds: float

    @property
    def env_steps(self) -> int:
        return int(self.frame["env_steps"].sum())

    @property
    def env_steps_per_second(self) -> float:
        return self.env_steps / self.wall_seconds if self.wall_seconds > 0 else math.inf


def run_sweep(settings: ScalingSettings, progress: Progress | None = None) -> SweepResult:
    """Run the sweep with `experiments.goal_scaling` (every env is closed, even if interrupted)."""
    start = time.perf_counter()
    if settings.budget == "total":
        frame = goal_scaling(
            settings.num_envs,
            seeds=settings.seed_list,
            backend=settings.backend,
            total_env_steps=settings.total_env_steps,
            progress=progress,
        )
    else:
        frame = goal_scaling(
            settings.num_envs,
            settings.steps_per_env,
            seeds=settings.seed_list,
            backend=settings.backend,
            progress=progress,
        )
    return SweepResult(settings, frame, time.perf_counter() - start)
