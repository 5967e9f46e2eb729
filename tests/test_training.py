"""burgerbot.training: tabular Q-learning on N envs, its curves and summaries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from burgerbot import world
from burgerbot.training import (
    QLearningConfig,
    compare_num_envs,
    curves_frame,
    greedy_episode,
    reliable_point,
    runs_frame,
    state_indices,
    summarise_runs,
    train_q_learning,
)

CURVE_COLUMNS = [
    "num_envs",
    "env_steps",
    "step_calls",
    "episodes",
    "seconds",
    "greedy_return",
    "greedy_reaches_goal",
    "greedy_steps",
    "goal_rate",
]


# --- Q-learning ------------------------------------------------------------------------------


def test_state_indices_number_every_state_like_the_world():
    observations = world.TABLES.observation
    assert state_indices(observations).tolist() == list(range(world.NUM_STATES))


def test_greedy_episode_of_an_untrained_table_drives_into_the_obstacle():
    assert greedy_episode(np.zeros((world.NUM_STATES, world.NUM_ACTIONS))) == (-8.0, False, 3)


def test_one_batched_update_counts_repeated_transitions_once():
    # 16 robots on the start square, no exploration, learning rate 1: every action tried
    # from the start gets exactly its reward (the next state's values are still 0), not a
    # multiple of it, however many robots tried it.
    config = QLearningConfig(env_steps=16, epsilon=0.0, learning_rate=1.0)
    q = train_q_learning(16, config).q_table
    start = q[world.START_STATE]
    rewards = {0: world.MOVE_REWARD, 1: -0.1, 2: -0.1, 3: -0.1}
    tried = np.flatnonzero(start)
    assert len(tried) >= 2  # ties are broken at random, so several actions were tried
    for action in tried:
        assert start[action] == pytest.approx(rewards[int(action)])
    assert np.count_nonzero(q) == len(tried)  # nothing else was updated


def test_a_run_is_reproducible_for_a_seed():
    config = QLearningConfig(env_steps=3_000, seed=4)
    first, second = train_q_learning(4, config), train_q_learning(4, config)
    assert list(first.curve.columns) == CURVE_COLUMNS
    columns = [c for c in CURVE_COLUMNS if c != "seconds"]
    pd.testing.assert_frame_equal(first.curve[columns], second.curve[columns])
    np.testing.assert_array_equal(first.q_table, second.q_table)
    other = train_q_learning(4, QLearningConfig(env_steps=3_000, seed=2))
    assert not np.array_equal(first.q_table, other.q_table)


@pytest.mark.parametrize("num_envs", [1, 16])
def test_the_greedy_policy_learns_to_reach_the_goal(num_envs):
    run = train_q_learning(num_envs, QLearningConfig(env_steps=8_000, seed=0))
    point = reliable_point(run.curve)
    assert point is not None
    assert run.curve["greedy_reaches_goal"].iloc[-1]
    total, reached, steps = greedy_episode(run.q_table)
    assert reached and total > world.GOAL_REWARD and steps < 40
    # The checks happen about every 100 env-steps, counted in whole step() calls.
    env_steps = run.curve["env_steps"].to_numpy()
    assert env_steps[-1] == 8_000 and np.all(np.diff(env_steps) > 0)
    assert (run.curve["env_steps"] == run.curve["step_calls"] * num_envs).all()
    assert run.curve["episodes"].is_monotonic_increasing
    assert run.curve["seconds"].is_monotonic_increasing


def test_reliable_point_is_the_start_of_the_last_streak():
    curve = pd.DataFrame(
        {"env_steps": [100, 200, 300, 400, 500], "greedy_reaches_goal": [0, 1, 0, 1, 1]}
    )
    assert reliable_point(curve)["env_steps"] == 400
    assert reliable_point(curve.assign(greedy_reaches_goal=[1, 1, 1, 1, 0])) is None


def test_compare_summarise_and_curves():
    calls = []
    runs = compare_num_envs(
        [1, 4],
        seeds=[0, 1],
        config=QLearningConfig(env_steps=2_000),
        progress=lambda fraction, message: calls.append((fraction, message)),
    )
    assert [(r.num_envs, r.seed) for r in runs] == [(1, 0), (1, 1), (4, 0), (4, 1)]
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert all(0.0 <= f <= 1.0 for f in fractions)
    assert "NUM_ENVS=4" in calls[-1][1] and "seed 1" in calls[-1][1]
    # made seed by seed, the NUM_ENVS taking turns (interleaved timings), returned by NUM_ENVS
    made = list(dict.fromkeys(m.split(":")[0] + m[m.rindex("(seed") :] for _, m in calls))
    assert made == [f"NUM_ENVS={n}(seed {s})" for s in (0, 1) for n in (1, 4)], made

    per_run = runs_frame(runs)
    assert list(per_run.columns) == [
        "num_envs",
        "seed",
        "reached",
        "env_steps",
        "step_calls",
        "episodes",
        "seconds",
        "env_steps_per_s",
        "final_greedy_return",
    ]
    summary = summarise_runs(runs)
    assert summary["num_envs"].tolist() == [1, 4] and summary["seeds"].tolist() == [2, 2]
    for n in (1, 4):
        rows = per_run[(per_run["num_envs"] == n) & per_run["reached"]]
        row = summary[summary["num_envs"] == n].iloc[0]
        assert row["reached"] == len(rows)
        assert row["env_steps"] == rows["env_steps"].median()
        assert row["episodes"] == rows["episodes"].median()

    curves = curves_frame(runs)
    assert list(curves.columns) == [
        "num_envs",
        "env_steps",
        "step_calls",
        "seconds",
        "reaches_goal",
        "greedy_return",
        "goal_rate",
    ]
    assert curves["reaches_goal"].between(0, 1).all()
    assert len(curves) == sum(len(r.curve) for r in runs) // 2  # two seeds per point


def test_progress_that_raises_stops_the_run():
    def stop(fraction, message):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_q_learning(1, QLearningConfig(env_steps=5_000), stop)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"epsilon": 1.5}, "epsilon"),
        ({"env_steps": 0}, "env_steps"),
        ({"seed": -1}, "seed"),
        ({"learning_rate": "fast"}, "learning_rate"),
    ],
)
def test_config_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        QLearningConfig(**kwargs)


def test_bad_num_envs_are_rejected():
    with pytest.raises(ValueError, match="num_envs"):
        train_q_learning(0)
    with pytest.raises(ValueError, match="at least one"):
        compare_num_envs([], seeds=[0])
