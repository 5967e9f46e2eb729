"""Goal scaling: does doubling NUM_ENVS double the goals a random BurgerBot reaches?"""

from __future__ import annotations

from dataclasses import replace

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS, backend_label
from burgerbot.app.panels import goal_scaling as panels
from burgerbot.app.progress import ThrottledProgress
from burgerbot.app.scripts.goal_scaling import exercise_answer_script, snippet_for
from burgerbot.app.views.goal_scaling import (
    LESSON_STEPS,
    SPECS,
    ScalingSettings,
    SweepResult,
    check_budget,
    resolve_settings,
    run_sweep,
)
from burgerbot.app.views.goal_scaling_agreement import comparison_settings
from burgerbot.app.views.goal_scaling_expectations import GoalRate, measure_goal_rate
from burgerbot.app.views.goal_scaling_lesson import (
    GOAL_OPTIONS,
    LessonRun,
    check_explanation,
    goal_bucket,
    lesson_verdict,
    run_lesson,
    takeaways,
)

PAGE = "goal_scaling"
RESULTS = f"_{PAGE}_results"  # this session's sweeps: "last", and the last one per backend


@st.cache_data(max_entries=1, show_spinner=False)
def reference_rate(_by: str = "") -> tuple[GoalRate, measured.Measured]:
    # Shared by every visitor: the caption says when and where it was measured.
    return measured.measure(measure_goal_rate, ("numpy", "gymnasium"), _by)


@st.cache_data(max_entries=32, show_spinner=False)
def lesson_run(seed: int) -> LessonRun:
    return run_lesson(seed)


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


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Goal scaling: do more envs reach the goal more often?",
    intro=(
        "You will learn to count goals in a vector env, and why the lesson's first exercise "
        "(500 random steps with 4 BurgerBots, then 8: do goal reaches roughly double?) cannot "
        "show the answer, and what can: many more env-steps, or many seeds and an interval."
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
try:
    with st.spinner("Measuring how often a random robot reaches the goal (a second or two)…"):
        rate, rate_record = reference_rate(visit.visitor)
except Exception as error:  # the rest of the page still works without it
    st.error(f"Could not measure the goal rate: {type(error).__name__}: {error}")
    rate = None
known_rate = rate.rate if rate is not None and rate.goals > 0 else None

# --- The lesson's experiment, predicted then run ---------------------------------------------
PID = f"{PAGE}_goals"
learning.prediction(
    PID,
    "The lesson's experiment: a random agent steps **4 BurgerBots 500 times** in a "
    f"{term_link('sync')} ({4 * LESSON_STEPS:,} {term_link('env-step', 'env-steps')}). How many "
    "times does a robot reach the goal (a reward of exactly 50.0)?",
    GOAL_OPTIONS,
)
seed_col, four_col, eight_col = st.columns([2, 3, 3])
lesson_seed = seed_col.number_input(
    "Seed of the lesson's run", 0, 9999, 0, key=f"{PAGE}_lesson_seed", help="Try others."
)
lesson = lesson_run(int(lesson_seed))
for column, n in ((four_col, 4), (eight_col, 8)):
    column.metric(
        f"{n} envs × {LESSON_STEPS} steps: goals",
        lesson.goals[n],
        f"{lesson.episodes[n]:,} episodes finished",
        delta_color="off",
        delta_arrow="off",
    )
learning.check(PID, goal_bucket(lesson.goals[4]), check_explanation(lesson, known_rate))
if known_rate:
    kind, why = lesson_verdict(known_rate)
    st.markdown(
        f"**The lesson: 8 envs give roughly double the goals.** {VERDICTS[kind].badge()} {why}"
    )

# --- 1. What to expect ---------------------------------------------------------------------
st.header("1. What to expect, before running a sweep")
if known_rate:
    panels.expectations_panel(
        rate,
        settings,
        frame.key,
        button_key=f"{PAGE}_try_this",
        measured_caption=rate_record.caption("Measured", visit=visit),
    )
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

with st.expander("Sync and native count the same goals", icon="🟰"):
    st.write(
        "`BurgerBotVectorEnv` (this project's native vector env, not Gymnasium's) is not an "
        "approximation: given the same seeds it takes the same random actions and reaches "
        "exactly the same goals as SyncVectorEnv. The check below runs and times both."
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

learning.exercise(
    f"{PAGE}_exercise_1",
    "the lesson's exercise 1",
    "Set NUM_ENVS to 8 and run 500 steps: do goal reaches roughly double compared with 4 "
    "envs? Write a script that answers it, and say why one run of 500 steps cannot.",
    exercise_answer_script(),
    answer_name="exercise 1 answered",
)
ui.code_expander(
    snippet_for(settings),
    label="Code: this sweep as a script you can run",
    name="the goal-scaling sweep",
)
st.caption(
    "The sweep script prints one line per NUM_ENVS and seed: the same numbers as the page's "
    "CSV for these settings."
)
frame.takeaways(takeaways(known_rate, lesson))
