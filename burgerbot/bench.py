"""Env-steps per second: a learner's BurgerBot, `BurgerBotEnv`, Sync, Async and native vectors.

It also holds the library's one timing harness: `run_for` (run a chunk of work until a time
budget has passed), `repeat_timings` (warm up, then several such runs: best and slowest),
`interleaved_timings` (several chunks' runs taken in turns, so a busy moment of the machine
hits all of them alike), `Stopwatch` (add up the time spent in chosen blocks) and
`compare_timings` (the one verdict on "which was faster": a ratio only when the repeats'
spreads do not overlap). `burgerbot.speed` and `burgerbot.experiments` time their work with
them.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import pandas as pd

from burgerbot import checks
from burgerbot.baseline import StraightforwardBurgerBot
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import BACKENDS, make_vector_env

__all__ = [
    "DEFAULT_SIZES",
    "IMPLEMENTATIONS",
    "QUICK_SIZES",
    "Clock",
    "Comparison",
    "Stopwatch",
    "Timing",
    "Timings",
    "check_goals",
    "compare_timings",
    "format_report",
    "interleaved_timings",
    "main",
    "repeat_timings",
    "run_benchmark",
    "run_for",
]

IMPLEMENTATIONS: dict[str, str] = {
    "straightforward": "StraightforwardBurgerBot, plain loop (baseline)",
    "single": "BurgerBotEnv, plain loop",
    "sync": "SyncVectorEnv over BurgerBotEnv",
    "async": "AsyncVectorEnv over BurgerBotEnv",
    "native": "BurgerBotVectorEnv",
}

# Numbers of envs per vector backend. The two single-env rows always run (N=1): every
# ratio column is measured against them.
DEFAULT_SIZES: dict[str, tuple[int, ...]] = {
    "sync": (1, 4, 16, 64, 256, 1024),
    "async": (1, 4, 16),
    "native": (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536),
}
# Quick mode keeps every N that a goal or a native-vs-sync ratio needs. Async stops at 4:
# sixteen spawned interpreters take longer to start on 2 cores than the whole timing.
QUICK_SIZES: dict[str, tuple[int, ...]] = {
    "sync": (1, 16, 256, 1024),
    "async": (1, 4),
    "native": (1, 16, 256, 1024, 65536),
}
DEFAULT_SECONDS = 2.0
QUICK_SECONDS = 0.5
# Async steps a few thousand times per second whatever the budget: a quarter is plenty.
ASYNC_BUDGET_FRACTION = 0.25
WARMUP_FRACTION = 0.1
# The single-env loop checks the clock once per this many steps, so timing costs ~nothing.
SINGLE_ENV_CHUNK = 1024
# Pre-generated vector actions: at most this many in all (a few MB), cycled row by row.
VECTOR_ACTION_POOL = 1 << 18

COLUMNS = (
    "impl",
    "num_envs",
    "env_steps_per_s",
    "step_calls",
    "seconds",
    "vs_baseline",
    "vs_plain_loop",
    "vs_sync",
)


def _single_env_chunk(env: gym.Env, actions: list[int]) -> Callable[[], int]:
    """Step ``env`` once per action, resetting when an episode ends; returns the step count."""

    def run_chunk() -> int:
        step, reset = env.step, env.reset
        for action in actions:
            _, _, terminated, truncated, _ = step(action)
            if terminated or truncated:
                reset()
        return len(actions)

    return run_chunk


def _vector_env_chunk(envs: gym.vector.VectorEnv, action_rows: np.ndarray) -> Callable[[], int]:
    """One ``envs.step`` call per chunk, cycling through pre-generated action rows."""
    rows = itertools.cycle(list(action_rows))

    def run_chunk() -> int:
        envs.step(next(rows))
        return 1

    return run_chunk


Clock = Callable[[], float]
"""A clock: seconds as a float, only differences between two readings matter."""


class Timing(NamedTuple):
    """One timed run: the calls its chunks reported and the seconds they took."""

    calls: int
    seconds: float

    @property
    def rate(self) -> float:
        """Calls per second (infinite for a run too short for the clock to see)."""
        return self.calls / self.seconds if self.seconds > 0 else math.inf


@dataclass(frozen=True)
class Timings:
    """The timed runs of `repeat_timings`, in order, with the fastest and the slowest."""

    runs: tuple[Timing, ...]

    @property
    def best(self) -> Timing:
        """The fastest run (highest `Timing.rate`): the least disturbed by other work on the
        machine, the figure a benchmark reports."""
        return max(self.runs, key=lambda run: run.rate)

    @property
    def slowest(self) -> Timing:
        """The slowest run (lowest `Timing.rate`): with `best`, the spread between repeats."""
        return min(self.runs, key=lambda run: run.rate)


class Stopwatch:
    """Adds up the seconds spent inside its ``with`` blocks, to time only the parts that count.

    A block that raises still counts. ``clock`` defaults to `time.perf_counter`.

    Example:
        >>> readings = iter([0.0, 1.5, 10.0, 10.25])  # a made-up clock: start, stop, ...
        >>> watch = Stopwatch(clock=lambda: next(readings))
        >>> with watch:
        ...     pass  # e.g. envs.reset(seed=0)
        >>> with watch:
        ...     pass  # e.g. the step() calls, not drawing their actions
        >>> watch.seconds
        1.75
    """

    def __init__(self, clock: Clock = time.perf_counter) -> None:
        self.clock = clock
        self.seconds = 0.0
        self._started: float | None = None

    def __enter__(self) -> Stopwatch:
        self._started = self.clock()
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._started is not None:
            self.seconds += self.clock() - self._started
            self._started = None


def _check_seconds(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValueError(f"`{name}` must be a number of seconds, 0 or more, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"`{name}` must be finite, got {value!r}")
    return float(value)


def run_for(
    run_chunk: Callable[[], int],
    seconds: float,
    min_calls: int = 0,
    *,
    clock: Clock = time.perf_counter,
) -> Timing:
    """Call ``run_chunk`` until ``seconds`` have passed and it has made ``min_calls`` calls.

    ``run_chunk`` does a fixed piece of work and returns how many calls it made (e.g.
    ``step()`` calls). The clock is read once per chunk, so a chunk should take long
    compared with reading it. At least one chunk always runs: ``seconds=0`` runs one.

    Args:
        run_chunk: The work to time; returns the number of calls it made.
        seconds: The time budget: chunks run until at least this much has passed.
        min_calls: Keep going until the chunks have made at least this many calls.
        clock: Where the time comes from (`time.perf_counter`; a fake one in tests).

    Returns:
        A `Timing`: the calls made and the seconds taken (at least ``seconds``).

    Example:
        >>> readings = iter(range(100))  # a made-up clock: one second per reading
        >>> run_for(lambda: 2, seconds=3, clock=lambda: next(readings))
        Timing(calls=6, seconds=3)
    """
    seconds = _check_seconds("seconds", seconds)
    if isinstance(min_calls, bool) or not isinstance(min_calls, int) or min_calls < 0:
        raise ValueError(f"`min_calls` must be a whole number, 0 or more, got {min_calls!r}")
    calls = 0
    start = clock()
    while True:
        calls += run_chunk()
        elapsed = clock() - start
        if elapsed >= seconds and calls >= min_calls:
            return Timing(calls, elapsed)


def repeat_timings(
    run_chunk: Callable[[], int],
    seconds: float,
    repeats: int,
    *,
    min_calls: int = 0,
    warmup_seconds: float = 0.0,
    clock: Clock = time.perf_counter,
) -> Timings:
    """Warm up, then time ``repeats`` runs of `run_for` and keep them all.

    The warm-up (caches filled, code paths taken once) runs chunks for ``warmup_seconds``,
    at least one chunk, and is not timed. Report `Timings.best`, the fastest run: the one
    least disturbed by whatever else the machine was doing; `Timings.slowest` gives the
    spread.

    Args:
        run_chunk: The work to time; returns the number of calls it made.
        seconds: Time budget of each timed run.
        repeats: How many timed runs.
        min_calls: Each timed run goes on until its chunks made at least this many calls.
        warmup_seconds: Time budget of the untimed warm-up (0: one chunk).
        clock: Where the time comes from (`time.perf_counter`; a fake one in tests).

    Returns:
        `Timings` holding the ``repeats`` timed runs in order.

    Example:
        >>> timings = repeat_timings(lambda: 1, seconds=0.001, repeats=3)  # 1 call per chunk
        >>> len(timings.runs), timings.best.rate >= timings.slowest.rate
        (3, True)
    """
    seconds = _check_seconds("seconds", seconds)
    warmup_seconds = _check_seconds("warmup_seconds", warmup_seconds)
    repeats = checks.positive_int("repeats", repeats)
    run_for(run_chunk, warmup_seconds, clock=clock)
    return Timings(
        tuple(run_for(run_chunk, seconds, min_calls, clock=clock) for _ in range(repeats))
    )


def interleaved_timings(
    chunks: Mapping[Any, Callable[[], int]],
    seconds: float,
    repeats: int,
    *,
    min_calls: int = 0,
    warmup_seconds: float = 0.0,
    clock: Clock = time.perf_counter,
) -> dict[Any, Timings]:
    """`repeat_timings` for several chunks at once, their timed runs taken in turns.

    Every chunk warms up first (untimed); then round ``r`` times one run of each chunk, the
    order rotated by one each round. A moment when the machine is busy elsewhere then slows
    one run of several chunks rather than every run of one chunk, so the spreads of their
    `Timings` can be compared (`compare_timings`).

    Args:
        chunks: Name -> the work to time (returns the number of calls it made).
        seconds: Time budget of each timed run.
        repeats: Timed runs per chunk.
        min_calls: Each timed run goes on until its chunk made at least this many calls.
        warmup_seconds: Time budget of each chunk's untimed warm-up (0: one chunk).
        clock: Where the time comes from (`time.perf_counter`; a fake one in tests).

    Returns:
        Name -> `Timings` of its ``repeats`` runs, in the order they ran.

    Example:
        >>> order = []
        >>> chunks = {"a": lambda: order.append("a") or 1, "b": lambda: order.append("b") or 1}
        >>> readings = iter(range(100))  # one second per reading
        >>> timings = interleaved_timings(chunks, 1, 2, clock=lambda: next(readings))
        >>> "".join(order), [len(t.runs) for t in timings.values()]
        ('ababba', [2, 2])
    """
    seconds = _check_seconds("seconds", seconds)
    warmup_seconds = _check_seconds("warmup_seconds", warmup_seconds)
    repeats = checks.positive_int("repeats", repeats)
    names = list(chunks)
    if not names:
        raise ValueError("`chunks` must hold at least one chunk of work")
    for name in names:
        run_for(chunks[name], warmup_seconds, clock=clock)
    runs: dict[Any, list[Timing]] = {name: [] for name in names}
    for round_ in range(repeats):
        shift = round_ % len(names)
        for name in names[shift:] + names[:shift]:
            runs[name].append(run_for(chunks[name], seconds, min_calls, clock=clock))
    return {name: Timings(tuple(runs[name])) for name in names}


class Comparison(NamedTuple):
    """`compare_timings`' answer: ``a`` against ``b``, and the figures behind it.

    ``verdict`` is ``"faster"`` or ``"slower"`` (``a`` against ``b``) only when the two
    spreads (slowest to fastest repeat) do not overlap; otherwise ``"similar"``. ``ratio``
    is ``a``'s median rate over ``b``'s: quote it only when the verdict is not "similar".
    """

    verdict: str
    ratio: float
    a_median: float
    b_median: float
    a_spread: tuple[float, float]
    b_spread: tuple[float, float]

    @property
    def overlap(self) -> bool:
        """Whether the two spreads overlap (the verdict is then "similar")."""
        return self.verdict == "similar"


def _rates(name: str, samples: Sequence[float] | Timings) -> np.ndarray:
    values = [run.rate for run in samples.runs] if isinstance(samples, Timings) else samples
    rates = np.asarray(list(values), dtype=float)
    if rates.ndim != 1 or rates.size < 2:
        raise ValueError(f"`{name}` needs two timed repeats or more (a spread), got {rates!r}")
    if not (np.isfinite(rates).all() and (rates > 0).all()):
        raise ValueError(f"`{name}` must hold positive, finite rates, got {rates!r}")
    return rates


def compare_timings(
    a_samples: Sequence[float] | Timings, b_samples: Sequence[float] | Timings
) -> Comparison:
    """Which of two repeatedly timed things was faster, if the spread lets one say so.

    The samples are rates, one per timed repeat (work per second: higher is faster), or
    `Timings`. For seconds per fixed piece of work pass ``1 / seconds``. ``a`` is "faster"
    only when its slowest repeat beat ``b``'s fastest, "slower" the other way round, and
    "similar" (about the same) whenever the spreads overlap. Measure the two interleaved
    (`interleaved_timings`), so that a busy machine slows both alike.

    Args:
        a_samples: ``a``'s rates, at least two.
        b_samples: ``b``'s rates, at least two.

    Returns:
        A `Comparison`: verdict, the ratio of the medians (a / b), medians and spreads.

    Example:
        >>> compare_timings([300, 280, 310], [100, 90, 120])[:2]
        ('faster', 3.0)
        >>> compare_timings([100, 60, 90], [110, 70, 95]).verdict
        'similar'
    """
    a, b = _rates("a_samples", a_samples), _rates("b_samples", b_samples)
    a_spread, b_spread = (float(a.min()), float(a.max())), (float(b.min()), float(b.max()))
    if a_spread[0] > b_spread[1]:
        verdict = "faster"
    elif b_spread[0] > a_spread[1]:
        verdict = "slower"
    else:
        verdict = "similar"
    a_median, b_median = float(np.median(a)), float(np.median(b))
    return Comparison(verdict, a_median / b_median, a_median, b_median, a_spread, b_spread)


def _best_of(run_chunk: Callable[[], int], seconds: float, repeats: int) -> Timing:
    """Warm up for a tenth of the budget, then keep the fastest of ``repeats`` runs."""
    warmup = seconds * WARMUP_FRACTION
    return repeat_timings(run_chunk, seconds, repeats, warmup_seconds=warmup).best


def _measure_single(
    make: Callable[[], gym.Env], rng: np.random.Generator, seconds: float, repeats: int
) -> Timing:
    env = make()
    try:
        env.reset(seed=0)
        actions = rng.integers(0, 4, size=SINGLE_ENV_CHUNK).tolist()
        return _best_of(_single_env_chunk(env, actions), seconds, repeats)
    finally:
        env.close()


def _measure_vector(
    backend: str, num_envs: int, rng: np.random.Generator, seconds: float, repeats: int
) -> Timing:
    envs = make_vector_env(backend, num_envs)
    try:
        envs.reset(seed=0)
        pool_rows = max(1, min(256, VECTOR_ACTION_POOL // num_envs))
        action_rows = rng.integers(0, 4, size=(pool_rows, num_envs), dtype=np.int64)
        return _best_of(_vector_env_chunk(envs, action_rows), seconds, repeats)
    finally:
        envs.close()


def _check_sizes(sizes: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, ...]]:
    checked = {}
    for backend, counts in sizes.items():
        if backend not in BACKENDS:
            raise ValueError(f"`sizes` keys must be among {BACKENDS}, got {backend!r}")
        checked[backend] = tuple(checks.positive_int(f"sizes[{backend!r}]", n) for n in counts)
    return checked


def _add_ratios(df: pd.DataFrame) -> pd.DataFrame:
    """Ratio columns, each a division of two rates measured in this same run."""
    rate = df["env_steps_per_s"]
    single_rate = df.loc[df["impl"] == "single", "env_steps_per_s"].iloc[0]
    baseline_rate = df.loc[df["impl"] == "straightforward", "env_steps_per_s"].iloc[0]
    sync_rates = df[df["impl"] == "sync"].set_index("num_envs")["env_steps_per_s"]
    df["vs_baseline"] = rate / baseline_rate
    df["vs_plain_loop"] = rate / single_rate
    df["vs_sync"] = rate / df["num_envs"].map(sync_rates).astype(float)
    return df


def run_benchmark(
    quick: bool = False,
    seconds: float | None = None,
    *,
    sizes: Mapping[str, Sequence[int]] | None = None,
    repeats: int = 3,
    seed: int = 0,
    on_row: Callable[[dict[str, Any]], None] | None = None,
) -> pd.DataFrame:
    """Measure env-steps per second of every implementation, one tidy row per (impl, N).

    Each row warms up, then steps with pre-generated random actions until ``seconds``
    have passed, ``repeats`` times, and keeps the fastest run. Single envs reset when an
    episode ends (part of their cost); vector envs auto-reset themselves (NEXT_STEP).

    Args:
        quick: Use the trimmed ``QUICK_SIZES`` and a shorter default budget.
        seconds: Timing budget per repeat (Async gets a quarter of it). Defaults to
            ``QUICK_SECONDS`` or ``DEFAULT_SECONDS``.
        sizes: Numbers of envs per vector backend (``"sync"``, ``"async"``,
            ``"native"``), replacing the defaults; a backend left out is not run. The
            two single-env rows always run.
        repeats: Timed runs per row; the best one is reported.
        seed: Seed of the numpy generator that draws the actions.
        on_row: Called with each row's measurements as soon as they are known.

    Returns:
        A DataFrame with columns ``impl``, ``num_envs``, ``env_steps_per_s``,
        ``step_calls``, ``seconds``, and the ratios ``vs_baseline`` (to the
        straightforward env), ``vs_plain_loop`` (to one ``BurgerBotEnv``) and
        ``vs_sync`` (to ``SyncVectorEnv`` at the same N, NaN where it was not run).
        ``df.attrs["settings"]`` records the budget, repeats and machine.

    Example:
        >>> df = run_benchmark(seconds=0.01, sizes={"native": [8]}, repeats=1)
        >>> df["impl"].tolist()
        ['straightforward', 'single', 'native']
    """
    if seconds is None:
        seconds = QUICK_SECONDS if quick else DEFAULT_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
        raise ValueError(f"`seconds` must be a positive number, got {seconds!r}")
    if not math.isfinite(seconds):
        raise ValueError(f"`seconds` must be finite, got {seconds!r}")
    repeats = checks.positive_int("repeats", repeats)
    plan = _check_sizes(sizes if sizes is not None else (QUICK_SIZES if quick else DEFAULT_SIZES))

    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []

    def record(impl: str, num_envs: int, calls: int, elapsed: float) -> None:
        row = {
            "impl": impl,
            "num_envs": num_envs,
            "env_steps_per_s": calls * num_envs / elapsed,
            "step_calls": calls,
            "seconds": elapsed,
        }
        rows.append(row)
        if on_row is not None:
            on_row(row)

    for impl, make in (("straightforward", StraightforwardBurgerBot), ("single", BurgerBotEnv)):
        record(impl, 1, *_measure_single(make, rng, seconds, repeats))
    for backend in BACKENDS:
        budget = seconds * ASYNC_BUDGET_FRACTION if backend == "async" else seconds
        for num_envs in plan.get(backend, ()):
            record(backend, num_envs, *_measure_vector(backend, num_envs, rng, budget, repeats))

    df = _add_ratios(pd.DataFrame(rows, columns=COLUMNS[:5]))
    df.attrs["settings"] = {
        "quick": quick,
        "seconds": seconds,
        "async_seconds": seconds * ASYNC_BUDGET_FRACTION,
        "repeats": repeats,
        "seed": seed,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
    }
    return df


def _rate_at(df: pd.DataFrame, impl: str, num_envs: int) -> float | None:
    match = df.loc[(df["impl"] == impl) & (df["num_envs"] == num_envs), "env_steps_per_s"]
    return float(match.iloc[0]) if len(match) else None


def _goal(
    text: str, measured: float | None, target: float, unit: str, strict: bool
) -> dict[str, Any]:
    if measured is None:
        passed, status = None, "NOT RUN"
    else:
        passed = measured > target if strict else measured >= target
        status = "PASS" if passed else "MISS"
    return {
        "goal": text,
        "target": target,
        "measured": measured,
        "unit": unit,
        "of_target": None if measured is None else measured / target,
        "passed": passed,
        "status": status,
    }


def check_goals(df: pd.DataFrame) -> list[dict[str, Any]]:
    """Compare a benchmark frame with the issue's three speed goals.

    Args:
        df: A frame from :func:`run_benchmark`.

    Returns:
        One dict per goal: ``goal`` (text), ``target``, ``measured`` (None when the rows
        it needs were not run), ``unit`` (``"x"`` or ``"env-steps/s"``), ``of_target``
        (measured / target), ``passed`` (bool or None) and ``status`` (``"PASS"``,
        ``"MISS"`` or ``"NOT RUN"``).
    """
    single, baseline = _rate_at(df, "single", 1), _rate_at(df, "straightforward", 1)
    native_1024, sync_1024 = _rate_at(df, "native", 1024), _rate_at(df, "sync", 1024)
    native_65536 = _rate_at(df, "native", 65536)
    return [
        _goal(
            "One BurgerBotEnv steps at 1.5x the straightforward baseline or better",
            None if single is None or baseline is None else single / baseline,
            1.5,
            "x",
            strict=False,
        ),
        _goal(
            "BurgerBotVectorEnv is at least 100x SyncVectorEnv at N=1024",
            None if native_1024 is None or sync_1024 is None else native_1024 / sync_1024,
            100.0,
            "x",
            strict=False,
        ),
        _goal(
            "BurgerBotVectorEnv is above 100 million env-steps/s at N=65,536",
            native_65536,
            1e8,
            "env-steps/s",
            strict=True,
        ),
    ]


def _format_ratio(value: float) -> str:
    if not math.isfinite(value):
        return "-"
    if value < 10:
        return f"{value:.2f}x"
    if value < 1000:
        return f"{value:.1f}x"
    return f"{value:,.0f}x"


def _format_measure(value: float | None, unit: str) -> str:
    if value is None:
        return "not run"
    return _format_ratio(value) if unit == "x" else f"{value:,.0f} {unit}"


def format_report(df: pd.DataFrame, goals: list[dict[str, Any]]) -> str:
    """The benchmark as an aligned text table followed by the goals, PASS or MISS."""
    settings = df.attrs.get("settings", {})
    lines = []
    if settings:
        lines.append(
            f"BurgerBot env-steps per second ({'quick' if settings['quick'] else 'full'} mode; "
            f"best of {settings['repeats']} x {settings['seconds']:g} s per row, "
            f"Async {settings['async_seconds']:g} s; {settings['cpu_count']} CPUs, "
            f"Python {settings['python']}, numpy {settings['numpy']}, "
            f"gymnasium {settings['gymnasium']})"
        )
        lines.append("")
    header = ("implementation", "N", "env-steps/s", "vs baseline", "vs plain loop", "vs sync")
    table = [header]
    for row in df.to_dict("records"):
        table.append(
            (
                IMPLEMENTATIONS[str(row["impl"])],
                f"{row['num_envs']:,}",
                f"{row['env_steps_per_s']:,.0f}",
                _format_ratio(float(row["vs_baseline"])),
                _format_ratio(float(row["vs_plain_loop"])),
                _format_ratio(float(row["vs_sync"])),
            )
        )
    widths = [max(len(cells[i]) for cells in table) for i in range(len(header))]
    for cells in table:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        lines.append("  ".join([first, *rest]))
    lines += ["", "Goals (measured in this run):"]
    for goal in goals:
        measured = _format_measure(goal["measured"], goal["unit"])
        share = "" if goal["of_target"] is None else f" = {goal['of_target']:.0%} of target"
        lines.append(f"  {goal['status']:<7} {goal['goal']}: measured {measured}{share}")
    return "\n".join(lines)


def _json_ready(value: Any) -> Any:
    """Plain Python values for json.dumps, with NaN as null (JSON has no NaN)."""
    if isinstance(value, dict):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_json_ready(item) for item in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: ``python -m burgerbot.bench [--quick] [--json] [--seconds S]``."""
    parser = argparse.ArgumentParser(
        prog="python -m burgerbot.bench",
        description="Env-steps per second of BurgerBot: a straightforward env, BurgerBotEnv, "
        "SyncVectorEnv, AsyncVectorEnv and BurgerBotVectorEnv, with ratios and goals.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="fewer N and a shorter budget (under a minute)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help=f"timing budget per repeat (default {QUICK_SECONDS:g} quick, "
        f"{DEFAULT_SECONDS:g} full; Async gets a quarter)",
    )
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per row, best kept")
    args = parser.parse_args(argv)

    def progress(row: dict[str, Any]) -> None:
        print(
            f"  {row['impl']:>15} N={row['num_envs']:<6,} {row['env_steps_per_s']:>15,.0f}",
            file=sys.stderr,
            flush=True,
        )

    df = run_benchmark(args.quick, args.seconds, repeats=args.repeats, on_row=progress)
    goals = check_goals(df)
    if args.json:
        report = {
            "settings": df.attrs["settings"],
            "rows": df.to_dict(orient="records"),
            "goals": goals,
        }
        print(json.dumps(_json_ready(report), indent=2))
    else:
        print(format_report(df, goals))
    return 0


if __name__ == "__main__":
    sys.exit(main())
