"""The "Goal scaling" reading of a sweep: summaries, the doubling verdict, chart data and CSV."""

from __future__ import annotations

import io
import math

import pandas as pd
import pytest
from sentence_facts import bold, numbers

from burgerbot.app.logic.goal_statistics import (
    chart_data,
    doubling_verdict,
    summarise,
    to_csv,
)
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import expected_episodes, goal_odds
from burgerbot.statistics import poisson_interval

COUNTS = ["num_envs", "seed", "env_steps", "goals", "hits", "episodes"]


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
    summary = summarise(frame).set_index("num_envs")
    four, eight = summary.loc[4], summary.loc[8]
    assert four["mean_goals"] == 0 and four["goals_low"] == 0
    assert four["goals_high"] == pytest.approx(poisson_interval(0)[1] / 3)
    assert eight["mean_goals"] == 1
    assert (eight["goals_low"], eight["goals_high"]) == pytest.approx(
        tuple(x / 3 for x in poisson_interval(3))
    )
    assert (four["zero_goal_runs"], eight["zero_goal_runs"]) == (3, 1)
    # exact, from burgerbot.random_agent (rate x env-steps gave 0.05)
    assert four["expected_goals"] == pytest.approx(goal_odds(500, 4).expected_goals)
    assert round(four["expected_goals"], 4) == 0.0453
    assert eight["goals_per_100k_env_steps"] == pytest.approx(3 / 12_000 * 100_000)
    half = 1.96 * 10 / math.sqrt(3)  # standard deviation of 180, 190, 200 is 10
    assert (four["episodes_low"], four["episodes_high"]) == pytest.approx((190 - half, 190 + half))
    assert eight["expected_episodes"] == pytest.approx(expected_episodes(500, 8))
    single = summarise(frame[frame["seed"] == 0])
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
    summary = summarise(verdict_frame([0, 0, 1], [0, 1, 0]))
    verdict = doubling_verdict(summary)
    # each N's mean (stressed), runs with no goal, then the verdict; the exact ratio last
    assert bold(verdict) == ["0.333", "0.333", "cannot tell"]
    assert numbers(verdict)[:8] == [4, 0.333, 2, 3, 8, 0.333, 2, 3] and numbers(verdict)[-1] == 2


def test_doubling_verdict_sees_a_clear_difference():
    summary = summarise(verdict_frame([20, 22, 19], [41, 38, 44]))
    verdict = doubling_verdict(summary)
    assert bold(verdict) == ["20.3", "41"]  # no "cannot tell": the intervals are apart
    assert numbers(verdict)[-3:] == [8, 2, 2]  # 8 envs reached 2x as many; exactly 2x expected
    zero = doubling_verdict(summarise(verdict_frame([0] * 10, [5] * 10)))
    assert bold(zero) == ["0", "5"] and numbers(zero)[-2:] == [8, 2]  # no ratio to 0 goals


def test_doubling_verdict_picks_the_lessons_pair_or_the_first_doubling():
    frame = goal_scaling([1, 2, 4, 8], 100, seeds=[0], backend="native")
    assert doubling_verdict(summarise(frame)).startswith("NUM_ENVS 4:")
    frame = frame[frame["num_envs"] != 8]
    assert doubling_verdict(summarise(frame)).startswith("NUM_ENVS 1:")
    assert doubling_verdict(summarise(frame[frame["num_envs"] == 4])) is None


def test_chart_data_counts_equal_runs_once_at_their_own_num_envs():
    frame = goal_scaling([2, 8], 300, seeds=[0, 1, 2], backend="native")
    summary = summarise(frame)
    points, bands = chart_data(frame, summary)
    assert set(points["metric"]) == {"goals", "episodes"}
    goals = points[points["metric"] == "goals"]
    # One dot per (NUM_ENVS, count), sized by its runs; no sideways shift on the log axis.
    assert goals["runs"].sum() == len(frame)
    for n, group in frame.groupby("num_envs"):
        shown = goals[goals["num_envs"] == n].set_index("value")["runs"].to_dict()
        assert shown == group["goals"].astype(float).value_counts().to_dict()
    assert "x" not in points.columns
    fake = pd.DataFrame(
        {"num_envs": [4, 4, 4], "seed": [0, 1, 2], "goals": [0, 0, 1], "episodes": [5, 5, 5]}
    )
    fake_points, _ = chart_data(fake, summarise(fake.assign(env_steps=2000)))
    fake_goals = fake_points[fake_points["metric"] == "goals"]
    assert fake_goals[["value", "runs"]].values.tolist() == [[0.0, 2], [1.0, 1]]
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
