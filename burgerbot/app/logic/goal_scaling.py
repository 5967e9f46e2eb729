"""The "Goal scaling" page's Streamlit-free logic: the lesson's goal experiment (4 and 8
BurgerBots, 500 random steps), its prediction and verdict, and exercise 1 answered by
repeating the experiment thousands of times at once.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd

from burgerbot import world
from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import IntSetting
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import (
    GoalOdds,
    fewest_steps_to_goal,
    goal_odds,
    long_run_goal_rate,
)
from burgerbot.statistics import poisson_interval
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "DEFAULT_RUNS",
    "GOAL_OPTIONS",
    "LESSON_NUM_ENVS",
    "LESSON_STEPS",
    "RUN_CHOICES",
    "SHORT_RUN",
    "SPECS",
    "VISIBLE_GOALS",
    "LessonRun",
    "RepeatedRuns",
    "check_explanation",
    "fewest_steps_to_goal",
    "goal_bucket",
    "goals_per_robot",
    "lesson_expectations",
    "lesson_odds",
    "lesson_verdict",
    "max_runs",
    "rate_share",
    "repeat_chart",
    "repeat_lesson",
    "repeat_summary",
    "repeat_verdict",
    "resolve_settings",
    "run_lesson",
    "takeaways",
]

LESSON_STEPS = 500
"""The lesson's exercise: 500 random steps..."""
LESSON_NUM_ENVS = (4, 8)
"""...with 4 envs, then with 8: do goals roughly double?"""

RUN_CHOICES = (1, 10, 100, 1_000, 3_000)
"""How many times exercise 1's answer repeats the lesson's experiment (a select, not a
slider: the useful values span three orders of magnitude)."""
DEFAULT_RUNS = 3_000
"""Enough that the 95% intervals of 4 and 8 envs lie well apart (about 136 goals expected
in all at 4 envs, 272 at 8), in about a second on the native env."""

SPECS = (
    IntSetting("seed", "Seed", 0, 0, 9_999),
    IntSetting("runs", "Runs of each", DEFAULT_RUNS, 1, max(RUN_CHOICES)),
)


def max_runs(caps: Caps = CAPS) -> int:
    """Most runs of each that fit one sweep's env-step cap (4 and 8 envs x 500 steps each)."""
    return caps.max_sweep_env_steps // (sum(LESSON_NUM_ENVS) * LESSON_STEPS)


def resolve_settings(values: Mapping[str, Any], caps: Caps = CAPS) -> tuple[dict, list[str]]:
    """The page's seed and runs, with a note if the runs were lowered to fit the cap.

    Example:
        >>> resolve_settings({"seed": 3, "runs": 100})
        ({'seed': 3, 'runs': 100}, [])
    """
    runs, notes = int(values["runs"]), []
    if runs > max_runs(caps):
        notes.append(
            f"{runs:,} runs of each is over this app's limit of {max_runs(caps):,}: using that."
        )
        runs = max_runs(caps)
    return {"seed": int(values["seed"]), "runs": runs}, notes


# --- The lesson's experiment, once ------------------------------------------------------------
# The lesson's own goal experiment (4 and 8 envs x 500 steps): prediction, verdict, takeaways.
#
# The lesson says 8 envs reach the goal roughly twice as often as 4. That is true of the
# *expected* count, but at 2,000 and 4,000 env-steps the counts are so small that one run
# almost always shows 0 goals either way: "true, but not visible as set up".

GOAL_OPTIONS = ("0", "1 or 2", "3 to 10", "more than 10")
"""The prediction's answers: how many goals 4 envs x 500 steps give."""

VISIBLE_GOALS = 12.0
"""Expected goals at 4 envs from which one run of 4 and one of 8 envs show the doubling:
the gap between the two means (λ) is then twice the noise of their difference (√(3λ))."""


def goal_bucket(goals: int) -> str:
    """The prediction option a goal count falls in.

    >>> [goal_bucket(g) for g in (0, 2, 3, 10, 11)]
    ['0', '1 or 2', '3 to 10', '3 to 10', 'more than 10']
    """
    if goals < 0:
        raise ValueError(f"`goals` must be >= 0, got {goals!r}")
    if goals == 0:
        return GOAL_OPTIONS[0]
    if goals <= 2:
        return GOAL_OPTIONS[1]
    if goals <= 10:
        return GOAL_OPTIONS[2]
    return GOAL_OPTIONS[3]


@dataclass(frozen=True)
class LessonRun:
    """One run of the lesson's experiment: goals and finished episodes with 4 and with 8 envs."""

    seed: int
    goals: dict[int, int]
    episodes: dict[int, int]


def run_lesson(seed: int = 0, backend: str = "sync") -> LessonRun:
    """Run the lesson's experiment live: 500 random steps with 4, then 8 BurgerBots."""
    frame = goal_scaling(LESSON_NUM_ENVS, LESSON_STEPS, seeds=[seed], backend=backend)
    return LessonRun(
        seed,
        {int(n): int(g) for n, g in zip(frame["num_envs"], frame["goals"], strict=True)},
        {int(n): int(e) for n, e in zip(frame["num_envs"], frame["episodes"], strict=True)},
    )


def lesson_odds() -> tuple[GoalOdds, GoalOdds]:
    """The lesson's runs (500 calls with 4 envs, with 8), exact from `burgerbot.random_agent`."""
    four, eight = LESSON_NUM_ENVS
    return goal_odds(LESSON_STEPS, four), goal_odds(LESSON_STEPS, eight)


def check_explanation(run: LessonRun) -> str:
    """Why the live run gave what it gave: how rare a goal is (exact, from the world's rules)."""
    return (
        f"A random robot reaches the goal about once per {1 / long_run_goal_rate():,.0f} "
        "env-steps (exact)."
    )


def lesson_verdict(odds: tuple[GoalOdds, GoalOdds] | None = None) -> tuple[str, str]:
    """The kind of verdict on "8 envs give roughly double the goals" (a `VERDICTS` key) and why.

    ``odds``: the two runs' `GoalOdds` (default: the lesson's, `lesson_odds`).

    Example:
        >>> lesson_verdict()[0]
        'not_visible'
        >>> lesson_verdict((goal_odds(500_000, 4), goal_odds(500_000, 8)))[0]
        'holds'
    """
    four_odds, eight_odds = odds or lesson_odds()
    four, eight = four_odds.expected_goals, eight_odds.expected_goals
    average = (
        f"True on average (exact: {LESSON_NUM_ENVS[0]} envs expect {four:.4f} goals, "
        f"{LESSON_NUM_ENVS[1]} envs {eight:.4f})"
    )
    if four < VISIBLE_GOALS:
        return "not_visible", (
            f"{average}, but one run shows none {four_odds.chance_of_none:.1%} of the time "
            f"with {LESSON_NUM_ENVS[0]} envs, {eight_odds.chance_of_none:.1%} with "
            f"{LESSON_NUM_ENVS[1]}."
        )
    noise = math.sqrt(four + eight)
    return "holds", (
        f"{average}. Counts this large differ by about {eight - four:.3g}, against noise of "
        f"about ±{noise:.2g}: one run each shows the doubling."
    )


def takeaways(run: LessonRun, doubled: bool | None = None) -> list[str]:
    """The page's key takeaways: counting goals, where "goals follow the env-steps" holds, and
    what the repeated runs showed (if they ran)."""
    four, eight = LESSON_NUM_ENVS
    one_run = f"One run of {LESSON_STEPS} steps mostly shows 0 goals, with {four} envs or {eight}"
    last = {
        None: f"{one_run}.",
        True: f"{one_run}: averages over many runs show the doubling.",
        False: f"{one_run}: your repeated runs could not tell them apart either; more runs would.",
    }[doubled]
    return [
        "Count goals with `rewards == 50.0`: one `step()` of N envs gives N env-steps.",
        _env_steps_takeaway(),
        last,
    ]


SHORT_RUN = 50
"""A run per env 10 times shorter than the lesson's: long next to the fewest steps a goal
takes, yet far from enough for the goals to follow the env-steps."""


def rate_share(steps_per_env: int) -> float:
    """Goals per env-step of a run of ``steps_per_env`` calls, as a share of the long-run rate
    (exact): episodes still going when the run stops lose their goals."""
    expected = goal_odds(steps_per_env, 1).expected_goals
    return expected / (steps_per_env * long_run_goal_rate())


def _env_steps_takeaway() -> str:
    """Where "goals follow the env-steps, not the number of envs" holds, in exact figures."""
    return (
        "Goals follow the env-steps collected, not the number of envs, only while each env's "
        f"run is long: per env-step, runs of {LESSON_STEPS} steps reach "
        f"{rate_share(LESSON_STEPS):.0%} of the long-run goal rate, runs of {SHORT_RUN} steps "
        f"{rate_share(SHORT_RUN):.0%}, runs under {fewest_steps_to_goal()} steps none."
    )


def lesson_expectations() -> pd.DataFrame:
    """The lesson's runs, exact: one row per NUM_ENVS with its env-steps, expected goals and
    the chance of a run with no goal (`burgerbot.random_agent.goal_odds`)."""
    rows = []
    for n in LESSON_NUM_ENVS:
        odds = goal_odds(LESSON_STEPS, n)
        rows.append(
            {
                "num_envs": n,
                "steps_per_env": LESSON_STEPS,
                "env_steps": n * LESSON_STEPS,
                "expected_goals": odds.expected_goals,
                "p_zero": odds.chance_of_none,
                "expected_zero_runs": odds.chance_of_none,
            }
        )
    return pd.DataFrame(rows)


# --- Exercise 1: the lesson's experiment, thousands of times ------------------------------------
#
# One run of 500 steps almost always shows 0 goals: to see whether 8 envs reach about twice
# the goals of 4, repeat the run many times and compare the means. The robots never
# interact, so one native env of RUNS x 4 robots, grouped 4 by 4, is RUNS runs of 4 envs:
# the same counts, a few hundred times faster than RUNS separate vector envs.


def goals_per_robot(
    num_robots: int,
    steps: int,
    seed: int,
    on_step: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Goals each of ``num_robots`` random BurgerBots reaches in ``steps`` step() calls.

    Actions are drawn one row per call, ``np.random.default_rng(seed).integers(0, 4, ...)``,
    as the page's script draws them (the same numbers as drawing them all at once).
    ``on_step(done)`` is called every 100 calls; raising from it stops the run (the env is
    closed).
    """
    envs = BurgerBotVectorEnv(num_robots)
    try:
        envs.reset(seed=seed)
        rng = np.random.default_rng(seed)
        goals = np.zeros(num_robots, dtype=np.int64)
        for step in range(steps):
            _, rewards, _, _, _ = envs.step(rng.integers(0, 4, size=num_robots))
            goals += rewards == world.GOAL_REWARD
            if on_step is not None and (step + 1) % 100 == 0:
                on_step(step + 1)
        return goals
    finally:
        envs.close()


@dataclass(frozen=True)
class RepeatedRuns:
    """Exercise 1's answer: goals per run for each NUM_ENVS, over ``runs`` runs of 500 steps."""

    runs: int
    seed: int
    goals: dict[int, np.ndarray]
    seconds: float

    @property
    def env_steps(self) -> int:
        return sum(n * LESSON_STEPS * self.runs for n in self.goals)


def repeat_lesson(
    runs: int,
    seed: int = 0,
    progress: Callable[[float, str], None] | None = None,
) -> RepeatedRuns:
    """Run the lesson's experiment ``runs`` times with 4 envs and ``runs`` times with 8."""
    if runs < 1:
        raise ValueError(f"`runs` must be >= 1, got {runs!r}")
    start = time.perf_counter()
    goals = {}
    for i, n in enumerate(LESSON_NUM_ENVS):

        def report(done: int, i: int = i, n: int = n) -> None:
            if progress is not None:
                fraction = (i + done / LESSON_STEPS) / len(LESSON_NUM_ENVS)
                progress(fraction, f"{runs:,} runs of {n} envs")

        per_robot = goals_per_robot(runs * n, LESSON_STEPS, seed, report)
        goals[n] = per_robot.reshape(runs, n).sum(axis=1)
    return RepeatedRuns(runs, seed, goals, time.perf_counter() - start)


def repeat_summary(result: RepeatedRuns) -> pd.DataFrame:
    """One row per NUM_ENVS: mean goals per run with its exact 95% interval, the exact
    expectation, and how many runs saw 0, 1 and 2 or more goals."""
    rows = []
    for n, per_run in result.goals.items():
        total = int(per_run.sum())
        low, high = (bound / result.runs for bound in poisson_interval(total))
        odds = goal_odds(LESSON_STEPS, n)
        rows.append(
            {
                "num_envs": n,
                "runs": result.runs,
                "total_goals": total,
                "mean_goals": total / result.runs,
                "low": low,
                "high": high,
                "expected_goals": odds.expected_goals,
                "zero_runs": int(np.sum(per_run == 0)),
                "one_runs": int(np.sum(per_run == 1)),
                "more_runs": int(np.sum(per_run >= 2)),
                "p_zero": odds.chance_of_none,
            }
        )
    return pd.DataFrame(rows)


def repeat_verdict(summary: pd.DataFrame) -> tuple[bool, str]:
    """Exercise 1's answer read off the repeated runs: (doubling shown, the sentence).

    Shown when the 95% intervals of the mean goals per run at 4 and 8 envs lie apart.
    """
    rows = summary.set_index("num_envs")
    # One row per NUM_ENVS (`repeat_summary`): each is a row, not a frame.
    four, eight = (cast(pd.Series, rows.loc[n]) for n in LESSON_NUM_ENVS)
    runs = int(four["runs"])
    exact = eight["expected_goals"] / four["expected_goals"]
    if four["high"] < eight["low"]:
        ratio = eight["mean_goals"] / four["mean_goals"]
        return True, (
            f"**Yes, roughly double, on average.** Over {counted(runs, 'run')} each, 8 envs "
            f"reached **{ratio:.2f}×** the goals of 4 (exact: {exact:.2f}×); the intervals lie "
            "apart: more than chance."
        )
    return False, (
        f"**{counted(runs, 'run')} of each cannot tell:** the intervals of 4 and 8 envs overlap "
        f"(exact: {exact:.2f}×). Pick more runs."
    )


def repeat_chart(summary: pd.DataFrame) -> alt.LayerChart:
    """Mean goals per run for 4 and 8 envs: a dot with its 95% interval, and the exact value
    as a blue tick. No legend: the caption under it names the marks."""
    data = summary.assign(label=[f"{n} envs" for n in summary["num_envs"]])
    y = alt.Y("label:N", title=None, sort=None, axis=alt.Axis(labelFontSize=13))
    x_title = "goals per run (mean, 95% interval)"
    tooltip = [
        alt.Tooltip("label:N", title="NUM_ENVS"),
        alt.Tooltip("mean_goals:Q", title="mean", format=".4f"),
        alt.Tooltip("low:Q", title="95% low", format=".4f"),
        alt.Tooltip("high:Q", title="95% high", format=".4f"),
        alt.Tooltip("expected_goals:Q", title="exact", format=".4f"),
    ]
    base = alt.Chart(data).encode(y=y, tooltip=tooltip)
    interval = base.mark_rule(strokeWidth=3, color=OKABE_ITO[7]).encode(
        x=alt.X("low:Q", title=x_title, scale=alt.Scale(zero=True), axis=alt.Axis(tickCount=4)),
        x2="high:Q",
    )
    mean = base.mark_point(size=120, filled=True, shape="diamond", color=OKABE_ITO[7]).encode(
        x="mean_goals:Q"
    )
    exact = base.mark_tick(thickness=3, size=30, color=OKABE_ITO[3]).encode(x="expected_goals:Q")
    # `alt.layer` makes a FacetChart only of layers sharing a row, column or facet encoding.
    return cast(alt.LayerChart, alt.layer(interval, exact, mean)).properties(
        height=150,
        description=(
            "Goals per run (x) for 4 and 8 envs (y): black diamonds are the mean, black bars "
            "the 95% interval, blue ticks the exact value."
        ),
    )
