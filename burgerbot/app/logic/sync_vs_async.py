"""The "Sync vs Async" page's logic: settings, caps, the timing sweep, ratios and the crossover.

AsyncVectorEnv runs each sub-environment in its own process and talks to it through a
pipe, once per ``step()`` call. For BurgerBot, whose step costs microseconds, that round
trip costs far more than the step itself, so Async loses. When each step costs more (a
heavier simulator), the processes step in parallel and Async can win, up to about the
number of cores for CPU work, or up to NUM_ENVS for waiting.
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import altair as alt
import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.labels import BACKEND_NAMES
from burgerbot.app.palette import BACKEND_COLOURS, OKABE_ITO, SHAPES
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting
from burgerbot.app.slots import WorkerBudget
from burgerbot.bench import compare_timings
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import Progress, time_backends
from burgerbot.factories import make_vector_env
from burgerbot.wrappers import WORK_KINDS

__all__ = [
    "BACKEND_COLOURS",
    "BACKEND_SHAPES",
    "BOOKKEEPING",
    "LESSON",
    "NATIVE_LABEL",
    "ROUNDS",
    "SAME",
    "SPECS",
    "Bookkeeping",
    "CallCost",
    "TimingSettings",
    "above_ceiling",
    "async_wins",
    "call_costs",
    "check_budget",
    "compare_backends",
    "core_counts",
    "faster_backend",
    "measure_bookkeeping",
    "micros",
    "native_remark",
    "overhead_text",
    "plan",
    "predicted_crossover",
    "resolve_settings",
    "run_timing",
    "speed_verdict",
    "speedup_chart",
    "speedups",
    "step_rates",
    "sweep_size",
    "takeaways",
    "throughput_chart",
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


def sweep_size(settings: TimingSettings, caps: Caps = CAPS) -> tuple[int, int]:
    """The env-steps and the step() calls of the whole sweep, over every backend and NUM_ENVS.

    Example:
        >>> sweep_size(TimingSettings((1, 4, 64), steps=10))  # Async runs 1 and 4 only
        (1430, 80)
    """
    runs, _ = plan(settings, caps)
    env_steps = sum(sum(sizes) for sizes in runs.values()) * settings.steps
    return env_steps, sum(len(sizes) for sizes in runs.values()) * settings.steps


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
        for n, group in mine.groupby("num_envs", sort=True):
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


# --- views/sync_vs_async_costs.py ---
# Sync vs Async: where a step() call's time goes, in words that follow the measured numbers.
#
# A plain loop of `BurgerBotEnv.step` on one env is timed alongside `SyncVectorEnv`, in
# alternating rounds (both meet the same load on a shared machine), so the page can say how much
# of Sync's time per env-step is BurgerBot's own step and how much is Sync's bookkeeping. Every
# sentence here is computed from a measurement, and says so when the measurement's spread leaves
# the answer open.

CLASS_NAMES = {"sync": "SyncVectorEnv", "async": "AsyncVectorEnv"}
BOOKKEEPING = (
    "splitting the batch of actions, calling each env in turn, writing each result into the "
    "batch arrays, merging `infos` and copying the batch it returns"
)
"""What `SyncVectorEnv.step` does besides the envs' own steps (read from its source)."""


def micros(seconds: float) -> str:
    """Seconds as microseconds: one decimal below 10 µs, whole above.

    >>> micros(3.46e-6), micros(16.4e-6), micros(1250e-6)
    ('3.5 µs', '16 µs', '1,250 µs')
    """
    value = seconds * 1e6
    return f"{value:.1f} µs" if abs(value) < 10 else f"{value:,.0f} µs"


@dataclass(frozen=True)
class Bookkeeping:
    """Seconds per env-step, one sample per round: a plain one-env loop and Sync with N envs."""

    num_envs: int
    env_steps: int
    """Env-steps per round, for each of the two."""
    plain_s: tuple[float, ...]
    sync_s: tuple[float, ...]

    @property
    def plain_median(self) -> float:
        return statistics.median(self.plain_s)

    @property
    def sync_median(self) -> float:
        return statistics.median(self.sync_s)

    @property
    def share(self) -> float:
        """The part of Sync's median time per env-step that the plain step does not explain."""
        return 1.0 - self.plain_median / self.sync_median

    @property
    def separated(self) -> str:
        """ "sync" if every Sync round was slower than every plain round, "plain" for the
        reverse, "" when the two ranges overlap (the noise hides the difference)."""
        verdict = compare_timings(
            [1 / s for s in self.plain_s], [1 / s for s in self.sync_s]
        ).verdict  # plain's speed against Sync's
        return {"faster": "sync", "slower": "plain", "similar": ""}[verdict]

    def _range(self, samples: tuple[float, ...]) -> str:
        return f"{micros(min(samples))} to {micros(max(samples))}"

    def sentence(self) -> str:
        """What the rounds say about Sync's bookkeeping, following the numbers and their spread.

        Example:
            >>> rounds = Bookkeeping(4, 1000, (3e-6, 4e-6, 3.5e-6), (15e-6, 16e-6, 17e-6))
            >>> rounds.sentence().split(" So ")[1]
            "most of Sync's time per env-step, about 78% of it, is its own bookkeeping: BurgerBot's step is the smaller part."
        """  # noqa: E501
        rounds = len(self.plain_s)
        head = (
            f"Measured alongside, in {rounds} alternating rounds of {self.env_steps:,} env-steps: "
            f"a plain loop of `BurgerBotEnv.step` on one env took **{micros(self.plain_median)}** "
            f"per step (median; {self._range(self.plain_s)}), Sync with {self.num_envs} envs "
            f"**{micros(self.sync_median)}** per env-step ({self._range(self.sync_s)}). "
        )
        if self.separated == "plain":
            return head + (
                "Here every plain round was slower than every Sync round, which no bookkeeping "
                "can explain: something else on this machine slowed the plain loop. Measure again."
            )
        if not self.separated:
            return head + (
                "The two ranges overlap, so on this run the machine's noise hides how much of "
                "Sync's time is its own bookkeeping. Measure again."
            )
        if self.share >= 0.5:
            return head + (
                f"So most of Sync's time per env-step, about {self.share:.0%} of it, is its own "
                f"bookkeeping: BurgerBot's step is the smaller part."
            )
        return head + (
            f"So BurgerBot's own step is most of Sync's time per env-step; Sync's bookkeeping "
            f"adds the other {self.share:.0%}."
        )


def measure_bookkeeping(
    num_envs: int = 4, calls: int = 250, rounds: int = 7, seed: int = 0
) -> Bookkeeping:
    """Time Sync (``calls`` step() calls of ``num_envs`` envs) and a plain one-env loop over as
    many env-steps with the same random actions, in ``rounds`` alternating rounds.

    Both reset an env whose episode ended, as Sync's auto-reset does. Sync's default NEXT_STEP
    mode spends a call on each reset, so its env-steps include a few resets too.
    """
    actions = np.random.default_rng(seed).integers(0, 4, size=(calls, num_envs))
    flat = actions.reshape(-1).tolist()
    env = BurgerBotEnv()
    envs = make_vector_env("sync", num_envs)
    plain: list[float] = []
    sync: list[float] = []
    try:
        env.reset(seed=seed)
        envs.reset(seed=seed)
        step, reset, clock = env.step, env.reset, time.perf_counter

        def plain_round() -> None:
            start = clock()
            for action in flat:
                _, _, terminated, truncated, _ = step(action)
                if terminated or truncated:
                    reset()
            plain.append((clock() - start) / len(flat))

        def sync_round() -> None:
            start = clock()
            for row in actions:
                envs.step(row)
            sync.append((clock() - start) / len(flat))

        for index in range(rounds):
            first, second = (plain_round, sync_round) if index % 2 else (sync_round, plain_round)
            first()
            second()
    finally:
        env.close()
        envs.close()
    return Bookkeeping(num_envs, len(flat), tuple(plain), tuple(sync))


def overhead_text(
    cost: CallCost,
    bookkeeping: Bookkeeping | None,
    rounds: tuple[str, float, str] | None = None,
) -> str:
    """Async's cost per step() call against Sync's, in words that follow the numbers.

    ``rounds`` is `compare_backends` of Async against Sync at the same NUM_ENVS: when their
    rounds overlap, no difference is claimed.

    Example:
        >>> text = overhead_text(CallCost(4, 60e-6, 900e-6, 20e-6), None)
        >>> "**840 µs more per call**" in text
        True
        >>> "was not slower" in overhead_text(CallCost(4, 900e-6, 800e-6, None), None)
        True
    """
    native = f" ({micros(cost.native_s)} with native)" if cost.native_s is not None else ""
    head = (
        f"With {cost.num_envs} envs, one `step()` call took **{micros(cost.sync_s)}** with Sync "
        f"and **{micros(cost.async_s)}** with Async{native}. "
    )
    if rounds is not None and rounds[0] == "similar":
        return head + (
            f"Their rounds overlap ({rounds[2]}, Async against Sync): no clear difference per "
            "call on this run. Measure again."
        )
    if cost.extra_s <= 0:
        return head + (
            f"Async was not slower per call here ({micros(-cost.extra_s)} less): its workers "
            "stepped in parallel and that outweighed the trips through the pipes."
        )
    text = head + (
        "Async sends each action down a pipe to its worker process and waits for the answer to "
        f"come back: that cost **{micros(cost.extra_s)} more per call**, about "
        f"{micros(cost.extra_per_env_s)} per env"
    )
    if bookkeeping is None:
        return text + "."
    ratio = cost.extra_per_env_s / bookkeeping.plain_median
    return text + (
        f", {ratio:,.0f}× what a plain BurgerBot step took. Parallel processes cannot win back "
        "time the step never took."
        if ratio >= 1
        else f", less than a plain BurgerBot step took ({micros(bookkeeping.plain_median)})."
    )


def native_remark(sweep: pd.DataFrame) -> str | None:
    """When native was slower per call than Sync at the smallest N: why, and how it stood at the
    largest N (None when it was not slower, or there is one N only).

    Example:
        >>> rows = [("sync", 1, 0.01), ("native", 1, 0.02), ("sync", 64, 0.5), ("native", 64, 0.05)]
        >>> sweep = pd.DataFrame(rows, columns=["backend", "num_envs", "step_s"]).assign(steps=100)
        >>> native_remark(sweep).split(". ")[-1]
        'But one call moves every robot, so at NUM_ENVS 64 native was 10.0× as fast as Sync.'
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
    slower = first["native"] > first["sync"] if at_smallest is None else at_smallest[0] == "slower"
    if not slower or largest == smallest:
        return None
    head = (
        f"At NUM_ENVS {smallest}, native took {micros(first['native'])} per `step()` call "
        f"against Sync's {micros(first['sync'])}: every call pays for a few numpy operations, "
        "however few robots there are. "
    )
    at_largest = compare_backends(sweep, "native", "sync", largest)
    faster = last["native"] < last["sync"] if at_largest is None else at_largest[0] == "faster"
    if faster:
        return head + (
            f"But one call moves every robot, so at NUM_ENVS {largest} native was "
            f"{last['sync'] / last['native']:,.1f}× as fast as Sync."
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


SAME = "About the same here"
"""The lesson comparison's answer when Sync's and Async's rounds overlap."""


def faster_backend(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, float, str] | None:
    """("sync", "async" or "similar"; how many times as fast; the figures) at ``num_envs``,
    from the rounds' stepping times (`burgerbot.bench.compare_timings`).

    None when either did not run there.
    """
    result = compare_backends(frame, "sync", "async", num_envs)
    if result is None:
        return None
    verdict, ratio, figures = result
    if verdict == "similar":
        return "similar", 1.0, figures
    return ("sync", ratio, figures) if verdict == "faster" else ("async", 1 / ratio, figures)


def speed_verdict(frame: pd.DataFrame, num_envs: int = 4) -> tuple[str, str]:
    """The prediction's truth (a class name, or `SAME`) and its explanation, from the run."""
    result = faster_backend(frame, num_envs)
    if result is None:
        raise ValueError(f"the run has no Sync and Async rows at NUM_ENVS {num_envs}")
    winner, times, figures = result
    steps = int(frame.loc[frame["num_envs"] == num_envs, "steps"].iloc[0])
    rounds = len(step_rates(frame, "sync", num_envs))
    head = f"{steps:,} `step()` calls, {rounds} rounds taken in turns: Sync {figures} for Async. "
    if winner == "similar":
        return SAME, head + (
            "Their rounds overlap: too close to call on this server. Measure again."
        )
    loser = "async" if winner == "sync" else "sync"
    why = (
        "For a step as cheap as BurgerBot's, Async's round trips to its worker processes cost "
        "more than running the envs in parallel saves."
        if winner == "sync"
        else "Its workers stepped in parallel and that outweighed the round trips; with a step "
        "this cheap that is rare: measure again to see whether it holds."
    )
    return CLASS_NAMES[winner], head + (
        f"{CLASS_NAMES[winner]} was {times:,.1f}× as fast as {CLASS_NAMES[loser]} in every "
        f"round. {why}"
    )


def takeaways(lesson: pd.DataFrame | None, bookkeeping: Bookkeeping | None) -> list[str]:
    """The page's "Key takeaways"; those about this server come from its runs, if any."""
    bullets = [
        "`SyncVectorEnv` steps its envs one after another in this process; `AsyncVectorEnv` "
        "runs each in its own worker process: actions, rewards, flags and infos go through "
        "pipes, observations through shared memory (its default).",
    ]
    result = None if lesson is None else faster_backend(lesson)
    if result is None:
        bullets.append("Run the lesson's comparison to see which is faster on this server.")
    elif result[0] == "similar":
        bullets.append(
            "Here, with 4 BurgerBots, Sync and Async were about as fast: their rounds overlapped."
        )
    else:
        winner, times, _ = result
        loser = "async" if winner == "sync" else "sync"
        bullets.append(
            f"Here, with 4 BurgerBots, {CLASS_NAMES[winner]} was {times:,.1f}× as fast as "
            f"{CLASS_NAMES[loser]} in every round."
        )
    if bookkeeping is not None and bookkeeping.separated == "sync":
        part = "most" if bookkeeping.share >= 0.5 else "the smaller part"
        bullets.append(
            f"Sync's own bookkeeping was {part} of its time per env-step here "
            f"({micros(bookkeeping.sync_median)}, against {micros(bookkeeping.plain_median)} "
            "for a plain `BurgerBotEnv.step`)."
        )
    bullets += [
        "Async pays off only when one step costs much more than Async's round trip per call: "
        "a heavy simulator, or waiting on a device or a network.",
        "`BurgerBotVectorEnv` (native) is this project's class, not Gymnasium's: one call moves "
        "every robot with numpy.",
    ]
    return bullets


# --- charts/sync_vs_async.py ---
# Charts for the "Sync vs Async" page: env-steps per second, and Async's speed-up over Sync.

BACKEND_SHAPES = dict(zip(BACKEND_COLOURS, SHAPES, strict=False))
"""Each backend's marker shape, so the lines differ by more than colour."""

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
    return (base.mark_line() + points).properties(
        title="How fast each backend collects env-steps", height=420
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
    return (lines + even).properties(
        title="Above 1: Async is faster. Below 1: Sync is faster.", height=400
    )
