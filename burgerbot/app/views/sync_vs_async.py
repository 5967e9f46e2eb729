"""The "Sync vs Async" page's logic: settings, caps, the timing sweep, ratios and the crossover.

AsyncVectorEnv runs each sub-environment in its own process and talks to it through a
pipe, once per ``step()`` call. For BurgerBot, whose step costs microseconds, that round
trip costs far more than the step itself, so Async loses. When each step costs more (a
heavier simulator), the processes step in parallel and Async can win, up to about the
number of cores for CPU work, or up to NUM_ENVS for waiting.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.app.slots import WorkerBudget
from burgerbot.experiments import Progress, time_backends
from burgerbot.wrappers import WORK_KINDS

__all__ = [
    "LESSON",
    "SPECS",
    "CallCost",
    "TimingSettings",
    "above_ceiling",
    "call_costs",
    "check_budget",
    "core_counts",
    "plan",
    "predicted_crossover",
    "resolve_settings",
    "run_timing",
    "speedups",
    "timing_table",
    "usable_cores",
]

SPECS = (
    IntListSetting("n", "NUM_ENVS values", (1, 2, 4, 8, 64, 256), 1, CAPS.max_envs),
    IntSetting("steps", "step() calls per run", 1_000, 1, CAPS.max_timing_steps),
    IntSetting("work_us", "Extra cost per env-step (µs)", 0, 0, CAPS.max_timing_work_us),
    ChoiceSetting("kind", "Kind of cost", "busy", WORK_KINDS),
)


@dataclass(frozen=True)
class TimingSettings:
    """One timing sweep: NUM_ENVS values, step() calls per run, and an optional step cost.

    Example:
        >>> TimingSettings((1, 4), steps=100, work_us=250).work_seconds
        0.00025
    """

    num_envs: tuple[int, ...]
    steps: int = 1_000
    work_us: int = 0
    work_kind: str = "busy"

    @property
    def work_seconds(self) -> float:
        return self.work_us / 1_000_000

    def describe(self) -> str:
        sizes = ", ".join(str(n) for n in self.num_envs)
        cost = f"; +{self.work_us:,} µs {self.work_kind} per env-step" if self.work_us else ""
        return f"NUM_ENVS {sizes}; {self.steps:,} step() calls each{cost}"


LESSON = TimingSettings((4,), 1_000)
"""The lesson's comparison: 4 envs, 1,000 steps, a plain BurgerBot."""


def resolve_settings(values: Mapping[str, Any]) -> tuple[TimingSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made."""
    notes = []
    sizes = tuple(sorted({int(n) for n in values.get("n") or ()}))
    if not sizes:
        sizes = SPECS[0].default
        notes.append("Pick at least one NUM_ENVS value: using the default list.")
    kind = values.get("kind") if values.get("kind") in WORK_KINDS else "busy"
    settings = TimingSettings(sizes, int(values["steps"]), int(values["work_us"]), kind)
    return settings, notes


def plan(settings: TimingSettings, caps: Caps = CAPS) -> tuple[dict[str, tuple[int, ...]], list]:
    """Which NUM_ENVS each backend runs, and a note for each value left out.

    Async starts one process per env, so it runs only NUM_ENVS up to ``caps.max_async_envs``.
    With a step cost, native is left out (it has no sub-environments to slow down) and
    Sync runs the same NUM_ENVS as Async, so the two are compared like with like.

    Example:
        >>> plan(TimingSettings((1, 4, 64)))[0]
        {'sync': (1, 4, 64), 'async': (1, 4), 'native': (1, 4, 64)}
    """
    notes = []
    async_sizes = tuple(n for n in settings.num_envs if n <= caps.max_async_envs)
    left_out = [n for n in settings.num_envs if n > caps.max_async_envs]
    if left_out:
        notes.append(
            f"Async starts one worker process per env, so this app runs it only up to "
            f"NUM_ENVS = {caps.max_async_envs} (BURGERBOT_MAX_ASYNC_ENVS raises it): it "
            f"skips {', '.join(str(n) for n in left_out)}."
        )
    if settings.work_us:
        runs = {"sync": async_sizes, "async": async_sizes}
        if left_out:
            notes.append(
                "With a step cost, Sync also runs only those NUM_ENVS (to compare like with "
                "like), and native is left out: it has no sub-environments to slow down."
            )
        else:
            notes.append("With a step cost, native is left out: it has no sub-environments.")
    else:
        runs = {"sync": settings.num_envs, "async": async_sizes, "native": settings.num_envs}
    return {backend: sizes for backend, sizes in runs.items() if sizes}, notes


def check_budget(settings: TimingSettings, caps: Caps = CAPS) -> str | None:
    """None if the sweep fits this app's caps, else a message saying what to lower."""
    runs, _ = plan(settings, caps)
    slow_envs = sum(runs.get("sync", ())) + sum(runs.get("async", ()))
    native_envs = sum(runs.get("native", ()))
    problems, steps_fit = [], []
    slow_cap = min(caps.max_sync_sweep_env_steps, caps.max_sweep_env_steps)
    if slow_envs * settings.steps > slow_cap:
        problems.append(
            f"Sync and Async would take {slow_envs * settings.steps:,} env-steps, over this "
            f"app's cap of {slow_cap:,} (BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS)"
        )
        steps_fit.append(slow_cap // slow_envs)
    if native_envs * settings.steps > caps.max_sweep_env_steps:
        problems.append(
            f"native would take {native_envs * settings.steps:,} env-steps, over this app's "
            f"cap of {caps.max_sweep_env_steps:,} (BURGERBOT_MAX_SWEEP_ENV_STEPS)"
        )
        steps_fit.append(caps.max_sweep_env_steps // native_envs)
    work = slow_envs * settings.steps * settings.work_seconds
    if work > caps.max_timing_work_seconds:
        problems.append(
            f"the extra step cost would add up to {work:,.0f} s of work, over this app's "
            f"limit of {caps.max_timing_work_seconds} s (BURGERBOT_MAX_TIMING_WORK_SECONDS)"
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


def run_timing(
    settings: TimingSettings,
    progress: Progress | None = None,
    budget: WorkerBudget | None = None,
    seed: int = 0,
) -> pd.DataFrame:
    """Time every backend of the plan with `experiments.time_backends`: one row per (backend, N).

    At most one vector env exists at a time, and each is closed before the next starts
    (also when ``progress`` raises). Async workers are counted against ``budget`` while
    the sweep runs: `slots.BudgetExceeded` is raised before any process starts if the
    server already runs too many.
    """
    runs, _ = plan(settings)
    total = sum(len(sizes) for sizes in runs.values())
    workers = max(runs.get("async", (0,)))
    if budget is not None and workers:
        budget.acquire(workers)
    try:
        frames, done = [], 0
        for backend, sizes in runs.items():

            def report(fraction: float, message: str, done: int = done, share: int = len(sizes)):
                if progress is not None:
                    progress(min(1.0, (done + fraction * share) / total), message)

            frames.append(
                time_backends(
                    [backend],
                    sizes,
                    settings.steps,
                    seed,
                    work_seconds=settings.work_seconds,
                    work_kind=settings.work_kind,
                    progress=report,
                )
            )
            done += len(sizes)
    finally:
        if budget is not None and workers:
            budget.release(workers)
    return pd.concat(frames, ignore_index=True)


def timing_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The times per (backend, N) with each divided by Sync's at the same N (×; 1 for Sync).

    Columns: backend, num_envs, create_s, reset_s, step_s, close_s, env_steps_per_s,
    step_vs_sync, create_vs_sync, close_vs_sync (NaN where Sync did not run that N).
    """
    sync = frame[frame["backend"] == "sync"].set_index("num_envs")
    table = frame[
        ["backend", "num_envs", "create_s", "reset_s", "step_s", "close_s", "env_steps_per_s"]
    ].copy()
    for column in ("step", "create", "close"):
        reference = table["num_envs"].map(sync[f"{column}_s"])
        table[f"{column}_vs_sync"] = table[f"{column}_s"] / reference
    order = {name: i for i, name in enumerate(BACKEND_NAMES)}
    return table.sort_values(
        ["num_envs", "backend"], key=lambda s: s.map(order) if s.name == "backend" else s
    ).reset_index(drop=True)


@dataclass(frozen=True)
class CallCost:
    """What one step() call cost at one NUM_ENVS, from a timing run without step cost."""

    num_envs: int
    sync_s: float
    async_s: float
    native_s: float | None

    @property
    def extra_s(self) -> float:
        """Async's extra time per step() call: the pipe round trips."""
        return self.async_s - self.sync_s

    @property
    def extra_per_env_s(self) -> float:
        return self.extra_s / self.num_envs

    @property
    def sync_per_env_step_s(self) -> float:
        """What Sync spends per env-step: BurgerBot's own step plus Sync's bookkeeping."""
        return self.sync_s / self.num_envs


def call_costs(frame: pd.DataFrame) -> list[CallCost]:
    """Seconds per step() call (step_s / steps) for each N where both Sync and Async ran."""
    per_call = frame.assign(call_s=frame["step_s"] / frame["steps"])
    table = per_call.pivot_table(index="num_envs", columns="backend", values="call_s")
    costs = []
    for n, row in table.iterrows():
        if pd.notna(row.get("sync")) and pd.notna(row.get("async")):
            native = row.get("native")
            costs.append(
                CallCost(int(n), row["sync"], row["async"], None if pd.isna(native) else native)
            )
    return costs


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
    for n, row in table.iterrows():
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
    else (other programs on a busy machine), so the timing is noise, not a result.
    """
    over = speedups["speedup"] > speedups["ceiling"] * tolerance
    return [int(n) for n in speedups.loc[over, "num_envs"]]


def core_counts() -> tuple[int | None, int | None]:
    """(``os.cpu_count()``, cores this process may run on: ``len(os.sched_getaffinity(0))``)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return os.cpu_count(), usable


def usable_cores() -> int:
    """The cores the model of `predicted_crossover` should assume (at least 1)."""
    total, usable = core_counts()
    return max(1, usable or total or 1)
