"""The "Goal scaling" page's check that Sync and native count exactly the same goals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from burgerbot.app.views.goal_scaling import ScalingSettings

__all__ = [
    "COMPARISON_MAX_ENVS",
    "COMPARISON_SEEDS",
    "COMPARISON_STEPS",
    "compare_backends",
    "comparison_settings",
]

# The Sync/native check runs both backends on the learner's small NUM_ENVS values, long
# enough that a few goals happen (about 4 expected for NUM_ENVS 1, 2, 4, 8): a few seconds.
COMPARISON_MAX_ENVS = 16
COMPARISON_SEEDS = 2
COMPARISON_STEPS = 5_000


def comparison_settings(settings: ScalingSettings) -> ScalingSettings:
    """Settings for running both backends side by side: a few seconds, a few goals.

    Up to four of the settings' NUM_ENVS values (those up to ``COMPARISON_MAX_ENVS``),
    ``COMPARISON_STEPS`` steps per env and ``COMPARISON_SEEDS`` seeds.

    Example:
        >>> comparison_settings(ScalingSettings((1, 2, 4, 8, 16, 32))).describe(backend=False)
        'NUM_ENVS 1, 2, 4, 8; 5,000 steps per env; 2 seed(s)'
    """
    sizes = tuple(n for n in settings.num_envs if n <= COMPARISON_MAX_ENVS)[:4]
    return replace(
        settings,
        num_envs=sizes or (COMPARISON_MAX_ENVS,),
        steps_per_env=COMPARISON_STEPS,
        seeds=COMPARISON_SEEDS,
        budget="per_env",
    )


_COUNTS = ("goals", "hits", "episodes")


def compare_backends(sync: pd.DataFrame, native: pd.DataFrame) -> pd.DataFrame:
    """Side by side per (NUM_ENVS, seed): each count on Sync and on native, and whether all match.

    Example:
        >>> from burgerbot.experiments import goal_scaling
        >>> a = goal_scaling([2], 50, seeds=[0], backend="sync")
        >>> b = goal_scaling([2], 50, seeds=[0], backend="native")
        >>> compare_backends(a, b)["identical"].tolist()
        [True]
    """
    keys = ["num_envs", "seed", "env_steps"]
    merged = sync[[*keys, *_COUNTS]].merge(
        native[[*keys, *_COUNTS]], on=keys, suffixes=("_sync", "_native"), how="outer"
    )
    same = np.ones(len(merged), dtype=bool)
    for count in _COUNTS:
        same &= (merged[f"{count}_sync"] == merged[f"{count}_native"]).to_numpy()
    columns = keys + [f"{c}_{b}" for c in _COUNTS for b in ("sync", "native")]
    return merged[columns].assign(identical=same)
