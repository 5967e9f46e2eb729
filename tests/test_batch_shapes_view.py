"""The "Batch shapes" logic: settings, runs, tables, guesses, charts and the generated script."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
from gymnasium.envs.classic_control.cartpole import CartPoleEnv, CartPoleVectorEnv
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from hypothesis import given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as hyp
from sentence_facts import code_spans, quotes

from burgerbot import BurgerBotVectorEnv, world
from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.logic import batch_shapes
from burgerbot.app.logic.batch_shapes import (
    BATCHED,
    CARTPOLE_LIMITS,
    POLE_ANGLE_LIMIT,
    SHAPE_OPTIONS,
    SINGLE,
    TABLE_SUMMARY,
    BatchRun,
    BatchSettings,
    array_summary,
    backend_option,
    build_vector_env,
    burgerbot_cell_counts,
    cell_count_grid,
    count_colour,
    dtype_explanation,
    frozenlake_cell_counts,
    history_table,
    infos_table,
    observation_table,
    pole_angle_svg,
    pole_angles,
    prediction_ids,
    resolve_settings,
    run_calls,
    shape_explanation,
    shape_truth,
    spaces_table,
    step_table,
    takeaways,
)
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.scripts.batch_shapes import snippet_for

ROOT = Path(__file__).resolve().parent.parent


def settings(env="BurgerBot", n=3, backend="sync", seed=0):
    return BatchSettings(env, n, backend, seed)


# --- Settings -------------------------------------------------------------------------------


def test_good_settings_pass_unchanged():
    values = {"env": "CartPole-v1", "n": 16, "backend": "native", "seed": 7}
    assert resolve_settings(values) == (settings("CartPole-v1", 16, "native", 7), [])


def test_frozenlake_has_no_native_env_and_falls_back_to_sync_with_a_note():
    resolved, notes = resolve_settings(
        {"env": "FrozenLake-v1", "n": 4, "backend": "native", "seed": 0}
    )
    assert resolved.backend == "sync"
    assert len(notes) == 1 and "FrozenLake-v1" in notes[0] and "native" in notes[0]


def test_async_is_capped_with_a_note():
    resolved, notes = resolve_settings(
        {"env": "BurgerBot", "n": 500, "backend": "async", "seed": 0}
    )
    assert resolved.num_envs == CAPS.max_async_envs
    assert resolved.workers == resolved.num_envs
    assert f"caps it at {CAPS.max_async_envs}" in notes[0]


def test_key_holds_every_setting_that_needs_a_new_env():
    assert settings("CartPole-v1", 5, "native", 9).key == ("CartPole-v1", 5, "native", 9)
    assert settings(backend="native").workers == 0


@pytest.mark.parametrize(
    ("env", "backend", "kind"),
    [
        ("BurgerBot", "sync", SyncVectorEnv),
        ("BurgerBot", "native", BurgerBotVectorEnv),
        ("CartPole-v1", "sync", SyncVectorEnv),
        ("CartPole-v1", "native", CartPoleVectorEnv),
        ("FrozenLake-v1", "sync", SyncVectorEnv),
    ],
)
def test_build_vector_env_picks_the_class(env, backend, kind):
    envs = build_vector_env(settings(env, 2, backend))
    try:
        assert isinstance(envs.unwrapped, kind)
        assert envs.num_envs == 2
    finally:
        envs.close()


def test_async_env_starts_workers_and_closes_them():
    envs = build_vector_env(settings("CartPole-v1", 2, "async"))
    try:
        assert isinstance(envs, AsyncVectorEnv)
        processes = list(envs.processes)
        assert envs.reset(seed=0)[0].shape == (2, 4)
    finally:
        envs.close()
    assert not any(p.is_alive() for p in processes)


# --- Runs -----------------------------------------------------------------------------------


def test_run_resets_steps_and_keeps_a_bounded_history():
    run = BatchRun(BurgerBotVectorEnv(3), seed=0, history_length=5)
    first = run.reset()
    assert first.kind == "reset" and first.actions is None
    assert first.observations.tolist() == [[0, 0, 1, 1]] * 3
    last = run.step(10)
    assert (last.number, run.steps, len(run.history)) == (10, 10, 5)
    assert [c.number for c in run.history] == [6, 7, 8, 9, 10]
    assert last.actions.shape == (3,) and last.rewards.shape == (3,)
    run.reset()
    assert run.steps == 0 and len(run.history) == 1
    run.envs.close()


def test_actions_come_from_the_action_space_seeded_with_the_reset_seed():
    envs = BurgerBotVectorEnv(4)
    run = BatchRun(envs, seed=11)
    run.reset()
    taken = [run.step().actions.tolist() for _ in range(3)]
    envs.action_space.seed(11)
    assert taken == [envs.action_space.sample().tolist() for _ in range(3)]
    run.reset()  # the same seed starts the same action sequence again
    assert run.step().actions.tolist() == taken[0]
    envs.close()


def test_steps_per_call_are_capped(monkeypatch):
    monkeypatch.setattr(batch_shapes, "CAPS", Caps(max_steps_per_run=3))
    run = BatchRun(BurgerBotVectorEnv(2), seed=0)
    run.reset()
    assert run.step(10).number == 3
    run.envs.close()


def test_sync_and_native_burgerbot_give_identical_batches():
    sync = run_calls(settings(n=5, backend="sync", seed=3), steps=40)
    native = run_calls(settings(n=5, backend="native", seed=3), steps=40)
    for name in ("observations", "actions", "rewards", "terminated", "truncated"):
        np.testing.assert_array_equal(getattr(sync, name), getattr(native, name))
    assert sync.infos == native.infos == {}


def test_calls_hold_copies_not_views_of_the_env_buffers():
    run = BatchRun(BurgerBotVectorEnv(2), seed=0)
    first = run.reset()
    before = first.observations.copy()
    run.step(5)
    np.testing.assert_array_equal(first.observations, before)
    run.envs.close()


# --- Tables ---------------------------------------------------------------------------------


def test_observation_table_names_columns_and_hides_rows_past_the_limit():
    call = run_calls(settings(n=10, backend="native"), steps=0)
    table, hidden = observation_table(call, "BurgerBot", max_rows=4)
    assert list(table.columns) == ["row", "col", "heading", "sensor"]
    assert table.index.name == "env" and len(table) == 4 and hidden == 6
    assert table.iloc[0].tolist() == [0, 0, 1, 1]


def test_scalar_observations_make_one_state_column():
    call = run_calls(settings("FrozenLake-v1", n=3), steps=2)
    assert call.observations.shape == (3,)
    table, hidden = observation_table(call, "FrozenLake-v1")
    assert list(table.columns) == ["state"] and hidden == 0
    assert table["state"].tolist() == call.observations.tolist()


def test_step_table_lines_up_actions_rewards_and_flags():
    call = run_calls(settings(n=3, backend="native"), steps=1)
    table, hidden = step_table(call)
    assert list(table.columns) == ["action", "reward", "terminated", "truncated"]
    assert table["reward"].tolist() == call.rewards.tolist() and hidden == 0
    with pytest.raises(ValueError, match="reset"):
        step_table(run_calls(settings(n=3, backend="native"), steps=0))


def test_infos_table_shows_keys_and_masks():
    call = run_calls(settings("FrozenLake-v1", n=3), steps=1)
    table, hidden, other = infos_table(call.infos, 3)
    assert list(table.columns) == ["prob", "_prob"] and other == [] and hidden == 0
    assert table["_prob"].tolist() == [True, True, True]
    assert infos_table({}, 3) == (None, 0, [])
    table, _, other = infos_table({"a": np.arange(3), "b": 5}, 3)
    assert list(table.columns) == ["a"] and other == ["b"]


def test_spaces_table_contrasts_batched_and_single_spaces():
    envs = build_vector_env(settings(n=3, backend="native"))
    try:
        table = spaces_table(envs).set_index("space")
    finally:
        envs.close()
    # Batching puts NUM_ENVS in front and keeps the dtype; it changes the spaces' types.
    assert table.loc["observation", SINGLE] == "MultiDiscrete, (4,), int64"
    assert table.loc["observation", BATCHED] == "Box, (3, 4), int64"
    assert table.loc["action", SINGLE] == "Discrete, (), int64"
    assert table.loc["action", BATCHED] == "MultiDiscrete, (3,), int64"
    cartpole = build_vector_env(settings("CartPole-v1", n=2, backend="native"))
    try:
        table = spaces_table(cartpole).set_index("space")
    finally:
        cartpole.close()
    assert table.loc["observation", SINGLE] == "Box, (4,), float32"
    assert table.loc["observation", BATCHED] == "Box, (2, 4), float32"


def test_array_summary_gives_shape_dtype_and_axes():
    call = run_calls(settings("CartPole-v1", n=2, backend="native"), steps=1)
    summary = array_summary(call).set_index("array")
    assert summary.loc["observations", "shape"] == "(2, 4)"
    assert summary.loc["observations", "dtype"] == "float32"
    assert summary.loc["observations", "axes"] == "env, number"
    assert summary.loc["rewards", "dtype"] == "float32"  # CartPoleVectorEnv's own choice
    assert summary.loc["terminated", "axes"] == "env"
    reset_only = array_summary(run_calls(settings("FrozenLake-v1", n=2), steps=0))
    assert reset_only["array"].tolist() == ["observations"]
    assert reset_only["axes"].tolist() == ["env"]  # a scalar observation: no axis 1


def test_history_table_lists_calls_newest_first():
    run = BatchRun(BurgerBotVectorEnv(2), seed=0)
    run.reset()
    run.step(2)
    table = history_table(run)
    assert table["call"].tolist() == ["step #2", "step #1", "reset(seed=...)"]
    assert table["reward total"].iloc[0] == pytest.approx(float(run.latest.rewards.sum()))
    run.envs.close()


# --- Guessing -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "n", "expected"),
    [
        ("BurgerBot", 4, "(NUM_ENVS, k)"),
        ("BurgerBot", 1, "(NUM_ENVS, k)"),
        ("CartPole-v1", 7, "(NUM_ENVS, k)"),
        ("FrozenLake-v1", 5, "(NUM_ENVS,)"),
        ("FrozenLake-v1", 1, "(NUM_ENVS,)"),
    ],
)
def test_the_shape_truth_is_read_off_the_live_batch(env, n, expected):
    call = run_calls(settings(env, n), steps=1)
    assert shape_truth(call.observations.shape, n) == expected
    assert expected in SHAPE_OPTIONS


def test_shape_truth_tells_every_option_apart():
    assert [shape_truth(s, 3) for s in [(3, 4), (4, 3), (3,), (3, 1), (3, 4, 5)]] == [
        "(NUM_ENVS, k)",
        "(k, NUM_ENVS)",
        "(NUM_ENVS,)",
        "(NUM_ENVS, 1)",
        None,
    ]


def test_explanations_follow_the_batch():
    envs = build_vector_env(settings(n=4, backend="native"))
    try:
        call = BatchRun(envs, 0).reset()
        shape = shape_explanation(call.observations, envs.single_observation_space, "BurgerBot")
        dtype = dtype_explanation(call.observations, envs.single_observation_space)
    finally:
        envs.close()
    assert code_spans(shape)[0] == "(4, 4)" and quotes(shape, 4)
    assert code_spans(dtype) == ["int64", "int64"]

    envs = build_vector_env(settings("FrozenLake-v1", n=5))
    try:
        call = BatchRun(envs, 0).reset()
        shape = shape_explanation(call.observations, envs.single_observation_space, "FrozenLake-v1")
    finally:
        envs.close()
    assert code_spans(shape) == ["(5,)", "()"] and "5 observations stack" in shape


@pytest.mark.parametrize(
    ("env", "backend", "stacked"),
    [("BurgerBot", "sync", True), ("BurgerBot", "native", False), ("CartPole-v1", "native", False)],
)
def test_the_shape_explanation_says_stacking_only_for_vector_envs_of_separate_envs(
    env, backend, stacked
):
    """SyncVectorEnv stacks its envs' observations; BurgerBotVectorEnv and CartPoleVectorEnv
    hold no separate envs (no ``envs`` list) and compute the batch as arrays."""
    envs = build_vector_env(settings(env, n=3, backend=backend))
    try:
        call = BatchRun(envs, 0).reset()
        assert hasattr(envs, "envs") == stacked  # SyncVectorEnv keeps its sub-environments
        native = not isinstance(envs, SyncVectorEnv | AsyncVectorEnv)
        shape = shape_explanation(call.observations, envs.single_observation_space, env, native)
    finally:
        envs.close()
    assert quotes(shape, 3, 4)
    assert ("stacks 3 observations of shape `(4,)`" in shape) == stacked
    assert ("native env computes 3 observations" in shape) == (not stacked)


def test_cartpole_dtype_and_one_observation_come_from_its_space():
    envs = build_vector_env(settings("CartPole-v1", n=2, backend="native"))
    try:
        call = BatchRun(envs, 0).reset()
        single = envs.single_observation_space
        dtype = dtype_explanation(call.observations, single)
        assert code_spans(dtype) == ["float32", "float32"]
    finally:
        envs.close()


def test_each_env_has_its_own_questions():
    ids = [prediction_ids(env) for env in ("BurgerBot", "CartPole-v1", "FrozenLake-v1")]
    assert len({pid for pair in ids for pid in pair}) == 6
    assert all(pid.startswith("batch_shapes_") for pair in ids for pid in pair)


@pytest.mark.parametrize("env", ["BurgerBot", "CartPole-v1", "FrozenLake-v1"])
def test_takeaways_state_this_runs_shapes_and_dtype(env):
    envs = build_vector_env(settings(env, n=3))
    try:
        call = BatchRun(envs, 0).reset()
        bullets = takeaways(
            env, call.observations, envs.single_observation_space, envs.observation_space
        )
        step = BatchRun(envs, 0).step(1)
    finally:
        envs.close()
    assert 3 <= len(bullets) <= 5
    assert f"shape `{call.observations.shape}`" in bullets[0]
    for array in (step.rewards, step.terminated, step.truncated):
        assert f"`{array.shape}`" in bullets[0]  # the claim about the other arrays holds
    assert f"(`{envs.observation_space.shape}`)" in bullets[1]
    assert f"(shape `{envs.single_observation_space.shape}`)" in bullets[1]
    [dtype] = [b for b in bullets if b.startswith("Exercise 3")]
    assert f"gives `{call.observations.dtype}`" in dtype
    # Only this env's dtype: another env's would answer its question before it is asked.
    assert not ({"int64", "float32"} - {str(call.observations.dtype)}) & set(code_spans(dtype))
    # The scalar bullet only where it is seen (elsewhere it would answer FrozenLake's question).
    scalar = envs.single_observation_space.shape == ()
    assert any("(N,)" in b for b in bullets) == scalar


def test_backend_options_name_the_class_and_whose_it_is():
    assert backend_option("BurgerBot", "native") == "native: BurgerBotVectorEnv (this project's)"
    cartpole_native = backend_option("CartPole-v1", "native")
    assert cartpole_native.startswith("native: CartPoleVectorEnv (Gymnasium's")
    # First named on the lesson path here: the option says what Async is.
    assert "worker process" in backend_option("BurgerBot", "async")
    assert "VectorEnv" not in backend_option("FrozenLake-v1", "native")  # no class to name
    # The classes named are the ones the page builds.
    assert type(build_vector_env(settings(backend="native"))).__name__ == "BurgerBotVectorEnv"
    cartpole = build_vector_env(settings("CartPole-v1", backend="native"))
    try:
        assert type(cartpole).__module__.startswith("gymnasium.")
        assert type(cartpole).__name__ == "CartPoleVectorEnv"
    finally:
        cartpole.close()
    assert not BurgerBotVectorEnv.__module__.startswith("gymnasium")


def test_cartpole_limits_are_the_installed_gymnasiums():
    env = CartPoleEnv()
    assert CARTPOLE_LIMITS.pole_angle == env.theta_threshold_radians
    assert CARTPOLE_LIMITS.cart_position == env.x_threshold
    assert CARTPOLE_LIMITS.max_episode_steps == gym.spec("CartPole-v1").max_episode_steps
    native = build_vector_env(settings("CartPole-v1", backend="native"))
    try:
        assert native.unwrapped.max_episode_steps == CARTPOLE_LIMITS.max_episode_steps
    finally:
        native.close()
    assert CARTPOLE_LIMITS.pole_degrees == pytest.approx(12.0)


# --- Picture data and charts ----------------------------------------------------------------


def test_burgerbot_cell_counts_count_every_robot_and_mark_the_world():
    obs = np.array([[0, 0, 1, 1], [0, 0, 2, 0], [6, 5, 1, 0]])
    cells = burgerbot_cell_counts(obs).set_index(["row", "col"])
    assert len(cells) == 49 and cells["count"].sum() == 3
    assert cells.loc[(0, 0), "count"] == 2 and cells.loc[(0, 0), "label"] == "S 2"
    assert cells.loc[(6, 5), "count"] == 1
    assert set(cells.index[cells["kind"] == "obstacle"]) == set(world.OBSTACLES)
    assert cells.loc[world.GOAL, "kind"] == "goal" and cells.loc[world.GOAL, "label"] == "G"


def test_frozenlake_cell_counts_use_the_4x4_map():
    cells = frozenlake_cell_counts(np.array([0, 0, 5, 15])).set_index(["row", "col"])
    assert len(cells) == 16 and cells["count"].sum() == 4
    assert cells.loc[(1, 1), "kind"] == "hole" and cells.loc[(1, 1), "count"] == 1
    assert cells.loc[(3, 3), "kind"] == "goal" and cells.loc[(0, 0), "label"] == "S 2"


def test_pole_angles_take_column_2_and_cart_positions_column_0():
    call = run_calls(settings("CartPole-v1", n=3, backend="native"), steps=1)
    frame = pole_angles(call, max_rows=2)
    assert frame["env"].tolist() == [0, 1]
    assert frame["pole angle"].tolist() == call.observations[:2, 2].astype(float).tolist()
    assert frame["cart position"].tolist() == call.observations[:2, 0].astype(float).tolist()


def cell_styles(grid: str) -> dict[tuple[int, int], tuple[str, str]]:
    """Each grid cell's (background colour, label) by (row, col), from its tooltip."""
    cells = re.findall(
        r'class="bb-cell" title="row (\d+), col (\d+): [^"]*" style="[^"]*background: '
        r'(#[0-9a-fA-F]{6});[^"]*">([^<]*)</div>',
        grid,
    )
    return {(int(r), int(c)): (colour.lower(), label) for r, c, colour, label in cells}


def test_the_cell_grid_colours_counts_and_marks_the_world():
    cells = burgerbot_cell_counts(np.array([[0, 0, 1, 1], [2, 2, 0, 1], [2, 2, 3, 0]]))
    grid = cell_count_grid(cells, "Robots per cell", "cells")
    styles = cell_styles(grid)
    assert len(styles) == 49 and "Robots per cell" in grid
    assert styles[(2, 2)] == (OKABE_ITO[0].lower(), "2")  # the fullest cell: full orange
    assert styles[(0, 0)] == (count_colour(1, 2), "S 1")
    assert styles[world.GOAL][1] == "G"
    for obstacle in world.OBSTACLES:
        assert styles[obstacle][0] == OKABE_ITO[7].lower()  # blocked: black, whatever count
    empty = next(p for p in styles if p not in world.OBSTACLES and p not in ((0, 0), (2, 2)))
    assert styles[empty][0] not in (count_colour(0, 2), OKABE_ITO[0].lower())  # grey floor
    # Its data as a table: the cells with robots (and the marked ones), counts from the batch.
    assert f"<summary>{TABLE_SUMMARY}</summary>" in grid
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td><td>(\w+)</td><td>(\d+)</td></tr>", grid)
    counted = {(int(r), int(c)): int(n) for r, c, _k, n in rows if int(n)}
    assert counted == {(0, 0): 1, (2, 2): 2}


def test_count_colour_runs_from_white_to_orange():
    assert count_colour(0, 5) == "#ffffff" and count_colour(5, 5) == OKABE_ITO[0].lower()
    assert count_colour(3, 0) == "#ffffff"  # nothing anywhere: no division by zero
    reds = [int(count_colour(k, 4)[1:3], 16) for k in range(5)]
    blues = [int(count_colour(k, 4)[5:7], 16) for k in range(5)]
    assert reds == sorted(reds, reverse=True) and blues == sorted(blues, reverse=True)


def test_the_pole_chart_has_a_bar_per_env_and_the_limits():
    call = run_calls(settings("CartPole-v1", n=4, backend="native"), steps=2)
    chart = pole_angle_svg(pole_angles(call))
    bars = re.findall(
        r'<rect class="bar" x="[^"]+" y="([^"]+)" width="[^"]+" height="([^"]+)" '
        r'fill="([^"]+)"><title>env (\d+): pole angle ([^ ]+) rad',
        chart,
    )
    assert [int(b[3]) for b in bars] == [0, 1, 2, 3]
    assert [float(b[4]) for b in bars] == pytest.approx(call.observations[:, 2], rel=1e-3)
    # A bar above the zero line leans one way, below it the other: its height follows |angle|.
    heights = [float(b[1]) for b in bars]
    order = np.argsort(np.abs(call.observations[:, 2]))
    assert [heights[i] for i in order] == sorted(heights)
    assert {b[2] for b in bars} <= set(OKABE_ITO)
    limits = re.findall(r'<line class="limit"[^>]*stroke="([^"]+)"', chart)
    assert len(limits) == 2 and set(limits) <= set(OKABE_ITO)
    assert f"±{POLE_ANGLE_LIMIT:.4f}" in chart
    # Its data as a table: pole angle and cart position per env, from the batch.
    rows = re.findall(r"<tr><td>(\d+)</td><td>([^<]+)</td><td>([^<]+)</td></tr>", chart)
    assert [float(r[2]) for r in rows] == pytest.approx(call.observations[:, 0], rel=1e-3)


def test_the_pole_chart_cuts_a_fallen_pole_at_the_axis_edge():
    frame = pd.DataFrame({"env": [0, 1], "pole angle": [0.5, -0.5], "cart position": [0, 0]})
    chart = pole_angle_svg(frame)
    assert "pole angle 0.5 rad" in chart and "pole angle -0.5 rad" in chart
    ys = [float(y) for y in re.findall(r'<rect class="bar" x="[^"]+" y="([^"]+)"', chart)]
    heights = [float(h) for h in re.findall(r'<rect class="bar"[^>]* height="([^"]+)"', chart)]
    assert min(ys) >= 0 and max(y + h for y, h in zip(ys, heights, strict=True)) <= 220


# --- The generated script -------------------------------------------------------------------


def run_script(code: str) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    printed = {}
    for line in done.stdout.splitlines():
        name, _, value = line.partition(": ")
        printed[name] = value
    return printed


@pytest.mark.parametrize(
    ("env", "backend", "n", "seed", "steps"),
    [
        ("BurgerBot", "sync", 3, 0, 25),
        ("BurgerBot", "native", 5, 7, 40),
        ("BurgerBot", "native", 2, 1, 0),
        ("CartPole-v1", "sync", 3, 2, 15),
        ("CartPole-v1", "native", 4, 5, 30),
        ("FrozenLake-v1", "sync", 4, 3, 12),
        ("FrozenLake-v1", "async", 2, 4, 6),
        ("BurgerBot", "async", 2, 1, 10),
    ],
)
def test_script_prints_what_the_page_computes(env, backend, n, seed, steps):
    chosen = settings(env, n, backend, seed)
    printed = run_script(snippet_for(chosen, steps))
    expected = run_calls(chosen, steps)
    assert ast.literal_eval(printed["observations"]) == expected.observations.tolist()
    assert printed["shape"] == str(expected.observations.shape)
    assert printed["dtype"] == str(expected.observations.dtype)
    assert printed["infos"] == str(expected.infos)
    if steps == 0:
        assert "rewards" not in printed
        return
    assert ast.literal_eval(printed["actions"]) == expected.actions.tolist()
    assert ast.literal_eval(printed["rewards"]) == expected.rewards.tolist()
    assert ast.literal_eval(printed["terminated"]) == expected.terminated.tolist()
    assert ast.literal_eval(printed["truncated"]) == expected.truncated.tolist()


def test_script_uses_the_lesson_factory_and_the_main_guard():
    """Sync and Async define the lesson's own make_env(seed) and give the vector env one
    make_env(i) per env; the native classes need no factory."""
    sync = snippet_for(settings("BurgerBot", 4, "sync", 0), 3)
    assert "SyncVectorEnv([make_env(i) for i in range(NUM_ENVS)])" in sync
    async_code = snippet_for(settings("CartPole-v1", 2, "async", 0), 3)
    assert "AsyncVectorEnv([make_env(i) for i in range(NUM_ENVS)])" in async_code
    assert 'if __name__ == "__main__":' in async_code
    native = snippet_for(settings("CartPole-v1", 2, "native", 0), 3)
    assert 'vectorization_mode="vector_entry_point"' in native and "make_env" not in native
    for code in (sync, async_code):
        assert code.count("def make_env(seed):") == 1 and "burgerbot_factory" not in code
    for code in (sync, async_code, native):
        compile(code, "<snippet>", "exec")
        assert max(len(line) for line in code.splitlines()) <= 100


# --- Computed sentences at every setting ---------------------------------------------------


@hyp_settings(max_examples=25, deadline=None)
@given(
    env=hyp.sampled_from(["BurgerBot", "CartPole-v1", "FrozenLake-v1"]),
    n=hyp.integers(1, 40),
    backend=hyp.sampled_from(["sync", "native"]),
)
def test_the_verdicts_and_takeaways_are_true_at_every_setting(env, n, backend):
    """The shape verdict, the dtype verdict and the takeaways state the live batch's own
    shapes, dtype and count (1 env included), for every env, NUM_ENVS and backend."""
    chosen, _ = resolve_settings({"env": env, "n": n, "backend": backend, "seed": 0})
    envs = build_vector_env(chosen)
    try:
        call = BatchRun(envs, 0).step(1)
        single, batched = envs.single_observation_space, envs.observation_space
        native = not isinstance(envs, SyncVectorEnv | AsyncVectorEnv)
        shape = shape_explanation(call.observations, single, env, native)
        dtype = dtype_explanation(call.observations, single)
        bullets = takeaways(env, call.observations, single, batched)
    finally:
        envs.close()
    assert code_spans(shape)[0] == str(call.observations.shape)
    assert f"{n} observation{'s' * (n != 1)} " in shape
    assert code_spans(dtype) == [str(call.observations.dtype), str(single.dtype)]
    assert call.observations.dtype == single.dtype  # "batching keeps it"
    assert f"with {n} env{'s' * (n != 1)}, " in bullets[0]
    assert code_spans(bullets[0])[1] == str(call.observations.shape)
    for array in (call.rewards, call.terminated, call.truncated):
        assert code_spans(bullets[0])[-1] == str(array.shape)
    assert code_spans(bullets[1]) == [
        "single_observation_space",
        str(single.shape),
        "observation_space",
        str(batched.shape),
    ]
