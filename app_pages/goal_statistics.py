"""Goal statistics (going further): expected goals, 95% intervals, NUM_ENVS sweeps, and
Sync and native counting the same goals."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import backend_label
from burgerbot.app.logic.goal_statistics import (
    AGREEMENT_OPTIONS,
    BACKEND_LABELS,
    BUDGET_LABELS,
    LESSON_STEPS,
    METRIC_TITLES,
    SPECS,
    TARGET_GOALS,
    GoalRate,
    ScalingSettings,
    SweepResult,
    agreement_answer,
    budget_reading,
    chart_data,
    check_budget,
    compare_backends,
    comparison_settings,
    doubling_verdict,
    expectations,
    interleaved_check,
    lesson_expectations,
    measure_goal_rate,
    rate_check,
    rate_reading,
    resolve_settings,
    run_sweep,
    scaling_panel,
    speed_reading,
    summarise,
    sweep_cap,
    takeaways,
    to_csv,
    try_this,
)
from burgerbot.app.scripts.goal_statistics import snippet_for
from burgerbot.app.settings import powers_of_two
from burgerbot.app.slots import HEAVY_RUNS, ServerBusy
from burgerbot.random_agent import long_run_goal_rate

PAGE = "goal_statistics"
RESULTS = f"_{PAGE}_results"  # this session's sweeps: "last", and the last one per backend


@st.cache_data(max_entries=1, show_spinner=False)
def reference_rate(_by: str = "") -> tuple[GoalRate, measured.Measured]:
    # Shared by every visitor: the caption says when and where it was measured.
    return measured.measure(measure_goal_rate, ("numpy", "gymnasium"), _by)


@st.cache_data(max_entries=6, show_spinner=False)
def cached_sweep(settings: ScalingSettings) -> SweepResult:
    # A big sweep takes a server-wide slot; with none free, ServerBusy says the wait.
    with (
        measured.progress_bar(f"{backend_label(settings.backend)} sweep: ") as report,
        HEAVY_RUNS.hold(settings.planned_env_steps, settings.planned_step_calls),
    ):
        return run_sweep(settings, report)


@st.cache_data(max_entries=4, show_spinner=False)
def cached_check(settings: ScalingSettings) -> tuple[SweepResult, SweepResult]:
    # Section 4's quick check: Sync and native run by run in turns, so that their times
    # may be compared. One backend runs at a time: the slot is that of one sweep.
    with (
        measured.progress_bar("Sync and native, in turns: ") as report,
        HEAVY_RUNS.hold(settings.planned_env_steps, settings.planned_step_calls),
    ):
        return interleaved_check(settings, report)


# --- The page's drawing blocks: expectations, controls, results and the Sync check ---------


def percent(p: float) -> str:
    """A chance as a percentage: one decimal, as every page gives these; two near 0% and 100%."""
    return f"{p:.1%}" if 0.01 <= p <= 0.99 else f"{p:.2%}"


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
    rate: GoalRate | None,
    settings: ScalingSettings,
    key: Mapping[str, str],
    button_key: str,
    measured_caption: str = "",
) -> None:
    """Section 1: the lesson's expected goals (exact), the measured rate checking them, and the
    "try this" button.

    Args:
        rate: The goal rate measured live, a check on the exact figures (None if it failed).
        settings: The page's current settings (the suggestion keeps their total budget).
        key: The settings' widget keys, which the "try this" button fills in.
        button_key: The "try this" button's key.
        measured_caption: When and where the rate was measured.
    """
    exact = long_run_goal_rate()
    st.markdown(
        "Worked out exactly from the world's rules (the robot's 196 states, each random "
        "action with chance 1/4, and NEXT_STEP's auto-reset row after each episode): in the "
        f"long run a random BurgerBot reaches the goal **once every {1 / exact:,.0f} "
        f"{term_link('env-step', 'env-steps')}**. Short runs get less: the goal is at least "
        "14 steps from the start."
    )
    if rate is not None:
        st.markdown(rate_check(rate))
        if measured_caption:
            st.caption(measured_caption)
    lesson = lesson_expectations()
    four, eight = lesson.itertuples(index=False)
    both_zero = four.p_zero * eight.p_zero
    c4, c8, cboth = st.columns(3)
    c4.metric(
        "4 envs × 500 steps: expected goals",
        f"{four.expected_goals:.4f}",
        f"chance of seeing 0: {percent(four.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    c8.metric(
        "8 envs × 500 steps: expected goals",
        f"{eight.expected_goals:.4f}",
        f"chance of seeing 0: {percent(eight.p_zero)}",
        delta_color="off",
        delta_arrow="off",
    )
    cboth.metric("Chance that both runs show 0 goals", percent(both_zero))
    st.markdown(
        f"4 envs × {LESSON_STEPS} steps is {four.env_steps:,} env-steps. Following the "
        "chance of every state call by call, episode after episode (each ended episode "
        "costs one reset row), gives "
        f"{four.expected_goals:.4f} goals expected and a chance of seeing **none** of "
        f"{percent(four.p_zero)}. That is less than {four.env_steps:,} env-steps at the "
        "long-run rate would give, as no episode can reach the goal in its first 13 "
        f"steps. With 8 envs the expected count doubles to {eight.expected_goals:.4f}; "
        f"the chance that both runs show 0 is {percent(four.p_zero)} × "
        f"{percent(eight.p_zero)} = {percent(both_zero)}."
    )
    suggestion = try_this(settings)
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
    # The list on a row of its own: beside the backend it scrolled, hiding its last values.
    st.multiselect(
        SPECS[0].label,
        options,
        key=key["n"],
        help=f"Powers of two up to {CAPS.max_envs}; other values can be given in the URL (n=3,5).",
    )
    col_backend, col_budget, col_steps, col_total, col_seeds = st.columns([3, 2, 2, 2, 3])
    col_backend.radio(
        "Backend",
        tuple(BACKEND_LABELS),
        key=key["backend"],
        format_func=BACKEND_LABELS.get,
        help=(
            "Sync steps each robot in a Python loop; native (BurgerBotVectorEnv, this "
            "project's class, not Gymnasium's) moves them all with numpy arrays. Async "
            "starts a process per env: see the Sync vs Async page."
        ),
    )
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
    ui.number_setting(
        col_steps,
        "Steps per env",
        SPECS[1],
        key,
        step=100,
        disabled=settings.budget != "per_env",
        help="step() calls per run (the lesson uses 500).",
    )
    ui.number_setting(
        col_total,
        "Env-steps per run",
        SPECS[2],
        key,
        step=1000,
        disabled=settings.budget != "total",
        help="Each NUM_ENVS gets this many env-steps: total ÷ NUM_ENVS step() calls.",
    )
    col_seeds.slider(
        "Seeds per NUM_ENVS",
        1,
        CAPS.max_seeds,
        key=key["seeds"],
        help=f"More seeds give a tighter interval. At most {CAPS.max_seeds} on this app.",
    )


def sweep_plan(settings: ScalingSettings) -> None:
    """The sweep's size against its cap, and the goals to expect per run (exact)."""
    cap = sweep_cap(settings.backend)
    runs = len(settings.num_envs) * settings.seeds
    st.caption(
        f"This sweep: {len(settings.num_envs)} NUM_ENVS value(s) × {settings.seeds} seed(s) = "
        f"{runs} runs, **{settings.planned_env_steps:,} env-steps** in total (this app's cap "
        f"for {backend_label(settings.backend)}: {cap:,})."
    )
    expected = expectations(settings)
    zero_runs = f"expected runs with 0 goals (of {settings.seeds})"  # an expectation, not a count

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
                "expected goals": st.column_config.NumberColumn(format="%.4f"),
                "chance of 0 goals": st.column_config.NumberColumn(format="percent"),
                zero_runs: st.column_config.NumberColumn(format="%.1f"),
            },
        )

    with st.expander("Expected goals per run for these settings"):
        table()


def _no_goal_warning(summary: pd.DataFrame, seeds: int) -> None:
    """A sweep that saw no goal at all: how likely that was (exact)."""
    if summary["mean_goals"].sum() > 0:
        return
    expected = float((summary["expected_goals"] * seeds).sum())
    st.warning(
        f"This sweep saw **no goal at all**. Worked out exactly, it expected {expected:.2f} "
        "goals in all; every run showing none is no surprise with counts this small."
    )


def results_panel(last: SweepResult, settings: ScalingSettings, download_key: str) -> None:
    """Section 3: the last sweep's charts (with their tables), what they show, and the CSV."""
    if last.settings != settings:
        st.info(
            f"These results are for the previous settings ({last.settings.describe()}). "
            "Press **Run sweep** to run the new ones."
        )
    runs = last.frame
    st.markdown(show_time(last))
    summary = summarise(runs)
    _no_goal_warning(summary, last.settings.seeds)
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
        "Dots: the runs' counts (one run per seed), bigger where several runs gave the same "
        "count. Diamond and bar: the mean over the seeds and its 95% interval. Dashed line: "
        "for goals the expected count, worked out exactly from the world's rules; for "
        "episodes, counts in proportion to env-steps at the sweep's own episode rate. "
        "NUM_ENVS is on a log scale: each tick is double the one before."
    )
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


def agreement_panel(
    sync_result: SweepResult, native_result: SweepResult, *, interleaved: bool
) -> None:
    """Section 4's verdict: identical counts on Sync and native, their times, the runs.

    ``interleaved``: the two ran run by run in turns (the quick check), so their times
    may be compared; two sweeps run at different moments may not."""
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
    st.markdown(
        f"- {show_time(sync_result)}\n- {show_time(native_result)}\n\n"
        f"{speed_reading(sync_result.frame, native_result.frame, interleaved=interleaved)}"
    )
    st.dataframe(
        side_by_side.rename(columns={"num_envs": "NUM_ENVS", "env_steps": "env-steps"}),
        hide_index=True,
    )


# --- The page, top to bottom ---------------------------------------------------------------------
visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="The statistics behind goal counts",
    intro=(
        "This page assumes you have done Goal scaling. You will learn where the expected "
        "goal counts come from, how a 95% interval of a rare count is computed, how goals "
        "change across many NUM_ENVS values, and whether the fast native env counts the "
        "same goals as SyncVectorEnv."
    ),
    topics=[
        "Expected goals and the chance of none, exactly",
        "Poisson counts and their 95% intervals",
        "A sweep over NUM_ENVS: same steps per env or same total",
        "Sync and native count the same goals",
    ],
    links=["Gymnasium vector API", "Auto-reset modes"],
)
# Resolved before the widgets exist, so the widgets show the values really used.
settings = frame.resolve(
    resolve_settings, lambda s: {"n": list(s.num_envs), "total": s.total_env_steps}
)

PID = f"{PAGE}_agreement"
learning.prediction(
    PID,
    "The sweeps below can run on SyncVectorEnv or on `BurgerBotVectorEnv`, this project's "
    "native vector env that moves every robot with numpy arrays. Given the same seeds (the "
    "same random actions), how do their goal counts compare?",
    AGREEMENT_OPTIONS,
)
results: dict[str, SweepResult] = st.session_state.setdefault(RESULTS, {})
revealed = learning.revealed(PID)

try:
    with st.spinner("Measuring how often a random robot reaches the goal (a second or two)…"):
        rate, rate_record = reference_rate(visit.visitor)
except Exception as error:  # the rest of the page still works without it
    st.error(f"Could not measure the goal rate: {type(error).__name__}: {error}")
    rate = None

# --- 1. What to expect ---------------------------------------------------------------------
st.header("1. Expected goals and the chance of none")
expectations_panel(
    rate,
    settings,
    frame.key,
    button_key=f"{PAGE}_try_this",
    measured_caption=rate_record.caption("Measured", visit=visit) if rate is not None else "",
)

# --- 2. Run a sweep ------------------------------------------------------------------------
st.header("2. A sweep over NUM_ENVS")
st.write(
    "Pick the NUM_ENVS values to compare and how long each run is. Every NUM_ENVS runs "
    "once per seed (seeds 0, 1, 2, …), with the same random actions on either backend. "
    "Nothing runs until you press **Run sweep**."
)
sweep_controls(settings, frame.key)
frame.settings_done()
sweep_plan(settings)

refusal = check_budget(settings)
if refusal:
    st.error(refusal, icon="🛑")
if st.button("Run sweep", key=f"{PAGE}_run", type="primary", disabled=refusal is not None):
    try:
        result = cached_sweep(settings)
    except ServerBusy as busy:
        st.warning(str(busy), icon="⏳")
    except Exception as error:  # show it; the page keeps working
        st.error(f"The sweep failed: {type(error).__name__}: {error}")
    else:
        results["last"] = results[settings.backend] = result

# --- 3. Results ----------------------------------------------------------------------------
st.header("3. Results")
last = results.get("last")
if last is None:
    st.info("Press **Run sweep** to run the experiment with the settings above.")
else:
    results_panel(last, settings, download_key=f"{PAGE}_download")

# --- 4. Sync and native ---------------------------------------------------------------------
st.header("4. Sync and native, side by side")
if not revealed:
    st.caption("🔮 Lock in or skip the prediction at the top of the page to see this check.")
else:
    sync_result, native_result = results.get("sync"), results.get("native")
    both_ran = (
        sync_result is not None
        and native_result is not None
        and replace(sync_result.settings, backend="native") == native_result.settings
    )
    if not both_ran:
        small = comparison_settings(settings)
        st.caption(
            f"A quick check on both backends ({small.describe(backend=False)}); run the same "
            "sweep above on both to compare that instead."
        )
        try:
            sync_result, native_result = cached_check(small)
        except ServerBusy as busy:
            st.warning(str(busy), icon="⏳")
            sync_result = native_result = None
        except Exception as error:
            st.error(f"The check failed: {type(error).__name__}: {error}")
            sync_result = native_result = None
    if sync_result is not None and native_result is not None:
        side_by_side = compare_backends(sync_result.frame, native_result.frame)
        learning.check(
            PID,
            agreement_answer(side_by_side),
            "Native takes the same random actions through the same world rules, so every "
            "goal, hit and episode matches run by run; it only skips the Python loop over envs.",
        )
        agreement_panel(sync_result, native_result, interleaved=not both_ran)

ui.code_expander(
    snippet_for(settings),
    label="Code: this sweep as a script you can run",
    name="the goal-scaling sweep",
)
st.caption(
    "The sweep script prints one line per NUM_ENVS and seed: the same numbers as the page's "
    "CSV for these settings."
)
frame.takeaways(takeaways(), after=PID)
