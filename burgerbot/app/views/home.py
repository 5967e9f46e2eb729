"""The Home page's live measurement: transitions per `step()` call and per second, 1 env vs N."""

from __future__ import annotations

import pandas as pd

from burgerbot.app.caps import CAPS
from burgerbot.app.labels import BACKEND_CLASSES
from burgerbot.app.settings import IntSetting
from burgerbot.experiments import time_backends

__all__ = ["CARDS", "SPECS", "speed_table", "steps_for"]

SPECS = [IntSetting("n", "NUM_ENVS", 16, 2, CAPS.max_envs)]

# What each page offers, keyed by its file in app_pages/ (shown as cards on Home).
CARDS = {
    "batch_shapes.py": "Step N robots yourself and read every array a vector env hands back: "
    "shapes, dtypes, what each axis means, and the infos dict.",
    "autoreset.py": "Watch episodes end and restart on a timeline, in each auto-reset mode, "
    "and see where the last observation of an episode really is.",
    "why_batches.py": "How many step() calls fill a PPO batch, and a small training run at "
    "N = 1, 4 and 16: what batching buys and what it does not.",
    "sb3.py": "How Stable-Baselines3 wraps environments, how its API differs from "
    "Gymnasium's, and which of the lesson's calls no longer work.",
    "goal_scaling.py": "Do goal counts double with twice the envs? An honest answer with many "
    "seeds, confidence intervals and the expected count.",
    "sync_vs_async.py": "Time SyncVectorEnv, AsyncVectorEnv and the native batch, and find "
    "where extra processes start to pay off.",
    "mistakes.py": "Batched spaces and dtypes, and the classic mistakes reproduced live with "
    "the real error messages and their fixes.",
    "lesson_vs_today.py": "Every place where the lesson's code and today's gymnasium and "
    "Stable-Baselines3 disagree, each run live.",
}


def steps_for(num_envs: int) -> int:
    """Step calls to time at this NUM_ENVS: enough to measure, small enough to feel instant."""
    return max(50, min(1_000, 100_000 // num_envs))


def speed_table(num_envs: int, seed: int = 0) -> pd.DataFrame:
    """Measure 1 env and ``num_envs`` envs with Sync and native, one row per setup.

    Columns: setup, backend, num_envs, steps, transitions_per_call, transitions_per_s,
    seconds_per_call.
    """
    frames = [
        time_backends(["sync", "native"], [n], steps_for(n), seed=seed) for n in (1, num_envs)
    ]
    timing = pd.concat(frames, ignore_index=True)
    return pd.DataFrame(
        {
            "setup": [
                f"{BACKEND_CLASSES[b]}, {n:,} env{'s' * (n > 1)}"
                for b, n in zip(timing["backend"], timing["num_envs"], strict=True)
            ],
            "backend": timing["backend"],
            "num_envs": timing["num_envs"],
            "steps": timing["steps"],
            "transitions_per_call": timing["num_envs"],
            "transitions_per_s": timing["env_steps_per_s"],
            "seconds_per_call": timing["step_s"] / timing["steps"],
        }
    )
