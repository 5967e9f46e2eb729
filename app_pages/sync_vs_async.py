"""Sync vs Async: time SyncVectorEnv, AsyncVectorEnv and the native vector env, live."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.logic.sync_vs_async import (
    BOOKKEEPING,
    LESSON,
    SPECS,
    Bookkeeping,
    CallCost,
    TimingSettings,
    above_ceiling,
    async_wins,
    call_costs,
    check_budget,
    compare_backends,
    core_counts,
    measure_bookkeeping,
    native_remark,
    overhead_text,
    plan,
    predicted_crossover,
    resolve_settings,
    run_timing,
    speed_verdict,
    speedup_chart,
    speedups,
    sweep_size,
    takeaways,
    throughput_chart,
    timing_table,
    usable_cores,
)
from burgerbot.app.progress import ThrottledProgress
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER, snippet_for
from burgerbot.app.settings import powers_of_two
from burgerbot.app.slots import HEAVY_RUNS, WORKER_BUDGET, BudgetExceeded
from burgerbot.wrappers import WORK_KINDS

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
        # A big sweep takes a server-wide slot; with none free, ServerBusy (a BudgetExceeded,
        # shown as a warning by `run`) says the wait.
        with HEAVY_RUNS.hold(*sweep_size(settings)):
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


# --- panels/sync_vs_async.py ---
# The "Sync vs Async" page's drawing blocks: timing tables, Async's overhead, sweep results.


def against_sync(frame: pd.DataFrame, backend: str, num_envs: int) -> str:
    """A metric's delta: ``backend`` against Sync, a factor only when the rounds do not overlap."""
    result = compare_backends(frame, backend, "sync", num_envs)
    if result is None or result[0] == "similar":
        return "about Sync's speed (the rounds overlap)"
    verdict, ratio, _ = result
    return (
        f"{ratio:,.1f}× faster than Sync"
        if verdict == "faster"
        else (f"{1 / ratio:,.1f}× slower than Sync")
    )


def us(seconds: float) -> str:
    """Seconds as whole microseconds, e.g. ``"1,250 µs"``."""
    return f"{seconds * 1e6:,.0f} µs"


def timing_table_panel(frame: pd.DataFrame) -> None:
    """The times of one timing run per (backend, NUM_ENVS), each also divided by Sync's."""
    table = timing_table(frame).drop(columns="reset_s")  # resetting is quick on every backend
    table["backend"] = table["backend"].map(BACKEND_NAMES)
    st.dataframe(
        table.rename(
            columns={
                "num_envs": "NUM_ENVS",
                "create_s": "create (s)",
                "step_s": "all steps (s)",
                "close_s": "close (s)",
                "env_steps_per_s": "env-steps/s",
                "step_vs_sync": "steps ÷ Sync",
                "create_vs_sync": "create ÷ Sync",
                "close_vs_sync": "close ÷ Sync",
            }
        ),
        hide_index=True,
        column_config={
            name: st.column_config.NumberColumn(format="%.4f")
            for name in ("create (s)", "all steps (s)", "close (s)")
        }
        | {
            "env-steps/s": st.column_config.NumberColumn(format="%,.0f"),
            "steps ÷ Sync": st.column_config.NumberColumn(format="%.2f ×"),
            "create ÷ Sync": st.column_config.NumberColumn(format="%.1f ×"),
            "close ÷ Sync": st.column_config.NumberColumn(format="%.1f ×"),
        },
    )
    st.caption(
        "Times in seconds. *÷ Sync* divides by Sync's time at the same NUM_ENVS: above 1 "
        "means slower than Sync, below 1 faster. Stepping time counts only the `step()` "
        "calls. native is `BurgerBotVectorEnv`, this project's class (not Gymnasium's)."
    )


def _when_async_wins(cost: CallCost, cores: int) -> None:
    """The step cost above which a rough model says Async would beat Sync."""
    busy = predicted_crossover(cost, cores, "busy")
    sleep = predicted_crossover(cost, cores, "sleep")
    lines = []
    if busy is not None:
        lines.append(
            f"- **busy** (CPU work, like a heavier simulator): above about **{us(busy)}** "
            f"per env-step. At best Async is {min(cost.num_envs, cores)}× as fast: only "
            f"{cores} core(s) can compute at once."
        )
    else:
        lines.append(
            "- **busy**: never, here: with one usable core (or one env) nothing runs in "
            "parallel, so Async only adds its pipe overhead."
        )
    if sleep is not None:
        lines.append(
            f"- **sleep** (waiting, like a device or a network): above about **{us(sleep)}** "
            f"per env-step. Waiting needs no core, so Async can approach {cost.num_envs}× "
            "as fast."
        )
    st.markdown(
        f"A rough model from these numbers predicts that with "
        f"{cost.num_envs} envs Async beats Sync once each env-step costs extra work of\n"
        + "\n".join(lines)
        + "\n\nTry it in section 2: set an extra cost per env-step and run the sweep."
    )


def lesson_panel(
    lesson: pd.DataFrame, cores: int, bookkeeping: Bookkeeping | None, caption: str = ""
) -> None:
    """Section 1's results: the table, env-steps/s per backend and why Async is slower.

    Args:
        lesson: The timing frame of the lesson's comparison.
        cores: The cores the crossover model assumes.
        bookkeeping: A plain one-env loop timed alongside Sync (None: not measured).
        caption: When and where it was measured.
    """
    timing_table_panel(lesson)
    if caption:
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
    c_async.metric(
        "Async: env-steps/s",
        f"{per_s['async']:,.0f}",
        against_sync(lesson, "async", n),
        delta_color="off",
        delta_arrow="off",
    )
    c_native.metric(
        "native: env-steps/s",
        f"{per_s['native']:,.0f}",
        against_sync(lesson, "native", n),
        delta_color="off",
        delta_arrow="off",
        help="BurgerBotVectorEnv: this project's class, not Gymnasium's.",
    )
    st.markdown(overhead_text(costs[0], bookkeeping, compare_backends(lesson, "async", "sync", n)))
    if bookkeeping is not None:
        st.markdown(bookkeeping.sentence())
        st.caption(f"Sync's bookkeeping: {BOOKKEEPING}.")
    with st.expander("When would Async win? A rough model from these numbers"):
        _when_async_wins(costs[0], cores)


def sweep_controls(settings: TimingSettings, key: Mapping[str, str]) -> None:
    """Section 2's widgets: NUM_ENVS values, step() calls per run and the extra step cost."""
    options = sorted(set(powers_of_two(CAPS.max_envs)) | set(settings.num_envs))
    col_n, col_steps = st.columns([3, 1])
    col_n.multiselect(
        SPECS[0].label,
        options,
        key=key["n"],
        help=f"Powers of two up to {CAPS.max_envs}; other values can be given in the URL (n=3,5).",
    )
    col_steps.number_input(
        "step() calls per run",
        min_value=1,
        max_value=CAPS.max_timing_steps,
        step=100,
        key=key["steps"],
    )
    col_work, col_kind = st.columns([3, 1])
    col_work.number_input(
        "Extra cost per env-step (µs; 0 = plain BurgerBot)",
        min_value=0,
        max_value=CAPS.max_timing_work_us,
        step=100,
        key=key["work_us"],
        help=(
            "1,000 µs = 1 ms. Each sub-environment spends this long on each of its steps "
            "(a reset costs nothing extra)."
        ),
    )
    col_kind.radio("Kind of cost", WORK_KINDS, key=key["kind"], horizontal=True)


def _speedup_verdict(sweep: pd.DataFrame, swept: TimingSettings, cores: int) -> None:
    """With a step cost: Async's speed-up over Sync, its ceiling, and a warning if noisy."""
    ups = speedups(sweep, cores, swept.work_kind)
    if ups.empty:
        return
    learning.chart_with_table(learning.chart_spec(speedup_chart, ups, swept.work_kind), ups)
    best = ups.loc[ups["speedup"].idxmax()]
    winning = async_wins(sweep)  # only where every round of Async beat every round of Sync
    verdict = (
        f"Async beat Sync in every round at NUM_ENVS {', '.join(str(n) for n in winning)}."
        if winning
        else "Async did not clearly beat Sync at any NUM_ENVS: raise the cost per step."
    )
    ceiling = (
        f"For **busy** work the ceiling is min(NUM_ENVS, cores) = at most {cores}× "
        "here: each worker needs a core to compute, and there are only that many."
        if swept.work_kind == "busy"
        else "For **sleep** the ceiling is NUM_ENVS: sleeping needs no core, so all "
        "workers can wait at the same time."
    )
    st.markdown(
        f"With {swept.work_us:,} µs of {swept.work_kind} work per env-step: {verdict} "
        f"The best median speed-up was {best['speedup']:.2f}× at NUM_ENVS "
        f"{int(best['num_envs'])}. "
        f"{ceiling}"
    )
    if noisy := above_ceiling(ups):
        st.warning(
            f"At NUM_ENVS {', '.join(str(n) for n in noisy)} the measured speed-up is "
            "above its ceiling. Parallel stepping cannot do that: Sync's run was slowed "
            "by something else competing for this machine's cores. Press **Measure "
            "again** for a cleaner number.",
            icon="⚠️",
        )


def _overhead_table(sweep: pd.DataFrame) -> None:
    """Without a step cost: Async's extra time per step() call at each NUM_ENVS."""
    costs = call_costs(sweep)
    if not costs:
        return
    rows = "\n".join(
        f"| {c.num_envs} | {us(c.sync_s)} | {us(c.async_s)} | {us(c.extra_s)} | "
        f"{us(c.extra_per_env_s)} |"
        for c in costs
    )
    st.markdown(
        "**Async's overhead per `step()` call**, from this sweep (stepping time ÷ "
        "step() calls):\n\n| NUM_ENVS | Sync per call | Async per call | Async's "
        f"extra | extra per env |\n|---|---|---|---|---|\n{rows}"
    )
    st.caption(
        "Async's extra time goes on the round trips to its workers: sending each action down "
        "a pipe, waiting for every worker, reading their results back. The envs do step in "
        "parallel, but a BurgerBot step costs microseconds: there is little to gain from that."
    )


def sweep_panel(
    sweep: pd.DataFrame, swept: TimingSettings, settings: TimingSettings, cores: int
) -> None:
    """Section 2's results: throughput chart, timing table, then speed-ups or overheads.

    Args:
        sweep: The timing frame of the last sweep.
        swept: The settings it ran with.
        settings: The page's current settings (a note says when they differ from ``swept``).
        cores: The cores the crossover model and the ceilings assume.
    """
    if swept != settings:
        st.info(
            f"These results are for the previous settings ({swept.describe()}). Press "
            "**Run timing sweep** to time the new ones."
        )
    learning.chart_with_table(
        learning.chart_spec(throughput_chart, sweep),
        timing_table(sweep)[["backend", "num_envs", "step_s", "env_steps_per_s"]],
        caption=(
            "Each point is one timed run: env-steps collected per second of stepping, against "
            "NUM_ENVS. Both axes are logarithmic: equal distances are equal ratios. native is "
            "`BurgerBotVectorEnv`, this project's class, not Gymnasium's."
        ),
    )
    if remark := native_remark(sweep):
        st.markdown(remark)
    timing_table_panel(sweep)
    if swept.work_us:
        _speedup_verdict(sweep, swept, cores)
    else:
        _overhead_table(sweep)


def caps_panel() -> None:
    """Section 3: this hosted demo's limits and the environment variables that raise them."""
    st.markdown(
        f"""
This app runs in a small shared container, so it limits what one click can start. Running it
on your own machine, raise a limit with the environment variable in brackets.
- Async runs at most **{CAPS.max_async_envs} envs** (BURGERBOT_MAX_ASYNC_ENVS): each is a
  whole Python process with gymnasium loaded (tens of MB of memory each).
- At most **{CAPS.max_live_async_workers} Async worker processes** run at once across
  everyone using this server (BURGERBOT_MAX_LIVE_ASYNC_WORKERS). If that many are already
  running, a sweep does not start and says so.
- Sync and Async together take at most **{CAPS.max_sync_sweep_env_steps:,} env-steps** per
  sweep (BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS), native at most
  **{CAPS.max_sweep_env_steps:,}** (BURGERBOT_MAX_SWEEP_ENV_STEPS).
- The extra step cost of one sweep may add up to at most **{CAPS.max_timing_work_seconds} s**.
- Every vector env is closed as soon as its run ends, also when a run fails or you stop it:
  no worker process outlives the run.
"""
    )


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
    lesson_panel(lesson["frame"], cores, lesson["bookkeeping"], lesson["caption"])
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
sweep_controls(settings, frame.key)
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
    sweep_panel(results["sweep"]["frame"], results["sweep_settings"], settings, cores)
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
    caps_panel()

frame.takeaways(
    takeaways(lesson["frame"], lesson["bookkeeping"]) if lesson else takeaways(None, None)
)
