"""The "Auto-reset" page's counting experiment: finished episodes per env, in every mode."""

from __future__ import annotations

import numpy as np
import pandas as pd

from burgerbot.app.views.autoreset import MODES, mode_of
from burgerbot.experiments import Progress, rollout

__all__ = ["count_finished_by_mode", "finished_per_env"]


def finished_per_env(frame: pd.DataFrame, num_envs: int) -> pd.DataFrame:
    """Finished episodes per env in a ``rollout`` frame, split by cause.

    Columns: ``env``, ``finished episodes`` (terminated or truncated), ``goals``,
    ``hits``, ``truncations`` (truncated without terminating).
    """
    ended = frame["terminated"] | frame["truncated"]
    parts = {
        "finished episodes": ended,
        "goals": ended & (frame["event"] == "goal"),
        "hits": ended & (frame["event"] == "hit"),
        "truncations": ended & (frame["event"] == "truncated"),
    }
    table = pd.DataFrame({"env": frame["env"], **parts}).groupby("env").sum()
    table = table.reindex(range(num_envs), fill_value=0).astype(np.int64)
    return table.reset_index()


def count_finished_by_mode(
    backend: str,
    num_envs: int,
    steps: int,
    seed: int,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """The lesson's counting experiment in every mode: finished episodes per env after K calls.

    Long form, one row per (mode, env): ``mode``, ``env``, ``finished episodes``,
    ``goals``, ``hits``, ``truncations``. Every mode sees the same random actions.
    """
    parts = []
    for index, mode in enumerate(MODES):

        def report(fraction: float, message: str, index: int = index, mode: str = mode) -> None:
            if progress is not None:
                progress((index + fraction) / len(MODES), f"{mode}: {message}")

        frame = rollout(backend, num_envs, steps, seed, mode_of(mode), progress=report)
        counts = finished_per_env(frame, num_envs)
        counts.insert(0, "mode", mode)
        parts.append(counts)
    return pd.concat(parts, ignore_index=True)
