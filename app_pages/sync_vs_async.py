"""Sync vs Async: time SyncVectorEnv, AsyncVectorEnv and the native vector env, live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import ui
from burgerbot.app.panels import sync_vs_async as panels
from burgerbot.app.progress import ThrottledProgress
from burgerbot.app.scripts.sync_vs_async import snippet_for
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded
from burgerbot.app.views.sync_vs_async import (
    LESSON,
    SPECS,
    TimingSettings,
    check_budget,
    core_counts,
    plan,
    resolve_settings,
    run_timing,
    usable_cores,
)

PAGE = "sync_vs_async"
RESULTS = f"_{PAGE}_results"  # this session's latest "lesson" and "sweep" frames


@st.cache_data(max_entries=6, show_spinner=False)
def cached_timing(settings: TimingSettings) -> pd.DataFrame:
    # The bar lives inside the cached function: a cache hit replays it, then clears it.
    # Stopping the page raises from the bar's update; the run then closes its env.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"Timing {message} ({fraction:.0%})")

    try:
        return run_timing(settings, ThrottledProgress(report), budget=WORKER_BUDGET)
    finally:
        bar.empty()


def run(settings: TimingSettings, fresh: bool) -> pd.DataFrame | None:
    """The timing frame for ``settings`` (measured again when ``fresh``); None on failure."""
    if fresh:
        cached_timing.clear(settings)
    try:
        return cached_timing(settings)
    except BudgetExceeded as error:
        st.warning(str(error))
    except Exception as error:  # shown; the page keeps working
        st.error(f"The timing run failed: {type(error).__name__}: {error}")
    return None


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Sync vs Async: which vector env is faster?",
    intro=(
        "SyncVectorEnv steps its envs one after another in this process. AsyncVectorEnv gives "
        "each env its own worker process, so the envs can step at the same time, but every "
        "`step()` call has to send actions to the workers and collect their answers. The "
        "native vector env steps every robot at once with numpy. Which is fastest depends on "
        "how expensive one step is: measure it."
    ),
    topics=[
        "Exercise 2: AsyncVectorEnv vs SyncVectorEnv, 4 envs × 1,000 steps",
        "Why Sync wins for cheap pure-Python environments",
        "When one process per env pays off",
    ],
    links=["Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, lambda s: {"n": list(s.num_envs)})

total_cores, affinity = core_counts()
cores = usable_cores()
st.info(
    f"This machine: `os.cpu_count()` = **{total_cores}** cores; this app may run on "
    f"`len(os.sched_getaffinity(0))` = **{affinity if affinity is not None else '?'}** of "
    "them. Other programs share them too, so timings vary from run to run: run twice and "
    "compare.",
    icon="🖥️",
)
results: dict[str, pd.DataFrame] = st.session_state.setdefault(RESULTS, {})

# --- 1. The lesson's comparison --------------------------------------------------------------
st.header("1. The lesson's comparison: 4 envs × 1,000 steps")
st.write(
    "Build each vector env with 4 BurgerBots, reset it, make 1,000 `step()` calls with random "
    "actions, close it, and time each part. Starting Async's 4 worker processes takes a "
    "few seconds."
)
left, right = st.columns(2)
# Each button runs as soon as it is drawn, so "Measure again" is drawn knowing the result.
if left.button("Run the lesson's comparison", key=f"{PAGE}_lesson", type="primary"):
    timing = run(LESSON, fresh=False)
    if timing is not None:
        results["lesson"] = timing
if right.button("Measure again", key=f"{PAGE}_lesson_again", disabled="lesson" not in results):
    timing = run(LESSON, fresh=True)
    if timing is not None:
        results["lesson"] = timing
if "lesson" in results:
    panels.lesson_panel(results["lesson"], cores)

# --- 2. Sweep --------------------------------------------------------------------------------
st.header("2. Sweep over NUM_ENVS, with an optional cost per step")
st.write(
    "Time every backend for several NUM_ENVS. To model a heavier environment, add an extra "
    "cost to every env-step: **busy** burns CPU (like physics), **sleep** just waits (like "
    "a robot or a web service). Find the cost where Async starts to beat Sync."
)
panels.sweep_controls(settings, frame.key)
_, plan_notes = plan(settings)
frame.settings_done()
for note in plan_notes:
    st.caption(note)

refusal = check_budget(settings)
if refusal:
    st.error(refusal, icon="🛑")
left, right = st.columns(2)
if left.button("Run timing sweep", key=f"{PAGE}_run", type="primary", disabled=refusal is not None):
    timing = run(settings, fresh=False)
    if timing is not None:
        results["sweep"], results["sweep_settings"] = timing, settings
if right.button(
    "Measure again",
    key=f"{PAGE}_run_again",
    disabled=refusal is not None or results.get("sweep_settings") != settings,
):
    timing = run(settings, fresh=True)
    if timing is not None:
        results["sweep"], results["sweep_settings"] = timing, settings
if "sweep" not in results:
    st.info("Press **Run timing sweep** to time these settings.")
else:
    panels.sweep_panel(results["sweep"], results["sweep_settings"], settings, cores)

# --- 3. Caps ---------------------------------------------------------------------------------
st.header("3. Limits of this hosted demo")
panels.caps_panel()

ui.code_expander(snippet_for(settings), label="Code: this sweep as a script you can run")
st.caption(
    "The script prints one line per backend and NUM_ENVS, like the table above. Its numbers "
    "will differ a little: they are timings."
)
