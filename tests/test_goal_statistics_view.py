"""The "Goal statistics" settings, caps, runs, chart and script (`logic.goal_scaling` & co)."""

from __future__ import annotations

import doctest
import re
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sentence_facts import numbers, quotes

from burgerbot.app.caps import Caps
from burgerbot.app.logic import goal_statistics as scaling_logic
from burgerbot.app.logic.goal_statistics import (
    DEFAULT_NUM_ENVS,
    LAYERS,
    SPECS,
    ScalingSettings,
    chart_data,
    check_budget,
    resolve_settings,
    run_sweep,
    scaling_panel,
    summarise,
    sweep_cap,
)
from burgerbot.app.measured import ThrottledProgress
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.scripts import goal_statistics as scaling_snippets
from burgerbot.app.scripts.goal_statistics import snippet_for
from burgerbot.experiments import goal_scaling, random_actions

ROOT = Path(__file__).resolve().parent.parent
COUNTS = ["num_envs", "seed", "env_steps", "goals", "hits", "episodes"]


def values(**changes):
    base = {spec.key: spec.default for spec in SPECS}
    return base | changes


# --- Settings and caps ----------------------------------------------------------------------------


def test_defaults_are_the_lessons_steps_on_native_and_fit_the_sync_cap_too():
    settings, notes = resolve_settings(values())
    assert notes == []
    assert settings.num_envs == DEFAULT_NUM_ENVS == (1, 2, 4, 8, 16, 32, 64, 128, 256)
    assert (settings.steps_per_env, settings.seeds, settings.backend) == (500, 10, "native")
    assert check_budget(replace(settings, backend="sync")) is None
    assert settings.planned_env_steps == 511 * 500 * 10
    assert check_budget(settings) is None


def test_settings_count_env_steps_in_both_budgets():
    per_env = ScalingSettings((1, 4, 8), steps_per_env=300, total_env_steps=1000, seeds=2)
    assert [per_env.steps_for(n) for n in (1, 4, 8)] == [300, 300, 300]
    assert per_env.planned_env_steps == 13 * 300 * 2
    total = replace(per_env, budget="total")
    assert [total.steps_for(n) for n in (1, 4, 8)] == [1000, 250, 125]
    assert [total.env_steps_for(n) for n in (1, 3)] == [1000, 999]
    assert total.planned_env_steps == 3000 * 2
    assert total.seed_list == [0, 1]
    assert per_env.describe() == "NUM_ENVS 1, 4, 8; 300 steps per env; 2 seed(s); Sync"
    assert total.describe(backend=False) == "NUM_ENVS 1, 4, 8; 1,000 env-steps per run; 2 seed(s)"


def test_resolve_settings_fixes_what_cannot_run_and_says_so():
    settings, notes = resolve_settings(values(n=[]))
    assert settings.num_envs == DEFAULT_NUM_ENVS and "at least one" in notes[0]
    settings, notes = resolve_settings(values(n=[64, 8, 8], total=10, budget="total"))
    assert settings.num_envs == (8, 64) and settings.total_env_steps == 64
    assert quotes(notes[0], 64)  # raised to the largest NUM_ENVS
    settings, notes = resolve_settings(values(backend="async", budget="nope"))
    assert (settings.backend, settings.budget, notes) == ("sync", "per_env", [])


def test_sweep_caps_depend_on_the_backend():
    caps = Caps(max_sweep_env_steps=1000, max_sync_sweep_env_steps=100)
    assert sweep_cap("sync", caps) == 100
    assert sweep_cap("native", caps) == 1000


def test_an_oversized_sweep_is_refused_with_fixes_that_really_fit():
    caps = Caps(max_sweep_env_steps=200_000, max_sync_sweep_env_steps=50_000)
    settings = ScalingSettings((1, 2, 4, 8), steps_per_env=1_000, seeds=10)  # 150,000
    message = check_budget(settings, caps)
    assert message is not None
    assert numbers(message)[:2] == [150_000, 50_000]  # the sweep's env-steps, Sync's cap
    assert "BURGERBOT" not in message  # plain words, no variable names
    seeds = int(re.search(r"use at most (\d+) seed", message).group(1))
    steps = int(re.search(r"steps per env to ([\d,]+)", message).group(1).replace(",", ""))
    assert numbers(message)[-1] == 200_000 and "native" in message  # native's cap fits it
    assert check_budget(replace(settings, seeds=seeds), caps) is None
    assert check_budget(replace(settings, seeds=seeds + 1), caps) is not None
    assert check_budget(replace(settings, steps_per_env=steps), caps) is None
    assert check_budget(replace(settings, steps_per_env=steps + 1), caps) is not None
    assert check_budget(replace(settings, backend="native"), caps) is None

    total = replace(settings, budget="total", total_env_steps=20_000, backend="native")
    message = check_budget(total, caps)  # 4 x 10 runs x 20,000 = 800,000
    per_run = int(re.search(r"per run to ([\d,]+)", message).group(1).replace(",", ""))
    assert "BURGERBOT" not in message and "switch to native" not in message
    assert check_budget(replace(total, total_env_steps=per_run), caps) is None


# --- Running --------------------------------------------------------------------------------------


def test_run_sweep_is_goal_scaling_in_both_budgets():
    settings = ScalingSettings((1, 3), steps_per_env=700, total_env_steps=900, seeds=2)
    for backend in ("sync", "native"):
        result = run_sweep(replace(settings, backend=backend))
        expected = goal_scaling((1, 3), 700, seeds=[0, 1], backend="sync")
        pd.testing.assert_frame_equal(result.frame[COUNTS], expected[COUNTS])
        assert result.wall_seconds > 0 and result.env_steps == 2 * 700 * 4
    result = run_sweep(replace(settings, budget="total", backend="native"))
    assert result.frame["steps_per_env"].tolist() == [900, 900, 300, 300]


def test_a_raising_progress_stops_the_sweep():
    class Stop(Exception):
        pass

    def stop(fraction, message):
        raise Stop(message)

    with pytest.raises(Stop):
        run_sweep(ScalingSettings((2,), steps_per_env=5_000, seeds=1), ThrottledProgress(stop))


# --- Chart ----------------------------------------------------------------------------------------


def test_scaling_panels_have_log2_x_named_layers_and_the_runs():
    frame = goal_scaling([1, 4, 16], 400, seeds=[0, 1], backend="native")
    points, bands = chart_data(frame, summarise(frame))
    goals = scaling_panel(points, bands, "goals").to_dict()
    episodes = scaling_panel(points, bands, "episodes").to_dict()
    assert goals["layer"][1]["encoding"]["y"]["title"] == "Goals reached per run"
    assert episodes["layer"][1]["encoding"]["y"]["title"].startswith("Finished episodes per run")
    for panel in (goals, episodes):
        expected, runs, interval, mean = panel["layer"]
        # Okabe-Ito colours, and each mark told apart by its shape as well as its colour.
        assert runs["mark"]["type"] == "point" and mean["mark"]["type"] == "point"
        assert runs["encoding"]["shape"]["scale"]["range"][:2] == ["circle", "diamond"]
        assert mean["encoding"]["shape"]["field"] == "layer"
        assert set(runs["encoding"]["color"]["scale"]["range"]) <= set(OKABE_ITO)
        assert interval["mark"]["type"] == "rule" and expected["mark"]["type"] == "line"
        assert interval["encoding"]["y2"]["field"] == "high"
        assert runs["encoding"]["x"]["field"] == "num_envs"  # no sideways shift
        assert runs["encoding"]["size"]["field"] == "runs"
        scale = runs["encoding"]["x"]["scale"]
        assert (scale["type"], scale["base"]) == ("log", 2)
        assert runs["encoding"]["x"]["axis"]["values"] == [1, 4, 16]
        assert runs["encoding"]["color"]["scale"]["domain"] == list(LAYERS)
    assert goals["layer"][1]["encoding"]["y"]["scale"] == {"zero": True}
    assert episodes["layer"][1]["encoding"]["y"]["scale"] == {"type": "log"}
    goal_points = goals["datasets"][goals["layer"][1]["data"]["name"]]
    assert sum(row["runs"] for row in goal_points) == len(frame)
    assert {row["metric"] for row in goal_points} == {"goals"}
    with pytest.raises(ValueError, match="metric"):
        scaling_panel(points, bands, "hits")


def test_episode_panel_stays_linear_when_a_run_has_no_episode():
    frame = goal_scaling([1, 2], 1, seeds=[0], backend="native")  # one step: no episode ends
    points, bands = chart_data(frame, summarise(frame))
    spec = scaling_panel(points, bands, "episodes").to_dict()
    assert spec["layer"][1]["encoding"]["y"]["scale"] == {"zero": True}


# --- Script ---------------------------------------------------------------------------------------


def run_script(code: str) -> pd.DataFrame:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0].split() == ["NUM_ENVS", "seed", "env-steps", "goals", "hits", "episodes"]
    rows = [[int(x) for x in line.split()] for line in lines[1:]]
    return pd.DataFrame(rows, columns=COUNTS)


@pytest.mark.parametrize(
    "settings",
    [
        ScalingSettings((1, 3), steps_per_env=1_500, seeds=2, backend="sync"),
        ScalingSettings((2, 5), total_env_steps=4_000, seeds=3, backend="sync", budget="total"),
        # 1,024 envs: experiments draws 976 steps per chunk, the script 1,000: same numbers.
        ScalingSettings((7, 1024), steps_per_env=1_100, seeds=2, backend="native"),
    ],
    ids=["sync-per-env", "sync-total", "native-chunks"],
)
def test_script_prints_the_same_counts_as_goal_scaling(settings):
    printed = run_script(snippet_for(settings))
    expected = run_sweep(settings).frame
    pd.testing.assert_frame_equal(printed, expected[COUNTS].astype("int64"))
    assert printed["goals"].sum() > 0 or settings.backend == "sync"


def test_script_draws_actions_like_random_actions_across_chunks():
    # The script draws 1,000 steps at a time; random_actions fewer for wide batches.
    for num_envs, steps in ((3, 2_500), (1_001, 1_200)):
        rng = np.random.default_rng(7)
        drawn = np.concatenate(
            [
                rng.integers(0, 4, size=(min(1_000, steps - start), num_envs))
                for start in range(0, steps, 1_000)
            ]
        )
        assert np.array_equal(drawn, np.concatenate(list(random_actions(7, num_envs, steps))))


def test_script_uses_only_gymnasium_numpy_and_burgerbot():
    for backend in ("sync", "native"):
        code = snippet_for(ScalingSettings((1,), 10, seeds=1, backend=backend))
        modules = {
            line.split()[1].split(".")[0]
            for line in code.splitlines()
            if line.startswith(("import ", "from "))
        }
        assert modules <= {"gymnasium", "numpy", "burgerbot"}
        compile(code, "<snippet>", "exec")


@pytest.mark.parametrize(
    "module",
    [
        scaling_logic,
        scaling_snippets,
    ],
)
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
