"""Timing vector envs live, shared by the "Sync vs Async" and "Cost sweeps" pages.

`run_timing` times SyncVectorEnv, AsyncVectorEnv and the native `BurgerBotVectorEnv` in
rounds taken in turns; `compare_backends` reads the rounds' spread before it calls one
faster; `call_costs` gives what one ``step()`` call cost each. Streamlit-free.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import cast

import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.slots import WorkerBudget
from burgerbot.bench import compare_timings
from burgerbot.experiments import Progress, time_backends

__all__ = [
    "ROUNDS",
    "TIMING_COLUMNS",
    "CallCost",
    "TimingSettings",
    "call_costs",
    "compare_backends",
    "core_counts",
    "micros",
    "plan",
    "run_timing",
    "shown_timing_table",
    "step_rates",
    "sweep_size",
    "timing_table",
    "usable_cores",
]


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
            f"NUM_ENVS = {caps.max_async_envs}: it skips {', '.join(str(n) for n in left_out)}."
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


def sweep_size(settings: TimingSettings, caps: Caps = CAPS) -> tuple[int, int]:
    """The env-steps and the step() calls of the whole sweep, over every backend and NUM_ENVS.

    Example:
        >>> sweep_size(TimingSettings((1, 4, 64), steps=10))  # Async runs 1 and 4 only
        (1430, 80)
    """
    runs, _ = plan(settings, caps)
    env_steps = sum(sum(sizes) for sizes in runs.values()) * settings.steps
    return env_steps, sum(len(sizes) for sizes in runs.values()) * settings.steps


ROUNDS = 3
"""Timed runs per (backend, NUM_ENVS), the backends taking turns: verdicts read their spread."""
_TIMES = ("create_s", "reset_s", "step_s", "close_s")


def run_timing(
    settings: TimingSettings,
    progress: Progress | None = None,
    budget: WorkerBudget | None = None,
    seed: int = 0,
    rounds: int = ROUNDS,
) -> pd.DataFrame:
    """Time every backend of the plan with `experiments.time_backends`: one row per (backend, N).

    The plan runs ``rounds`` times, the backends taking turns (their order rotated each
    round), so a busy moment of the machine slows one round of several backends rather than
    every run of one. Each row holds the medians over the rounds and, in ``step_s_rounds``,
    every round's stepping time (for `burgerbot.bench.compare_timings`).

    At most one vector env exists at a time, and each is closed before the next starts
    (also when ``progress`` raises). Async workers are counted against ``budget`` while
    the sweep runs: `slots.BudgetExceeded` is raised before any process starts if the
    server already runs too many.
    """
    runs, _ = plan(settings)
    backends = list(runs)
    total = rounds * sum(len(sizes) for sizes in runs.values())
    workers = max(runs.get("async", (0,)))
    if budget is not None and workers:
        budget.acquire(workers)
    try:
        frames, done = [], 0
        for round_ in range(rounds):
            shift = round_ % len(backends)
            for backend in backends[shift:] + backends[:shift]:
                sizes = runs[backend]

                def report(
                    fraction: float, message: str, done: int = done, share: int = len(sizes)
                ) -> None:
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
                    ).assign(round=round_)
                )
                done += len(sizes)
    finally:
        if budget is not None and workers:
            budget.release(workers)
    return _medians(pd.concat(frames, ignore_index=True), backends)


def _medians(every: pd.DataFrame, backends: list[str]) -> pd.DataFrame:
    """One row per (backend, N) in the plan's order: median times, and every round's step_s."""
    rows = []
    for backend in backends:
        mine = every[every["backend"] == backend]
        for key, group in mine.groupby("num_envs", sort=True):
            n = cast(int, key)  # a NUM_ENVS, an int
            first = group.iloc[0]
            row = {
                "backend": backend,
                "num_envs": int(n),
                "steps": int(first["steps"]),
                "work_seconds": first["work_seconds"],
            }
            row.update({column: float(group[column].median()) for column in _TIMES})
            row["env_steps"] = int(first["env_steps"])
            row["env_steps_per_s"] = row["env_steps"] / row["step_s"]
            row["step_s_rounds"] = [float(x) for x in group["step_s"]]
            rows.append(row)
    return pd.DataFrame(rows)


def step_rates(frame: pd.DataFrame, backend: str, num_envs: int) -> list[float]:
    """``backend``'s env-steps per second at ``num_envs``, one per round (or the one run)."""
    row = frame[(frame["backend"] == backend) & (frame["num_envs"] == num_envs)].iloc[0]
    rounds = row["step_s_rounds"] if "step_s_rounds" in row.index else [row["step_s"]]
    return [float(num_envs * row["steps"]) / float(x) for x in rounds]


def compare_backends(
    frame: pd.DataFrame, a: str, b: str, num_envs: int
) -> tuple[str, float, str] | None:
    """``a`` against ``b`` at ``num_envs``: verdict ("faster", "slower", "similar"), the ratio
    of their median speeds, and both figures in words. None when either did not run there
    or there is no spread (one round)."""
    have = frame[frame["num_envs"] == num_envs]["backend"]
    if not {a, b} <= set(have):
        return None
    a_rates, b_rates = step_rates(frame, a, num_envs), step_rates(frame, b, num_envs)
    if len(a_rates) < 2 or len(b_rates) < 2:
        return None
    result = compare_timings(a_rates, b_rates)

    def quoted(rates: list[float]) -> str:
        low, high = min(rates), max(rates)
        return f"{np.median(rates):,.0f} env-steps/s (rounds {low:,.0f} to {high:,.0f})"

    return result.verdict, result.ratio, f"{quoted(a_rates)} against {quoted(b_rates)}"


def timing_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The times per (backend, N), and the stepping time divided by Sync's at the same N.

    Columns: backend, num_envs, create_s, reset_s, step_s, close_s, env_steps_per_s,
    step_vs_sync (×; 1 for Sync, NaN where Sync did not run that N). Creating and closing
    are not divided: Sync's take microseconds, so such a quotient (thousands) means nothing.
    """
    sync = frame[frame["backend"] == "sync"].set_index("num_envs")
    table = frame[
        ["backend", "num_envs", "create_s", "reset_s", "step_s", "close_s", "env_steps_per_s"]
    ].copy()
    table["step_vs_sync"] = table["step_s"] / table["num_envs"].map(sync["step_s"])
    order = {name: i for i, name in enumerate(BACKEND_NAMES)}
    return table.sort_values(
        ["num_envs", "backend"], key=lambda s: s.map(order) if s.name == "backend" else s
    ).reset_index(drop=True)


TIMING_COLUMNS = {
    "num_envs": ("NUM_ENVS", None),
    "backend": ("backend", None),
    "create_s": ("create (s)", "%.4f"),
    "step_s": ("all steps (s)", "%.4f"),
    "close_s": ("close (s)", "%.4f"),
    "env_steps_per_s": ("env-steps/s", "%,.0f"),
    "step_vs_sync": ("steps ÷ Sync", "%.2f ×"),
}
"""`timing_table`'s columns as the pages show them: (heading, number format or None)."""


def shown_timing_table(frame: pd.DataFrame, per_num_envs: bool = True) -> pd.DataFrame:
    """`timing_table` as the pages show it: backends by name, headings, no reset time
    (resetting is quick on every backend) and, for one NUM_ENVS, no NUM_ENVS column."""
    table = timing_table(frame).drop(columns=["reset_s", *([] if per_num_envs else ["num_envs"])])
    table["backend"] = table["backend"].map(BACKEND_NAMES)
    return table.rename(columns={name: heading for name, (heading, _) in TIMING_COLUMNS.items()})


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
    for label, row in table.iterrows():
        n = cast(int, label)  # the table's index: NUM_ENVS, an int
        if pd.notna(row.get("sync")) and pd.notna(row.get("async")):
            native = row.get("native")
            costs.append(
                CallCost(int(n), row["sync"], row["async"], None if pd.isna(native) else native)
            )
    return costs


def core_counts() -> tuple[int | None, int | None]:
    """(``os.cpu_count()``, cores this process may run on: ``len(os.sched_getaffinity(0))``)."""
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return os.cpu_count(), usable


def usable_cores() -> int:
    """The cores the model of `predicted_crossover` should assume (at least 1)."""
    total, usable = core_counts()
    return max(1, usable or total or 1)


def micros(seconds: float) -> str:
    """Seconds as microseconds: one decimal below 10 µs, whole above.

    >>> micros(3.46e-6), micros(16.4e-6), micros(1250e-6)
    ('3.5 µs', '16 µs', '1,250 µs')
    """
    value = seconds * 1e6
    return f"{value:.1f} µs" if abs(value) < 10 else f"{value:,.0f} µs"
