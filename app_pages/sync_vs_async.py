"""Sync vs Async: time SyncVectorEnv, AsyncVectorEnv and the native vector env, live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.panels import sync_vs_async as panels
from burgerbot.app.progress import ThrottledProgress
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER, snippet_for
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
from burgerbot.app.views.sync_vs_async_costs import (
    Bookkeeping,
    measure_bookkeeping,
    speed_verdict,
    takeaways,
)

PAGE = "sync_vs_async"
RESULTS = f"_{PAGE}_results"  # this session's latest "lesson" and "sweep" runs
PACKAGES = ("gymnasium", "numpy")
FASTER = f"{PAGE}_faster"


@st.cache_data(max_entries=6, show_spinner=False)
def cached_timing(
    settings: TimingSettings, with_plain_loop: bool, _by: str = ""
) -> tuple[tuple[pd.DataFrame, Bookkeeping | None], measured.Measured]:
    """The timing frame and, ``with_plain_loop``, a plain one-env loop timed beside Sync."""
    # The bar lives inside the cached function: a cache hit replays it, then clears it.
    # Stopping the page raises from the bar's update; the run then closes its env.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(fraction, text=f"Timing {message} ({fraction:.0%})")

    def compute() -> tuple[pd.DataFrame, Bookkeeping | None]:
        frame = run_timing(settings, ThrottledProgress(report), budget=WORKER_BUDGET)
        if not with_plain_loop:
            return frame, None
        report(1.0, "a plain BurgerBotEnv.step loop beside Sync")
        return frame, measure_bookkeeping(settings.num_envs[0])

    try:
        return measured.measure(compute, PACKAGES, _by)
    finally:
        bar.empty()


def run(settings: TimingSettings, fresh: bool, visit: measured.Visit) -> dict | None:
    """The timing for ``settings`` (measured again when ``fresh``): its frame, for the lesson a
    plain loop timed beside Sync, and when and where it was measured. None on failure."""
    lesson = settings == LESSON
    if fresh:
        cached_timing.clear(settings, lesson)
    try:
        (frame, plain_loop), record = cached_timing(settings, lesson, visit.visitor)
    except BudgetExceeded as error:
        st.warning(str(error))
    except Exception as error:  # shown; the page keeps working
        st.error(f"The timing run failed: {type(error).__name__}: {error}")
    else:
        return {"frame": frame, "bookkeeping": plain_loop, "caption": record.caption(visit=visit)}
    return None


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Sync vs Async: which vector env is faster?",
    intro=(
        "You will learn when one worker process per env pays off, by timing it live. "
        f"{term_link('sync')} steps its {term_link('sub-environment', 'sub-environments')} one "
        f"after another in this process; {term_link('async')} gives each its own worker process, "
        f"so they can step at the same time, but every {term_link('step-call')} has to send "
        f"actions to the workers and collect their answers. The {term_link('native')} "
        "`BurgerBotVectorEnv` (this project's class, not Gymnasium's) steps every robot at "
        f"once with numpy. Speeds are in {term_link('env-step', 'env-steps')} per second."
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
results: dict = st.session_state.setdefault(RESULTS, {})

# --- 1. The lesson's comparison --------------------------------------------------------------
st.header("1. The lesson's comparison: 4 envs × 1,000 steps")
learning.prediction(
    FASTER,
    "With 4 BurgerBots and 1,000 `step()` calls, which collects env-steps faster here?",
    ("SyncVectorEnv", "AsyncVectorEnv"),
)
st.write(
    "Build each vector env with 4 BurgerBots, reset it, make 1,000 `step()` calls with random "
    "actions, close it, and time each part. Async starts its 4 workers with "
    f"{term_link('spawn', 'spawn')}: "
    "a fresh Python interpreter each, which takes a moment."
)
left, right = st.columns(2)
# Each button runs as soon as it is drawn, so "Measure again" is drawn knowing the result.
if left.button("Run the lesson's comparison", key=f"{PAGE}_lesson", type="primary") and (
    timing := run(LESSON, False, visit)
):
    results["lesson"] = timing
if right.button("Measure again", key=f"{PAGE}_lesson_again", disabled="lesson" not in results) and (
    timing := run(LESSON, True, visit)
):
    results["lesson"] = timing
lesson = results.get("lesson")
if lesson:
    panels.lesson_panel(lesson["frame"], cores, lesson["bookkeeping"], lesson["caption"])
    learning.check(FASTER, *speed_verdict(lesson["frame"]))
learning.exercise(
    f"{PAGE}_swap",
    "the lesson's exercise 2, Sync against Async",
    "Swap `AsyncVectorEnv` in for `SyncVectorEnv` and time 4 BurgerBots × 1,000 `step()` "
    "calls with each. Which is faster, and by how much? Write it as a script and keep the "
    '`if __name__ == "__main__":` guard: each spawned worker imports your script again.',
    EXERCISE_ANSWER,
    answer_name="exercise sync vs async",
)

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
    timing = run(settings, False, visit)
    if timing is not None:
        results["sweep"], results["sweep_settings"] = timing, settings
if right.button(
    "Measure again",
    key=f"{PAGE}_run_again",
    disabled=refusal is not None or results.get("sweep_settings") != settings,
):
    timing = run(settings, True, visit)
    if timing is not None:
        results["sweep"], results["sweep_settings"] = timing, settings
if "sweep" not in results:
    st.info("Press **Run timing sweep** to time these settings.")
else:
    panels.sweep_panel(results["sweep"]["frame"], results["sweep_settings"], settings, cores)
    st.caption(results["sweep"]["caption"])

ui.code_expander(
    snippet_for(settings), label="Code: this sweep as a script you can run", name="timing sweep"
)
st.caption(
    "The script prints one line per backend and NUM_ENVS, like the timing table. Its numbers "
    "will differ a little: they are timings."
)

# --- Caps --------------------------------------------------------------------------------------
with st.expander("Limits of this hosted demo (and how to raise them on your own machine)"):
    panels.caps_panel()

frame.takeaways(
    takeaways(lesson["frame"], lesson["bookkeeping"]) if lesson else takeaways(None, None)
)
