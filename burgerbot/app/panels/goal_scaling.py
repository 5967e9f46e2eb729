"""The "Goal scaling" page's drawing blocks: predictions, controls, results and the Sync check."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from burgerbot.app.caps import CAPS
from burgerbot.app.charts.goal_scaling import scaling_panel
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
from burgerbot.app.views.goal_scaling_summary import (
    chart_data,
    doubling_verdict,
    summarise,
    to_csv,
)

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
    rate: GoalRate, settings: ScalingSettings, key: Mapping[str, str], button_key: str
) -> None:
    """Section 1: the measured rate, the lesson's expected goals and the "try this" button.

    Args:
        rate: The goal rate measured live (with at least one goal).
        settings: The page's current settings (the suggestion keeps their total budget).
        key: The settings' widget keys, which the "try this" button fills in.
        button_key: The "try this" button's key.
    """
    low, high = rate.interval
    st.markdown(
        f"Just now, {rate.source} took {rate.env_steps:,} env-steps and reached the goal "
        f"**{rate.goals}** times: about **one goal every {rate.steps_per_goal:,.0f} "
        f"env-steps** (rate {rate.rate:.2e} per env-step; 95% interval "
        f"{low:.2e} to {high:.2e}). It took {rate.seconds:.1f} s."
    )
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
    st.markdown(
        f"4 envs × {LESSON_STEPS} steps is {four.env_steps:,} env-steps, so you expect "
        f"{four.expected_goals:.3f} goals. Goal counts follow a Poisson distribution, so "
        f"the chance of seeing **none** is exp(−{four.expected_goals:.3f}) = "
        f"{percent(four.p_zero)}. With 8 envs the expected count doubles, but it is still "
        f"tiny, and {percent(both_zero)} of the time you compare 0 with 0. "
        '**"Roughly double" is true of the expected count; 500 steps are far too few '
        "to see it.**"
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
                "becomes visible. Sync would be slow here: the button picks native."
            )
            st.button(
                f"Set up: NUM_ENVS 4 and 8, {steps:,} steps per env, {suggestion.seeds} "
                "seeds, native",
                key=button_key,
                on_click=_apply_settings,
                args=(key, suggestion),
            )
    st.caption(
        "An env-step is one step of one robot: a step() call with N envs makes N env-steps. "
        "In gymnasium's default auto-reset mode, the step() call after an episode ends only "
        "resets that robot; those calls count as env-steps too, as in the lesson's loop."
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
            "Both give identical counts for the same seeds (checked in section 4). Sync steps "
            "each robot in a Python loop; native moves them all with numpy arrays. Async gives "
            "the same counts too, but starts a process per env: see the Sync vs Async page."
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
    with st.expander("Expected goals per run for these settings", expanded=True):
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
        st.warning(
            f"This sweep saw **no goal at all** in {env_steps:,} env-steps, which is what the "
            "numbers above predict for short runs. The dashed line uses the rate measured "
            f"with the longer native run instead (one goal every {rate.steps_per_goal:,.0f} "
            "env-steps)."
        )
        return rate, "the longer native run's rate, as this sweep saw no goal"
    return None, ""


def results_panel(
    last: SweepResult, settings: ScalingSettings, rate: GoalRate | None, download_key: str
) -> None:
    """Section 3: the last sweep's charts, verdict, summary table and CSV download."""
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
    for metric in ("goals", "episodes"):
        st.altair_chart(scaling_panel(points, bands, metric), width="stretch")
    st.caption(
        "Each orange dot is one run (one seed), moved a little sideways so equal counts "
        "don't hide each other. The dark diamond is the mean over the seeds; the dark bar "
        "its 95% interval. For goals the interval is the exact Poisson (Garwood) interval "
        "of the total goals over the seeds, divided by the number of seeds: it is honest "
        "even when every run saw 0. For episodes it is the mean ± 1.96 standard errors "
        "across seeds. The dashed blue line is what you expect if counts grow in "
        f"proportion to env-steps ({rate_text}; for episodes, the sweep's episode rate). "
        "NUM_ENVS is on a log scale: each tick is double the one before."
    )
    verdict = doubling_verdict(summary)
    if verdict:
        st.markdown(f"**Did goals double?** {verdict}")
    if last.settings.budget == "total":
        st.markdown(
            "With the **same total env-steps** for every NUM_ENVS, the goal counts stay "
            "level: what matters is how many env-steps you collect, not how many envs "
            "collect them."
        )
    else:
        st.markdown(
            "With the **same steps per env**, doubling NUM_ENVS doubles the env-steps, so "
            "the *expected* goals double. Episodes are plentiful, so they visibly double; "
            "goals are rare, so short runs mostly show 0 and the noise hides the doubling."
        )
    _summary_table(summary, last.settings.seeds)
    st.caption(
        "Goals per 100k env-steps stays about the same for every NUM_ENVS: each env-step has "
        "the same small chance of a goal, however many envs share the step() call."
    )
    st.download_button(
        "Download the data behind the chart (CSV, one row per run)",
        data=to_csv(runs),
        file_name=f"goal_scaling_{last.settings.backend}.csv",
        mime="text/csv",
        key=download_key,
        icon="⬇️",
    )


def _summary_table(summary: pd.DataFrame, seeds: int) -> None:
    """One row per NUM_ENVS: mean goals with their interval, expected goals and episodes."""
    shown = summary.assign(
        interval=[f"{lo:.3g} to {hi:.3g}" for lo, hi in summary[["goals_low", "goals_high"]].values]
    )
    st.dataframe(
        shown[
            [
                "num_envs",
                "env_steps",
                "mean_goals",
                "interval",
                "expected_goals",
                "zero_goal_runs",
                "goals_per_100k_env_steps",
                "mean_episodes",
            ]
        ].rename(
            columns={
                "num_envs": "NUM_ENVS",
                "env_steps": "env-steps per run",
                "mean_goals": "mean goals",
                "interval": "95% interval",
                "expected_goals": "expected",
                "zero_goal_runs": f"runs with 0 (of {seeds})",
                "goals_per_100k_env_steps": "goals per 100k env-steps",
                "mean_episodes": "mean episodes",
            }
        ),
        hide_index=True,
        column_config={
            "mean goals": st.column_config.NumberColumn(format="%.3g"),
            "expected": st.column_config.NumberColumn(format="%.3g"),
            "env-steps per run": st.column_config.NumberColumn(format="localized"),
            "goals per 100k env-steps": st.column_config.NumberColumn(format="%.2f"),
            "mean episodes": st.column_config.NumberColumn(format="localized"),
        },
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
