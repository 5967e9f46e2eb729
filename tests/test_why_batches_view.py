"""The "Why batches help" app parts: settings and caps, the buffer picture, charts and scripts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from shown_scripts import assert_script_behaves

from burgerbot.app.caps import Caps
from burgerbot.app.logic import why_batches as why_view
from burgerbot.app.logic.why_batches import (
    EVENT_LABELS,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    buffer_cells,
    buffer_chart_size,
    buffer_drawing,
    buffer_heatmap,
    drawn_text,
    learning_curve,
    plan_training,
    resolve_settings,
)
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.app.scripts.why_batches import buffer_script, q_learning_script, training_script
from burgerbot.buffers import buffer_layout, rollout_buffer
from burgerbot.training import (
    QLearningConfig,
    compare_num_envs,
    curves_frame,
    reliable_point,
    summarise_runs,
    train_q_learning,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = {spec.key: spec.default for spec in why_view.SPECS}


def run_script(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- Settings and caps ---------------------------------------------------------------------


def test_plan_training_names_the_cap_and_its_variable():
    assert plan_training([1, 4], seeds=2, env_steps=1_000, max_total=10_000) == (1_000, None)
    per_run, note = plan_training([1, 4, 16], seeds=3, env_steps=50_000, max_total=90_000)
    assert per_run == 10_000
    assert "BURGERBOT_MAX_TRAIN_ENV_STEPS" in note and "90,000" in note


def test_resolve_settings_uses_the_caps_it_is_given():
    values = {**DEFAULTS, "n": 200, "ns": [16, 1, 1], "steps": 50_000, "seeds": 3}
    (buffer, train), notes = resolve_settings(
        values, Caps(max_envs=100, max_train_env_steps=60_000)
    )
    assert buffer.num_envs == 100 and "BURGERBOT_MAX_ENVS" in notes[0]
    assert train.num_envs_list == (1, 16) and train.runs == 6
    assert train.env_steps == 10_000 and "BURGERBOT_MAX_TRAIN_ENV_STEPS" in notes[1]
    assert train.key == ((1, 16), 10_000, 3, 0)
    assert resolve_settings(DEFAULTS) == (
        (
            why_view.BufferSettings(4, 2048, "NEXT_STEP", 0),
            why_view.TrainingSettings((1, 4, 16), 5_000, 3, 0),
        ),
        [],
    )


# --- The buffer picture ---------------------------------------------------------------------


def test_buffer_drawing_caps_the_drawing_not_the_batch():
    wide = buffer_layout(16384, 256)
    drawn = buffer_drawing(wide)
    assert (wide.step_calls, drawn.drawn_envs, drawn.drawn_steps) == (64, MAX_DRAWN_ENVS, 64)
    tall = buffer_drawing(buffer_layout(2048, 1))
    assert (tall.drawn_envs, tall.drawn_steps, tall.clipped) == (1, MAX_DRAWN_STEPS, True)
    assert not buffer_drawing(buffer_layout(1024, 16)).clipped  # 64 calls x 16 envs: all drawn


@pytest.mark.parametrize(
    ("batch", "n", "text"),
    [
        (2048, 16, "Drawn: the first 64 of 128 step() calls for all 16 envs."),
        (1024, 16, "All 64 step() calls for all 16 envs."),
        (1000, 256, "All 4 step() calls for the first 64 of 256 envs."),
        (64, 1, "All 64 step() calls for the single env."),
    ],
)
def test_drawn_text_says_what_the_picture_shows(batch, n, text):
    layout = buffer_layout(batch, n)
    assert drawn_text(layout, buffer_drawing(layout)) == text


# --- Charts ----------------------------------------------------------------------------------


def test_buffer_heatmap_draws_the_capped_cells_and_the_episode_ends():
    frame = rollout_buffer(batch_size=2048, num_envs=4, seed=0)
    cells = buffer_cells(frame, drawn_envs=4, drawn_steps=MAX_DRAWN_STEPS)
    assert len(cells) == 4 * MAX_DRAWN_STEPS and cells["step"].max() == MAX_DRAWN_STEPS
    assert set(cells["what happened"]) <= set(EVENT_LABELS.values())
    spec = buffer_heatmap(frame, 4, MAX_DRAWN_STEPS).to_dict()
    rects, ends = spec["layer"]
    assert rects["mark"]["type"] == "rect" and ends["mark"]["type"] == "rule"
    assert rects["encoding"]["x"]["field"] == "x0" and rects["encoding"]["x2"]["field"] == "x1"
    assert ends["encoding"]["y"]["field"] == "y1"  # the line runs under the ending cell
    assert rects["encoding"]["y"]["scale"]["reverse"] is True  # step() call 1 at the top
    assert rects["encoding"]["color"]["scale"]["domain"] == list(EVENT_LABELS.values())
    assert set(rects["encoding"]["color"]["scale"]["range"]) <= set(OKABE_ITO)
    assert ends["transform"] == [{"filter": "datum.ends_episode"}]
    data = next(iter(spec["datasets"].values()))
    assert len(data) == 4 * MAX_DRAWN_STEPS and sum(row["ends_episode"] for row in data) == int(
        cells["ends_episode"].sum()
    )
    width, height = buffer_chart_size(4, MAX_DRAWN_STEPS)
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
    # Colour-blind safe colours, and a marker shape per NUM_ENVS as well.
    assert spec["encoding"]["color"]["scale"]["range"] == list(OKABE_ITO[:2])
    assert spec["encoding"]["shape"]["field"] == "num_envs"
    assert spec["encoding"]["shape"]["scale"]["range"] == list(SHAPES[:2])
    rows = next(iter(spec["datasets"].values()))
    assert {row["num_envs"] for row in rows} == {1, 4}
    with pytest.raises(ValueError, match="`x`"):
        learning_curve(curves_frame(runs), "episodes")


# --- Scripts ------------------------------------------------------------------------------


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
    assert f"buffer shape: ({layout.step_calls}, {n}) = {layout.collected} rows (env-steps)" in out
    assert f"episodes ended: {int(frame['ends_episode'].sum())}\n" in out
    assert f"goals: {events.get('goal', 0)} | hits: {events.get('hit', 0)}\n" in out
    if mode == "NEXT_STEP":
        transitions = layout.collected - events["reset"]
        assert f"reset rows: {events['reset']} | transitions: {transitions}\n" in out
    else:
        assert "reset rows" not in out
        assert f"transitions: {layout.collected} (SAME_STEP" in out


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


@pytest.mark.parametrize(
    ("n", "env_steps", "seed", "learns"),
    [(4, 5_000, 0, True), (1, 3_000, 2, True), (16, 5_000, 2, True), (1, 100, 0, False)],
)
def test_the_q_learning_loop_written_out_learns_what_the_library_learns(
    n, env_steps, seed, learns, tmp_path
):
    """The page's whole script, run from a file, gives train_q_learning's own result."""
    out = assert_script_behaves(q_learning_script(n, env_steps, seed), tmp_path / "q")
    run = train_q_learning(n, QLearningConfig(env_steps=env_steps, seed=seed))
    point = reliable_point(run.curve)
    assert (point is not None) == learns  # both branches of the script's last line are run
    if point is None:
        assert "not learned: the greedy policy still misses the goal" in out
    else:
        steps, calls = int(point["env_steps"]), int(point["step_calls"])
        assert f"learned at {steps:,} env-steps ({calls:,} step() calls)" in out
    assert f"NUM_ENVS={n}, seed {seed}, " in out
