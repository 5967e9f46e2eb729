"""Cost sweeps: Sync, Async and native over NUM_ENVS, with an optional extra cost per step."""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.logic.cost_sweeps import (
    PREDICTION,
    SPECS,
    WINS_OPTIONS,
    above_ceiling,
    check_budget,
    crossover_text,
    model_cost,
    native_remark,
    prediction_truth,
    resolve_settings,
    speedup_chart,
    speedup_text,
    speedups,
    takeaways,
    throughput_chart,
    whole_us,
)
from burgerbot.app.scripts.cost_sweeps import snippet_for
from burgerbot.app.settings import powers_of_two
from burgerbot.app.slots import HEAVY_RUNS, WORKER_BUDGET, BudgetExceeded
from burgerbot.app.timing import (
    TIMING_COLUMNS,
    CallCost,
    TimingSettings,
    call_costs,
    core_counts,
    plan,
    run_timing,
    shown_timing_table,
    sweep_size,
    timing_table,
    usable_cores,
)
from burgerbot.wrappers import WORK_KINDS

PAGE = "cost_sweeps"
RESULTS = f"_{PAGE}_results"  # this session's latest sweep, and the latest without extra cost
PACKAGES = ("gymnasium", "numpy")
WINS = f"{PAGE}_wins"


@st.cache_data(max_entries=6, show_spinner=False)
def cached_sweep(settings: TimingSettings, _by: str = "") -> tuple[pd.DataFrame, measured.Measured]:
    """The timing frame of one sweep, and when and where it was measured."""
    with measured.progress_bar("Timing ") as report:

        def compute() -> pd.DataFrame:
            # A big sweep takes a server-wide slot; with none free, ServerBusy (a
            # BudgetExceeded, shown as a warning by `run`) says the wait.
            with HEAVY_RUNS.hold(*sweep_size(settings)):
                return run_timing(settings, report, budget=WORKER_BUDGET)

        return measured.measure(compute, PACKAGES, _by)


def run(settings: TimingSettings, fresh: bool, visit: measured.Visit) -> dict | None:
    """The sweep for ``settings`` (measured again when ``fresh``) and when and where it was
    measured. None on failure."""
    if fresh:
        cached_sweep.clear(settings)
    try:
        frame, record = cached_sweep(settings, visit.visitor)
    except BudgetExceeded as error:
        st.warning(str(error))
    except Exception as error:  # shown; the page keeps working
        st.error(f"The timing run failed: {type(error).__name__}: {error}")
    else:
        return {"frame": frame, "caption": record.caption(visit=visit), "settings": settings}
    return None


def sweep_controls(settings: TimingSettings, key: Mapping[str, str]) -> None:
    """The widgets: NUM_ENVS values, step() calls per run and the extra step cost."""
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


def timing_table_panel(frame: pd.DataFrame) -> None:
    """The times of one sweep per (backend, NUM_ENVS), stepping also divided by Sync's."""
    ui.number_table(shown_timing_table(frame, per_num_envs=True), TIMING_COLUMNS)
    st.caption(
        "Medians of 3 rounds, in seconds. *steps ÷ Sync* divides by Sync's stepping time at the "
        "same NUM_ENVS: above 1 means slower than Sync, below 1 faster. native is "
        "`BurgerBotVectorEnv`, this project's class (not Gymnasium's)."
    )


def titled_chart(title: str, spec: dict, data: pd.DataFrame, caption: str | None = None) -> None:
    """A chart with its title above its tabs (a title inside the chart sat under the tabs)."""
    st.markdown(f"**{title}**")
    learning.chart_with_table(spec, data, caption=caption)


def speedup_verdict(sweep: pd.DataFrame, swept: TimingSettings, cores: int) -> None:
    """With a step cost: Async's speed-up over Sync, its ceiling, and a warning if noisy."""
    ups = speedups(sweep, cores, swept.work_kind)
    if ups.empty:
        return
    titled_chart(
        "Async's speed-up over Sync: above 1, Async is faster",
        learning.chart_spec(speedup_chart, ups, swept.work_kind),
        ups,
    )
    st.markdown(speedup_text(sweep, swept.work_us, swept.work_kind, cores))
    if noisy := above_ceiling(ups):
        st.warning(
            f"At NUM_ENVS {', '.join(str(n) for n in noisy)} the measured speed-up is "
            "above its ceiling. Parallel stepping cannot do that: Sync's run was slowed "
            "by something else competing for this machine's cores. Press **Measure "
            "again** for a cleaner number.",
            icon="⚠️",
        )


def overhead_table(sweep: pd.DataFrame) -> None:
    """Without a step cost: Async's extra time per step() call at each NUM_ENVS."""
    costs = call_costs(sweep)
    if not costs:
        return
    rows = "\n".join(
        f"| {c.num_envs} | {whole_us(c.sync_s)} | {whole_us(c.async_s)} | {whole_us(c.extra_s)} | "
        f"{whole_us(c.extra_per_env_s)} |"
        for c in costs
    )
    st.markdown(
        "**Async's overhead per `step()` call**, from this sweep (stepping time ÷ "
        "step() calls):\n\n| NUM_ENVS | Sync per call | Async per call | Async's "
        f"extra | extra per env |\n|---|---|---|---|---|\n{rows}"
    )
    st.caption(
        "Async's extra time goes on the round trips to its workers: pickling each action "
        "through a pipe, waiting for every worker, reading their results back (observations "
        "through shared memory). The envs do step in parallel, but a BurgerBot step costs "
        "microseconds: there is little to gain from that."
    )


def sweep_panel(sweep: pd.DataFrame, swept: TimingSettings, cores: int) -> None:
    """The results of a sweep: throughput chart, timing table, then speed-ups or overheads."""
    titled_chart(
        "How fast each backend collects env-steps",
        learning.chart_spec(throughput_chart, sweep),
        timing_table(sweep)[["backend", "num_envs", "step_s", "env_steps_per_s"]],
        caption=(
            "Each point is one backend at one NUM_ENVS (median of 3 rounds): env-steps "
            "collected per second of stepping. Both axes are logarithmic: equal distances are "
            "equal ratios."
        ),
    )
    if remark := native_remark(sweep):
        st.markdown(remark)
    timing_table_panel(sweep)
    if swept.work_us:
        speedup_verdict(sweep, swept, cores)
    else:
        overhead_table(sweep)


def when_async_wins(cost: CallCost | None, cores: int) -> None:
    """The step cost above which a rough model says Async would beat Sync."""
    st.markdown(crossover_text(cost, cores))


def caps_panel() -> None:
    """This hosted demo's limits, in plain words (the README names their settings)."""
    st.markdown(
        f"""
This app runs in a small shared container, so it limits what one click can start. On your
own machine you can raise these limits: the project's README lists its settings.
- Async runs at most **{CAPS.max_async_envs} envs**: each is a whole Python process with
  gymnasium loaded (tens of MB of memory each).
- At most **{CAPS.max_live_async_workers} Async worker processes** run at once across
  everyone using this server. If that many are already running, a sweep does not start and
  says so.
- Sync and Async together take at most **{CAPS.max_sync_sweep_env_steps:,} env-steps** per
  sweep, native at most **{CAPS.max_sweep_env_steps:,}**.
- The extra step cost of one sweep may add up to at most **{CAPS.max_timing_work_seconds} s**.
- Every vector env is closed as soon as its run ends, also when a run fails or you stop it:
  no worker process outlives the run.
"""
    )


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Cost sweeps: when does Async win?",
    intro=(
        "This page assumes you have done Sync vs Async. You will time every backend over "
        "several NUM_ENVS and give every env-step an extra cost, to find where one worker "
        "process per env starts to pay off."
    ),
    topics=["When one process per env pays off"],
    links=["Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, lambda s: {"n": list(s.num_envs)})
total_cores, affinity = core_counts()
cores = usable_cores()
st.caption(
    f"🖥️ This machine: `os.cpu_count()` = **{total_cores}**; this app may use "
    f"`len(os.sched_getaffinity(0))` = **{affinity if affinity is not None else '?'}** of them. "
    "Other programs share them, so timings vary: measure twice and compare."
)
results: dict = st.session_state.setdefault(RESULTS, {})

(wins_at,) = PREDICTION.num_envs
learning.prediction(
    WINS,
    f"Every env-step now also sleeps {PREDICTION.work_us:,} µs, like a robot waiting for its "
    f"motors. With {wins_at} envs, which collects env-steps faster here?",
    WINS_OPTIONS,
    help="This page's default sweep answers it.",
)

st.header("Sweep over NUM_ENVS, with an optional cost per step")
st.write(
    "Time every backend for several NUM_ENVS. To model a heavier environment, add an extra "
    "cost to every env-step: **busy** burns CPU (like physics), **sleep** just waits (like "
    "a robot or a web service). Then find out from what cost, if any, Async beats Sync."
)
sweep_controls(settings, frame.key)
_, plan_notes = plan(settings)
frame.settings_done()
for note in plan_notes:
    st.caption(note)
refusal = check_budget(settings)
if refusal:
    st.error(refusal, icon="🛑")
if learning.revealed(WINS):
    left, right = st.columns(2)
    if left.button(
        "Run timing sweep", key=f"{PAGE}_run", type="primary", disabled=refusal is not None
    ) and (timing := run(settings, False, visit)):
        results["sweep"] = timing
    last = results.get("sweep")
    if right.button(
        "Measure again",
        key=f"{PAGE}_run_again",
        disabled=refusal is not None or last is None or last["settings"] != settings,
    ) and (timing := run(settings, True, visit)):
        results["sweep"] = last = timing
    if last is None:
        st.info("Press **Run timing sweep** to time these settings.")
    else:
        swept = last["settings"]
        if swept != settings:
            st.info(
                f"These results are for the previous settings ({swept.describe()}). Press "
                "**Run timing sweep** to time the new ones."
            )
        if not swept.work_us:
            results["plain"] = last
        sweep_panel(last["frame"], swept, cores)
        st.caption(last["caption"])
        if truth := prediction_truth(last["frame"], swept):
            learning.check(WINS, *truth)
        else:
            st.caption(
                f"🔮 The prediction is checked on a sweep with {PREDICTION.work_us:,} µs of "
                f"sleep that includes NUM_ENVS {wins_at}, like this page's defaults."
            )

ui.code_expander(
    snippet_for(settings), label="Code: this sweep as a script you can run", name="timing sweep"
)
with st.expander("When would Async win? A rough model"):
    plain = results.get("plain")
    when_async_wins(plain and model_cost(plain["frame"], plain["settings"]), cores)
with st.expander("Limits of this hosted demo (and how to raise them on your own machine)"):
    caps_panel()

sweep = results.get("sweep")
frame.takeaways(takeaways(sweep and sweep["frame"], sweep and sweep["settings"], cores), after=WINS)
