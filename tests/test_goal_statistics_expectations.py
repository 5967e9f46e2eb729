"""The "Goal scaling" predictions: the goals to expect (exact) and the measured rate."""

from __future__ import annotations

import math

import pytest

from burgerbot.app.caps import Caps
from burgerbot.app.logic.goal_statistics import (
    DEFAULT_NUM_ENVS,
    GoalRate,
    ScalingSettings,
    check_budget,
    expectations,
    lesson_expectations,
    measure_goal_rate,
    rate_check,
    steps_for_expected_goals,
    try_this,
)
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import goal_odds, long_run_goal_rate
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


def test_expectations_are_the_librarys_exact_figures():
    settings = ScalingSettings((4, 8), steps_per_env=500, seeds=10)
    frame = expectations(settings)
    assert frame["env_steps"].tolist() == [2000, 4000]
    four, eight = goal_odds(500, 4), goal_odds(500, 8)
    assert frame["expected_goals"].tolist() == [four.expected_goals, eight.expected_goals]
    assert frame["p_zero"].tolist() == [four.chance_of_none, eight.chance_of_none]
    # issue 22's exact figures (the page said 0.055 and 0.109, 95% and 90%)
    assert frame["expected_goals"].round(4).tolist() == [0.0453, 0.0906]
    assert frame["p_zero"].round(3).tolist() == [0.956, 0.913]
    assert frame["expected_zero_runs"].tolist() == pytest.approx(10 * frame["p_zero"])
    lesson = lesson_expectations()
    assert lesson["num_envs"].tolist() == [4, 8] and lesson["env_steps"].tolist() == [2000, 4000]
    # same total env-steps: each NUM_ENVS gets total // N calls
    total = expectations(ScalingSettings((1, 4), total_env_steps=4000, budget="total"))
    assert total["expected_goals"].tolist() == [
        goal_odds(4000, 1).expected_goals,
        goal_odds(1000, 4).expected_goals,
    ]


def test_the_measured_rate_is_checked_against_the_exact_one_both_ways():
    exact = long_run_goal_rate()
    inside = GoalRate(goals=200, env_steps=round(200 / exact), source="a native run")
    assert rate_check(inside).endswith("lies inside it.")
    outside = GoalRate(goals=400, env_steps=round(200 / exact), source="a native run")
    assert "lies outside it" in rate_check(outside)
    assert f"one every {1 / exact:,.0f}" in rate_check(inside)


def test_steps_for_expected_goals_rounds_up_to_two_digits():
    for rate in (2.7e-5, 2.43e-5, 1e-3, 0.3):
        steps = steps_for_expected_goals(rate, goals=20, num_envs=4)
        exact = 20 / (rate * 4)
        assert exact <= steps < exact * 1.1 + 1
        assert len(str(steps).rstrip("0")) <= 2 or steps < 100
    with pytest.raises(ValueError, match="rate"):
        steps_for_expected_goals(0.0)
    # by default the exact long-run rate, which a run this long follows: 20 goals or more
    steps = steps_for_expected_goals()
    assert goal_odds(steps, 4).expected_goals >= 20


def test_try_this_suggests_a_native_sweep_that_fits_and_expects_20_goals():
    settings = ScalingSettings(DEFAULT_NUM_ENVS)
    suggestion = try_this(settings)
    assert suggestion.num_envs == (4, 8) and suggestion.backend == "native"
    assert suggestion.budget == "per_env" and 1 <= suggestion.seeds <= 3
    assert goal_odds(suggestion.steps_per_env, 4).expected_goals >= 20
    assert check_budget(suggestion) is None
    tight = Caps(max_sweep_env_steps=2 * suggestion.planned_env_steps // suggestion.seeds)
    assert try_this(settings, tight).seeds == 2
    assert try_this(settings, Caps(max_sweep_env_steps=1000)) is None
