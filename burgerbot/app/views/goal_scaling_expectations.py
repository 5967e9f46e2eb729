"""The "Goal scaling" page's predictions: the goal rate measured live and the goals to expect.

A random BurgerBot reaches the goal so rarely that a short run usually shows none, whatever
NUM_ENVS is. Goal counts are Poisson: expected = rate x env-steps, chance of none =
exp(-expected).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.views.goal_scaling import (
    LESSON_NUM_ENVS,
    LESSON_STEPS,
    ScalingSettings,
    sweep_cap,
)
from burgerbot.experiments import goal_scaling
from burgerbot.statistics import poisson_rate_interval, poisson_zero_chance

__all__ = [
    "REFERENCE_ENV_STEPS",
    "REFERENCE_SEED",
    "TARGET_GOALS",
    "GoalRate",
    "expectations",
    "lesson_expectations",
    "measure_goal_rate",
    "steps_for_expected_goals",
    "try_this",
]

TARGET_GOALS = 20
"""The "try this" suggestion aims at this many expected goals per run at NUM_ENVS=4."""
REFERENCE_SEED = 12_345
"""Seed of the long native run that measures the goal rate (apart from the sweep's seeds)."""
REFERENCE_ENV_STEPS = 8_192_000
"""Env-steps of that run: about 200 goals, so the rate is known to within about 15%."""


@dataclass(frozen=True)
class GoalRate:
    """Goals per env-step, measured: ``goals`` seen in ``env_steps``, and where they came from."""

    goals: int
    env_steps: int
    source: str
    seconds: float = 0.0

    @property
    def rate(self) -> float:
        return self.goals / self.env_steps

    @property
    def interval(self) -> tuple[float, float]:
        """95% interval of the rate (exact Poisson on the goal count)."""
        return poisson_rate_interval(self.goals, self.env_steps)

    @property
    def steps_per_goal(self) -> float:
        return self.env_steps / self.goals if self.goals else math.inf


def measure_goal_rate(
    env_steps: int = REFERENCE_ENV_STEPS,
    num_envs: int = CAPS.max_envs,
    seed: int = REFERENCE_SEED,
) -> GoalRate:
    """Measure the random agent's goal rate with one long native run (about a second)."""
    steps = max(1, env_steps // num_envs)
    start = time.perf_counter()
    frame = goal_scaling([num_envs], steps, seeds=[seed], backend="native")
    seconds = time.perf_counter() - start
    return GoalRate(
        int(frame["goals"].sum()),
        int(frame["env_steps"].sum()),
        f"a native run of {num_envs:,} envs x {steps:,} steps (seed {seed})",
        seconds,
    )


def expectations(settings: ScalingSettings, rate: float) -> pd.DataFrame:
    """What to expect per run before running: one row per NUM_ENVS.

    Columns: ``num_envs``, ``steps_per_env``, ``env_steps``, ``expected_goals``
    (rate x env-steps), ``p_zero`` (chance of a run with no goal: exp(-expected)) and
    ``expected_zero_runs`` (of the settings' seeds).

    Example:
        >>> frame = expectations(ScalingSettings((4,), 500, seeds=10), rate=2.5e-5)
        >>> frame[["expected_goals", "p_zero"]].round(3).values.tolist()
        [[0.05, 0.951]]
    """
    rows = []
    for n in settings.num_envs:
        expected = rate * settings.env_steps_for(n)
        p_zero = poisson_zero_chance(expected)
        rows.append(
            {
                "num_envs": n,
                "steps_per_env": settings.steps_for(n),
                "env_steps": settings.env_steps_for(n),
                "expected_goals": expected,
                "p_zero": p_zero,
                "expected_zero_runs": p_zero * settings.seeds,
            }
        )
    return pd.DataFrame(rows)


def lesson_expectations(rate: float) -> pd.DataFrame:
    """`expectations` for the lesson's exercise: 500 steps with 4 and with 8 envs."""
    return expectations(ScalingSettings(LESSON_NUM_ENVS, LESSON_STEPS, seeds=1), rate)


def steps_for_expected_goals(rate: float, goals: float = TARGET_GOALS, num_envs: int = 4) -> int:
    """Steps per env at which ``num_envs`` envs expect ``goals`` goals, rounded up to 2 digits.

    Example:
        >>> steps_for_expected_goals(2.5e-5, goals=20, num_envs=4)
        200000
    """
    if rate <= 0:
        raise ValueError(f"`rate` must be > 0, got {rate!r}")
    exact = goals / (rate * num_envs)
    magnitude = 10 ** max(0, math.floor(math.log10(exact)) - 1)
    return int(math.ceil(exact / magnitude) * magnitude)


def try_this(
    settings: ScalingSettings, rate: float, caps: Caps = CAPS, max_seeds: int = 3
) -> ScalingSettings | None:
    """Settings that make doubling visible: N = 4 and 8, enough steps for ~20 goals at N = 4.

    Runs on native (the fast path) with as many seeds as fit its cap, at most ``max_seeds``
    (three seeds of about 20 goals each usually separate 4 from 8 envs; more only cost time);
    None if not even one seed fits.
    """
    steps = steps_for_expected_goals(rate)
    trial = ScalingSettings(
        LESSON_NUM_ENVS,
        steps_per_env=steps,
        total_env_steps=settings.total_env_steps,
        seeds=1,
        backend="native",
        budget="per_env",
    )
    cap, _ = sweep_cap("native", caps)
    fit = cap // trial.planned_env_steps
    if fit < 1:
        return None
    return replace(trial, seeds=int(min(fit, max_seeds, caps.max_seeds)))
