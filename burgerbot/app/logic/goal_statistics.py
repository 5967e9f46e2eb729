"""The "Goal statistics" page's Streamlit-free logic: a NUM_ENVS sweep's settings and caps,
exact expectations, a sweep's summary with its 95% intervals, readings and charts, and the
check that Sync and native count the same goals.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_CLASSES, BACKEND_NAMES, backend_label
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.bench import compare_timings
from burgerbot.experiments import Progress, goal_scaling
from burgerbot.random_agent import (
    expected_episodes,
    fewest_steps_to_goal,
    goal_odds,
    long_run_goal_rate,
)
from burgerbot.statistics import mean_interval, poisson_rate_interval

__all__ = [
    "AGREEMENT_OPTIONS",
    "BACKEND_LABELS",
    "BUDGET_LABELS",
    "COMPARISON_MAX_ENVS",
    "COMPARISON_SEEDS",
    "COMPARISON_STEPS",
    "DEFAULT_NUM_ENVS",
    "LAYERS",
    "LAYER_SHAPES",
    "LESSON_NUM_ENVS",
    "LESSON_STEPS",
    "METRIC_TITLES",
    "REFERENCE_ENV_STEPS",
    "REFERENCE_SEED",
    "SPECS",
    "TARGET_GOALS",
    "GoalRate",
    "ScalingSettings",
    "SweepResult",
    "agreement_answer",
    "budget_reading",
    "chart_data",
    "check_budget",
    "compare_backends",
    "comparison_settings",
    "doubling_verdict",
    "expectation_misses",
    "expectation_reading",
    "expectations",
    "lesson_expectations",
    "measure_goal_rate",
    "no_goal_warning",
    "rate_check",
    "rate_reading",
    "resolve_settings",
    "rise_reading",
    "rise_steps",
    "run_sweep",
    "scaling_panel",
    "speed_reading",
    "steps_for_expected_goals",
    "summarise",
    "sweep_cap",
    "takeaways",
    "to_csv",
    "try_this",
]


# --- The sweep: its settings, its caps and running it --------------------------------------------
# The "Goal statistics" page's sweep: its settings, its caps and running it.

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
    ChoiceSetting("backend", "Backend", "native", tuple(BACKEND_LABELS)),
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

    @property
    def planned_step_calls(self) -> int:
        """step() calls of the whole sweep, over every NUM_ENVS and seed."""
        return sum(self.steps_for(n) for n in self.num_envs) * self.seeds

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


def sweep_cap(backend: str, caps: Caps = CAPS) -> int:
    """The env-step cap of one sweep on ``backend`` (Sync's is lower: it is slower)."""
    if backend == "native":
        return caps.max_sweep_env_steps
    return min(caps.max_sync_sweep_env_steps, caps.max_sweep_env_steps)


def check_budget(settings: ScalingSettings, caps: Caps = CAPS) -> str | None:
    """None if the sweep fits its cap, else a message saying what to lower to make it fit.

    Example:
        >>> print(check_budget(ScalingSettings((4, 8), steps_per_env=500, seeds=2)))
        None
    """
    planned = settings.planned_env_steps
    cap = sweep_cap(settings.backend, caps)
    if planned <= cap:
        return _check_step_calls(settings, caps)
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
    native_cap = sweep_cap("native", caps)
    if settings.backend == "sync" and planned <= native_cap:
        fixes.append(f"switch to native (its cap is {native_cap:,})")
    return (
        f"This sweep would take {planned:,} env-steps, over this app's cap of {cap:,} for "
        f"{name}. To run it, {', or '.join(fixes)}."
    )


def _check_step_calls(settings: ScalingSettings, caps: Caps) -> str | None:
    """None if the sweep's step() calls fit ``caps.max_sweep_step_calls``, else what to lower.

    A step() call costs about the same time whatever NUM_ENVS is, so a sweep with few envs
    and very many steps can fit the env-step cap and still keep a core busy for minutes.
    """
    calls, cap = settings.planned_step_calls, caps.max_sweep_step_calls
    if calls <= cap:
        return None
    fixes = []
    per_seed = calls // settings.seeds
    if per_seed <= cap:
        fixes.append(f"use at most {cap // per_seed} seed(s)")
    runs = len(settings.num_envs) * settings.seeds
    if settings.budget == "per_env" and cap // runs >= 1:
        fixes.append(f"lower the steps per env to {cap // runs:,} or fewer")
    if settings.budget == "total":
        # A run makes total // N calls (at most total / N): the smallest NUM_ENVS make the most.
        per_run = int(cap / (settings.seeds * sum(1 / n for n in settings.num_envs)))
        if per_run >= max(settings.num_envs):
            fixes.append(f"lower the env-steps per run to {per_run:,} or fewer")
        if len(settings.num_envs) > 1:
            fixes.append("drop the smallest NUM_ENVS values")
    elif len(settings.num_envs) > 1:
        fixes.append("compare fewer NUM_ENVS values")
    return (
        f"This sweep would make {calls:,} step() calls, over this app's limit of {cap:,} per "
        "sweep: a call takes about as long with one env as with a few hundred, so long runs "
        f"of few envs are slow too. To run it, {', or '.join(fixes)}."
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


# --- Expectations: the goal rate measured live and the goals to expect ---------------------------
# The "Goal statistics" page's predictions: the goal rate measured live and the goals to expect.
#
# A random BurgerBot reaches the goal so rarely that a short run usually shows none, whatever
# NUM_ENVS is. Expected goals and the chance of none come, exactly, from
# `burgerbot.random_agent` (the world's rules, NEXT_STEP's reset rows included); the page's
# live measurement of the rate is a check on them.

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


def rate_check(rate: GoalRate, exact: float | None = None) -> str:
    """The live run's rate against the exact long-run rate: inside its 95% interval or not.

    Example:
        >>> print(rate_check(GoalRate(200, 8_000_000, "a run"), exact=2.5e-5))
        A run took 8,000,000 env-steps and reached the goal 200 times: one goal every 40,000 env-steps (95% interval of the rate 2.17e-05 to 2.87e-05 per env-step). The exact rate, 2.50e-05 (one every 40,000), lies inside it.
    """  # noqa: E501
    exact = long_run_goal_rate() if exact is None else exact
    low, high = rate.interval
    text = (
        f"{rate.source[0].upper() + rate.source[1:]} took {rate.env_steps:,} env-steps and "
        f"reached the goal {rate.goals} times"
    )
    if rate.goals:
        text += f": one goal every {rate.steps_per_goal:,.0f} env-steps"
    text += (
        f" (95% interval of the rate {low:.2e} to {high:.2e} per env-step). The exact rate, "
        f"{exact:.2e} (one every {1 / exact:,.0f}), "
    )
    if low <= exact <= high:
        return text + "lies inside it."
    return text + "lies outside it: a 95% interval misses about 1 run in 20."


def expectations(settings: ScalingSettings) -> pd.DataFrame:
    """What to expect per run before running: one row per NUM_ENVS, exact.

    Columns: ``num_envs``, ``steps_per_env``, ``env_steps``, ``expected_goals`` and
    ``p_zero`` (the chance of a run with no goal), both from `burgerbot.random_agent.goal_odds`,
    and ``expected_zero_runs`` (of the settings' seeds).

    Example:
        >>> frame = expectations(ScalingSettings((4,), 500, seeds=10))
        >>> frame[["expected_goals", "p_zero"]].round(4).values.tolist()
        [[0.0453, 0.9557]]
    """
    rows = []
    for n in settings.num_envs:
        odds = goal_odds(settings.steps_for(n), n)
        expected, p_zero = odds.expected_goals, odds.chance_of_none
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


def lesson_expectations() -> pd.DataFrame:
    """`expectations` for the lesson's exercise: 500 steps with 4 and with 8 envs."""
    return expectations(ScalingSettings(LESSON_NUM_ENVS, LESSON_STEPS, seeds=1))


def steps_for_expected_goals(
    rate: float | None = None, goals: float = TARGET_GOALS, num_envs: int = 4
) -> int:
    """Steps per env at which ``num_envs`` envs expect ``goals`` goals, rounded up to 2 digits.

    ``rate``: goals per env-step; by default the exact long-run rate
    (`burgerbot.random_agent.long_run_goal_rate`), which runs this long follow closely.

    Example:
        >>> steps_for_expected_goals(2.5e-5, goals=20, num_envs=4)
        200000
        >>> steps_for_expected_goals()
        210000
    """
    rate = long_run_goal_rate() if rate is None else rate
    if rate <= 0:
        raise ValueError(f"`rate` must be > 0, got {rate!r}")
    exact = goals / (rate * num_envs)
    magnitude = 10 ** max(0, math.floor(math.log10(exact)) - 1)
    return int(math.ceil(exact / magnitude) * magnitude)


def try_this(
    settings: ScalingSettings, caps: Caps = CAPS, max_seeds: int = 3
) -> ScalingSettings | None:
    """Settings that make doubling visible: N = 4 and 8, enough steps for ~20 goals at N = 4.

    Runs on native (the fast path) with as many seeds as fit its cap, at most ``max_seeds``
    (three seeds of about 20 goals each usually separate 4 from 8 envs; more only cost time);
    None if not even one seed fits.
    """
    steps = steps_for_expected_goals()
    trial = ScalingSettings(
        LESSON_NUM_ENVS,
        steps_per_env=steps,
        total_env_steps=settings.total_env_steps,
        seeds=1,
        backend="native",
        budget="per_env",
    )
    cap = sweep_cap("native", caps)
    fit = min(cap // trial.planned_env_steps, caps.max_sweep_step_calls // trial.planned_step_calls)
    if fit < 1:
        return None
    return replace(trial, seeds=int(min(fit, max_seeds, caps.max_seeds)))


# --- A sweep's summary: the verdict, chart data and CSV ------------------------------------------
# The "Goal statistics" page's reading of a sweep: summaries, the verdict, chart data and CSV.


def summarise(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per NUM_ENVS: mean goals with an exact Poisson 95% interval, and episodes.

    The goal interval comes from the total goals over the seeds (a Poisson count),
    divided by the number of seeds. The episode interval is mean ± 1.96 standard errors
    across seeds (NaN with a single seed). ``expected_goals`` is exact
    (`burgerbot.random_agent.goal_odds` for the run's calls and NUM_ENVS);
    ``expected_episodes`` too (`burgerbot.random_agent.expected_episodes`).
    """
    rows = []
    for key, group in frame.groupby("num_envs", sort=True):
        n = cast(int, key)  # a NUM_ENVS, an int
        runs = len(group)
        env_steps = float(group["env_steps"].mean())
        goals = int(group["goals"].sum())
        low, high = poisson_rate_interval(goals, runs)
        mean_episodes, ep_low, ep_high = mean_interval(group["episodes"].to_numpy(dtype=float))
        calls = round(env_steps / int(n))
        rows.append(
            {
                "num_envs": int(n),
                "runs": runs,
                "env_steps": env_steps,
                "mean_goals": goals / runs,
                "goals_low": low,
                "goals_high": high,
                "expected_goals": goal_odds(calls, int(n)).expected_goals,
                "zero_goal_runs": int((group["goals"] == 0).sum()),
                "goals_per_100k_env_steps": goals / group["env_steps"].sum() * 100_000,
                "mean_episodes": mean_episodes,
                "episodes_low": ep_low,
                "episodes_high": ep_high,
                "expected_episodes": expected_episodes(calls, int(n)),
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
    expectation = f" (worked out exactly: {expected:.2g}×)" if expected else ""
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


def chart_data(frame: pd.DataFrame, summary: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long-form frames for the chart: the runs' counts, one summary row per N and metric.

    ``points``: metric ("goals" or "episodes"), num_envs, value and runs (how many runs
    gave that count): equal counts share one dot, drawn bigger, at the run's own NUM_ENVS
    (no sideways shift, which on a log axis reads as another NUM_ENVS). ``bands``: metric,
    num_envs, mean, low, high, expected.
    """
    points = pd.concat(
        [
            frame.groupby(["num_envs", metric])
            .size()
            .reset_index(name="runs")
            .rename(columns={metric: "value"})
            .assign(metric=metric, value=lambda d: d["value"].astype(float))
            for metric in ("goals", "episodes")
        ],
        ignore_index=True,
    )[["metric", "num_envs", "value", "runs"]]
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


# --- Sentences about a sweep, each read off the data ---------------------------------------------
# The "Goal statistics" page's sentences about a sweep, each read off the data (both ways).
#
# A sweep's summary (`summarise`) gives every NUM_ENVS a mean with a 95%
# interval, for goals and for finished episodes. Two NUM_ENVS "clearly differ" when their
# intervals do not overlap; counts "stay level" when one value fits in every interval.

_NOUNS = {"goals": "goals", "episodes": "finished episodes"}


def _interval(row: pd.Series, metric: str) -> tuple[float, float]:
    return float(row[f"{metric}_low"]), float(row[f"{metric}_high"])


def _pairs(items: list[tuple[int, int]]) -> str:
    return ", ".join(f"{a} → {b}" for a, b in items)


def rise_steps(summary: pd.DataFrame, metric: str) -> dict[str, list[tuple[int, int]]] | None:
    """Same steps per env: each step up in NUM_ENVS, (from, to), sorted by what ``metric``'s 95%
    intervals show: ``"more"`` (apart, rising), ``"fewer"`` (apart, falling) or ``"unclear"``
    (overlapping, or no interval). None with a single NUM_ENVS: what `rise_reading` says."""
    rows = summary.sort_values("num_envs").reset_index(drop=True)
    if len(rows) < 2:
        return None
    steps: dict[str, list[tuple[int, int]]] = {"more": [], "fewer": [], "unclear": []}
    for i in range(len(rows) - 1):
        a, b = rows.iloc[i], rows.iloc[i + 1]
        (a_low, a_high), (b_low, b_high) = _interval(a, metric), _interval(b, metric)
        pair = (int(a["num_envs"]), int(b["num_envs"]))
        if any(math.isnan(x) for x in (a_low, a_high, b_low, b_high)):
            steps["unclear"].append(pair)
        elif a_high < b_low:
            steps["more"].append(pair)
        elif b_high < a_low:
            steps["fewer"].append(pair)
        else:
            steps["unclear"].append(pair)
    return steps


def rise_reading(summary: pd.DataFrame, metric: str) -> str | None:
    """Same steps per env: does ``metric`` clearly rise from each NUM_ENVS to the next?

    None with a single NUM_ENVS. Steps whose intervals cannot be computed (one seed,
    for episodes) count as "cannot tell".
    """
    found = rise_steps(summary, metric)
    if found is None:
        return None
    noun = _NOUNS[metric]
    if summary[f"{metric}_low"].isna().all():
        return f"With one seed there is no interval for {noun}: more seeds would tell."
    more, fewer, unclear = found["more"], found["fewer"], found["unclear"]
    steps = len(summary) - 1
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


def _figure(x: float) -> str:
    """A count or rate for a sentence: whole with separators from 100 up, else 3 digits."""
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def expectation_misses(summary: pd.DataFrame, metric: str) -> list[tuple[int, float, float, float]]:
    """The NUM_ENVS whose 95% interval of ``metric`` misses its exact expectation, as
    (NUM_ENVS, low, high, expected); NUM_ENVS without an interval (one seed) are left out."""
    misses = []
    for _, row in summary.iterrows():
        low, high = _interval(row, metric)
        expected = float(row[f"expected_{metric}"])
        if not (math.isnan(low) or math.isnan(high)) and not low <= expected <= high:
            misses.append((int(row["num_envs"]), low, high, expected))
    return misses


def expectation_reading(summary: pd.DataFrame, metric: str) -> str | None:
    """Does every NUM_ENVS's 95% interval of ``metric`` hold its exact expectation?

    None when no NUM_ENVS has an interval (one seed, for episodes).
    """
    rows = summary.dropna(subset=[f"{metric}_low", f"{metric}_high"])
    if rows.empty:
        return None
    noun = _NOUNS[metric]
    misses = expectation_misses(summary, metric)
    if not misses:
        every = "every NUM_ENVS's" if len(rows) > 1 else "the"
        return f"{noun[0].upper() + noun[1:]}: {every} 95% interval holds its exact expectation."
    listed = "; ".join(
        f"NUM_ENVS {n}'s ({_figure(low)} to {_figure(high)}) misses its expectation "
        f"{_figure(expected)}"
        for n, low, high, expected in misses
    )
    return (
        f"{noun[0].upper() + noun[1:]}: {listed}. A 95% interval misses its expectation about "
        "one time in 20 by chance; run more seeds to see whether it holds."
    )


LEVEL_WITHIN = 0.05
"""Expected goals per run count as level across NUM_ENVS when the lowest is within 5% of the
highest."""


def _total_budget_lead(summary: pd.DataFrame) -> str:
    """Same total env-steps: how long each env runs, and whether the exact expected goals stay
    level across NUM_ENVS (they do only while each env runs long compared with the fewest steps
    a goal needs)."""
    fewest = fewest_steps_to_goal()
    calls = (summary["env_steps"] / summary["num_envs"]).round().astype(int)
    rows = summary.assign(calls=calls).sort_values("num_envs")
    text = (
        f"With the **same total env-steps** for every NUM_ENVS, more envs means a shorter run "
        f"for each. No episode reaches the goal before step {fewest}, and an episode the run "
        "cuts short loses its chance of one: the same total gives the same expected goals "
        f"only while each env runs long compared with {fewest} steps."
    )
    if len(rows) < 2:
        return text
    # By position: `idxmax` is the label at `argmax`, and the summary's labels are unique.
    top = rows.iloc[rows["expected_goals"].argmax()]
    bottom = rows.iloc[rows["expected_goals"].argmin()]
    high, low = float(top["expected_goals"]), float(bottom["expected_goals"])
    where = (
        f"{high:.3g} at NUM_ENVS {int(top['num_envs'])} ({int(top['calls']):,} steps per env) "
        f"to {low:.3g} at NUM_ENVS {int(bottom['num_envs'])} ({int(bottom['calls']):,} steps "
        "per env)"
    )
    if high > 0 and low >= (1 - LEVEL_WITHIN) * high:
        return text + f" Here they stay level (within 5%): worked out exactly, from {where}."
    return text + f" Here they do **not** stay level: worked out exactly, from {where}."


def budget_reading(summary: pd.DataFrame, budget: str) -> str:
    """What the sweep shows for its budget, goals and episodes, in a short paragraph."""
    if budget == "total":
        lead = _total_budget_lead(summary)
        parts = [expectation_reading(summary, "goals"), expectation_reading(summary, "episodes")]
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
    """Same steps per env: goals per 100k env-steps, NUM_ENVS by NUM_ENVS, against the exact
    rate of runs that long (the same for every NUM_ENVS).

    ``frame`` is the sweep's own table (one row per run). None with a single NUM_ENVS, or when
    the runs differ in steps per env (same total env-steps: `budget_reading` judges the goals
    per run against their exact expectation, over nearly the same env-steps).
    """
    if frame["num_envs"].nunique() < 2:
        return None
    calls = frame["env_steps"] // frame["num_envs"]
    if calls.nunique() > 1:
        return None
    steps = int(calls.iloc[0])
    exact = goal_odds(steps).expected_goals / steps * 1e5
    totals = frame.groupby("num_envs")[["goals", "env_steps"]].sum()
    misses = []
    for n, row in totals.iterrows():
        low, high = (
            x * 1e5 for x in poisson_rate_interval(int(row["goals"]), int(row["env_steps"]))
        )
        if not low <= exact <= high:
            misses.append(f"NUM_ENVS {n}'s interval ({_figure(low)} to {_figure(high)})")
    if not misses:
        return (
            "Goals per 100k env-steps: every NUM_ENVS's 95% interval holds the exact rate of "
            f"runs of {steps:,} steps per env, {_figure(exact)}: each env-step has the same chance "
            "of a goal, however many envs share the `step()` call."
        )
    verb = "misses" if len(misses) == 1 else "miss"
    return (
        f"Goals per 100k env-steps: {', '.join(misses)} {verb} the exact rate of runs of "
        f"{steps:,} steps per env, {_figure(exact)}. A 95% interval misses about one time in 20 by "
        "chance."
    )


def no_goal_warning(summary: pd.DataFrame) -> str | None:
    """A sweep that saw no goal at all: how likely that was, exactly; None if it saw one."""
    if summary["mean_goals"].sum() > 0:
        return None
    expected, chance = 0.0, 1.0
    for _, row in summary.iterrows():
        n, runs = int(row["num_envs"]), int(row["runs"])
        odds = goal_odds(round(float(row["env_steps"]) / n), n)
        expected += odds.expected_goals * runs
        chance *= odds.chance_of_none**runs
    return (
        f"This sweep saw **no goal at all**. Worked out exactly, it expected {expected:.3g} "
        f"goals in all, and every run shows none with a chance of {chance:.3g}."
    )


# --- Charts: goals and finished episodes against NUM_ENVS ----------------------------------------
# Charts for the "Goal statistics" page: goals and finished episodes against NUM_ENVS.

METRIC_TITLES = {
    "goals": "Goals reached per run",
    "episodes": "Finished episodes per run",
}

# What each mark is: the legend names them, in this order, with these Okabe-Ito colours...
LAYERS = {
    "runs (bigger: more runs)": OKABE_ITO[0],  # orange
    "mean of the seeds": OKABE_ITO[7],  # black
    "95% interval": OKABE_ITO[7],
    "expected": OKABE_ITO[3],  # blue, dashed
}
# ...and these shapes, so no two marks differ by colour alone.
LAYER_SHAPES = dict(zip(LAYERS, ("circle", "diamond", "stroke", "stroke"), strict=True))
# ...and dashes, so the two strokes differ by more than colour (the points have no outline).
LAYER_DASHES = dict(zip(LAYERS, ([1, 0], [1, 0], [1, 0], [6, 4]), strict=True))
_POINT, _MEAN, _INTERVAL, _EXPECTED = LAYERS


def _panel(
    points: pd.DataFrame,
    bands: pd.DataFrame,
    metric: str,
    x_values: Sequence[int],
    log_y: bool,
) -> alt.LayerChart:
    """One metric's layers: expected line, one dot per run, the interval and the mean."""
    # Under the plot in two columns: the chart shares its row with the other metric's.
    legend = alt.Legend(title=None, orient="bottom", columns=2, labelLimit=0, symbolSize=80)
    colour = alt.Color(
        "layer:N", scale=alt.Scale(domain=list(LAYERS), range=list(LAYERS.values())), legend=legend
    )
    shape = alt.Shape(
        "layer:N",
        scale=alt.Scale(domain=list(LAYER_SHAPES), range=list(LAYER_SHAPES.values())),
        legend=legend,
    )
    dash = alt.StrokeDash(
        "layer:N",
        scale=alt.Scale(domain=list(LAYER_DASHES), range=list(LAYER_DASHES.values())),
        legend=legend,
    )
    x_axis = alt.Axis(values=list(x_values), format="d", title="NUM_ENVS (log scale, base 2)")
    x_scale = alt.Scale(type="log", base=2, nice=False, padding=14)
    title = METRIC_TITLES[metric] + (" (log scale)" if log_y else "")
    y_scale = alt.Scale(type="log") if log_y else alt.Scale(zero=True)
    y = alt.Y("value:Q", title=title, scale=y_scale)
    x_points = alt.X("num_envs:Q", scale=x_scale, axis=x_axis)
    x_bands = alt.X("num_envs:Q", scale=x_scale, axis=x_axis)

    metric_points = points[points["metric"] == metric].assign(layer=_POINT)
    metric_bands = bands[bands["metric"] == metric]
    runs = (
        alt.Chart(metric_points)
        .mark_point(opacity=0.6, filled=True)
        .encode(
            x=x_points,
            y=y,
            color=colour,
            shape=shape,
            size=alt.Size("runs:Q", scale=alt.Scale(range=[30, 300]), legend=None),
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("value:Q", title=metric, format=",d"),
                alt.Tooltip("runs:Q", title="runs"),
            ],
        )
    )
    expected = (
        alt.Chart(metric_bands.assign(layer=_EXPECTED))
        .mark_line(strokeDash=[6, 4], strokeWidth=2)
        .encode(
            x=x_bands,
            y=alt.Y("expected:Q", scale=y_scale, title=title),
            color=colour,
            strokeDash=dash,
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("expected:Q", title="expected", format=",.3g"),
            ],
        )
    )
    summary_tooltip = [
        alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
        alt.Tooltip("mean:Q", title="mean", format=",.3g"),
        alt.Tooltip("low:Q", title="95% low", format=",.3g"),
        alt.Tooltip("high:Q", title="95% high", format=",.3g"),
    ]
    interval = (
        alt.Chart(metric_bands.dropna(subset=["low", "high"]).assign(layer=_INTERVAL))
        .mark_rule(strokeWidth=2.5)
        .encode(
            x=x_bands,
            y=alt.Y("low:Q", scale=y_scale, title=title),
            y2="high:Q",
            color=colour,
            strokeDash=dash,
            tooltip=summary_tooltip,
        )
    )
    mean = (
        alt.Chart(metric_bands.assign(layer=_MEAN))
        .mark_point(size=110, filled=True)
        .encode(
            x=x_bands,
            y=alt.Y("mean:Q", scale=y_scale, title=title),
            color=colour,
            shape=shape,
            tooltip=summary_tooltip,
        )
    )
    # `alt.layer` makes a FacetChart only of layers sharing a row, column or facet encoding.
    return cast(alt.LayerChart, alt.layer(expected, runs, interval, mean)).properties(
        description=(
            f"{METRIC_TITLES[metric]} (y{', log scale' if log_y else ''}) against NUM_ENVS "
            "(x, log scale): orange circles are the runs (bigger: more runs gave that count), "
            "black diamonds the mean of the seeds, black vertical bars its 95% interval, and "
            "the blue dashed line what the world's rules predict."
        ),
        # Streamlit fits the whole chart (axes and legend too) into this height. The page
        # writes the chart's title above it (a title inside the chart got clipped).
        height=400,
    )


def scaling_panel(points: pd.DataFrame, bands: pd.DataFrame, metric: str) -> alt.LayerChart:
    """One panel against NUM_ENVS (log2 x axis) for ``metric``: "goals" or "episodes".

    ``points`` and ``bands`` are the long-form frames of ``chart_data``:
    the runs are dots (bigger where several runs gave the same count), the mean of the seeds a
    diamond with its 95% interval as a vertical bar, and the dashed line is what the
    world's rules predict, exactly (`burgerbot.random_agent`). Goals keep a linear y axis
    (zeros must stay visible); episodes get a log y axis when every value and interval end
    is above zero.
    """
    if metric not in METRIC_TITLES:
        raise ValueError(f"`metric` must be one of {tuple(METRIC_TITLES)}, got {metric!r}")
    x_values = sorted(int(n) for n in bands["num_envs"].unique())
    log_y = False
    if metric == "episodes":
        # A log axis cannot show zero (or an interval reaching below it): stay linear then.
        episode_bands = bands[bands["metric"] == "episodes"]
        log_y = bool(
            (points.loc[points["metric"] == "episodes", "value"] > 0).all()
            and (episode_bands["low"].fillna(1) > 0).all()
        )
    return _panel(points, bands, metric, x_values, log_y)


# --- The check that Sync and native count the same goals -----------------------------------------
# The "Goal statistics" page's check that Sync and native count exactly the same goals.

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


def interleaved_check(
    settings: ScalingSettings, progress: Progress | None = None
) -> tuple[SweepResult, SweepResult]:
    """Sync and native on the same settings, their runs taken in turns: (sync, native).

    Run by run (each NUM_ENVS and seed) the two backends run one after the other, the order
    swapped every run. A moment when the machine is busy elsewhere then slows one run of
    each rather than a whole sweep of one, so `speed_reading` may compare their times.
    """
    frames: dict[str, list[pd.DataFrame]] = {"sync": [], "native": []}
    wall = {"sync": 0.0, "native": 0.0}
    runs = [(n, seed) for n in settings.num_envs for seed in settings.seed_list]
    for index, (num_envs, seed) in enumerate(runs):
        for backend in ("sync", "native") if index % 2 == 0 else ("native", "sync"):
            start = time.perf_counter()
            frames[backend].append(
                goal_scaling(
                    [num_envs], settings.steps_for(num_envs), seeds=[seed], backend=backend
                )
            )
            wall[backend] += time.perf_counter() - start
        if progress is not None:
            progress((index + 1) / len(runs), f"run {index + 1} of {len(runs)}")
    sync, native = (
        SweepResult(
            replace(settings, backend=backend),
            pd.concat(frames[backend], ignore_index=True),
            wall[backend],
        )
        for backend in ("sync", "native")
    )
    return sync, native


def speed_reading(sync: pd.DataFrame, native: pd.DataFrame, *, interleaved: bool = True) -> str:
    """How much faster native ran than Sync over the same runs, from each run's own time.

    Per NUM_ENVS, the seeds' runs are the repeats (Sync's and native's taken with the same
    actions): a factor only where every native run beat every Sync run
    (`burgerbot.bench.compare_timings`), else "could not be told apart"; one seed, no verdict.
    Runs not taken in turns (``interleaved=False``: two sweeps run at different moments) get
    no factor at all: a busy moment may have slowed every run of one backend.

    Example:
        >>> runs = pd.DataFrame({"num_envs": [4, 4, 4], "seed": [0, 1, 2],
        ...                      "env_steps": [400] * 3, "seconds": [0.5, 0.6, 0.55]})
        >>> speed_reading(runs, runs.assign(seconds=[0.01, 0.015, 0.011]))
        'native was faster in every run, at every NUM_ENVS: NUM_ENVS 4: **50.0×**, ratio of medians (runs 40.0× to 50.0×).'
    """  # noqa: E501
    keys = ["num_envs", "seed"]
    pairs = sync[[*keys, "env_steps", "seconds"]].merge(
        native[[*keys, "seconds"]], on=keys, suffixes=("_sync", "_native")
    )
    pairs = pairs[(pairs["seconds_sync"] > 0) & (pairs["seconds_native"] > 0)]
    if pairs.empty:
        return "The runs were too short to time."
    if not interleaved:
        return (
            "These two sweeps ran at different moments, not run by run in turns: a busy "
            "moment may have slowed either one, so their times are not compared here."
        )
    parts, verdicts = [], []
    for n, group in pairs.groupby("num_envs", sort=True):
        ratios = group["seconds_sync"] / group["seconds_native"]
        if len(group) < 2:
            verdicts.append("one")
            parts.append(f"NUM_ENVS {n}: {float(ratios.iloc[0]):,.1f}× (one run)")
            continue
        result = compare_timings(
            (1 / group["seconds_native"]).tolist(), (1 / group["seconds_sync"]).tolist()
        )
        verdicts.append(result.verdict)
        spread = f"(runs {ratios.min():,.1f}× to {ratios.max():,.1f}×)"
        if result.verdict == "similar":
            parts.append(f"NUM_ENVS {n}: could not be told apart on this server {spread}")
            continue
        slower = " (native slower)" if result.verdict == "slower" else ""
        parts.append(f"NUM_ENVS {n}: **{result.ratio:,.1f}×**{slower}, ratio of medians {spread}")
    listed = "; ".join(parts) + "."
    if all(v == "faster" for v in verdicts):
        return f"native was faster in every run, at every NUM_ENVS: {listed}"
    if "one" in verdicts:
        return (
            f"Sync's time over native's, run by run: {listed} With one seed per NUM_ENVS "
            "there is no spread to compare: run more seeds for a verdict."
        )
    return f"Sync's time over native's, run by run: {listed}"


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


# --- The page's prediction and takeaways ---------------------------------------------------------

AGREEMENT_OPTIONS = (
    "exactly the same counts",
    "close, within a few goals",
    "different: native is an approximation",
)
"""The prediction: given the same seeds, how do Sync's and native's goal counts compare?"""


def agreement_answer(side_by_side: pd.DataFrame) -> str:
    """The prediction option a Sync/native comparison (`compare_backends`) bears out.

    Example:
        >>> agreement_answer(pd.DataFrame({"identical": [True, True]}))
        'exactly the same counts'
    """
    if bool(side_by_side["identical"].all()):
        return AGREEMENT_OPTIONS[0]
    goal_gap = (side_by_side["goals_sync"] - side_by_side["goals_native"]).abs()
    return AGREEMENT_OPTIONS[1] if bool((goal_gap <= 3).all()) else AGREEMENT_OPTIONS[2]


def _split_takeaway(total: int = 20_000, num_envs: int = 1_024) -> str:
    """The same total env-steps split over more envs: the expected goals, worked out exactly."""
    fewest = fewest_steps_to_goal()
    one, many = goal_odds(total).expected_goals, goal_odds(total // num_envs, num_envs)
    return (
        "The same total env-steps gives the same expected goals only while each env runs long "
        f"compared with the {fewest} steps the quickest goal takes: {total:,} env-steps expect "
        f"{one:.3g} goals on 1 env, {many.expected_goals:.3g} on {num_envs:,} envs of "
        f"{many.calls} steps each."
    )


def takeaways() -> list[str]:
    """The page's key takeaways (the exact rate from `burgerbot.random_agent`)."""
    return [
        f"A random BurgerBot reaches the goal about once per {1 / long_run_goal_rate():,.0f} "
        "env-steps in the long run; expected goals and the chance of none for any run come "
        "exactly from the world's rules.",
        "A goal count is a Poisson count: its exact (Garwood) 95% interval stays honest even "
        "when every run saw 0. Two NUM_ENVS clearly differ only when their intervals do not "
        "overlap.",
        _split_takeaway(),
        "Sync and native (`BurgerBotVectorEnv`) count exactly the same goals for the same "
        "seeds: native is a faster way to the same numbers, not an approximation.",
    ]
