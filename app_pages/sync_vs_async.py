"""Sync vs Async: the lesson's exercise 2, SyncVectorEnv against AsyncVectorEnv, timed live."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.logic.sync_vs_async import (
    BOOKKEEPING,
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
from burgerbot.app.scripts.sync_vs_async import COMPARISON, EXERCISE_ANSWER
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


def against_sync(frame: pd.DataFrame, backend: str, num_envs: int) -> str:
    """A metric's delta: ``backend`` against Sync, a factor only when the rounds do not overlap."""
    result = compare_backends(frame, backend, "sync", num_envs)
    if result is None or result[0] == "similar":
        return "about Sync's speed (the rounds overlap)"
    verdict, ratio, _ = result
    if verdict == "faster":
        return f"{ratio:,.1f}× faster than Sync"
    return f"{1 / ratio:,.1f}× slower than Sync"


def timing_table_panel(frame: pd.DataFrame) -> None:
    """The times of the run per backend, the stepping time also divided by Sync's."""
    ui.number_table(shown_timing_table(frame, per_num_envs=False), TIMING_COLUMNS)
    st.caption(
        "Medians of 3 rounds, in seconds. *steps ÷ Sync*: above 1 is slower than Sync. "
        "Async's create and close start and stop its worker processes."
    )


def lesson_panel(
    lesson: pd.DataFrame, bookkeeping: Bookkeeping | None, messages: Messages, caption: str
) -> None:
    """The comparison's results: the table, env-steps/s per backend and why Async is slower."""
    timing_table_panel(lesson)
    st.caption(caption)
    costs = call_costs(lesson)
    if not costs:
        return
    c_sync, c_async, c_native = st.columns(3)
    per_s = lesson.set_index("backend")["env_steps_per_s"]
    n = costs[0].num_envs
    c_sync.metric(
        "Sync: env-steps/s", f"{per_s['sync']:,.0f}", help="Median of the rounds taken in turns."
    )
    for column, backend in ((c_async, "async"), (c_native, "native")):
        column.metric(
            f"{BACKEND_NAMES[backend]}: env-steps/s",
            f"{per_s[backend]:,.0f}",
            against_sync(lesson, backend, n),
            delta_color="off",
            delta_arrow="off",
        )
    rounds, extra = compare_backends(lesson, "async", "sync", n), extra_per_env_rounds(lesson, n)
    st.markdown(overhead_text(costs[0], bookkeeping, rounds, extra))
    if (rounds is None or rounds[0] != "similar") and (said := messages.sentence(costs[0], extra)):
        st.markdown(said)
    if bookkeeping is not None:
        st.markdown(bookkeeping.sentence())
        st.caption(f"Sync's bookkeeping: {BOOKKEEPING}.")


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="Sync vs Async: which vector env is faster?",
    intro=(
        "You will time the lesson's exercise 2 live and see where the time goes. "
        f"{term_link('sync')} steps its {term_link('sub-environment', 'sub-environments')} one "
        "after another, inside this process. "
        f"{term_link('async')} gives each its own worker process, so they can step at the same "
        "time; but in every `step()` call it must send each worker its action and get the "
        "results back from another process. The native `BurgerBotVectorEnv` (this project's "
        "class, not Gymnasium's) steps every robot at once with numpy. Speeds are in "
        f"{term_link('env-step', 'env-steps')} per second: one row per sub-environment per call."
    ),
    topics=[
        "Exercise 2: AsyncVectorEnv vs SyncVectorEnv, 4 envs × 1,000 steps",
        "Why Sync wins for cheap pure-Python environments",
    ],
    links=["Gymnasium vector API"],
)
total_cores, affinity = core_counts()
st.caption(
    f"🖥️ This machine: `os.cpu_count()` = **{total_cores}**; this app may use "
    f"`len(os.sched_getaffinity(0))` = **{affinity if affinity is not None else '?'}** of them. "
    "Other programs share them, so timings vary: measure twice and compare."
)
results: dict = st.session_state.setdefault(RESULTS, {})

learning.prediction(
    FASTER,
    "With 4 BurgerBots and 1,000 `step()` calls, which collects env-steps faster here?",
    ("SyncVectorEnv", "AsyncVectorEnv"),
)
if learning.revealed(FASTER):
    st.write(
        "Each vector env is built with 4 BurgerBots, reset, stepped 1,000 times with random "
        "actions and closed, each part timed, in 3 rounds taken in turns. Async starts its 4 "
        f"workers with {term_link('spawn', 'spawn')}: a fresh Python interpreter each, which "
        "takes a moment."
    )
    left, right = st.columns(2)
    # Each button runs as soon as it is drawn, so "Measure again" is drawn knowing the result.
    if left.button("Run the lesson's comparison", key=f"{PAGE}_lesson", type="primary") and (
        timing := run(False, visit)
    ):
        results["lesson"] = timing
    if right.button(
        "Measure again", key=f"{PAGE}_lesson_again", disabled="lesson" not in results
    ) and (timing := run(True, visit)):
        results["lesson"] = timing
    if lesson := results.get("lesson"):
        lesson_panel(lesson["frame"], lesson["bookkeeping"], lesson["messages"], lesson["caption"])
        learning.check(FASTER, *speed_verdict(lesson["frame"]))
lesson = results.get("lesson")
ui.code_expander(
    COMPARISON, label="Code: the lesson's comparison as a script you can run", name="comparison"
)
learning.exercise(
    f"{PAGE}_swap",
    "the lesson's exercise 2, Sync against Async",
    "Swap `AsyncVectorEnv` in for `SyncVectorEnv` and time 4 BurgerBots × 1,000 `step()` "
    "calls with each. Which is faster, and by how much? Write it as a script and keep the "
    '`if __name__ == "__main__":` guard: each spawned worker imports your script again.',
    EXERCISE_ANSWER,
    answer_name="exercise sync vs async",
)
st.markdown(
    "**Going further:** [Cost sweeps](cost_sweeps) times every NUM_ENVS and adds a cost to each "
    "step, to find where Async wins."
)
frame.takeaways(
    takeaways(lesson["frame"], lesson["bookkeeping"]) if lesson else takeaways(None, None),
    after=FASTER,
)
