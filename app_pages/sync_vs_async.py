"""Sync vs Async: the lesson's exercise 2, SyncVectorEnv against AsyncVectorEnv, timed live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.sync_vs_async import (
    LESSON,
    Bookkeeping,
    Messages,
    extra_per_env_rounds,
    measure_bookkeeping,
    measure_messages,
    overhead_text,
    speed_verdict,
    takeaways,
)
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER
from burgerbot.app.slots import HEAVY_RUNS, WORKER_BUDGET, BudgetExceeded
from burgerbot.app.timing import (
    TIMING_COLUMNS,
    call_costs,
    compare_backends,
    core_counts,
    run_timing,
    shown_timing_table,
    sweep_size,
)

PAGE = "sync_vs_async"
RESULTS = f"_{PAGE}_results"  # this session's latest run of the lesson's comparison
PACKAGES = ("gymnasium", "numpy")
FASTER = f"{PAGE}_faster"


@st.cache_data(max_entries=6, show_spinner=False)
def cached_timing(
    _by: str = "",
) -> tuple[tuple[pd.DataFrame, Bookkeeping, Messages], measured.Measured]:
    """The lesson's timing frame, a plain one-env loop timed beside Sync, and what Async's
    messages for one env weigh and cost to pickle."""
    with measured.progress_bar("Timing ") as report:

        def compute() -> tuple[pd.DataFrame, Bookkeeping, Messages]:
            # Counted like any big run: with no server-wide slot free, ServerBusy (a
            # BudgetExceeded, shown as a warning by `run`) says the wait.
            with HEAVY_RUNS.hold(*sweep_size(LESSON)):
                frame = run_timing(LESSON, report, budget=WORKER_BUDGET)
            report(1.0, "a plain BurgerBotEnv.step loop beside Sync")
            return frame, measure_bookkeeping(LESSON.num_envs[0]), measure_messages()

        return measured.measure(compute, PACKAGES, _by)


def run(fresh: bool, visit: measured.Visit) -> dict | None:
    """The lesson's timing (measured again when ``fresh``), a plain loop timed beside Sync,
    and when and where it was measured. None on failure."""
    if fresh:
        cached_timing.clear()
    try:
        (frame, plain_loop, messages), record = cached_timing(visit.visitor)
    except BudgetExceeded as error:
        st.warning(str(error))
    except Exception as error:  # shown; the page keeps working
        st.error(f"The timing run failed: {type(error).__name__}: {error}")
    else:
        return {
            "frame": frame,
            "bookkeeping": plain_loop,
            "messages": messages,
            "caption": record.caption(visit=visit),
        }
    return None


def lesson_panel(
    lesson: pd.DataFrame, bookkeeping: Bookkeeping | None, messages: Messages, caption: str
) -> None:
    """The comparison's results: the table, and where Async's time per call goes."""
    ui.number_table(shown_timing_table(lesson, per_num_envs=False), TIMING_COLUMNS)
    st.caption(
        "Medians of 3 rounds, in seconds; *steps ÷ Sync* divides the medians (above 1: slower "
        f"than Sync). {caption}"
    )
    costs = call_costs(lesson)
    if not costs:
        return
    n = costs[0].num_envs
    rounds, extra = compare_backends(lesson, "async", "sync", n), extra_per_env_rounds(lesson, n)
    st.markdown(overhead_text(costs[0], bookkeeping, rounds, extra))
    if (rounds is None or rounds[0] != "similar") and (said := messages.sentence(costs[0], extra)):
        st.markdown(said)


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="Sync vs Async: which vector env is faster?",
    intro=(
        "You will time the lesson's exercise 2 live, SyncVectorEnv against AsyncVectorEnv "
        "with 4 BurgerBots, and see where each one's time goes."
    ),
    topics=[
        "Exercise 2: AsyncVectorEnv vs SyncVectorEnv, 4 envs × 1,000 steps",
        "Why Sync wins for cheap pure-Python environments",
    ],
    links=["Gymnasium vector API"],
)
st.markdown(
    f"{term_link('sync')} steps its envs in this process; {term_link('async')} sends each "
    "env's action to its worker process and gets the results back, every call. The native "
    "env is timed too."
)
total_cores, affinity = core_counts()
st.caption(
    f"🖥️ This server has **{affinity or total_cores or '?'}** cores for this app, shared with "
    "other programs: timings vary."
)
results: dict = st.session_state.setdefault(RESULTS, {})

learning.prediction(
    FASTER,
    "With 4 BurgerBots and 1,000 `step()` calls, which collects env-steps faster here?",
    ("SyncVectorEnv", "AsyncVectorEnv"),
)
if learning.revealed(FASTER):
    st.write("Each is built, reset, stepped 1,000 times and closed, in 3 rounds taken in turns.")
    # One button; once a result is shown it measures again (not replayed from the cache).
    again = "lesson" in results
    if st.button(
        "Measure again" if again else "Run the lesson's comparison",
        key=f"{PAGE}_lesson",
        type="primary",
    ) and (timing := run(again, visit)):
        results["lesson"] = timing
        if not again:
            st.rerun()  # redraw the button with what it does from now on
    if lesson := results.get("lesson"):
        lesson_panel(lesson["frame"], lesson["bookkeeping"], lesson["messages"], lesson["caption"])
        learning.check(FASTER, *speed_verdict(lesson["frame"]))
lesson = results.get("lesson")
learning.exercise(
    f"{PAGE}_swap",
    "the lesson's exercise 2, Sync against Async",
    "Swap `AsyncVectorEnv` in for `SyncVectorEnv` and time 4 BurgerBots × 1,000 `step()` "
    'calls with each. Which is faster? Keep the `if __name__ == "__main__":` guard: each '
    "spawned worker imports your script again.",
    EXERCISE_ANSWER,
    answer_name="exercise sync vs async",
)
st.page_link("app_pages/cost_sweeps.py", label="Going further: when Async wins", icon="📈")
frame.takeaways(
    takeaways(lesson["frame"], lesson["bookkeeping"]) if lesson else takeaways(None, None),
    after=FASTER,
)
