"""The "Does batching make learning faster?" app parts: settings and caps, charts, scripts."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from sentence_facts import quotes
from shown_scripts import assert_script_behaves

from burgerbot.app.caps import Caps
from burgerbot.app.logic import learning_speed as speed_view
from burgerbot.app.logic.learning_speed import learning_curve, plan_training, resolve_settings
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.app.scripts.learning_speed import q_learning_script, training_script
from burgerbot.training import (
    QLearningConfig,
    compare_num_envs,
    curves_frame,
    reliable_point,
    summarise_runs,
    train_q_learning,
)

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = {spec.key: spec.default for spec in speed_view.SPECS}


def run_script(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- Settings and caps ---------------------------------------------------------------------


def test_plan_training_names_the_cap_in_plain_words():
    assert plan_training([1, 4], seeds=2, env_steps=1_000, max_total=10_000) == (1_000, None)
    per_run, note = plan_training([1, 4, 16], seeds=3, env_steps=50_000, max_total=90_000)
    assert per_run == 10_000
    assert quotes(note, 9, 50_000, 90_000, 10_000)  # runs, asked, the limit, per run used
    assert "BURGERBOT" not in note  # no environment variable in the learner's text


def test_resolve_settings_uses_the_caps_it_is_given():
    values = {**DEFAULTS, "ns": [16, 1, 1], "steps": 50_000, "seeds": 3}
    train, notes = resolve_settings(values, Caps(max_train_env_steps=60_000))
    assert train.num_envs_list == (1, 16) and train.runs == 6
    assert train.env_steps == 10_000 and len(notes) == 1 and quotes(notes[0], 60_000, 10_000)
    assert train.key == ((1, 16), 10_000, 3, 0)
    assert resolve_settings(DEFAULTS) == (speed_view.TrainingSettings((1, 4, 16), 5_000, 3, 0), [])


# --- Charts -----------------------------------------------------------------------------------


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
