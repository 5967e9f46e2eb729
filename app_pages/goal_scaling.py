"""Goal scaling: does doubling NUM_ENVS double the goals a random BurgerBot reaches?"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.labels import backend_label
from burgerbot.app.panels import goal_scaling as panels
from burgerbot.app.progress import ThrottledProgress
from burgerbot.app.scripts.goal_scaling import snippet_for
from burgerbot.app.views.goal_scaling import (
    SPECS,
    ScalingSettings,
    SweepResult,
    check_budget,
    resolve_settings,
    run_sweep,
)
from burgerbot.app.views.goal_scaling_agreement import comparison_settings
from burgerbot.app.views.goal_scaling_expectations import GoalRate, measure_goal_rate

PAGE = "goal_scaling"
RESULTS = f"_{PAGE}_results"  # this session's sweeps: "last", and the last one per backend


@st.cache_data(max_entries=1, show_spinner=False)
def reference_rate() -> GoalRate:
    return measure_goal_rate()


@st.cache_data(max_entries=6, show_spinner=False)
def cached_sweep(settings: ScalingSettings) -> SweepResult:
    # The bar lives inside the cached function, so a cache hit replays it and then clears
    # it again. Stopping the page raises from the bar's update, which ends the run and
    # closes every env.
    bar = st.empty()
    name = backend_label(settings.backend)

    def report(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"{name} sweep: {message} ({fraction:.0%})")

    try:
        return run_sweep(settings, ThrottledProgress(report))
    finally:
        bar.empty()


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Goal scaling: do more envs reach the goal more often?",
    intro=(
        "The lesson's first exercise: run 500 random steps with 4 BurgerBots, then with 8. Do "
        "the goal reaches roughly double? This page answers honestly. It measures how often a "
        "random robot reaches the goal, predicts what you should see, then lets you run the "
        "experiment with many seeds and see the counts and their uncertainty."
    ),
    topics=[
        "Exercise 1: NUM_ENVS = 8, 500 steps: do goals double?",
        "Counting goals: a reward of exactly 50",
        "Vectorised BurgerBot: steps collected per step() call",
        "Why one short run can't answer the question",
    ],
    links=["Gymnasium vector API", "Auto-reset modes"],
)
# Resolved before the widgets exist, so the widgets show the values really used.
settings = frame.resolve(
    resolve_settings, lambda s: {"n": list(s.num_envs), "total": s.total_env_steps}
)

# --- 1. What to expect ---------------------------------------------------------------------
st.header("1. What to expect, before running anything")
try:
    with st.spinner("Measuring how often a random robot reaches the goal (a second or two)…"):
        rate = reference_rate()
except Exception as error:  # the rest of the page still works without it
    st.error(f"Could not measure the goal rate: {type(error).__name__}: {error}")
    rate = None

if rate is not None and rate.goals > 0:
    panels.expectations_panel(rate, settings, frame.key, button_key=f"{PAGE}_try_this")
elif rate is not None:
    st.warning(
        f"{rate.source} saw no goal in {rate.env_steps:,} env-steps, so there is no rate to "
        "predict from; the sweep below still runs."
    )

# --- 2. Run a sweep ------------------------------------------------------------------------
st.header("2. Run the experiment")
st.write(
    "Pick the NUM_ENVS values to compare and how long each run is. Every NUM_ENVS runs "
    "once per seed (seeds 0, 1, 2, …), with the same random actions on either backend."
)
panels.sweep_controls(settings, frame.key)
frame.settings_done()
panels.sweep_plan(settings, rate)

refusal = check_budget(settings)
if refusal:
    st.error(refusal, icon="🛑")
results: dict[str, SweepResult] = st.session_state.setdefault(RESULTS, {})
if st.button("Run sweep", key=f"{PAGE}_run", type="primary", disabled=refusal is not None):
    try:
        result = cached_sweep(settings)
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
    panels.results_panel(last, settings, rate, download_key=f"{PAGE}_download")

# --- 4. Sync and native agree --------------------------------------------------------------
st.header("4. Sync and native count the same")
st.write(
    "The native vector env is not an approximation: given the same seeds it takes the same "
    "random actions and reaches exactly the same goals as SyncVectorEnv, only faster."
)
sync_result, native_result = results.get("sync"), results.get("native")
both_ran = (
    sync_result is not None
    and native_result is not None
    and replace(sync_result.settings, backend="native") == native_result.settings
)
if not both_ran:
    small = comparison_settings(settings)
    st.caption(
        "Run the same sweep on both backends to compare them, or run this quick check "
        f"({small.describe(backend=False)})."
    )
    if st.button("Run the quick check on Sync and on native", key=f"{PAGE}_compare"):
        try:
            sync_result = cached_sweep(replace(small, backend="sync"))
            native_result = cached_sweep(replace(small, backend="native"))
        except Exception as error:
            st.error(f"The check failed: {type(error).__name__}: {error}")
        else:
            results["check"] = (sync_result, native_result)
    sync_result, native_result = results.get("check", (None, None))
if sync_result is not None and native_result is not None:
    panels.agreement_panel(sync_result, native_result)

ui.code_expander(snippet_for(settings), label="Code: this sweep as a script you can run")
st.caption(
    "The script prints one line per NUM_ENVS and seed: the same numbers as the page's "
    "CSV for these settings."
)
