"""The "Goal scaling" logic, its chart and its script (`burgerbot.app.views.goal_scaling` & co)."""

from __future__ import annotations

import doctest
import io
import math
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from burgerbot.app.caps import Caps
from burgerbot.app.charts import goal_scaling as scaling_charts
from burgerbot.app.charts.goal_scaling import LAYERS, scaling_panel
from burgerbot.app.scripts import goal_scaling as scaling_snippets
from burgerbot.app.scripts.goal_scaling import snippet_for
from burgerbot.app.views import goal_scaling as scaling_view
from burgerbot.app.views.goal_scaling import (
    DEFAULT_NUM_ENVS,
    SPECS,
    GoalRate,
    ScalingSettings,
    ThrottledProgress,
    chart_data,
    check_budget,
    compare_backends,
    comparison_settings,
    doubling_verdict,
    expectations,
    lesson_expectations,
    measure_goal_rate,
    poisson_interval,
    resolve_settings,
    run_sweep,
    steps_for_expected_goals,
    summarise,
    sweep_cap,
    to_csv,
    try_this,
)
from burgerbot.experiments import goal_scaling, random_actions

ROOT = Path(__file__).resolve().parent.parent
COUNTS = ["num_envs", "seed", "env_steps", "goals", "hits", "episodes"]


def values(**changes):
    base = {spec.key: spec.default for spec in SPECS}
    return base | changes


# --- Settings and caps -----------------------------------------------------------------------


def test_defaults_are_the_lessons_and_fit_the_sync_cap():
    settings, notes = resolve_settings(values())
    assert notes == []
    assert settings.num_envs == DEFAULT_NUM_ENVS == (1, 2, 4, 8, 16, 32, 64, 128, 256)
    assert (settings.steps_per_env, settings.seeds, settings.backend) == (500, 10, "sync")
    assert settings.planned_env_steps == 511 * 500 * 10
    assert check_budget(settings) is None


def test_settings_count_env_steps_in_both_budgets():
    per_env = ScalingSettings((1, 4, 8), steps_per_env=300, total_env_steps=1000, seeds=2)
    assert [per_env.steps_for(n) for n in (1, 4, 8)] == [300, 300, 300]
    assert per_env.planned_env_steps == 13 * 300 * 2
    total = replace(per_env, budget="total")
    assert [total.steps_for(n) for n in (1, 4, 8)] == [1000, 250, 125]
    assert [total.env_steps_for(n) for n in (1, 3)] == [1000, 999]
    assert total.planned_env_steps == 3000 * 2
    assert total.seed_list == [0, 1]
    assert per_env.describe() == "NUM_ENVS 1, 4, 8; 300 steps per env; 2 seed(s); Sync"
    assert total.describe(backend=False) == "NUM_ENVS 1, 4, 8; 1,000 env-steps per run; 2 seed(s)"


def test_resolve_settings_fixes_what_cannot_run_and_says_so():
    settings, notes = resolve_settings(values(n=[]))
    assert settings.num_envs == DEFAULT_NUM_ENVS and "at least one" in notes[0]
    settings, notes = resolve_settings(values(n=[64, 8, 8], total=10, budget="total"))
    assert settings.num_envs == (8, 64) and settings.total_env_steps == 64
    assert "at least the largest NUM_ENVS (64)" in notes[0]
    settings, notes = resolve_settings(values(backend="async", budget="nope"))
    assert (settings.backend, settings.budget, notes) == ("sync", "per_env", [])


def test_sweep_caps_depend_on_the_backend():
    caps = Caps(max_sweep_env_steps=1000, max_sync_sweep_env_steps=100)
    assert sweep_cap("sync", caps) == (100, "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS")
    assert sweep_cap("native", caps) == (1000, "BURGERBOT_MAX_SWEEP_ENV_STEPS")


def test_an_oversized_sweep_is_refused_with_fixes_that_really_fit():
    caps = Caps(max_sweep_env_steps=200_000, max_sync_sweep_env_steps=50_000)
    settings = ScalingSettings((1, 2, 4, 8), steps_per_env=1_000, seeds=10)  # 150,000
    message = check_budget(settings, caps)
    assert message is not None
    assert "150,000 env-steps" in message and "cap of 50,000 for Sync" in message
    assert "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS" in message
    seeds = int(re.search(r"use at most (\d+) seed", message).group(1))
    steps = int(re.search(r"steps per env to ([\d,]+)", message).group(1).replace(",", ""))
    assert "switch to native (its cap is 200,000)" in message
    assert check_budget(replace(settings, seeds=seeds), caps) is None
    assert check_budget(replace(settings, seeds=seeds + 1), caps) is not None
    assert check_budget(replace(settings, steps_per_env=steps), caps) is None
    assert check_budget(replace(settings, steps_per_env=steps + 1), caps) is not None
    assert check_budget(replace(settings, backend="native"), caps) is None

    total = replace(settings, budget="total", total_env_steps=20_000, backend="native")
    message = check_budget(total, caps)  # 4 x 10 runs x 20,000 = 800,000
    per_run = int(re.search(r"per run to ([\d,]+)", message).group(1).replace(",", ""))
    assert "BURGERBOT_MAX_SWEEP_ENV_STEPS" in message and "switch to native" not in message
    assert check_budget(replace(total, total_env_steps=per_run), caps) is None


# --- Running -------------------------------------------------------------------------------


def test_run_sweep_is_goal_scaling_in_both_budgets():
    settings = ScalingSettings((1, 3), steps_per_env=700, total_env_steps=900, seeds=2)
    for backend in ("sync", "native"):
        result = run_sweep(replace(settings, backend=backend))
        expected = goal_scaling((1, 3), 700, seeds=[0, 1], backend="sync")
        pd.testing.assert_frame_equal(result.frame[COUNTS], expected[COUNTS])
        assert result.wall_seconds > 0 and result.env_steps == 2 * 700 * 4
    result = run_sweep(replace(settings, budget="total", backend="native"))
    assert result.frame["steps_per_env"].tolist() == [900, 900, 300, 300]


def test_throttled_progress_passes_few_reports_and_always_the_last():
    seen = []
    report = ThrottledProgress(lambda f, m: seen.append((f, m)), updates=10)
    for i in range(1, 1001):
        report(i / 1000, f"step {i}")
    assert len(seen) <= 11 and seen[-1] == (1.0, "step 1000")
    before_last = [fraction for fraction, _ in seen[:-1]]
    gaps = np.diff(before_last)
    assert all(gap >= 0.1 - 1e-9 for gap in gaps)


def test_a_raising_progress_stops_the_sweep():
    class Stop(Exception):
        pass

    def stop(fraction, message):
        raise Stop(message)

    with pytest.raises(Stop):
        run_sweep(ScalingSettings((2,), steps_per_env=5_000, seeds=1), ThrottledProgress(stop))


# --- Rates, expectations and intervals ------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "low", "high"),
    [  # Garwood intervals, from the chi-square quantiles (scipy.stats.chi2.ppf)
        (0, 0.0, 3.688879),
        (1, 0.025318, 5.571643),
        (2, 0.242209, 7.224688),
        (10, 4.795389, 18.390356),
        (100, 81.363991, 121.626794),
        (1000, 938.973018, 1063.952136),
    ],
)
def test_poisson_interval_is_garwoods(count, low, high):
    got_low, got_high = poisson_interval(count)
    assert got_low == pytest.approx(low, abs=1e-5)
    assert got_high == pytest.approx(high, rel=1e-6)


def test_poisson_interval_checks_its_arguments_and_widens_with_confidence():
    assert poisson_interval(5, 0.99)[1] > poisson_interval(5, 0.95)[1]
    assert poisson_interval(5, 0.99)[0] < poisson_interval(5, 0.95)[0]
    for bad in (-1, 1.5, True):
        with pytest.raises(ValueError, match="count"):
            poisson_interval(bad)
    with pytest.raises(ValueError, match="confidence"):
        poisson_interval(3, 1.0)


def test_goal_rate_and_its_interval():
    rate = GoalRate(goals=27, env_steps=1_000_000, source="test")
    assert rate.rate == 27e-6 and rate.steps_per_goal == pytest.approx(37_037.04, rel=1e-6)
    low, high = rate.interval
    assert (low, high) == tuple(x / 1_000_000 for x in poisson_interval(27))
    assert GoalRate(0, 10, "none").steps_per_goal == math.inf


def test_measure_goal_rate_counts_a_native_run():
    rate = measure_goal_rate(env_steps=64 * 1_500, num_envs=64, seed=3)
    frame = goal_scaling([64], 1_500, seeds=[3], backend="native")
    assert (rate.goals, rate.env_steps) == (int(frame["goals"].sum()), 96_000)
    assert "64 envs x 1,500 steps (seed 3)" in rate.source and rate.seconds > 0


def test_expectations_are_rate_times_env_steps_and_poisson_zero():
    settings = ScalingSettings((4, 8), steps_per_env=500, seeds=10)
    frame = expectations(settings, rate=2.7e-5)
    assert frame["env_steps"].tolist() == [2000, 4000]
    assert frame["expected_goals"].tolist() == pytest.approx([0.054, 0.108])
    assert frame["p_zero"].tolist() == pytest.approx([math.exp(-0.054), math.exp(-0.108)])
    assert frame["expected_zero_runs"].tolist() == pytest.approx(10 * frame["p_zero"])
    lesson = lesson_expectations(2.7e-5)
    assert lesson["num_envs"].tolist() == [4, 8] and lesson["env_steps"].tolist() == [2000, 4000]
    # The lesson's point: with 500 steps, 4 envs nearly always see no goal at all.
    assert lesson["p_zero"].iloc[0] > 0.9


def test_steps_for_expected_goals_rounds_up_to_two_digits():
    for rate in (2.7e-5, 2.43e-5, 1e-3, 0.3):
        steps = steps_for_expected_goals(rate, goals=20, num_envs=4)
        exact = 20 / (rate * 4)
        assert exact <= steps < exact * 1.1 + 1
        assert len(str(steps).rstrip("0")) <= 2 or steps < 100
    with pytest.raises(ValueError, match="rate"):
        steps_for_expected_goals(0.0)


def test_try_this_suggests_a_native_sweep_that_fits_and_expects_20_goals():
    settings = ScalingSettings(DEFAULT_NUM_ENVS)
    suggestion = try_this(settings, rate=2.7e-5)
    assert suggestion.num_envs == (4, 8) and suggestion.backend == "native"
    assert suggestion.budget == "per_env" and 1 <= suggestion.seeds <= 5
    assert 2.7e-5 * suggestion.env_steps_for(4) >= 20
    assert check_budget(suggestion) is None
    tight = Caps(max_sweep_env_steps=3 * suggestion.planned_env_steps // suggestion.seeds)
    assert try_this(settings, 2.7e-5, tight).seeds == 3
    assert try_this(settings, 2.7e-5, Caps(max_sweep_env_steps=1000)) is None


# --- Summaries and chart data --------------------------------------------------------------


def test_summarise_uses_exact_poisson_for_goals_and_standard_errors_for_episodes():
    frame = pd.DataFrame(
        {
            "num_envs": [4, 4, 4, 8, 8, 8],
            "seed": [0, 1, 2, 0, 1, 2],
            "env_steps": [2000, 2000, 2000, 4000, 4000, 4000],
            "goals": [0, 0, 0, 1, 0, 2],
            "episodes": [180, 190, 200, 370, 380, 390],
        }
    )
    summary = summarise(frame, rate=2.5e-5).set_index("num_envs")
    four, eight = summary.loc[4], summary.loc[8]
    assert four["mean_goals"] == 0 and four["goals_low"] == 0
    assert four["goals_high"] == pytest.approx(poisson_interval(0)[1] / 3)
    assert eight["mean_goals"] == 1
    assert (eight["goals_low"], eight["goals_high"]) == pytest.approx(
        tuple(x / 3 for x in poisson_interval(3))
    )
    assert (four["zero_goal_runs"], eight["zero_goal_runs"]) == (3, 1)
    assert four["expected_goals"] == pytest.approx(0.05)
    assert eight["goals_per_100k_env_steps"] == pytest.approx(3 / 12_000 * 100_000)
    half = 1.96 * 10 / math.sqrt(3)  # standard deviation of 180, 190, 200 is 10
    assert (four["episodes_low"], four["episodes_high"]) == pytest.approx((190 - half, 190 + half))
    episode_rate = frame["episodes"].sum() / frame["env_steps"].sum()
    assert eight["expected_episodes"] == pytest.approx(episode_rate * 4000)
    single = summarise(frame[frame["seed"] == 0], rate=2.5e-5)
    assert single["episodes_low"].isna().all() and (single["runs"] == 1).all()


def verdict_frame(goals_4: list[int], goals_8: list[int]) -> pd.DataFrame:
    runs = len(goals_4)
    return pd.DataFrame(
        {
            "num_envs": [4] * runs + [8] * runs,
            "seed": list(range(runs)) * 2,
            "env_steps": [2000] * runs + [4000] * runs,
            "goals": goals_4 + goals_8,
            "episodes": [180] * runs + [360] * runs,
        }
    )


def test_doubling_verdict_says_when_a_sweep_cannot_tell():
    summary = summarise(verdict_frame([0, 0, 1], [0, 1, 0]), rate=2.5e-5)
    verdict = doubling_verdict(summary)
    assert verdict.startswith("NUM_ENVS 4: **0.333** goals per run on average (2 of 3 runs")
    assert "overlap, so this sweep **cannot tell**" in verdict
    assert "the measured rate predicts 2×" in verdict


def test_doubling_verdict_sees_a_clear_difference():
    summary = summarise(verdict_frame([20, 22, 19], [41, 38, 44]), rate=5e-3)
    verdict = doubling_verdict(summary)
    assert "do not overlap: 8 envs clearly reached 2× as many goals" in verdict
    zero = summarise(verdict_frame([0] * 10, [5] * 10), rate=1e-3)
    assert "8 envs clearly reached more goals (the measured rate predicts 2×)." in (
        doubling_verdict(zero)
    )


def test_doubling_verdict_picks_the_lessons_pair_or_the_first_doubling():
    frame = goal_scaling([1, 2, 4, 8], 100, seeds=[0], backend="native")
    assert doubling_verdict(summarise(frame, 3e-5)).startswith("NUM_ENVS 4:")
    frame = frame[frame["num_envs"] != 8]
    assert doubling_verdict(summarise(frame, 3e-5)).startswith("NUM_ENVS 1:")
    assert doubling_verdict(summarise(frame[frame["num_envs"] == 4], 3e-5)) is None


def test_chart_data_is_long_form_with_seeds_spread_sideways():
    frame = goal_scaling([2, 8], 300, seeds=[0, 1, 2], backend="native")
    summary = summarise(frame, rate=3e-5)
    points, bands = chart_data(frame, summary)
    assert len(points) == 2 * len(frame) and set(points["metric"]) == {"goals", "episodes"}
    goals = points[points["metric"] == "goals"]
    assert goals["value"].tolist() == frame["goals"].tolist()
    ratio = goals["x"] / goals["num_envs"]
    assert ratio.tolist() == pytest.approx([2**-0.25, 1.0, 2**0.25] * 2)
    assert len(bands) == 4
    episodes = bands[bands["metric"] == "episodes"].reset_index(drop=True)
    assert episodes["mean"].tolist() == summary["mean_episodes"].tolist()
    assert episodes["expected"].tolist() == summary["expected_episodes"].tolist()


def test_csv_round_trips_the_sweep_table():
    frame = goal_scaling([1, 2], 200, seeds=[0, 1], backend="native")
    parsed = pd.read_csv(io.StringIO(to_csv(frame)))
    assert parsed.columns.tolist() == frame.columns.tolist()
    pd.testing.assert_frame_equal(parsed[COUNTS], frame[COUNTS])
    assert parsed["seconds"].tolist() == pytest.approx(frame["seconds"].tolist(), rel=1e-5)


# --- Sync vs native --------------------------------------------------------------------------


def test_comparison_settings_are_small_but_long_enough_for_goals():
    small = comparison_settings(ScalingSettings(DEFAULT_NUM_ENVS, 200_000, seeds=40))
    assert small.num_envs == (1, 2, 4, 8) and small.steps_per_env == 5_000 and small.seeds == 2
    assert small.planned_env_steps == 150_000  # about 4 goals expected
    assert comparison_settings(ScalingSettings((64, 256), 500, seeds=2)).num_envs == (16,)
    total = comparison_settings(ScalingSettings((4, 16), budget="total", backend="native"))
    assert total.budget == "per_env" and total.backend == "native"


def test_compare_backends_lines_up_each_run_and_flags_differences():
    settings = ScalingSettings((1, 4), steps_per_env=800, seeds=2)
    sync = run_sweep(settings).frame
    native = run_sweep(replace(settings, backend="native")).frame
    side = compare_backends(sync, native)
    assert len(side) == 4 and side["identical"].all()
    assert (side["episodes_sync"] == side["episodes_native"]).all()
    tampered = native.copy()
    tampered.loc[2, "hits"] += 1
    assert compare_backends(sync, tampered)["identical"].tolist() == [True, True, False, True]


# --- Chart -------------------------------------------------------------------------------


def test_scaling_panels_have_log2_x_named_layers_and_the_runs():
    frame = goal_scaling([1, 4, 16], 400, seeds=[0, 1], backend="native")
    points, bands = chart_data(frame, summarise(frame, rate=3e-5))
    goals = scaling_panel(points, bands, "goals").to_dict()
    episodes = scaling_panel(points, bands, "episodes").to_dict()
    assert goals["title"] == "Goals reached per run"
    assert episodes["title"] == "Finished episodes per run"
    for panel in (goals, episodes):
        expected, runs, interval, mean = panel["layer"]
        assert runs["mark"]["type"] == "circle" and mean["mark"]["shape"] == "diamond"
        assert interval["mark"]["type"] == "rule" and expected["mark"]["type"] == "line"
        assert interval["encoding"]["y2"]["field"] == "high"
        assert runs["encoding"]["x"]["field"] == "x"
        scale = runs["encoding"]["x"]["scale"]
        assert (scale["type"], scale["base"]) == ("log", 2)
        assert runs["encoding"]["x"]["axis"]["values"] == [1, 4, 16]
        assert runs["encoding"]["color"]["scale"]["domain"] == list(LAYERS)
    assert goals["layer"][1]["encoding"]["y"]["scale"] == {"zero": True}
    assert episodes["layer"][1]["encoding"]["y"]["scale"] == {"type": "log"}
    goal_points = goals["datasets"][goals["layer"][1]["data"]["name"]]
    assert [row["value"] for row in goal_points] == frame["goals"].tolist()
    assert {row["metric"] for row in goal_points} == {"goals"}
    with pytest.raises(ValueError, match="metric"):
        scaling_panel(points, bands, "hits")


def test_episode_panel_stays_linear_when_a_run_has_no_episode():
    frame = goal_scaling([1, 2], 1, seeds=[0], backend="native")  # one step: no episode ends
    points, bands = chart_data(frame, summarise(frame, rate=3e-5))
    spec = scaling_panel(points, bands, "episodes").to_dict()
    assert spec["layer"][1]["encoding"]["y"]["scale"] == {"zero": True}


# --- Script --------------------------------------------------------------------------------


def run_script(code: str) -> pd.DataFrame:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split() == ["NUM_ENVS", "seed", "env-steps", "goals", "hits", "episodes"]
    rows = [[int(x) for x in line.split()] for line in lines[1:]]
    return pd.DataFrame(rows, columns=COUNTS)


@pytest.mark.parametrize(
    "settings",
    [
        ScalingSettings((1, 3), steps_per_env=1_500, seeds=2, backend="sync"),
        ScalingSettings((2, 5), total_env_steps=4_000, seeds=3, backend="sync", budget="total"),
        # 1,024 envs: experiments draws 976 steps per chunk, the script 1,000: same numbers.
        ScalingSettings((7, 1024), steps_per_env=1_100, seeds=2, backend="native"),
    ],
    ids=["sync-per-env", "sync-total", "native-chunks"],
)
def test_script_prints_the_same_counts_as_goal_scaling(settings):
    printed = run_script(snippet_for(settings))
    expected = run_sweep(settings).frame
    pd.testing.assert_frame_equal(printed, expected[COUNTS].astype("int64"))
    assert printed["goals"].sum() > 0 or settings.backend == "sync"


def test_script_draws_actions_like_random_actions_across_chunks():
    # The script draws 1,000 steps at a time; random_actions fewer for wide batches.
    for num_envs, steps in ((3, 2_500), (1_001, 1_200)):
        rng = np.random.default_rng(7)
        drawn = np.concatenate(
            [
                rng.integers(0, 4, size=(min(1_000, steps - start), num_envs))
                for start in range(0, steps, 1_000)
            ]
        )
        assert np.array_equal(drawn, np.concatenate(list(random_actions(7, num_envs, steps))))


def test_script_uses_only_gymnasium_numpy_and_burgerbot():
    for backend in ("sync", "native"):
        code = snippet_for(ScalingSettings((1,), 10, seeds=1, backend=backend))
        modules = {
            line.split()[1].split(".")[0]
            for line in code.splitlines()
            if line.startswith(("import ", "from "))
        }
        assert modules <= {"gymnasium", "numpy", "burgerbot"}
        compile(code, "<snippet>", "exec")


@pytest.mark.parametrize("module", [scaling_view, scaling_charts, scaling_snippets])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
