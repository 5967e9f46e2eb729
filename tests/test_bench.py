"""Tests for `burgerbot.bench`: the benchmark's bookkeeping, goals and report."""

from __future__ import annotations

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
    check_goals,
    format_report,
    run_benchmark,
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
