"""The "Goal scaling" predictions: the measured goal rate and the goals to expect."""

from __future__ import annotations

import math

import pytest

from burgerbot.app.caps import Caps
from burgerbot.app.logic.goal_scaling import (
    DEFAULT_NUM_ENVS,
    GoalRate,
    ScalingSettings,
    check_budget,
    expectations,
    lesson_expectations,
    measure_goal_rate,
    steps_for_expected_goals,
    try_this,
)
from burgerbot.experiments import goal_scaling
from burgerbot.statistics import poisson_interval


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
    assert suggestion.budget == "per_env" and 1 <= suggestion.seeds <= 3
    assert 2.7e-5 * suggestion.env_steps_for(4) >= 20
    assert check_budget(suggestion) is None
    tight = Caps(max_sweep_env_steps=2 * suggestion.planned_env_steps // suggestion.seeds)
    assert try_this(settings, 2.7e-5, tight).seeds == 2
    assert try_this(settings, 2.7e-5, Caps(max_sweep_env_steps=1000)) is None
