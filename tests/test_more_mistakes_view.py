"""More mistakes: batched spaces and the captured mistakes match what the installed libraries
do."""

from __future__ import annotations

import subprocess
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector.utils import batch_space
from shown_scripts import assert_script_behaves

from burgerbot import BurgerBotEnv
from burgerbot.app.logic import more_mistakes as m
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts import expected_error
from burgerbot.app.scripts import more_mistakes as snippets

ROOT = Path(__file__).resolve().parent.parent


# --- The spaces table --------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 4, 7])
def test_spaces_table_shapes_and_dtypes(n):
    rows = {(r.env, r.vector_env): r for r in m.spaces_table(n)}
    burgerbot = rows[("BurgerBot", "SyncVectorEnv")]
    assert (burgerbot.obs_shape, burgerbot.obs_dtype) == ((n, 4), "int64")
    cartpole = rows[("CartPole-v1", "SyncVectorEnv")]
    assert (cartpole.obs_shape, cartpole.obs_dtype) == ((n, 4), "float32")
    lake = rows[("FrozenLake-v1", "SyncVectorEnv")]
    assert (lake.obs_shape, lake.obs_dtype) == ((n,), "int64")
    as_dict = rows[("BurgerBot, Dict observation", "SyncVectorEnv")]
    assert as_dict.obs_shape == {"cell": (n, 2), "heading": (n,), "sensor": (n,)}
    assert as_dict.obs_dtype == {"cell": "int64", "heading": "int64", "sensor": "int64"}
    assert as_dict.space_kinds == "Dict → Dict"
    native = rows[("BurgerBot", "BurgerBotVectorEnv")]
    assert (native.obs_shape, native.obs_dtype) == ((n, 4), "int64")
    batched_cartpole = rows[("CartPole-v1", "CartPoleVectorEnv")]
    assert (batched_cartpole.obs_shape, batched_cartpole.obs_dtype) == ((n, 4), "float32")
    for row in rows.values():
        assert row.reward_shape == (n,)
        assert row.terminated_dtype == row.truncated_dtype == "bool"
        assert row.action_shape == (n,)
        assert row.spaces_agree, row.env


@pytest.mark.parametrize("n", [1, 5])
def test_reward_dtypes_are_whatever_each_vector_env_returns(n):
    """Issue 10: rewards are not "always float64": Gymnasium's batched CartPole gives float32."""
    rows = {(r.env, r.vector_env): r for r in m.spaces_table(n)}
    for (env, vector_env), row in rows.items():
        if vector_env == "SyncVectorEnv":
            envs = gym.vector.SyncVectorEnv([m.ENV_MAKERS[env]] * n)
        else:
            envs = m.NATIVE_MAKERS[env](n)
        envs.reset(seed=0)
        _, rewards, _, _, _ = envs.step(envs.action_space.sample())
        envs.close()
        assert row.reward_dtype == str(rewards.dtype), (env, vector_env)
    assert rows[("CartPole-v1", "CartPoleVectorEnv")].reward_dtype == "float32"
    assert rows[("CartPole-v1", "SyncVectorEnv")].reward_dtype == "float64"


def test_spaces_table_reports_what_batch_space_returns():
    n = 5
    rows = {(r.env, r.vector_env): r for r in m.spaces_table(n)}
    single = BurgerBotEnv().observation_space
    expected = batch_space(single, n)
    burgerbot = rows[("BurgerBot", "SyncVectorEnv")]
    assert burgerbot.batched_observation_repr == repr(expected)
    assert burgerbot.space_kinds == f"MultiDiscrete → {type(expected).__name__}"
    lake = rows[("FrozenLake-v1", "SyncVectorEnv")]
    lake_single = gym.make("FrozenLake-v1").observation_space
    assert lake.batched_observation_repr == repr(batch_space(lake_single, n))


def test_the_reference_has_one_line_per_env_with_its_shapes_and_dtypes():
    """One Markdown line per env (a wide table hid its last columns on a phone)."""
    rows = m.spaces_table(3)
    returns, spaces_ = m.returns_lines(rows), m.spaces_lines(rows)
    assert len(returns) == len(spaces_) == len(rows) == len(m.ENV_MAKERS) + len(m.NATIVE_MAKERS)
    assert returns[0].startswith("**BurgerBot** in `SyncVectorEnv`: obs `(3, 4)` `int64`")
    assert "obs `(3, 4)` `float32`" in returns[1] and "obs `(3,)` `int64`" in returns[2]
    for row, line in zip(rows, returns, strict=True):
        assert f"rewards `(3,)` `{row.reward_dtype}`" in line
        assert f"sampled actions `{row.action_shape}`" in line
    assert all("✅ same" in line for line in spaces_)
    assert "→ `Box(shape=(3, 4), dtype=int64)`" in spaces_[0]


@pytest.mark.parametrize(
    ("before", "after", "lines"),
    [
        ("a\nb\nc\n", "a\nB\nc\n", [2]),
        ("a\nb\n", "a\nx\nb\n", [2]),
        ("a\nb\nc\n", "a\nc\n", []),
        ("a\n", "a\n", []),
    ],
)
def test_changed_lines(before, after, lines):
    assert m.changed_lines(before, after) == lines


def test_each_fix_differs_from_its_mistake_where_expected():
    wrong, fixed = snippets.action_shape_wrong(4), snippets.action_shape_fixed(4)
    (line,) = m.changed_lines(wrong, fixed)
    assert "actions.reshape(N)" in fixed.splitlines()[line - 1]


def test_short_space_stays_short_at_large_n():
    text = m.short_space(batch_space(gym.make("CartPole-v1").observation_space, 64))
    assert text == "Box(shape=(64, 4), dtype=float32)"
    text = m.short_space(batch_space(gym.spaces.Discrete(16), 64))
    assert "shape=(64,)" in text and "..." in text and len(text) < 60


# --- The mistakes, as the installed libraries run them ------------------------------------


def test_burgerbot_factory_uncalled_fails_later_with_an_attribute_error():
    wrong = m.defaults_mistake(3).runs["wrong"].error
    assert wrong.type == "AttributeError" and "no attribute 'metadata'" in wrong.message


def test_action_shape_mistake():
    demo = m.action_shape_mistake(4)
    wrong = demo.runs["wrong"]
    assert wrong.values["actions.shape"] == (4, 1)
    assert "fits envs.action_space: False" in wrong.output
    # SyncVectorEnv passes each row on; BurgerBotEnv.step fails turning it into an int.
    assert wrong.error.type == "TypeError"
    assert "only 0-dimensional arrays can be converted" in wrong.error.message
    assert wrong.error.where.startswith("burgerbot/env.py")
    assert any("sync_vector_env.py" in frame for frame in wrong.error.path)
    fixed = demo.runs["fixed"]
    assert fixed.error is None
    assert fixed.values == {"actions.shape": (4,), "rewards.shape": (4,)}
    outcomes = demo.runs["elsewhere"].values["outcomes"]
    cartpole = outcomes["SyncVectorEnv of CartPoles"]
    assert cartpole.type == "AssertionError" and "invalid" in cartpole.message
    native = outcomes["BurgerBotVectorEnv (native)"]
    assert native.type == "ValueError" and "must have shape (4,)" in native.message


def _final_and_reset_obs():
    """BurgerBot's last observation after 3 forward steps, and its reset observation."""
    env = BurgerBotEnv()
    start, _ = env.reset(seed=0)
    for _ in range(3):
        obs, reward, terminated, _, _ = env.step(0)
    assert terminated
    return obs, start, reward


def test_final_observation_mistake():
    demo = m.final_obs_mistake(3)
    final, start, reward = _final_and_reset_obs()
    for mode in ("same_step", "next_step"):
        error = demo.runs[f"wrong_{mode}"].error
        assert (error.type, error.message) == ("KeyError", "'final_observation'")
    assert "'final_obs'" in demo.runs["wrong_same_step"].output
    assert "infos keys: []" in demo.runs["wrong_next_step"].output
    same = demo.runs["fixed_same_step"]
    assert same.error is None
    assert f"env 0 ended with obs {final}, reward {reward}" in same.output
    assert f"(already reset): {start}" in same.output
    assert same.values["final"] == str(np.stack([final] * 3))
    following = demo.runs["fixed_next_step"]
    assert following.error is None
    assert f"env 0 ended with obs {final}, reward {reward}" in following.output
    assert f"env 0 was reset: obs {start}, reward 0.0" in following.output


def test_dtype_exercise_reports_each_envs_dtype():
    run = m.dtype_exercise(2)
    assert run.error is None
    assert run.values["burgerbot_obs.dtype"] == str(BurgerBotEnv().observation_space.dtype)
    cartpole_dtype = str(gym.make("CartPole-v1").observation_space.dtype)
    assert run.values["cartpole_obs.dtype"] == cartpole_dtype == "float32"
    assert run.values["burgerbot_obs.dtype"] == "int64"
    assert run.output == "BurgerBot: (2, 4) int64\nCartPole:  (2, 4) float32\n"


# --- The scripts, run from files as a learner runs them -----------------------------------


SYNC_SCRIPTS = {
    "factory_defaults": (snippets.factory_with_defaults_wrong, m.defaults_mistake, "wrong"),
    "actions_wrong": (snippets.action_shape_wrong, m.action_shape_mistake, "wrong"),
    "actions_fixed": (snippets.action_shape_fixed, m.action_shape_mistake, "fixed"),
    "actions_elsewhere": (snippets.action_shape_other_envs, m.action_shape_mistake, "elsewhere"),
    "final_same_wrong": (
        lambda n: snippets.final_obs_wrong(n, "SAME_STEP"),
        m.final_obs_mistake,
        "wrong_same_step",
    ),
    "final_next_wrong": (
        lambda n: snippets.final_obs_wrong(n, "NEXT_STEP"),
        m.final_obs_mistake,
        "wrong_next_step",
    ),
    "final_same_fixed": (
        snippets.final_obs_fixed_same_step,
        m.final_obs_mistake,
        "fixed_same_step",
    ),
    "final_next_fixed": (
        snippets.final_obs_fixed_next_step,
        m.final_obs_mistake,
        "fixed_next_step",
    ),
}


def assert_file_run_matches(captured: ScriptRun, folder: Path) -> None:
    """The script, saved to a file and run, prints what the page shows and stops as it shows.

    ``assert_script_behaves`` checks the error the script's first line names; the page shows
    an error of that type, or none for a script without such a line.
    """
    assert expected_error(captured.code) == (
        None if captured.error is None else captured.error.type
    )
    assert assert_script_behaves(captured.code, folder) == captured.output


@pytest.mark.parametrize("name", sorted(SYNC_SCRIPTS))
def test_each_script_runs_from_a_file_as_shown_and_as_captured(name, tmp_path):
    make_code, demo, key = SYNC_SCRIPTS[name]
    n = 3
    captured = demo(n).runs[key]
    assert captured.code == make_code(n)  # the page shows exactly what ran
    assert_file_run_matches(captured, tmp_path)


@pytest.mark.parametrize("n", [1, 6])
def test_dtype_exercise_answer_runs_from_a_file(n, tmp_path):
    captured = m.dtype_exercise(n)
    assert captured.code == snippets.dtype_exercise(n)
    assert_file_run_matches(captured, tmp_path)
    single = {
        "BurgerBot": BurgerBotEnv().observation_space.dtype,
        "CartPole": gym.make("CartPole-v1").observation_space.dtype,
    }
    out = captured.output
    for name, dtype in single.items():
        assert f"{name}: ".ljust(11) + f"({n}, 4) {dtype}" in out, out


@pytest.mark.parametrize("n", [2, 9])
def test_spaces_script_prints_what_the_table_shows(n, tmp_path):
    lines = assert_script_behaves(snippets.spaces_script(n), tmp_path).splitlines()
    for row in m.spaces_table(n):
        at = lines.index(f"{row.env} in {row.vector_env}")
        assert lines[at + 1] == (
            f"  obs: {row.obs_shape} {row.obs_dtype} | same as batch_space: {row.spaces_agree}"
        )
        assert lines[at + 2] == (
            f"  rewards: {row.reward_shape} {row.reward_dtype} | terminated: {row.terminated_dtype}"
        )


def test_every_script_is_formatted():
    codes = [
        snippets.spaces_script(4),
        snippets.dtype_exercise(4),
        snippets.factory_with_defaults_wrong(4),
        snippets.action_shape_wrong(4),
        snippets.action_shape_fixed(4),
        snippets.action_shape_other_envs(4),
        snippets.final_obs_wrong(4, "SAME_STEP"),
        snippets.final_obs_fixed_same_step(4),
        snippets.final_obs_fixed_next_step(4),
        *(make() for _, make in m.ASYNC_SCRIPTS.values()),
        snippets.main_guard_wrong(),
        snippets.main_guard_fixed(),
    ]
    for code in codes:
        formatted = subprocess.run(
            ["ruff", "format", "--line-length", "100", "-"],
            input=code,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
        assert formatted == code, code
