"""Goal scaling: does doubling NUM_ENVS double the goals a random BurgerBot reaches?"""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.goal_scaling import (
    GOAL_OPTIONS,
    LESSON_NUM_ENVS,
    LESSON_STEPS,
    RUN_CHOICES,
    SPECS,
    LessonRun,
    RepeatedRuns,
    check_explanation,
    goal_bucket,
    lesson_verdict,
    repeat_chart,
    repeat_lesson,
    repeat_summary,
    repeat_verdict,
    resolve_settings,
    run_lesson,
    takeaways,
)
from burgerbot.app.scripts.goal_scaling import exercise_answer_script, lesson_run_script
from burgerbot.app.slots import HEAVY_RUNS, ServerBusy

PAGE = "goal_scaling"


@st.cache_data(max_entries=32, show_spinner=False)
def lesson_run(seed: int) -> LessonRun:
    return run_lesson(seed)


@st.cache_data(max_entries=8, show_spinner=False)
def repeated_runs(runs: int, seed: int) -> RepeatedRuns:
    # A big run takes a server-wide slot; with none free, ServerBusy says the wait.
    env_steps = runs * sum(LESSON_NUM_ENVS) * LESSON_STEPS
    with HEAVY_RUNS.hold(env_steps, len(LESSON_NUM_ENVS) * LESSON_STEPS):
        return repeat_lesson(runs, seed)


# --- The page, top to bottom ---------------------------------------------------------------------
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Goal scaling: twice the envs, twice the goals?",
    intro=(
        "You will learn to count goals in a batch, and to answer the lesson's exercise 1: do "
        "8 random BurgerBots reach twice the goals of 4 in 500 steps?"
    ),
    topics=[
        "Counting goals: a reward of exactly 50",
        "Exercise 1: NUM_ENVS = 8, do goals double?",
    ],
    links=["Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, lambda s: s)

PID = f"{PAGE}_goals"
learning.prediction(
    PID,
    f"A random agent steps **4 BurgerBots 500 times** ({4 * LESSON_STEPS:,} "
    f"{term_link('env-step', 'env-steps')}) in a {term_link('sync')}. How many goals (rewards "
    "of exactly 50.0) do they reach?",
    GOAL_OPTIONS,
)
st.columns([1, 2])[0].number_input(
    "Seed",
    0,
    9999,
    key=frame.key["seed"],
    help="Changing it runs the experiment again with other random actions (under a second).",
)
lesson = lesson_run(settings["seed"])
doubled: bool | None = None
if learning.revealed(PID):
    for column, n in zip(st.columns(2), LESSON_NUM_ENVS, strict=True):
        column.metric(f"{n} envs × {LESSON_STEPS} steps: goals", lesson.goals[n])
    learning.check(PID, goal_bucket(lesson.goals[4]), check_explanation(lesson))
    ui.code_expander(
        lesson_run_script(settings["seed"]),
        "Code: this run as a script",
        name="the lesson's goal count",
    )
    kind, why = lesson_verdict()
    st.markdown(
        f"**The lesson: 8 envs give roughly double the goals.** {VERDICTS[kind].badge()} {why}"
    )

    st.header("Exercise 1: the run, many times")
    st.select_slider(
        "Runs of each",
        options=sorted({*RUN_CHOICES, settings["runs"]}),
        key=frame.key["runs"],
        format_func=lambda runs: f"{runs:,}",
    )
    result = None
    try:
        with st.spinner(f"Running the lesson's experiment {settings['runs']:,} times…"):
            result = repeated_runs(settings["runs"], settings["seed"])
    except ServerBusy as busy:
        st.warning(str(busy), icon="⏳")
    except Exception as error:  # show it; the page keeps working
        st.error(f"The runs failed: {type(error).__name__}: {error}")
    if result is not None:
        summary = repeat_summary(result)
        doubled, verdict = repeat_verdict(summary)
        left, right = st.columns([3, 2])
        with left:
            st.altair_chart(repeat_chart(summary), width="stretch")
        right.dataframe(
            summary[["num_envs", "zero_runs", "one_runs", "more_runs"]].rename(
                columns={
                    "num_envs": "NUM_ENVS",
                    "zero_runs": "runs with 0 goals",
                    "one_runs": "with 1",
                    "more_runs": "with 2+",
                }
            ),
            hide_index=True,
        )
        right.caption(
            "Diamond: mean goals per run; bar: its "
            f"{term_link('interval', '95% interval')} (it holds the true mean 95 times in "
            f"100); blue tick: exact. {result.env_steps:,} env-steps in {result.seconds:.1f} s."
        )
        st.markdown(verdict)
    st.page_link(
        "app_pages/goal_statistics.py",
        label="Going further: goal statistics",
        icon="📊",
    )
    learning.exercise(
        f"{PAGE}_exercise_1",
        "exercise 1 as a script",
        "Set NUM_ENVS to 8 and run 500 steps: do goal reaches roughly double compared with 4 "
        "envs? Write a script that answers it, and say why one run of 500 steps cannot.",
        exercise_answer_script(settings["runs"], settings["seed"]),
        answer_name="exercise 1 answered",
    )
frame.settings_done()
frame.takeaways(takeaways(lesson, doubled), after=PID)
