"""The "Goal scaling" page's drawing blocks: predictions, controls, results and the Sync check."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.goal_scaling import METRIC_TITLES, scaling_panel
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import backend_label
from burgerbot.app.settings import powers_of_two
from burgerbot.app.views.goal_scaling import (
    BACKEND_LABELS,
    BUDGET_LABELS,
    LESSON_STEPS,
    SPECS,
    ScalingSettings,
    SweepResult,
    sweep_cap,
)
from burgerbot.app.views.goal_scaling_agreement import compare_backends
from burgerbot.app.views.goal_scaling_expectations import (
    TARGET_GOALS,
    GoalRate,
    expectations,
    lesson_expectations,
    try_this,
)
from burgerbot.app.views.goal_scaling_reading import budget_reading, rate_reading
from burgerbot.app.views.goal_scaling_summary import (
    chart_data,
    doubling_verdict,
    summarise,
    to_csv,
)
from burgerbot.statistics import poisson_zero_chance

__all__ = [
    "agreement_panel",
    "expectations_panel",
    "results_panel",
    "show_time",
    "sweep_controls",
    "sweep_plan",
]


def percent(p: float) -> str:
    """A chance as a percentage, with two decimals near 0% and 100% (where they matter)."""
    return f"{p:.0%}" if 0.01 <= p <= 0.99 else f"{p:.2%}"


def show_time(result: SweepResult) -> str:
    """How long a sweep took, in one markdown line."""
    return (
        f"**{backend_label(result.settings.backend)}** took **{result.wall_seconds:.1f} s** "
        f"for {result.env_steps:,} env-steps ({result.env_steps_per_second:,.0f} env-steps/s, "
        "creating and closing the envs included)"
    )


def _apply_settings(key: Mapping[str, str], settings: ScalingSettings) -> None:
    """Button callback: put a suggested experiment into the widgets."""
    st.session_state[key["n"]] = list(settings.num_envs)
    st.session_state[key["steps"]] = settings.steps_per_env
    st.session_state[key["seeds"]] = settings.seeds
    st.session_state[key["backend"]] = settings.backend
    st.session_state[key["budget"]] = settings.budget


def expectations_panel(
    rate: GoalRate,
    settings: ScalingSettings,
    key: Mapping[str, str],
    button_key: str,
    measured_caption: str = "",
) -> None:
    """Section 1: the measured rate, the lesson's expected goals and the "try this" button.

    Args:
        rate: The goal rate measured live (with at least one goal).
        settings: The page's current settings (the suggestion keeps their total budget).
        key: The settings' widget keys, which the "try this" button fills in.
        button_key: The "try this" button's key.
        measured_caption: When and where the rate was measured.
    """
    low, high = rate.interval
    st.markdown(
        f"{rate.source[0].upper() + rate.source[1:]} took {rate.env_steps:,} "
        f"{term_link('env-step', 'env-steps')} "
        f"and reached the goal **{rate.goals}** times: about **one goal every "
        f"{rate.steps_per_goal:,.0f} env-steps** (rate {rate.rate:.2e} per env-step; 95% "
        f"interval {low:.2e} to {high:.2e}). It took {rate.seconds:.1f} s."
    )
    if measured_caption:
        st.caption(measured_caption)
    lesson = lesson_expectations(rate.rate)
    four, eight = lesson.itertuples(index=False)
    both_zero = four.p_zero * eight.p_zero
    c4, c8, cboth = st.columns(3)
    c4.metric(
        "4 envs × 500 steps: expected goals",
        f"{four.expected_goals:.3f}",
        f"chance of seeing 0: {percent(four.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    c8.metric(
        "8 envs × 500 steps: expected goals",
        f"{eight.expected_goals:.3f}",
        f"chance of seeing 0: {percent(eight.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    cboth.metric("Chance that both runs show 0 goals", percent(both_zero))
    with st.expander("The maths: expected goals and the chance of none"):
        st.markdown(
            f"4 envs × {LESSON_STEPS} steps is {four.env_steps:,} env-steps, so you expect "
            f"rate × env-steps = {four.expected_goals:.3f} goals. A count of rare, independent "
            "events is close to a Poisson distribution, so the chance of seeing **none** is "
            f"exp(−{four.expected_goals:.3f}) = {percent(four.p_zero)}. With 8 envs the "
            f"expected count doubles to {eight.expected_goals:.3f}; the chance that both "
            f"runs show 0 is {percent(four.p_zero)} × {percent(eight.p_zero)} = "
            f"{percent(both_zero)}."
        )
    suggestion = try_this(settings, rate.rate)
    if suggestion is not None:
        with st.container(border=True):
            steps = suggestion.steps_per_env
            st.markdown(
                f"💡 **Try this.** To expect about {TARGET_GOALS} goals with 4 envs you need "
                f"about **{steps:,} steps per env** ({4 * steps:,} env-steps). Then 8 envs "
                f"expect about {2 * TARGET_GOALS}. A Poisson count of {TARGET_GOALS} "
                f"usually lands within ±{2 * TARGET_GOALS**0.5:.0f} of it, so doubling "
                "should become visible. Sync would be slow here: the button picks native "
                "(`BurgerBotVectorEnv`, this project's class)."
            )
            st.button(
                f"Set up: NUM_ENVS 4 and 8, {steps:,} steps per env, {suggestion.seeds} "
                "seeds, native",
                key=button_key,
                on_click=_apply_settings,
                args=(key, suggestion),
            )


def sweep_controls(settings: ScalingSettings, key: Mapping[str, str]) -> None:
    """Section 2's widgets: NUM_ENVS values, backend, budget, steps and seeds."""
    options = sorted(set(powers_of_two(CAPS.max_envs)) | set(settings.num_envs))
    col_n, col_backend = st.columns([3, 2])
    col_n.multiselect(
        SPECS[0].label,
        options,
        key=key["n"],
        help=f"Powers of two up to {CAPS.max_envs}; other values can be given in the URL (n=3,5).",
    )
    col_backend.radio(
        "Backend",
        tuple(BACKEND_LABELS),
        key=key["backend"],
        format_func=BACKEND_LABELS.get,
        horizontal=True,
        help=(
            "Both give identical counts for the same seeds (checked below). Sync steps each "
            "robot in a Python loop; native (BurgerBotVectorEnv, this project's class, not "
            "Gymnasium's) moves them all with numpy arrays. Async starts a process per env: "
            "see the Sync vs Async page."
        ),
    )
    col_budget, col_steps, col_total, col_seeds = st.columns([3, 2, 2, 3])
    col_budget.radio(
        "Compare with",
        tuple(BUDGET_LABELS),
        key=key["budget"],
        format_func=BUDGET_LABELS.get,
        help=(
            "Same steps per env: more envs collect more env-steps (the lesson's question). "
            "Same total env-steps: every NUM_ENVS gets the same budget, split over its envs."
        ),
    )
    col_steps.number_input(
        "Steps per env",
        min_value=1,
        max_value=SPECS[1].high,
        step=100,
        key=key["steps"],
        disabled=settings.budget != "per_env",
        help="step() calls per run (the lesson uses 500).",
    )
    col_total.number_input(
        "Env-steps per run",
        min_value=1,
        max_value=SPECS[2].high,
        step=1000,
        key=key["total"],
        disabled=settings.budget != "total",
        help="Each NUM_ENVS gets this many env-steps: total ÷ NUM_ENVS step() calls.",
    )
    col_seeds.slider(
        "Seeds per NUM_ENVS",
        1,
        CAPS.max_seeds,
        key=key["seeds"],
        help=f"More seeds give a tighter interval. At most {CAPS.max_seeds} "
        "(BURGERBOT_MAX_SEEDS raises it).",
    )


def sweep_plan(settings: ScalingSettings, rate: GoalRate | None) -> None:
    """The sweep's size against its cap, and the goals to expect per run (with a rate)."""
    cap, cap_variable = sweep_cap(settings.backend)
    runs = len(settings.num_envs) * settings.seeds
    st.caption(
        f"This sweep: {len(settings.num_envs)} NUM_ENVS value(s) × {settings.seeds} seed(s) = "
        f"{runs} runs, **{settings.planned_env_steps:,} env-steps** in total (this app's cap "
        f"for {backend_label(settings.backend)}: {cap:,}, set by {cap_variable})."
    )
    if rate is None or rate.goals == 0:
        return
    expected = expectations(settings, rate.rate)
    zero_runs = f"runs with 0 goals (of {settings.seeds})"

    def table() -> None:
        st.dataframe(
            expected.rename(
                columns={
                    "num_envs": "NUM_ENVS",
                    "steps_per_env": "steps per env",
                    "env_steps": "env-steps per run",
                    "expected_goals": "expected goals",
                    "p_zero": "chance of 0 goals",
                    "expected_zero_runs": zero_runs,
                }
            ),
            hide_index=True,
            column_config={
                "steps per env": st.column_config.NumberColumn(format="localized"),
                "env-steps per run": st.column_config.NumberColumn(format="localized"),
                "expected goals": st.column_config.NumberColumn(format="%.3f"),
                "chance of 0 goals": st.column_config.NumberColumn(format="percent"),
                zero_runs: st.column_config.NumberColumn(format="%.1f"),
            },
        )

    # Drawn only while open: a dataframe costs the browser on every visit of the page.
    ui.lazy_expander("Expected goals per run for these settings", table)


def _line_rate(frame: pd.DataFrame, rate: GoalRate | None) -> tuple[GoalRate | None, str]:
    """The rate behind the dashed line: the sweep's own, else the reference run's (warned)."""
    goals, env_steps = int(frame["goals"].sum()), int(frame["env_steps"].sum())
    if goals > 0:
        line_rate = GoalRate(goals, env_steps, "this sweep")
        return line_rate, (
            f"this sweep's own rate: {goals:,} goals in {env_steps:,} env-steps, one every "
            f"{line_rate.steps_per_goal:,.0f}"
        )
    if rate is not None and rate.goals > 0:
        expected = rate.rate * env_steps
        st.warning(
            f"This sweep saw **no goal at all** in {env_steps:,} env-steps. At the measured "
            f"rate it expected {expected:.2f} goals in all, and 0 comes up "
            f"{percent(poisson_zero_chance(expected))} of the time. The dashed line uses the "
            f"rate of the longer native run instead (one goal every "
            f"{rate.steps_per_goal:,.0f} env-steps)."
        )
        return rate, "the longer native run's rate, as this sweep saw no goal"
    return None, ""


def results_panel(
    last: SweepResult, settings: ScalingSettings, rate: GoalRate | None, download_key: str
) -> None:
    """Section 3: the last sweep's charts (with their tables), what they show, and the CSV."""
    if last.settings != settings:
        st.info(
            f"These results are for the previous settings ({last.settings.describe()}). "
            "Press **Run sweep** to run the new ones."
        )
    runs = last.frame
    line_rate, rate_text = _line_rate(runs, rate)
    st.markdown(show_time(last))
    summary = summarise(runs, line_rate.rate if line_rate is not None else 0.0)
    points, bands = chart_data(runs, summary)
    seeds = last.settings.seeds
    left, right = st.columns(2)
    left.markdown(f"**{METRIC_TITLES['goals']}**")
    right.markdown(f"**{METRIC_TITLES['episodes']}**")
    with left:
        learning.chart_with_table(
            learning.chart_spec(scaling_panel, points, bands, "goals"),
            _goal_table(summary, seeds),
        )
    with right:
        learning.chart_with_table(
            learning.chart_spec(scaling_panel, points, bands, "episodes"),
            _episode_table(summary),
        )
    st.caption(
        "Dots: one run each (one seed), moved a little sideways so equal counts stay visible. "
        "Diamond and bar: the mean over the seeds and its 95% interval. Dashed line: counts "
        f"in proportion to env-steps ({rate_text}; for episodes, the sweep's episode rate). "
        "NUM_ENVS is on a log scale: each tick is double the one before."
    )
    with st.expander("How the 95% intervals are computed"):
        st.markdown(
            "- **Goals:** the exact Poisson (Garwood) interval of the total goals over the "
            "seeds, divided by the number of seeds. It stays honest when every run saw 0.\n"
            "- **Episodes:** the mean ± 1.96 standard errors across seeds (none with one seed).\n"
            "- Two NUM_ENVS *clearly differ* when their intervals do not overlap."
        )
    verdict = doubling_verdict(summary)
    if verdict:
        st.markdown(f"**Did goals double?** {verdict}")
    st.markdown(budget_reading(summary, last.settings.budget))
    rates = rate_reading(runs)
    if rates:
        st.caption(rates)
    st.download_button(
        "Download the data behind the chart (CSV, one row per run)",
        data=to_csv(runs),
        file_name=f"goal_scaling_{last.settings.backend}.csv",
        mime="text/csv",
        key=download_key,
        icon="⬇️",
    )


def _goal_table(summary: pd.DataFrame, seeds: int) -> pd.DataFrame:
    """One row per NUM_ENVS: mean goals with their interval, expected goals, rate."""
    return pd.DataFrame(
        {
            "NUM_ENVS": summary["num_envs"],
            "env-steps per run": summary["env_steps"].round().astype(int),
            "mean goals": summary["mean_goals"].round(4),
            "95% interval": [
                f"{lo:.3g} to {hi:.3g}" for lo, hi in summary[["goals_low", "goals_high"]].values
            ],
            "expected": summary["expected_goals"].round(4),
            f"runs with 0 (of {seeds})": summary["zero_goal_runs"],
            "goals per 100k env-steps": summary["goals_per_100k_env_steps"].round(2),
        }
    )


def _episode_table(summary: pd.DataFrame) -> pd.DataFrame:
    """One row per NUM_ENVS: mean finished episodes with their interval and expectation."""
    return pd.DataFrame(
        {
            "NUM_ENVS": summary["num_envs"],
            "env-steps per run": summary["env_steps"].round().astype(int),
            "mean episodes": summary["mean_episodes"].round(1),
            "95% low": summary["episodes_low"].round(1),
            "95% high": summary["episodes_high"].round(1),
            "expected": summary["expected_episodes"].round(1),
        }
    )


def agreement_panel(sync_result: SweepResult, native_result: SweepResult) -> None:
    """Section 4's verdict: identical counts on Sync and native, their times, the runs."""
    side_by_side = compare_backends(sync_result.frame, native_result.frame)
    if bool(side_by_side["identical"].all()):
        goals = int(side_by_side["goals_sync"].sum())
        st.success(
            f"All {len(side_by_side)} runs give identical goals, hits and episodes on Sync "
            f"and on native ({sync_result.settings.describe(backend=False)}; {goals} goals "
            "in all).",
            icon="✅",
        )
    else:
        st.error("Some runs differ between Sync and native: this is a bug, please report it.")
    speedup = sync_result.wall_seconds / native_result.wall_seconds
    st.markdown(
        f"- {show_time(sync_result)}\n- {show_time(native_result)}\n\n"
        f"native was **{speedup:,.1f}×** as fast here."
    )
    st.dataframe(
        side_by_side.rename(columns={"num_envs": "NUM_ENVS", "env_steps": "env-steps"}),
        hide_index=True,
    )
