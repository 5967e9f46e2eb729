"""The "Cost sweeps" page's logic: settings, caps, speed-ups, the crossover model and charts.

Sync vs Async times the lesson's comparison, where a BurgerBot step costs microseconds and
Async's round trips to its workers cost more than parallel stepping saves. Here every env-step
may cost extra: **busy** work (CPU) or **sleep** (waiting). Then Async's workers step in
parallel and it can win, up to about the number of cores for CPU work, or up to NUM_ENVS for
waiting.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

import altair as alt
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.palette import BACKEND_COLOURS, OKABE_ITO, SHAPES
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.app.timing import (
    CallCost,
    TimingSettings,
    call_costs,
    compare_backends,
    micros,
    plan,
    step_rates,
)
from burgerbot.wrappers import WORK_KINDS

__all__ = [
    "BACKEND_SHAPES",
    "NATIVE_LABEL",
    "PREDICTION",
    "SPECS",
    "WINS_OPTIONS",
    "above_ceiling",
    "async_wins",
    "check_budget",
    "model_cost",
    "native_remark",
    "predicted_crossover",
    "prediction_truth",
    "resolve_settings",
    "speedup_chart",
    "speedups",
    "takeaways",
    "throughput_chart",
]

SPECS = (  # the defaults answer the prediction: 1,000 µs of sleep, up to NUM_ENVS 8
    IntListSetting("n", "NUM_ENVS values", (1, 4, 8), 1, CAPS.max_envs),
    IntSetting("steps", "step() calls per run", 100, 1, CAPS.max_timing_steps),
    IntSetting("work_us", "Extra cost per env-step (µs)", 1_000, 0, CAPS.max_timing_work_us),
    ChoiceSetting("kind", "Kind of cost", "sleep", WORK_KINDS),
)


def resolve_settings(values: Mapping[str, Any]) -> tuple[TimingSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made."""
    notes = []
    sizes = tuple(sorted({int(n) for n in values.get("n") or ()}))
    if not sizes:
        sizes = SPECS[0].default
        notes.append("Pick at least one NUM_ENVS value: using the default list.")
    kind = values["kind"] if values.get("kind") in WORK_KINDS else "busy"
    settings = TimingSettings(sizes, int(values["steps"]), int(values["work_us"]), kind)
    return settings, notes


def check_budget(settings: TimingSettings, caps: Caps = CAPS) -> str | None:
    """None if the sweep fits this app's caps, else a message saying what to lower."""
    runs, _ = plan(settings, caps)
    if not runs:  # a step cost and every NUM_ENVS above Async's cap: nothing would run
        return (
            f"Nothing to time: with an extra cost per step only NUM_ENVS up to "
            f"{caps.max_async_envs} run (Sync and Async alike). Add one of them, or set the "
            "extra cost to 0."
        )
    slow_envs = sum(runs.get("sync", ())) + sum(runs.get("async", ()))
    native_envs = sum(runs.get("native", ()))
    problems, steps_fit = [], []
    slow_cap = min(caps.max_sync_sweep_env_steps, caps.max_sweep_env_steps)
    if slow_envs * settings.steps > slow_cap:
        problems.append(
            f"Sync and Async would take {slow_envs * settings.steps:,} env-steps, over this "
            f"app's limit of {slow_cap:,} per sweep for those two"
        )
        steps_fit.append(slow_cap // slow_envs)
    if native_envs * settings.steps > caps.max_sweep_env_steps:
        problems.append(
            f"native would take {native_envs * settings.steps:,} env-steps, over this app's "
            f"limit of {caps.max_sweep_env_steps:,} per sweep"
        )
        steps_fit.append(caps.max_sweep_env_steps // native_envs)
    # A step() call costs about the same whatever NUM_ENVS is (Async's pipe round trips
    # more): many runs of many calls keep a core busy although their env-steps fit.
    runs_count = sum(len(sizes) for sizes in runs.values())
    if runs_count * settings.steps > caps.max_sweep_step_calls:
        problems.append(
            f"its {runs_count} runs would make {runs_count * settings.steps:,} step() calls, "
            f"over this app's limit of {caps.max_sweep_step_calls:,} per sweep"
        )
        steps_fit.append(caps.max_sweep_step_calls // runs_count)
    work = slow_envs * settings.steps * settings.work_seconds
    if work > caps.max_timing_work_seconds:
        problems.append(
            f"the extra step cost would add up to {work:,.0f} s of work, over this app's "
            f"limit of {caps.max_timing_work_seconds} s per sweep"
        )
        steps_fit.append(int(caps.max_timing_work_seconds / (slow_envs * settings.work_seconds)))
    if not problems:
        return None
    fit = min(steps_fit)
    fix = f"lower the step() calls per run to {fit:,} or fewer, or" if fit >= 1 else ""
    return (
        f"This sweep is too big to run here: {'; '.join(problems)}. To run it, {fix} drop "
        "the largest NUM_ENVS values"
        + (", or lower the extra cost per step." if settings.work_us else ".")
    )


def predicted_crossover(cost: CallCost, cores: int, kind: str) -> float | None:
    """Extra seconds per env-step above which Async should beat Sync, or None if it can't.

    A rough model: with a cost ``w`` per env-step, Sync's call takes ``sync + N·w``. Async's
    takes ``async + w·N/p``, where ``p`` processes really run at once: ``min(N, cores)``
    for busy work (CPU), N for sleeping (waiting uses no core). Async wins once
    ``w > (async - sync) / (N - N/p)``.

    Example:
        >>> cost = CallCost(4, sync_s=100e-6, async_s=900e-6, native_s=None)
        >>> round(predicted_crossover(cost, cores=2, kind="busy") * 1e6)
        400
        >>> predicted_crossover(CallCost(1, 1e-4, 9e-4, None), cores=2, kind="busy") is None
        True
    """
    n = cost.num_envs
    parallel = n if kind == "sleep" else min(n, max(1, cores))
    if parallel <= 1:
        return None
    return max(0.0, cost.extra_s / (n - n / parallel))


def speedups(frame: pd.DataFrame, cores: int, kind: str) -> pd.DataFrame:
    """Async's speed-up over Sync per N (Sync's step time ÷ Async's) and its ceiling.

    The ceiling is what perfect parallel stepping could give for a step cost of ``kind``:
    ``min(N, cores)`` for busy work (each process needs a core), N for sleep (waiting
    needs none). Pipe round trips keep the real speed-up below it.
    """
    table = frame.pivot_table(index="num_envs", columns="backend", values="step_s")
    rows = []
    for label, row in table.iterrows():
        n = cast(int, label)  # the table's index: NUM_ENVS, an int
        if pd.isna(row.get("sync")) or pd.isna(row.get("async")):
            continue
        ceiling = n if kind == "sleep" else min(n, max(1, cores))
        rows.append(
            {"num_envs": int(n), "speedup": row["sync"] / row["async"], "ceiling": float(ceiling)}
        )
    return pd.DataFrame(rows, columns=["num_envs", "speedup", "ceiling"])


def above_ceiling(speedups: pd.DataFrame, tolerance: float = 1.1) -> list[int]:
    """NUM_ENVS whose measured speed-up beats its ceiling by more than ``tolerance``.

    That cannot come from parallel stepping: it means Sync's run was slowed by something
    else (other programs, or other visitors' runs on the same server), so the timing is noise.
    """
    over = speedups["speedup"] > speedups["ceiling"] * tolerance
    return [int(n) for n in speedups.loc[over, "num_envs"]]


def native_remark(sweep: pd.DataFrame) -> str | None:
    """When native was slower per call than Sync at the smallest N in every round: why, and how
    it stood at the largest N (None when it was not, when the sweep has no rounds to compare,
    or there is one N only).

    Example:
        >>> rows = [("sync", 1, 0.01), ("native", 1, 0.02), ("sync", 64, 0.5), ("native", 64, 0.05)]
        >>> sweep = pd.DataFrame(rows, columns=["backend", "num_envs", "step_s"]).assign(steps=100)
        >>> sweep["step_s_rounds"] = [[0.9 * s, s, 1.1 * s] for s in sweep["step_s"]]
        >>> native_remark(sweep).split(", so ")[-1].split(" (")[0]
        'at NUM_ENVS 64 native was 10.0× as fast as Sync'
    """
    per_call = sweep.assign(call_s=sweep["step_s"] / sweep["steps"]).pivot_table(
        index="num_envs", columns="backend", values="call_s"
    )
    if not {"sync", "native"} <= set(per_call.columns):
        return None
    both = per_call.dropna(subset=["sync", "native"])
    if both.empty:
        return None
    smallest, largest = both.index.min(), both.index.max()
    first, last = per_call.loc[smallest], per_call.loc[largest]
    at_smallest = compare_backends(sweep, "native", "sync", smallest)
    if at_smallest is None or at_smallest[0] != "slower" or largest == smallest:
        return None
    head = (
        f"At NUM_ENVS {smallest}, native took {micros(first['native'])} per `step()` call "
        f"against Sync's {micros(first['sync'])}: every call pays for a few numpy operations, "
        "however few robots there are. "
    )
    at_largest = compare_backends(sweep, "native", "sync", largest)
    if at_largest is not None and at_largest[0] == "faster":
        native, sync = (step_rates(sweep, b, largest) for b in ("native", "sync"))
        return head + (
            f"But one call moves every robot, so at NUM_ENVS {largest} native was "
            f"{at_largest[1]:,.1f}× as fast as Sync (ratio of medians; "
            f"{min(native) / max(sync):,.1f}× to {max(native) / min(sync):,.1f}× over the rounds)."
        )
    return head + (
        f"At NUM_ENVS {largest} native was not clearly faster than Sync "
        f"({micros(last['native'])} against {micros(last['sync'])} per call, medians)."
    )


def async_wins(sweep: pd.DataFrame) -> list[int]:
    """The NUM_ENVS at which every round of Async beat every round of Sync."""
    sizes = sorted(set(sweep.loc[sweep["backend"] == "async", "num_envs"]))
    verdicts = {int(n): compare_backends(sweep, "async", "sync", int(n)) for n in sizes}
    return [n for n, v in verdicts.items() if v is not None and v[0] == "faster"]


def whole_us(seconds: float) -> str:
    """Seconds as whole microseconds, e.g. ``"1,250 µs"``."""
    return f"{seconds * 1e6:,.0f} µs"


def speedup_text(sweep: pd.DataFrame, work_us: int, work_kind: str, cores: int) -> str | None:
    """With a step cost: where Async beat Sync in every round, its largest speed-up (a ratio
    of medians, with its range over the rounds) and the ceiling parallel stepping allows.
    None when Sync and Async never ran at the same NUM_ENVS."""
    ups = speedups(sweep, cores, work_kind)
    if ups.empty:
        return None
    winning = async_wins(sweep)  # only where every round of Async beat every round of Sync
    verdict = (
        f"Async beat Sync in every round at NUM_ENVS {', '.join(str(n) for n in winning)}."
        if winning
        else "Async did not clearly beat Sync at any NUM_ENVS: raise the cost per step."
    )
    best = int(ups["num_envs"].iloc[ups["speedup"].argmax()])  # N of the largest speed-up
    fast, slow = step_rates(sweep, "async", best), step_rates(sweep, "sync", best)
    largest = f"{ups['speedup'].max():.2f}× at NUM_ENVS {best}"
    spread = f"{min(fast) / max(slow):.2f}× to {max(fast) / min(slow):.2f}× over the rounds"
    top = min(int(ups["num_envs"].max()), max(1, cores))
    ceiling = (
        f"For **busy** work the ceiling is min(NUM_ENVS, cores), at most {top}× in this "
        "sweep: each worker needs a core to compute."
        if work_kind == "busy"
        else "For **sleep** the ceiling is NUM_ENVS: sleeping needs no core, so all "
        "workers can wait at the same time."
    )
    return (
        f"With {work_us:,} µs of {work_kind} work per env-step: {verdict} The largest "
        f"speed-up (ratio of medians) was {largest} ({spread}). {ceiling}"
    )


def crossover_text(cost: CallCost | None, cores: int) -> str:
    """The step cost above which the rough model (`predicted_crossover`) says Async would beat
    Sync, for busy and for sleeping work, from a sweep without extra cost."""
    if cost is None:
        return (
            "The model starts from Async's extra time per `step()` call without any extra "
            "cost: run a sweep with the extra cost set to 0 first."
        )
    busy = predicted_crossover(cost, cores, "busy")
    sleep = predicted_crossover(cost, cores, "sleep")
    if busy is not None:
        at_once = min(cost.num_envs, max(1, cores))
        lines = [
            f"- **busy** (CPU work, like a heavier simulator): above about **{whole_us(busy)}** "
            f"per env-step. At best Async is {at_once}× as fast: {at_once} workers compute at "
            f"once ({cost.num_envs} envs, {cores} cores)."
        ]
    else:
        lines = [
            "- **busy**: never, here: with one usable core (or one env) nothing runs in "
            "parallel, so Async only adds its round trips."
        ]
    if sleep is not None:
        lines.append(
            f"- **sleep** (waiting, like a device or a network): above about **{whole_us(sleep)}** "
            f"per env-step. Waiting needs no core, so Async can approach {cost.num_envs}× "
            "as fast."
        )
    return (
        f"From your last sweep without extra cost: with {cost.num_envs} envs one call took "
        f"{whole_us(cost.sync_s)} with Sync and {whole_us(cost.async_s)} with Async. A rough model "
        "(Sync pays every env's cost in turn, Async's workers in parallel, plus its round "
        "trip) predicts that Async beats Sync once each env-step costs extra work of\n"
        + "\n".join(lines)
        + "\n\nTry it: set that cost and run the sweep."
    )


# --- Charts: env-steps per second, and Async's speed-up over Sync ----------------------------
# Charts for the "Cost sweeps" page: env-steps per second, and Async's speed-up over Sync.

BACKEND_SHAPES = dict(zip(BACKEND_COLOURS, SHAPES, strict=False))
"""Each backend's marker shape, so the lines differ by more than colour."""

BACKEND_DASHES = dict(zip(BACKEND_COLOURS, ([1, 0], [6, 3], [2, 2]), strict=True))
"""Each backend's line dash: solid Sync, dashed Async, dotted native."""

NATIVE_LABEL = "native (BurgerBotVectorEnv: this project's, not Gymnasium's)"
"""How the legend names the native backend."""


def _x(values: list[int]) -> alt.X:
    return alt.X(
        "num_envs:Q",
        title="NUM_ENVS (log scale)",
        scale=alt.Scale(type="log", base=2, nice=False, padding=12),
        axis=alt.Axis(values=values, format="d"),
    )


def throughput_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Env-steps per second against NUM_ENVS, one line per backend, both axes logarithmic.

    ``frame`` has one row per (backend, num_envs), as made by ``experiments.time_backends``
    (backend "sync" / "async" / "native").
    """
    data = frame[["backend", "num_envs", "env_steps_per_s", "step_s", "env_steps"]].assign(
        backend=frame["backend"].map(BACKEND_NAMES)
    )
    values = sorted(int(n) for n in data["num_envs"].unique())
    present = [name for name in BACKEND_COLOURS if name in set(data["backend"])]
    legend = alt.Legend(
        orient="bottom",
        labelLimit=0,
        labelExpr=f"datum.label == 'native' ? \"{NATIVE_LABEL}\" : datum.label",
    )
    colour = alt.Color(
        "backend:N",
        title="backend",
        scale=alt.Scale(domain=present, range=[BACKEND_COLOURS[name] for name in present]),
        legend=legend,
    )
    shape = alt.Shape(
        "backend:N",
        scale=alt.Scale(domain=present, range=[BACKEND_SHAPES[name] for name in present]),
        legend=legend,
    )
    base = alt.Chart(data).encode(
        x=_x(values),
        y=alt.Y(
            "env_steps_per_s:Q",
            title="env-steps per second (log scale; higher is faster)",
            scale=alt.Scale(type="log"),
        ),
        color=colour,
        tooltip=[
            alt.Tooltip("backend:N"),
            alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
            alt.Tooltip("env_steps_per_s:Q", title="env-steps/s", format=",.0f"),
            alt.Tooltip("step_s:Q", title="stepping time (s)", format=".3f"),
            alt.Tooltip("env_steps:Q", title="env-steps", format=",d"),
        ],
    )
    # Streamlit fits the whole chart (title and axes too) into this height.
    points = base.mark_point(filled=True, size=70).encode(shape=shape)
    # No title inside the chart: the page writes it above the chart's tabs, where a title
    # drawn by Vega sat half under the tab bar.
    dash = alt.StrokeDash(
        "backend:N",
        scale=alt.Scale(domain=present, range=[BACKEND_DASHES[name] for name in present]),
        legend=None,  # the legend's shapes name the backends; the dash is one cue more
    )
    return (base.mark_line().encode(strokeDash=dash) + points).properties(
        height=420,
        description=(
            "Env-steps per second (y, log scale) against NUM_ENVS (x, log scale), one line per "
            "backend: Sync solid with circles, Async dashed with squares, native dotted with "
            "triangles."
        ),
    )


def speedup_chart(speedups: pd.DataFrame, kind: str) -> alt.LayerChart:
    """Async's speed-up over Sync against NUM_ENVS, with the ceiling for this kind of cost.

    ``speedups`` has columns num_envs, speedup, ceiling (what the function ``speedups`` returns). A
    dotted line at 1 separates "Async faster" (above) from "Sync faster" (below).
    """
    values = sorted(int(n) for n in speedups["num_envs"].unique())
    measured = "measured speed-up"
    ceiling = "ceiling: min(N, cores)" if kind == "busy" else "ceiling: N"
    long = pd.concat(
        [
            speedups[["num_envs"]].assign(value=speedups["speedup"], what=measured),
            speedups[["num_envs"]].assign(value=speedups["ceiling"], what=ceiling),
        ],
        ignore_index=True,
    )
    lines = (
        alt.Chart(long)
        .mark_line(point=True)
        .encode(
            x=_x(values),
            y=alt.Y(
                "value:Q",
                title="Async speed-up over Sync (×, log scale)",
                scale=alt.Scale(type="log"),
            ),
            color=alt.Color(
                "what:N",
                title=None,
                scale=alt.Scale(
                    domain=[measured, ceiling],
                    range=[BACKEND_COLOURS["Async"], OKABE_ITO[7]],
                ),
                legend=alt.Legend(orient="right", labelLimit=0),
            ),
            strokeDash=alt.StrokeDash(
                "what:N",
                scale=alt.Scale(domain=[measured, ceiling], range=[[1, 0], [6, 4]]),
                legend=None,
            ),
            shape=alt.Shape(
                "what:N", scale=alt.Scale(domain=[measured, ceiling], range=list(SHAPES[:2]))
            ),
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("what:N"),
                alt.Tooltip("value:Q", title="×", format=".2f"),
            ],
        )
    )
    even = (
        alt.Chart(pd.DataFrame({"y": [1.0]}))
        .mark_rule(strokeDash=[2, 3], color="black")
        .encode(y="y:Q")
    )
    return (lines + even).properties(  # titled by the page, above its tabs
        height=400,
        description=(
            "Async's speed-up over Sync (y, log scale) against NUM_ENVS (x, log scale): the "
            "measured speed-up is a solid line with circles, the ceiling a dashed line with "
            "squares; a dotted line at 1 separates Async faster (above) from Sync faster "
            "(below)."
        ),
    )


# --- The prediction and the takeaways --------------------------------------------------------

WINS_OPTIONS = ("SyncVectorEnv", "AsyncVectorEnv")
"""The prediction's options: which collects env-steps faster at `PREDICTION`'s cost."""

PREDICTION = TimingSettings((8,), work_us=1_000, work_kind="sleep")
"""What the page's prediction asks about: 1,000 µs of sleep per env-step, at NUM_ENVS 8."""


def prediction_truth(sweep: pd.DataFrame, swept: TimingSettings) -> tuple[str | None, str] | None:
    """The prediction's answer from a sweep (one of `WINS_OPTIONS`, or ``None`` when the
    rounds overlap and the run cannot decide), and why; None when the sweep does not answer it.

    It answers when it ran the prediction's cost (kind and µs) with Sync and Async at
    ``PREDICTION``'s NUM_ENVS: the verdict reads their rounds (`compare_backends`).
    """
    (n,) = PREDICTION.num_envs
    if (swept.work_kind, swept.work_us) != (PREDICTION.work_kind, PREDICTION.work_us):
        return None
    result = compare_backends(sweep, "async", "sync", n)
    if result is None:
        return None
    verdict, ratio, figures = result
    head = f"At NUM_ENVS {n}, Async {figures} for Sync. "
    if verdict == "similar":
        return None, head + (
            "Their rounds overlap: Sync and Async could not be told apart on this server, so "
            "this run does not decide the question. Measure again."
        )
    if verdict == "faster":
        return "AsyncVectorEnv", head + (
            f"Async was faster in every round, {ratio:,.1f}× Sync's speed (ratio of medians): "
            f"sleeping needs no core, so its {n} workers waited at the same time, while Sync "
            "waited for each env in turn."
        )
    return "SyncVectorEnv", head + (
        f"Sync was faster in every round, {1 / ratio:,.1f}× Async's speed (ratio of medians): "
        "something on this machine slowed Async's workers more than the waiting they "
        "overlapped. Measure again."
    )


def model_cost(sweep: pd.DataFrame, swept: TimingSettings) -> CallCost | None:
    """The call costs the crossover model starts from: a sweep without extra cost, at
    NUM_ENVS 4 if it ran there, else the largest NUM_ENVS where Sync and Async both ran."""
    if swept.work_us:
        return None
    costs = call_costs(sweep)
    if not costs:
        return None
    return next((c for c in costs if c.num_envs == 4), costs[-1])


def takeaways(sweep: pd.DataFrame | None, swept: TimingSettings | None, cores: int) -> list[str]:
    """The page's "Key takeaways"; the one about this server comes from its last sweep, if any."""
    if sweep is None or swept is None:
        measured = "Run a sweep with an extra cost to see where Async wins on this server."
    elif not swept.work_us:
        measured = (
            "Without an extra cost, Async's round trips decide: add a cost per env-step and "
            "sweep again to see where Async wins."
        )
    else:
        winning = async_wins(sweep)
        where = (
            f"Async beat Sync in every round at NUM_ENVS {', '.join(str(n) for n in winning)}"
            if winning
            else "Async did not clearly beat Sync at any NUM_ENVS"
        )
        measured = f"Here, with {swept.work_us:,} µs of {swept.work_kind} per env-step, {where}."
    return [
        measured,
        "Async pays off once each env-step costs more than its round trip per call: the workers "
        "then step in parallel.",
        f"Its ceiling: for **busy** work (CPU) min(NUM_ENVS, cores), {cores} "
        f"core{'s' if cores != 1 else ''} here; for "
        "**sleep** (waiting on a device or a network) NUM_ENVS, since waiting needs no core.",
        "Each Async worker is a whole Python process with its own memory: many envs cost "
        "memory as well as start-up time.",
    ]
