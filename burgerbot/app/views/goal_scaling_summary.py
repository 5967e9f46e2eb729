"""The "Goal scaling" page's reading of a sweep: summaries, the verdict, chart data and CSV."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from burgerbot.statistics import mean_interval, poisson_rate_interval

__all__ = ["chart_data", "doubling_verdict", "summarise", "to_csv"]


def summarise(frame: pd.DataFrame, rate: float) -> pd.DataFrame:
    """One row per NUM_ENVS: mean goals with an exact Poisson 95% interval, and episodes.

    The goal interval comes from the total goals over the seeds (a Poisson count),
    divided by the number of seeds. The episode interval is mean ± 1.96 standard errors
    across seeds (NaN with a single seed). ``expected_goals`` is ``rate`` x env-steps;
    ``expected_episodes`` uses the sweep's own episode rate.
    """
    episode_rate = frame["episodes"].sum() / frame["env_steps"].sum()
    rows = []
    for n, group in frame.groupby("num_envs", sort=True):
        runs = len(group)
        env_steps = float(group["env_steps"].mean())
        goals = int(group["goals"].sum())
        low, high = poisson_rate_interval(goals, runs)
        mean_episodes, ep_low, ep_high = mean_interval(group["episodes"].to_numpy(dtype=float))
        rows.append(
            {
                "num_envs": int(n),
                "runs": runs,
                "env_steps": env_steps,
                "mean_goals": goals / runs,
                "goals_low": low,
                "goals_high": high,
                "expected_goals": rate * env_steps,
                "zero_goal_runs": int((group["goals"] == 0).sum()),
                "goals_per_100k_env_steps": goals / group["env_steps"].sum() * 100_000,
                "mean_episodes": mean_episodes,
                "episodes_low": ep_low,
                "episodes_high": ep_high,
                "expected_episodes": episode_rate * env_steps,
            }
        )
    return pd.DataFrame(rows)


def doubling_verdict(summary: pd.DataFrame) -> str | None:
    """Did doubling NUM_ENVS change the goals? Read off a sweep's summary, in words.

    Compares NUM_ENVS 4 with 8 (the lesson's pair) if both ran, else the first N with 2N;
    None if the sweep has no such pair. Two counts "clearly differ" when their 95%
    intervals do not overlap.
    """
    sizes = set(summary["num_envs"])
    pairs = [(4, 8)] + [(n, 2 * n) for n in sorted(sizes)]
    pair = next(((a, b) for a, b in pairs if a in sizes and b in sizes), None)
    if pair is None:
        return None
    rows = summary.set_index("num_envs")
    a, b = rows.loc[pair[0]], rows.loc[pair[1]]

    def seen(n: int, row: pd.Series) -> str:
        return (
            f"NUM_ENVS {n}: **{row['mean_goals']:.3g}** goals per run on average "
            f"({int(row['zero_goal_runs'])} of {int(row['runs'])} runs saw none)"
        )

    text = f"{seen(pair[0], a)}; {seen(pair[1], b)}. "
    expected = b["expected_goals"] / a["expected_goals"] if a["expected_goals"] > 0 else None
    expectation = f" (the measured rate predicts {expected:.2g}×)" if expected else ""
    if a["goals_high"] < b["goals_low"] or b["goals_high"] < a["goals_low"]:
        if a["mean_goals"] > 0:
            how = f"{b['mean_goals'] / a['mean_goals']:.2g}× as many goals"
        else:
            how = "more goals"
        return text + (
            f"Their 95% intervals do not overlap: {pair[1]} envs clearly reached {how}"
            f"{expectation}."
        )
    return text + (
        "Their 95% intervals overlap, so this sweep **cannot tell** whether "
        f"{pair[1]} envs reach more goals than {pair[0]}{expectation}. More steps per env "
        "or more seeds narrow the intervals."
    )


def _jitter(seeds: Sequence[int], width: float = 0.5) -> dict[int, float]:
    """Spread the seeds evenly over ``width`` (in log2 units of N) centred on the point."""
    ordered = sorted(seeds)
    if len(ordered) == 1:
        return {ordered[0]: 0.0}
    return {s: (i / (len(ordered) - 1) - 0.5) * width for i, s in enumerate(ordered)}


def chart_data(frame: pd.DataFrame, summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long-form frames for the chart: one point per run, one summary row per N and metric.

    ``points``: metric ("goals" or "episodes"), num_envs, seed, value, x (N moved a little
    sideways per seed so overlapping counts stay visible). ``bands``: metric, num_envs,
    mean, low, high, expected.
    """
    offsets = _jitter(frame["seed"].unique().tolist())
    shift = np.array([2.0 ** offsets[s] for s in frame["seed"]])
    points = pd.concat(
        [
            pd.DataFrame(
                {
                    "metric": metric,
                    "num_envs": frame["num_envs"].to_numpy(),
                    "seed": frame["seed"].to_numpy(),
                    "value": frame[metric].to_numpy(dtype=float),
                    "x": frame["num_envs"].to_numpy() * shift,
                }
            )
            for metric in ("goals", "episodes")
        ],
        ignore_index=True,
    )
    bands = pd.concat(
        [
            pd.DataFrame(
                {
                    "metric": metric,
                    "num_envs": summary["num_envs"],
                    "mean": summary[f"mean_{metric}"],
                    "low": summary[f"{metric}_low"],
                    "high": summary[f"{metric}_high"],
                    "expected": summary[f"expected_{metric}"],
                }
            )
            for metric in ("goals", "episodes")
        ],
        ignore_index=True,
    )
    return points, bands


def to_csv(frame: pd.DataFrame) -> str:
    """The data behind the chart, one row per run, as CSV text."""
    return frame.to_csv(index=False, float_format="%.6g")
