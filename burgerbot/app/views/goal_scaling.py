"""The "Goal scaling" page's logic: settings, caps, expected goal counts, intervals and summaries.

A random BurgerBot reaches the goal so rarely that a short run usually shows none, whatever
NUM_ENVS is. Goal counts are Poisson: the page predicts them from a goal rate measured live
(expected = rate x env-steps, chance of none = exp(-expected)) and puts exact Poisson
intervals around what a sweep measured.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.experiments import Progress, goal_scaling

__all__ = [
    "BACKEND_LABELS",
    "BUDGET_LABELS",
    "COMPARISON_MAX_ENVS",
    "COMPARISON_SEEDS",
    "COMPARISON_STEPS",
    "DEFAULT_NUM_ENVS",
    "LESSON_NUM_ENVS",
    "LESSON_STEPS",
    "REFERENCE_ENV_STEPS",
    "REFERENCE_SEED",
    "SPECS",
    "TARGET_GOALS",
    "GoalRate",
    "ScalingSettings",
    "SweepResult",
    "ThrottledProgress",
    "chart_data",
    "check_budget",
    "compare_backends",
    "comparison_settings",
    "doubling_verdict",
    "expectations",
    "lesson_expectations",
    "measure_goal_rate",
    "poisson_interval",
    "resolve_settings",
    "run_sweep",
    "steps_for_expected_goals",
    "summarise",
    "sweep_cap",
    "to_csv",
    "try_this",
]

DEFAULT_NUM_ENVS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
LESSON_STEPS = 500
"""The lesson's exercise: 500 random steps..."""
LESSON_NUM_ENVS = (4, 8)
"""...with 4 envs, then with 8: do goals roughly double?"""
TARGET_GOALS = 20
"""The "try this" suggestion aims at this many expected goals per run at NUM_ENVS=4."""

REFERENCE_SEED = 12_345
"""Seed of the long native run that measures the goal rate (apart from the sweep's seeds)."""
REFERENCE_ENV_STEPS = 8_192_000
"""Env-steps of that run: about 200 goals, so the rate is known to within about 15%."""

# The Sync/native check runs both backends on the learner's small NUM_ENVS values, long
# enough that a few goals happen (about 4 expected for NUM_ENVS 1, 2, 4, 8): a few seconds.
COMPARISON_MAX_ENVS = 16
COMPARISON_SEEDS = 2
COMPARISON_STEPS = 5_000

BACKEND_LABELS = {"sync": "Sync (SyncVectorEnv)", "native": "native (BurgerBotVectorEnv, fast)"}
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
            text += "; Sync" if self.backend == "sync" else "; native"
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
    name = "Sync" if settings.backend == "sync" else "native"
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


class ThrottledProgress:
    """Passes on at most about ``updates`` progress reports (and always the last one).

    A long sweep reports every 1,000 steps; a progress bar only needs about a hundred.
    Exceptions raised by ``report`` (a page being stopped) go through unchanged.
    """

    def __init__(self, report: Callable[[float, str], Any], updates: int = 100) -> None:
        self._report = report
        self._step = 1.0 / max(1, updates)
        self._last = -1.0

    def __call__(self, fraction: float, message: str) -> None:
        if fraction >= 1.0 or fraction - self._last >= self._step:
            self._last = fraction
            self._report(fraction, message)


# --- Rates and intervals --------------------------------------------------------------------


def _lower_regularized_gamma(a: float, x: float) -> float:
    """P(a, x), the regularized lower incomplete gamma function (Numerical Recipes 6.2)."""
    if x <= 0:
        return 0.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # series
        term = total = 1.0 / a
        denominator = a
        for _ in range(100_000):
            denominator += 1
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return min(1.0, total * math.exp(log_front))
    # continued fraction for Q(a, x) (modified Lentz)
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return max(0.0, 1.0 - math.exp(log_front) * h)


def _solve_increasing(f: Callable[[float], float], target: float, high: float) -> float:
    """The x in [0, high] where the increasing function f reaches target (bisection)."""
    low = 0.0
    for _ in range(200):
        middle = (low + high) / 2
        if f(middle) < target:
            low = middle
        else:
            high = middle
        if high - low <= 1e-12 * max(1.0, high):
            break
    return (low + high) / 2


def poisson_interval(count: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact (Garwood) interval for the mean of a Poisson count that came out as ``count``.

    The lower end is the mean under which a count of at least ``count`` has probability
    (1 - confidence) / 2, the upper end the mean under which at most ``count`` has it.

    Example:
        >>> [round(x, 4) for x in poisson_interval(0)]
        [0.0, 3.6889]
        >>> [round(x, 4) for x in poisson_interval(10)]
        [4.7954, 18.3904]
    """
    if isinstance(count, bool) or int(count) != count or count < 0:
        raise ValueError(f"`count` must be a whole number >= 0, got {count!r}")
    if not 0 < confidence < 1:
        raise ValueError(f"`confidence` must lie strictly between 0 and 1, got {confidence!r}")
    count = int(count)
    tail = (1 - confidence) / 2
    high_bound = count + 20 + 20 * math.sqrt(count + 1)
    # P(X >= k; mean) = P(k, mean); P(X <= k; mean) = 1 - P(k + 1, mean).
    upper = _solve_increasing(
        lambda m: _lower_regularized_gamma(count + 1, m), 1 - tail, high_bound
    )
    if count == 0:
        return 0.0, upper
    lower = _solve_increasing(lambda m: _lower_regularized_gamma(count, m), tail, high_bound)
    return lower, upper


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
        low, high = poisson_interval(self.goals)
        return low / self.env_steps, high / self.env_steps

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
        p_zero = math.exp(-expected)
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
    settings: ScalingSettings, rate: float, caps: Caps = CAPS, max_seeds: int = 5
) -> ScalingSettings | None:
    """Settings that make doubling visible: N = 4 and 8, enough steps for ~20 goals at N = 4.

    Runs on native (the fast path) with as many seeds as fit its cap, at most ``max_seeds``;
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


# --- Summaries of a sweep ------------------------------------------------------------------


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
        low, high = poisson_interval(goals)
        episodes = group["episodes"].to_numpy(dtype=float)
        mean_episodes = float(episodes.mean())
        if runs > 1:
            half = 1.96 * float(episodes.std(ddof=1)) / math.sqrt(runs)
            ep_low, ep_high = mean_episodes - half, mean_episodes + half
        else:
            ep_low = ep_high = math.nan
        rows.append(
            {
                "num_envs": int(n),
                "runs": runs,
                "env_steps": env_steps,
                "mean_goals": goals / runs,
                "goals_low": low / runs,
                "goals_high": high / runs,
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


# --- Sync and native agree -----------------------------------------------------------------


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
