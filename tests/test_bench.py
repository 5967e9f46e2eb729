"""Tests for `burgerbot.bench`: the timing harness, the benchmark's bookkeeping and report."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from burgerbot.bench import (
    QUICK_SIZES,
    Stopwatch,
    Timing,
    Timings,
    check_goals,
    format_report,
    repeat_timings,
    run_benchmark,
    run_for,
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
COLUMNS = [
    "impl",
    "num_envs",
    "env_steps_per_s",
    "step_calls",
    "seconds",
    "vs_baseline",
    "vs_plain_loop",
    "vs_sync",
]


@pytest.fixture(scope="module")
def tiny_run():
    rows_seen = []
    df = run_benchmark(
        seconds=0.01,
        sizes={"sync": [1, 3], "native": [1, 3, 8]},
        repeats=2,
        on_row=rows_seen.append,
    )
    return df, rows_seen


def test_run_benchmark_gives_one_tidy_row_per_impl_and_size(tiny_run):
    df, rows_seen = tiny_run
    assert list(df.columns) == COLUMNS
    expected = [
        ("straightforward", 1),
        ("single", 1),
        ("sync", 1),
        ("sync", 3),
        ("native", 1),
        ("native", 3),
        ("native", 8),
    ]
    assert list(zip(df["impl"], df["num_envs"], strict=True)) == expected
    assert [(row["impl"], row["num_envs"]) for row in rows_seen] == expected
    assert df.attrs["settings"]["seconds"] == 0.01


def test_run_benchmark_rates_are_positive_and_consistent(tiny_run):
    df, _ = tiny_run
    rates = df["env_steps_per_s"].to_numpy()
    assert np.all(np.isfinite(rates)) and np.all(rates > 0)
    assert (df["step_calls"] > 0).all() and (df["seconds"] >= 0.01).all()
    np.testing.assert_allclose(rates, df["step_calls"] * df["num_envs"] / df["seconds"])


def test_run_benchmark_ratios_are_ratios_of_rates_in_the_same_frame(tiny_run):
    df, _ = tiny_run
    rate = df.set_index(["impl", "num_envs"])["env_steps_per_s"]
    baseline, single = rate[("straightforward", 1)], rate[("single", 1)]
    for row in df.itertuples(index=False):
        assert row.vs_baseline == pytest.approx(row.env_steps_per_s / baseline, rel=1e-12)
        assert row.vs_plain_loop == pytest.approx(row.env_steps_per_s / single, rel=1e-12)
        if ("sync", row.num_envs) in rate.index:
            sync = rate[("sync", row.num_envs)]
            assert row.vs_sync == pytest.approx(row.env_steps_per_s / sync, rel=1e-12)
        else:
            assert math.isnan(row.vs_sync)


def test_check_goals_on_a_partial_run_measures_what_it_can(tiny_run):
    df, _ = tiny_run
    goals = check_goals(df)
    assert len(goals) == 3
    first = goals[0]
    assert first["measured"] == pytest.approx(df["vs_baseline"].iloc[1])
    assert first["status"] == ("PASS" if first["measured"] >= 1.5 else "MISS")
    assert [goal["status"] for goal in goals[1:]] == ["NOT RUN", "NOT RUN"]
    report = format_report(df, goals)
    assert "BurgerBotVectorEnv" in report and "NOT RUN" in report


def frame(rates: dict[tuple[str, int], float]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"impl": impl, "num_envs": n, "env_steps_per_s": r} for (impl, n), r in rates.items()]
    )


def test_check_goals_pass_and_miss_on_made_up_rates():
    passing = frame(
        {
            ("straightforward", 1): 100.0,
            ("single", 1): 150.0,
            ("sync", 1024): 1e6,
            ("native", 1024): 1e8,
            ("native", 65536): 1.01e8,
        }
    )
    assert [goal["status"] for goal in check_goals(passing)] == ["PASS"] * 3
    missing = frame(
        {
            ("straightforward", 1): 100.0,
            ("single", 1): 149.0,
            ("sync", 1024): 1e6,
            ("native", 1024): 0.5e8,
            ("native", 65536): 1e8,  # the goal says *above* 100 million
        }
    )
    goals = check_goals(missing)
    assert [goal["status"] for goal in goals] == ["MISS"] * 3
    assert [goal["passed"] for goal in goals] == [False] * 3
    assert goals[1]["measured"] == pytest.approx(50.0)
    assert goals[1]["of_target"] == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds": 0}, "`seconds` must be a positive number, got 0"),
        ({"seconds": math.inf}, "`seconds` must be finite, got inf"),
        ({"repeats": 0}, "`repeats` must be a positive whole number, got 0"),
        ({"sizes": {"gpu": [1]}}, "`sizes` keys must be among"),
        ({"sizes": {"native": [0]}}, r"`sizes\['native'\]` must be a positive whole number"),
    ],
)
def test_run_benchmark_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        run_benchmark(**{"seconds": 0.01, **kwargs})


def test_command_line_quick_json_runs_every_quick_row():
    result = subprocess.run(
        [sys.executable, "-m", "burgerbot.bench", "--quick", "--json", "--seconds", "0.02"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=180,
        check=True,
    )
    report = json.loads(result.stdout)
    assert report["settings"]["quick"] is True
    assert report["settings"]["seconds"] == 0.02
    rows = report["rows"]
    assert all(list(row) == COLUMNS for row in rows)
    expected = [("straightforward", 1), ("single", 1)] + [
        (backend, n) for backend in ("sync", "async", "native") for n in QUICK_SIZES[backend]
    ]
    assert [(row["impl"], row["num_envs"]) for row in rows] == expected
    assert all(row["env_steps_per_s"] > 0 for row in rows)
    # JSON has no NaN: a ratio with nothing to compare against is null.
    assert any(row["vs_sync"] is None for row in rows)
    goals = report["goals"]
    assert [goal["status"] in {"PASS", "MISS"} for goal in goals] == [True] * 3


# --- The timing harness ---------------------------------------------------------------------


class FakeClock:
    """A clock that moves only when told: each chunk of work advances it by its own cost."""

    def __init__(self) -> None:
        self.now = 100.0
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        return self.now


def chunk_costing(clock: FakeClock, costs: list[float], calls: int = 1):
    """A chunk of ``calls`` calls whose k-th run takes ``costs[k]`` seconds of ``clock``."""
    made = []

    def run_chunk() -> int:
        clock.now += costs[len(made) % len(costs)]
        made.append(calls)
        return calls

    run_chunk.made = made
    return run_chunk


def test_run_for_stops_at_the_first_chunk_that_reaches_the_budget():
    clock = FakeClock()
    chunk = chunk_costing(clock, [0.25], calls=3)
    timing = run_for(chunk, seconds=1.0, clock=clock)
    assert timing == Timing(calls=12, seconds=1.0)  # four chunks of 0.25 s, 3 calls each
    assert len(chunk.made) == 4
    assert timing.rate == 12.0


def test_run_for_goes_on_until_min_calls_even_past_the_budget():
    clock = FakeClock()
    chunk = chunk_costing(clock, [1.0], calls=2)
    assert run_for(chunk, seconds=0.5, min_calls=7, clock=clock) == Timing(8, 4.0)
    assert run_for(chunk, seconds=5.0, min_calls=2, clock=clock) == Timing(10, 5.0)


def test_run_for_runs_one_chunk_at_least():
    clock = FakeClock()
    chunk = chunk_costing(clock, [0.0])
    assert run_for(chunk, seconds=0, clock=clock) == Timing(1, 0.0)
    assert Timing(1, 0.0).rate == math.inf


def test_run_for_uses_the_real_clock_by_default():
    timing = run_for(lambda: 1, seconds=0.005)
    assert timing.seconds >= 0.005 and timing.calls >= 1


def test_repeat_timings_warms_up_untimed_then_keeps_every_run():
    clock = FakeClock()
    # Warm-up chunks cost 1 s each; then the three timed runs cost 0.5 s, 0.25 s and 2 s a chunk.
    chunk = chunk_costing(clock, [1.0, 1.0, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 2.0])
    timings = repeat_timings(chunk, seconds=1.0, repeats=3, warmup_seconds=2.0, clock=clock)
    assert len(chunk.made) == 9
    assert timings.runs == (Timing(2, 1.0), Timing(4, 1.0), Timing(1, 2.0))
    assert timings.best == Timing(4, 1.0)  # the fastest: 4 calls per second
    assert timings.slowest == Timing(1, 2.0)  # half a call per second


def test_repeat_timings_warms_up_with_one_chunk_by_default_and_honours_min_calls():
    clock = FakeClock()
    chunk = chunk_costing(clock, [1.0])
    timings = repeat_timings(chunk, seconds=0.1, repeats=2, min_calls=3, clock=clock)
    assert timings.runs == (Timing(3, 3.0), Timing(3, 3.0))
    assert len(chunk.made) == 1 + 3 + 3


def test_best_and_slowest_keep_the_first_of_equally_fast_runs():
    timings = Timings((Timing(2, 1.0), Timing(4, 2.0), Timing(1, 1.0), Timing(2, 2.0)))
    assert timings.best is timings.runs[0]
    assert timings.slowest is timings.runs[2]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds": -1.0}, "`seconds` must be a number of seconds, 0 or more, got -1.0"),
        ({"seconds": math.nan}, "`seconds` must be a number of seconds, 0 or more"),
        ({"seconds": math.inf}, "`seconds` must be finite, got inf"),
        ({"seconds": True}, "`seconds` must be a number of seconds"),
        ({"repeats": 0}, "`repeats` must be a positive whole number, got 0"),
        ({"min_calls": -1}, "`min_calls` must be a whole number, 0 or more, got -1"),
        ({"warmup_seconds": -0.1}, "`warmup_seconds` must be a number of seconds"),
    ],
)
def test_repeat_timings_rejects_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        repeat_timings(lambda: 1, **{"seconds": 0.001, "repeats": 1, **kwargs})


def test_stopwatch_adds_up_its_blocks_only_even_one_that_raises():
    clock = FakeClock()
    watch = Stopwatch(clock=clock)
    with watch:
        clock.now += 0.5
    clock.now += 10.0  # outside: not counted
    with pytest.raises(ZeroDivisionError), watch:
        clock.now += 0.25
        1 / 0  # noqa: B018
    assert watch.seconds == 0.75
    assert Stopwatch().seconds == 0.0


def test_speed_and_experiments_time_with_benchs_public_harness():
    for name in ("speed", "experiments"):
        tree = ast.parse((PROJECT_ROOT / "burgerbot" / f"{name}.py").read_text())
        imported = [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("burgerbot")
            for alias in node.names
        ]
        assert not [n for n in imported if n.startswith("_")], f"{name} imports private names"
        clocks = [
            node.attr
            for node in ast.walk(tree)
            if isinstance(node, ast.Attribute) and node.attr in {"perf_counter", "monotonic"}
        ]
        assert clocks == [], f"{name} reads a clock itself instead of using burgerbot.bench"


# --- compare_timings and interleaved_timings: the one verdict on "which was faster" ---


def test_compare_timings_gives_a_ratio_only_when_the_spreads_do_not_overlap():
    from burgerbot.bench import compare_timings

    # a clearly faster: every repeat of a beat every repeat of b
    clear = compare_timings([310.0, 290.0, 300.0], [105.0, 95.0, 100.0])
    assert clear.verdict == "faster" and clear.ratio == pytest.approx(3.0)
    assert clear.a_spread == (290.0, 310.0) and clear.b_spread == (95.0, 105.0)
    # the same pair the other way round
    assert compare_timings([105.0, 95.0, 100.0], [310.0, 290.0, 300.0]).verdict == "slower"


@pytest.mark.parametrize("seed", range(20))
def test_compare_timings_calls_noisy_equal_rates_about_the_same_and_separated_ones_clear(seed):
    from burgerbot.bench import compare_timings

    rng = np.random.default_rng(seed)
    # One noisy repeat (a busy moment, 4x slower) among ones of equal speed: "similar",
    # whichever side the slow repeat falls on, even though the best runs differ by 4x.
    equal = 1000 * (1 + rng.uniform(-0.05, 0.05, size=(2, 5)))
    equal[seed % 2, rng.integers(5)] /= 4
    assert compare_timings(equal[0], equal[1]).verdict == "similar"
    # a 1.5x gap with 10% noise: spreads apart, a ratio near 1.5 either way
    fast = 1500 * (1 + rng.uniform(-0.1, 0.1, size=5))
    slow = 1000 * (1 + rng.uniform(-0.1, 0.1, size=5))
    assert compare_timings(fast, slow).verdict == "faster"
    assert compare_timings(slow, fast).verdict == "slower"
    assert 1.2 < compare_timings(fast, slow).ratio < 1.9


def test_compare_timings_wants_a_spread_and_positive_rates():
    from burgerbot.bench import compare_timings

    with pytest.raises(ValueError, match="two timed repeats"):
        compare_timings([1.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="positive"):
        compare_timings([1.0, 0.0], [1.0, 2.0])


def test_interleaved_timings_takes_turns_and_compare_reads_its_timings():
    from burgerbot.bench import compare_timings, interleaved_timings

    order: list[str] = []
    seconds_per_call = {"fast": 1, "slow": 3}
    now = [0.0]

    def chunk(name):
        def run():
            order.append(name)
            now[0] += seconds_per_call[name]
            return 1

        return run

    timings = interleaved_timings(
        {"fast": chunk("fast"), "slow": chunk("slow")}, 2, 3, clock=lambda: now[0]
    )
    # warm-ups, then rounds in rotated order: fast first, slow first, fast first
    # (a fast run is two 1-second calls, a slow run one 3-second call)
    assert order[:2] == ["fast", "slow"]
    assert order[2:] == ["fast", "fast", "slow", "slow", "fast", "fast", "fast", "fast", "slow"]
    assert [len(t.runs) for t in timings.values()] == [3, 3]
    result = compare_timings(timings["fast"], timings["slow"])
    assert result.verdict == "faster" and result.ratio == pytest.approx(3.0)
