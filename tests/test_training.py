"""burgerbot.training (rollout buffer, tabular Q-learning on N envs), its charts and scripts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot import world
from burgerbot.app.charts.why_batches import (
    EVENT_LABELS,
    buffer_cells,
    buffer_chart_size,
    buffer_heatmap,
    learning_curve,
)
from burgerbot.app.scripts.why_batches import buffer_script, training_script
from burgerbot.experiments import rollout
from burgerbot.training import (
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    QLearningConfig,
    buffer_layout,
    compare_num_envs,
    curves_frame,
    greedy_episode,
    plan_training,
    reliable_point,
    rollout_buffer,
    runs_frame,
    state_indices,
    summarise_runs,
    train_q_learning,
)

ROOT = Path(__file__).resolve().parent.parent
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


def run_script(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- The rollout buffer ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "n", "calls", "collected", "exact"),
    [(2048, 1, 2048, 2048, True), (2048, 4, 512, 2048, True), (2048, 3, 683, 2049, False)],
)
def test_buffer_layout_counts_step_calls(batch, n, calls, collected, exact):
    layout = buffer_layout(batch, n)
    assert (layout.step_calls, layout.collected, layout.exact) == (calls, collected, exact)


def test_buffer_layout_caps_the_drawing_not_the_batch():
    wide = buffer_layout(16384, 256)
    assert (wide.step_calls, wide.drawn_envs, wide.drawn_steps) == (64, MAX_DRAWN_ENVS, 64)
    tall = buffer_layout(2048, 1)
    assert (tall.drawn_envs, tall.drawn_steps, tall.clipped) == (1, MAX_DRAWN_STEPS, True)
    assert not buffer_layout(2048, 16).clipped  # 128 calls x 16 envs: all drawn
    with pytest.raises(ValueError, match="num_envs"):
        buffer_layout(2048, 0)


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_rollout_buffer_is_a_real_rollout(mode):
    frame = rollout_buffer(batch_size=200, num_envs=8, seed=3, autoreset_mode=mode)
    assert len(frame) == 25 * 8 and frame["step"].max() == 25
    same = rollout("native", 8, 25, 3, AutoresetMode[mode])
    pd.testing.assert_frame_equal(frame.drop(columns="ends_episode"), same)
    assert frame["ends_episode"].equals(frame["terminated"] | frame["truncated"])
    resets = (frame["event"] == "reset").sum()
    assert (resets > 0) if mode == "NEXT_STEP" else (resets == 0)


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


def test_plan_training_names_the_cap_and_its_variable():
    assert plan_training([1, 4], seeds=2, env_steps=1_000, max_total=10_000) == (1_000, None)
    per_run, note = plan_training([1, 4, 16], seeds=3, env_steps=50_000, max_total=90_000)
    assert per_run == 10_000
    assert "BURGERBOT_MAX_TRAIN_ENV_STEPS" in note and "90,000" in note


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


# --- Charts ----------------------------------------------------------------------------------


def test_buffer_heatmap_draws_the_capped_cells_and_the_episode_ends():
    frame = rollout_buffer(batch_size=2048, num_envs=4, seed=0)
    cells = buffer_cells(frame, drawn_envs=4, drawn_steps=128)
    assert len(cells) == 4 * 128 and cells["step"].max() == 128
    assert set(cells["what happened"]) <= set(EVENT_LABELS.values())
    spec = buffer_heatmap(frame, 4, 128).to_dict()
    rects, ends = spec["layer"]
    assert rects["mark"]["type"] == "rect" and ends["mark"]["type"] == "rule"
    assert rects["encoding"]["x"]["field"] == "x0" and rects["encoding"]["x2"]["field"] == "x1"
    assert ends["encoding"]["y"]["field"] == "y1"  # the line runs under the ending cell
    assert rects["encoding"]["y"]["scale"]["reverse"] is True  # step() call 1 at the top
    assert rects["encoding"]["color"]["scale"]["domain"] == list(EVENT_LABELS.values())
    assert ends["transform"] == [{"filter": "datum.ends_episode"}]
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 512 and sum(row["ends_episode"] for row in data) == int(
        cells["ends_episode"].sum()
    )
    width, height = buffer_chart_size(4, 128)
    assert width > spec["width"] and height > spec["height"]  # room for axes and legend


def test_buffer_heatmap_keeps_only_the_drawn_envs():
    frame = rollout_buffer(batch_size=256, num_envs=128, seed=0)
    cells = buffer_cells(frame, drawn_envs=64, drawn_steps=2)
    assert cells["env"].max() == 63 and len(cells) == 128


@pytest.mark.parametrize(("x", "scale"), [("env_steps", None), ("seconds", "log")])
def test_learning_curve_encodings(x, scale):
    runs = compare_num_envs([1, 4], seeds=[0], config=QLearningConfig(env_steps=1_000))
    spec = learning_curve(curves_frame(runs), x).to_dict()
    assert spec["encoding"]["x"]["field"] == x
    assert spec["encoding"]["x"].get("scale", {}).get("type") == scale
    assert spec["encoding"]["y"]["field"] == "reaches_goal"
    assert spec["encoding"]["color"]["field"] == "num_envs"
    rows = next(iter(spec["datasets"].values()))
    assert {row["num_envs"] for row in rows} == {1, 4}
    with pytest.raises(ValueError, match="`x`"):
        learning_curve(curves_frame(runs), "episodes")


# --- Scripts ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("batch", "n", "seed", "mode"),
    [(2048, 4, 0, "NEXT_STEP"), (1000, 16, 3, "NEXT_STEP"), (512, 1, 7, "SAME_STEP")],
)
def test_buffer_script_prints_what_the_page_shows(batch, n, seed, mode):
    out = run_script(buffer_script(batch, n, seed, mode))
    frame = rollout_buffer(batch, n, seed, mode)
    layout = buffer_layout(batch, n)
    events = frame["event"].value_counts()
    assert f"step() calls: {layout.step_calls}\n" in out
    assert f"buffer shape: ({layout.step_calls}, {n}) = {layout.collected} transitions" in out
    assert f"episodes ended: {int(frame['ends_episode'].sum())}\n" in out
    assert f"goals: {events.get('goal', 0)} | hits: {events.get('hit', 0)}\n" in out
    if mode == "NEXT_STEP":
        assert f"reset steps: {events['reset']}\n" in out
    else:
        assert "reset steps" not in out


def test_training_script_prints_the_page_summary():
    out = run_script(training_script([1, 4], env_steps=1_500, seeds=2, first_seed=1))
    runs = compare_num_envs([1, 4], seeds=[1, 2], config=QLearningConfig(env_steps=1_500))
    summary = summarise_runs(runs)
    lines = out.splitlines()
    header = lines.index(next(line for line in lines if line.split()[:2] == ["num_envs", "seeds"]))
    printed = [line.split() for line in lines[header + 1 : header + 3]]
    for row, (_, expected) in zip(printed, summary.iterrows(), strict=True):
        assert int(row[0]) == expected["num_envs"] and int(row[2]) == expected["reached"]
        for text, column in zip(row[3:6], ["env_steps", "episodes", "step_calls"], strict=True):
            value = expected[column]
            assert (text == "<NA>") if pd.isna(value) else float(text) == value
    assert re.search(r"env-steps per second: \[\d+, \d+\]", out)
