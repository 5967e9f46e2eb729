"""Goal scaling (issue 37): what the page says holds at every seed and number of runs its
widgets and URL allow, checked against the runs' raw counts and the exact goal odds of
`burgerbot.random_agent`, not against the helpers that wrote it."""

from __future__ import annotations

import ast
import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, numbers, quotes
from shown_scripts import assert_script_behaves
from spec_strategies import ends_of, settings_of

from burgerbot.app.logic.goal_scaling import (
    SPECS,
    LessonRun,
    RepeatedRuns,
    check_explanation,
    repeat_lesson,
    repeat_summary,
    repeat_verdict,
    resolve_settings,
    run_lesson,
    takeaways,
)
from burgerbot.app.scripts.goal_scaling import exercise_answer_script, lesson_run_script
from burgerbot.random_agent import episode_odds, goal_odds
from burgerbot.statistics import poisson_interval

SPEC = {spec.key: spec for spec in SPECS}
LESSON = {"seed": 0, "runs": 3_000}  # the page's defaults, where the findings were made


def exact_rate() -> float:
    """Goals per env-step in the long run, from one episode's exact odds (a goal chance per
    episode over the rows an episode takes)."""
    odds = episode_odds()
    return odds.goal_chance / (odds.mean_length + 1)  # NEXT_STEP: one reset row per episode


def share(steps_per_env: int) -> float:
    return goal_odds(steps_per_env, 1).expected_goals / (steps_per_env * exact_rate())


def synthetic(runs: int, seed: int, shift: float) -> RepeatedRuns:
    """Goals per run drawn around the exact expectation (``shift`` 1: the doubling; 0.5 at 8
    envs: none), as `repeat_lesson` shapes them."""
    rng = np.random.default_rng(seed)
    means = {4: goal_odds(500, 4).expected_goals, 8: goal_odds(500, 8).expected_goals * shift}
    return RepeatedRuns(runs, seed, {n: rng.poisson(m, size=runs) for n, m in means.items()}, 0.1)


def check_repeats(result: RepeatedRuns) -> bool:
    runs, goals = result.runs, result.goals
    summary = repeat_summary(result).set_index("num_envs")
    for n, per_run in goals.items():  # the table beside the verdict: its counts are the runs'
        row = summary.loc[n]
        assert row["total_goals"] == per_run.sum() and row["runs"] == runs
        assert [row["zero_runs"], row["one_runs"], row["more_runs"]] == [
            (per_run == 0).sum(), (per_run == 1).sum(), (per_run >= 2).sum()
        ]  # fmt: skip
    assert result.env_steps == (4 + 8) * 500 * runs  # the caption's env-steps
    (_, high4), (low8, _) = (poisson_interval(int(goals[n].sum())) for n in (4, 8))
    doubled, text = repeat_verdict(repeat_summary(result))
    assert doubled == (high4 < low8), text
    exact = goal_odds(500, 8).expected_goals / goal_odds(500, 4).expected_goals
    assert quotes(text, runs, round(exact, 2))
    # "1 run", never "1 runs"; "2 runs", never "2 run"
    (noun,) = re.findall(rf"(?:Over |^\*\*){runs:,} (\S+)", text)
    assert noun == ("run" if runs == 1 else "runs"), text
    if doubled:
        assert bold(text)[1] == f"{goals[8].mean() / goals[4].mean():.2f}×"
    return doubled


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS), shift=st.sampled_from([1.0, 0.5]))
@example(values=LESSON, shift=1.0)
@example(values={"seed": SPEC["seed"].low, "runs": SPEC["runs"].low}, shift=1.0)  # "1 run(s)"
@example(values={"seed": SPEC["seed"].high, "runs": SPEC["runs"].high}, shift=1.0)
@example(values={"seed": SPEC["seed"].high, "runs": SPEC["runs"].high}, shift=0.5)
def test_the_repeated_runs_verdict_and_takeaways_follow_the_counts(values, shift):
    resolved, _ = resolve_settings(values)
    doubled = check_repeats(synthetic(resolved["runs"], resolved["seed"], shift))
    bullets = takeaways(LessonRun(resolved["seed"], {4: 0, 8: 0}, {4: 0, 8: 0}), doubled)
    # Where "goals follow the env-steps, not the number of envs" stops holding (finding):
    # the shares of the long-run rate it quotes are the exact ones, at 500 steps near all of it,
    # at 50 well under half, under the fewest steps to a goal none at all.
    fewest = next(k for k in range(1, 200) if goal_odds(k, 1).expected_goals > 0)
    assert goal_odds(fewest - 1, 500).expected_goals == 0.0
    assert quotes(bullets[1], 500, round(100 * share(500)), 50, round(100 * share(50)), fewest)
    assert share(500) > 0.9 and share(50) < 0.5
    # Same 2,000 env-steps: 40 envs x 50 steps reach the share's worth of 4 x 500's goals.
    ratio = goal_odds(50, 40).expected_goals / goal_odds(500, 4).expected_goals
    assert np.isclose(ratio, share(50) / share(500))
    # "One run of 500 steps mostly shows 0 goals, with 4 envs or 8", and what the runs showed
    assert all(goal_odds(500, n).chance_of_none > 0.5 for n in (4, 8))
    assert ("could not" in bullets[2]) == (not doubled)


def test_the_check_gives_the_exact_rate():
    text = check_explanation(LessonRun(0, {4: 0, 8: 0}, {4: 0, 8: 0}))
    assert numbers(text) == [round(1 / exact_rate())]


def test_real_runs_and_the_shown_scripts_at_the_ends_of_every_range(tmp_path):
    for values in ends_of(SPECS):
        resolved, _ = resolve_settings(values)
        for script in (lesson_run_script(resolved["seed"]), exercise_answer_script(**resolved)):
            ast.parse(script)
        if resolved["runs"] < 100:  # a live repeat at the low end only (3,000 take a second)
            check_repeats(repeat_lesson(resolved["runs"], resolved["seed"]))
    seed = SPEC["seed"].high
    run, out = run_lesson(seed), assert_script_behaves(lesson_run_script(seed), tmp_path)
    for n in (4, 8):
        assert f"{n} envs x 500 steps: {run.goals[n]} goals" in out, seed
