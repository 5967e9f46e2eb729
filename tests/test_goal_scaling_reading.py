"""The "Goal scaling" page's lesson run, verdict and takeaways follow the numbers, both ways."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest
from sentence_facts import bold, numbers, quotes

from burgerbot.app.logic.goal_scaling import (
    DEFAULT_RUNS,
    GOAL_OPTIONS,
    RUN_CHOICES,
    VISIBLE_GOALS,
    LessonRun,
    RepeatedRuns,
    check_explanation,
    fewest_steps_to_goal,
    goal_bucket,
    goals_per_robot,
    lesson_verdict,
    max_runs,
    repeat_lesson,
    repeat_summary,
    repeat_verdict,
    resolve_settings,
    run_lesson,
    takeaways,
)
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import GoalOdds, goal_odds, long_run_goal_rate
from burgerbot.statistics import poisson_interval

# --- The lesson's experiment ---------------------------------------------------------------


def test_goal_bucket_covers_every_count_with_one_option():
    assert [goal_bucket(g) for g in range(13)] == (
        ["0"] + ["1 or 2"] * 2 + ["3 to 10"] * 8 + ["more than 10"] * 2
    )
    assert set(goal_bucket(g) for g in range(50)) == set(GOAL_OPTIONS)
    with pytest.raises(ValueError):
        goal_bucket(-1)


def test_run_lesson_is_the_lessons_experiment():
    run = run_lesson(seed=3)
    frame = goal_scaling([4, 8], 500, seeds=[3], backend="sync")
    assert run.goals == dict(zip(frame["num_envs"], frame["goals"], strict=True))
    assert run.episodes == dict(zip(frame["num_envs"], frame["episodes"], strict=True))


def test_check_explanation_gives_the_exact_long_run_rate():
    text = check_explanation(LessonRun(0, {4: 0, 8: 0}, {4: 170, 8: 340}))
    assert numbers(text) == [round(1 / long_run_goal_rate())]


def fake_odds(four: float) -> tuple[GoalOdds, GoalOdds]:
    """The two runs' odds for a made-up expected count at 4 envs (Poisson chance of none)."""
    return tuple(
        GoalOdds(500, n, "NEXT_STEP", four * n / 4, math.exp(-four * n / 4)) for n in (4, 8)
    )


def test_lesson_verdict_is_not_visible_at_the_lessons_size_and_holds_when_counts_are_large():
    kind, why = lesson_verdict()
    assert kind == "not_visible"
    four, eight = goal_odds(500, 4), goal_odds(500, 8)
    both = four.chance_of_none * eight.chance_of_none
    # exact: 8 envs' expected goals, twice 4 envs'; each run's chance of none; both at once
    chances = [round(100 * c, 1) for c in (four.chance_of_none, eight.chance_of_none, both)]
    expected = [round(eight.expected_goals, 4), round(four.expected_goals, 4)]
    assert numbers(why) == [4, expected[1], 8, expected[0], chances[0], 4, chances[1], 8]
    assert chances[:2] == [95.6, 91.3]
    kind, why = lesson_verdict(fake_odds(VISIBLE_GOALS))  # counts large enough to show it
    difference, noise = numbers(why)[-2:]  # 8 envs' count minus 4 envs', against its noise
    assert kind == "holds" and difference == pytest.approx(VISIBLE_GOALS, rel=0.01)
    assert noise == pytest.approx(math.sqrt(3 * VISIBLE_GOALS), rel=0.05)
    assert lesson_verdict(fake_odds(VISIBLE_GOALS * 0.99))[0] == "not_visible"


def test_takeaways_say_where_goals_follow_env_steps_and_what_the_repeats_showed():
    run = LessonRun(2, {4: 1, 8: 0}, {4: 170, 8: 340})
    bullets = takeaways(run)
    assert len(bullets) == 3
    shown, hidden = takeaways(run, doubled=True), takeaways(run, doubled=False)
    assert len(shown) == len(hidden) == 3 and len({shown[-1], hidden[-1], bullets[-1]}) == 3
    assert shown[:2] == hidden[:2] == bullets[:2]
    # Where "goals follow the env-steps" stops holding: the fewest steps a goal takes.
    assert quotes(bullets[1], fewest_steps_to_goal())


def test_no_goal_comes_sooner_than_the_fewest_steps_and_one_does_then():
    fewest = fewest_steps_to_goal()
    assert fewest == 14
    # As many env-steps as the lesson's 4 x 500, spread over envs too short to reach the goal:
    assert goal_odds(fewest - 1, 2_000 // (fewest - 1)).expected_goals == 0.0
    assert goal_odds(fewest, 1).expected_goals > 0.0
    assert goal_odds(500, 4).expected_goals > 0.0


# --- Exercise 1: the lesson's run, many times at once --------------------------------------


def test_grouped_robots_count_what_separate_runs_count():
    # One native env of 3 x 4 robots, grouped 4 by 4: its first group's actions are not a
    # separate run's, but a group of one run of 4 robots counts exactly what goal_scaling does.
    (single,) = goal_scaling([4], 500, seeds=[5], backend="native")["goals"]
    assert int(goals_per_robot(4, 500, seed=5).sum()) == single
    result = repeat_lesson(3, seed=5)
    assert sorted(result.goals) == [4, 8]
    assert [len(g) for g in result.goals.values()] == [3, 3]
    assert result.env_steps == 3 * 12 * 500
    again = repeat_lesson(3, seed=5)
    assert all((result.goals[n] == again.goals[n]).all() for n in (4, 8))


def counts(four: list[int], eight: list[int]) -> RepeatedRuns:
    return RepeatedRuns(len(four), 0, {4: np.array(four), 8: np.array(eight)}, seconds=0.1)


def test_repeat_summary_uses_exact_poisson_intervals_and_the_exact_expectation():
    summary = repeat_summary(counts([0, 0, 1, 2], [1, 0, 3, 0])).set_index("num_envs")
    assert summary.loc[4, "total_goals"] == 3 and summary.loc[8, "total_goals"] == 4
    assert summary.loc[4, "mean_goals"] == 0.75
    low, high = poisson_interval(3)
    assert summary.loc[4, "low"] == pytest.approx(low / 4)
    assert summary.loc[4, "high"] == pytest.approx(high / 4)
    assert summary.loc[4, ["zero_runs", "one_runs", "more_runs"]].tolist() == [2, 1, 1]
    assert summary.loc[8, "expected_goals"] == pytest.approx(goal_odds(500, 8).expected_goals)


def test_repeat_verdict_both_ways():
    apart = repeat_summary(counts([0] * 950 + [1] * 50, [0] * 900 + [1] * 100))
    shown, text = repeat_verdict(apart)
    assert shown and "2.00×" in bold(text)
    close = repeat_summary(counts([0, 0, 1], [0, 1, 0]))
    shown, text = repeat_verdict(close)
    assert not shown and "cannot tell" in text


def test_the_default_run_answers_exercise_1():
    # The page's default: the doubling shows, for the default seed and a few others.
    for seed in (0, 1, 2):
        summary = repeat_summary(repeat_lesson(DEFAULT_RUNS, seed))
        assert repeat_verdict(summary)[0], seed
    assert max_runs() >= DEFAULT_RUNS
    assert DEFAULT_RUNS in RUN_CHOICES


def test_runs_over_the_cap_are_lowered_with_a_note():
    settings, notes = resolve_settings({"seed": 1, "runs": 10**9})
    assert settings == {"seed": 1, "runs": max_runs()} and len(notes) == 1
    assert "BURGERBOT" not in notes[0]


def test_docstring_examples_run():
    from burgerbot.app.logic import goal_scaling as logic

    result = doctest.testmod(logic, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 3
