"""The "Goal scaling" page's sentences about a sweep, each read off the data (both ways).

A sweep's summary (`goal_scaling_summary.summarise`) gives every NUM_ENVS a mean with a 95%
interval, for goals and for finished episodes. Two NUM_ENVS "clearly differ" when their
intervals do not overlap; counts "stay level" when one value fits in every interval.
"""

from __future__ import annotations

import math

import pandas as pd

from burgerbot.statistics import poisson_rate_interval

__all__ = ["budget_reading", "level_reading", "rate_reading", "rise_reading"]

_NOUNS = {"goals": "goals", "episodes": "finished episodes"}


def _interval(row: pd.Series, metric: str) -> tuple[float, float]:
    return float(row[f"{metric}_low"]), float(row[f"{metric}_high"])


def _pairs(items: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a} → {b}" for a, b in items)


def rise_reading(summary: pd.DataFrame, metric: str) -> str | None:
    """Same steps per env: does ``metric`` clearly rise from each NUM_ENVS to the next?

    None with a single NUM_ENVS. Steps whose intervals cannot be computed (one seed,
    for episodes) count as "cannot tell".
    """
    rows = summary.sort_values("num_envs").reset_index(drop=True)
    if len(rows) < 2:
        return None
    noun = _NOUNS[metric]
    if rows[f"{metric}_low"].isna().all():
        return f"With one seed there is no interval for {noun}: more seeds would tell."
    more, fewer, unclear = [], [], []
    for i in range(len(rows) - 1):
        a, b = rows.iloc[i], rows.iloc[i + 1]
        (a_low, a_high), (b_low, b_high) = _interval(a, metric), _interval(b, metric)
        pair = (int(a["num_envs"]), int(b["num_envs"]))
        if any(math.isnan(x) for x in (a_low, a_high, b_low, b_high)):
            unclear.append(pair)
        elif a_high < b_low:
            more.append(pair)
        elif b_high < a_low:
            fewer.append(pair)
        else:
            unclear.append(pair)
    steps = len(rows) - 1
    chance = "at 95%, about one comparison in 20 misses by chance"
    if steps == 1:
        ((a, b),) = more + fewer + unclear
        if more:
            text = f"going from NUM_ENVS {a} to {b} gave clearly more {noun} (95% intervals apart)"
        elif fewer:
            text = f"going from NUM_ENVS {a} to {b} gave clearly *fewer* {noun}: {chance}"
        else:
            text = (
                f"the 95% intervals of {noun} for NUM_ENVS {a} and {b} overlap: this sweep "
                f"**cannot show** {noun} rising"
            )
    elif len(more) == steps:
        text = f"every step up in NUM_ENVS gave clearly more {noun} (95% intervals apart)"
    elif not more:
        text = (
            f"at no step up in NUM_ENVS are the 95% intervals of {noun} apart: this sweep "
            f"**cannot show** {noun} rising"
        )
    else:
        text = f"{noun} clearly rose at {_pairs(more)} (95% intervals apart)"
        if unclear:
            text += f"; at {_pairs(unclear)} the intervals overlap, so those steps cannot show it"
    if metric == "goals":
        zero, runs = int(summary["zero_goal_runs"].sum()), int(summary["runs"].sum())
        text += f"; {zero} of {runs} runs saw no goal at all"
    if fewer and steps > 1:
        text += f". Clearly *fewer* at {_pairs(fewer)}: {chance}"
    return text[0].upper() + text[1:] + "."


def level_reading(summary: pd.DataFrame, metric: str) -> str | None:
    """Same total env-steps: does ``metric`` stay level across NUM_ENVS?

    Level when one value fits inside every NUM_ENVS's 95% interval. None with a single
    NUM_ENVS or no intervals (one seed, for episodes).
    """
    rows = summary.dropna(subset=[f"{metric}_low", f"{metric}_high"])
    if len(rows) < 2 or len(rows) < len(summary):
        return None
    noun = _NOUNS[metric]
    top = rows.loc[rows[f"{metric}_low"].idxmax()]
    bottom = rows.loc[rows[f"{metric}_high"].idxmin()]
    if top[f"{metric}_low"] <= bottom[f"{metric}_high"]:
        return (
            f"{noun[0].upper() + noun[1:]} stay level: one value fits inside every NUM_ENVS's "
            "95% interval."
        )
    (t_low, t_high), (b_low, b_high) = _interval(top, metric), _interval(bottom, metric)
    return (
        f"{noun[0].upper() + noun[1:]} do **not** stay level: NUM_ENVS {int(top['num_envs'])}'s "
        f"interval ({t_low:,.3g} to {t_high:,.3g}) lies wholly above NUM_ENVS "
        f"{int(bottom['num_envs'])}'s ({b_low:,.3g} to {b_high:,.3g}). With many NUM_ENVS "
        "compared at 95%, about one interval in 20 misses by chance; run more seeds to see "
        "whether it holds."
    )


def budget_reading(summary: pd.DataFrame, budget: str) -> str:
    """What the sweep shows for its budget, goals and episodes, in a short paragraph."""
    if budget == "total":
        parts = [level_reading(summary, "goals"), level_reading(summary, "episodes")]
        lead = (
            "With the **same total env-steps** for every NUM_ENVS, the count should not depend "
            "on NUM_ENVS: what matters is how many env-steps you collect."
        )
    else:
        parts = [rise_reading(summary, "episodes"), rise_reading(summary, "goals")]
        lead = (
            "With the **same steps per env**, more envs collect more env-steps, so the "
            "*expected* counts grow in proportion."
        )
    found = [p for p in parts if p]
    if not found:
        return lead + " This sweep has one NUM_ENVS (or one seed): nothing to compare."
    return lead + " In this sweep: " + " ".join(found)


def rate_reading(frame: pd.DataFrame) -> str | None:
    """Goals per 100k env-steps, NUM_ENVS by NUM_ENVS: the same within their intervals?

    ``frame`` is the sweep's own table (one row per run). None with a single NUM_ENVS.
    """
    totals = frame.groupby("num_envs")[["goals", "env_steps"]].sum()
    if len(totals) < 2:
        return None
    bounds = {
        int(n): poisson_rate_interval(int(row["goals"]), int(row["env_steps"]))
        for n, row in totals.iterrows()
    }
    highest_low = max(bounds, key=lambda n: bounds[n][0])
    lowest_high = min(bounds, key=lambda n: bounds[n][1])
    if bounds[highest_low][0] <= bounds[lowest_high][1]:
        return (
            "Goals per 100k env-steps agree for every NUM_ENVS within their 95% intervals: "
            "each env-step has the same small chance of a goal, however many envs share the "
            "`step()` call."
        )
    low, high = (x * 1e5 for x in bounds[highest_low])
    other_low, other_high = (x * 1e5 for x in bounds[lowest_high])
    return (
        f"Goals per 100k env-steps differ here: NUM_ENVS {highest_low}'s interval "
        f"({low:.3g} to {high:.3g}) lies above NUM_ENVS {lowest_high}'s ({other_low:.3g} to "
        f"{other_high:.3g}). Every env-step has the same chance of a goal in theory; with "
        "many NUM_ENVS compared at 95%, about one interval in 20 misses by chance."
    )
