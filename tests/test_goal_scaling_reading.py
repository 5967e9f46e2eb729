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


def test_check_explanation_follows_the_run():
    none = check_explanation(LessonRun(0, {4: 0, 8: 0}, {4: 170, 8: 340}))
    # seed, 4 envs x 500 steps (2,000 env-steps), 170 episodes, 0 goals; 8 envs, 0 goals
    assert numbers(none)[:7] == [0, 4, 500, 2_000, 170, 0, 8] and numbers(none)[7] == 0
    # the library's exact figures (the page said 0.054 goals, 0 coming up 95% of the time)
    odds = goal_odds(500, 4)
    assert quotes(none, round(odds.expected_goals, 4), round(100 * odds.chance_of_none, 1))
    one = check_explanation(LessonRun(7, {4: 1, 8: 2}, {4: 170, 8: 340}))
    assert numbers(one)[:8] == [7, 4, 500, 2_000, 170, 1, 8, 2]
    assert "goal 1 time;" in one and "2 times" in one  # singular and plural


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
    assert numbers(why) == [8, *expected, 4, chances[0], 4, chances[1], 8, 0, chances[2]]
    assert chances[:2] == [95.6, 91.3]
    kind, why = lesson_verdict(fake_odds(VISIBLE_GOALS))  # counts large enough to show it
    difference, noise = numbers(why)[-2:]  # 8 envs' count minus 4 envs', against its noise
    assert kind == "holds" and difference == pytest.approx(VISIBLE_GOALS, rel=0.01)
    assert noise == pytest.approx(math.sqrt(3 * VISIBLE_GOALS), rel=0.05)
    assert lesson_verdict(fake_odds(VISIBLE_GOALS * 0.99))[0] == "not_visible"


def test_takeaways_use_the_exact_figures_and_the_run():
    run = LessonRun(2, {4: 1, 8: 0}, {4: 170, 8: 340})
    bullets = takeaways(run)
    assert len(bullets) == 3
    shown, hidden = takeaways(run, doubled=True), takeaways(run, doubled=False)
    assert len(shown) == len(hidden) == 4 and shown[-1] != hidden[-1]  # what the repeats showed
    assert shown[:3] == hidden[:3] == bullets
    odds = goal_odds(500, 4)
    assert quotes(bullets[1], round(1 / long_run_goal_rate()), round(odds.expected_goals, 4))
    assert quotes(bullets[1], round(100 * odds.chance_of_none, 1))  # exact, from the rules
    assert numbers(bullets[1])[-2:] == [2, 1]  # your run: seed 2 gave 1 goal


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
    assert shown and "2.00×" in bold(text) and quotes(text, 95.0)  # 95% of 4-env runs saw 0
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
