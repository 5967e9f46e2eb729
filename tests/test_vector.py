"""BurgerBotVectorEnv behaves exactly like SyncVectorEnv over BurgerBotEnv, mode by mode."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import burgerbot
from burgerbot import BurgerBotEnv, BurgerBotVectorEnv

MODES = list(AutoresetMode)
START = [0, 0, 1, 1]


def make_pair(num_envs, mode=AutoresetMode.NEXT_STEP, max_steps=150, render_mode=None):
    sync = SyncVectorEnv(
        [lambda: BurgerBotEnv(max_steps=max_steps, render_mode=render_mode)] * num_envs,
        autoreset_mode=mode,
    )
    native = BurgerBotVectorEnv(
        num_envs, max_steps=max_steps, autoreset_mode=mode, render_mode=render_mode
    )
    return sync, native


def assert_same_infos(expected, actual):
    assert expected.keys() == actual.keys()
    for key, value in expected.items():
        if isinstance(value, dict):
            assert_same_infos(value, actual[key])
        elif key == "final_obs":
            assert value.dtype == actual[key].dtype == object
            for a, b in zip(value, actual[key], strict=True):
                assert (a is None and b is None) or (
                    isinstance(b, np.ndarray) and b.dtype == a.dtype and np.array_equal(a, b)
                )
        else:
            assert value.dtype == actual[key].dtype and np.array_equal(value, actual[key])


def assert_same_step(expected, actual):
    for e, a in zip(expected[:4], actual[:4], strict=True):
        assert e.dtype == a.dtype and e.shape == a.shape
        np.testing.assert_array_equal(e, a)
    assert_same_infos(expected[4], actual[4])


def assert_same_reset(expected, actual):
    assert expected[0].dtype == actual[0].dtype
    np.testing.assert_array_equal(expected[0], actual[0])
    assert_same_infos(expected[1], actual[1])


def run_side_by_side(num_envs, mode, steps, max_steps=150, seed=0):
    sync, native = make_pair(num_envs, mode, max_steps)
    rng = np.random.default_rng(seed)
    assert_same_reset(sync.reset(seed=seed), native.reset(seed=seed))
    endings = 0
    for _ in range(steps):
        actions = rng.integers(0, 4, num_envs)
        expected, actual = sync.step(actions), native.step(actions)
        assert_same_step(expected, actual)
        ended = expected[2] | expected[3]
        endings += int(ended.sum())
        if mode == AutoresetMode.DISABLED and ended.any():
            options = {"reset_mask": ended}
            assert_same_reset(sync.reset(options=dict(options)), native.reset(options=options))
    sync.close()
    native.close()
    return endings


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("num_envs", [1, 7, 16])
def test_long_random_rollouts_match_sync_vector_env(mode, num_envs):
    endings = run_side_by_side(num_envs, mode, steps=10_000, seed=num_envs)
    assert endings > 500  # many auto-resets were compared, not just a few


@pytest.mark.parametrize("mode", MODES, ids=lambda m: m.name)
@pytest.mark.parametrize("max_steps", [1, 3, 8])
def test_truncation_matches_sync_vector_env(mode, max_steps):
    """Short time limits make truncation (alone and with termination) common."""
    run_side_by_side(5, mode, steps=2_000, max_steps=max_steps, seed=max_steps)


def test_next_step_autoreset_by_hand():
    envs = BurgerBotVectorEnv(2)
    envs.reset()
    obs, rewards, terminated, _, _ = envs.step(np.array([1, 3]))  # env 0 faces north
    obs, rewards, terminated, truncated, _ = envs.step(np.array([0, 3]))  # env 0 hits the wall
    assert obs[0].tolist() == [0, 0, 0, 0] and rewards[0] == -10.0 and terminated[0]
    obs, rewards, terminated, truncated, _ = envs.step(np.array([0, 0]))  # env 0 resets
    assert obs.tolist() == [START, [0, 1, 1, 0]]
    assert rewards.tolist() == [0.0, 1.0] and not terminated.any() and not truncated.any()


def test_same_step_autoreset_by_hand():
    envs = BurgerBotVectorEnv(2, autoreset_mode="SameStep")
    envs.reset()
    envs.step(np.array([1, 3]))
    obs, rewards, terminated, _, infos = envs.step(np.array([0, 3]))
    assert obs.tolist() == [START, START] and rewards[0] == -10.0 and terminated[0]
    assert infos["final_obs"][0].tolist() == [0, 0, 0, 0] and infos["final_obs"][1] is None
    assert infos["_final_obs"].tolist() == [True, False]
    assert infos["final_info"] == {} and infos["_final_info"].tolist() == [True, False]


def test_disabled_mode_asks_for_a_reset_and_resets_only_the_mask():
    envs = BurgerBotVectorEnv(3, autoreset_mode=AutoresetMode.DISABLED)
    envs.reset()
    envs.step(np.array([1, 0, 0]))
    obs, _, terminated, _, _ = envs.step(np.array([0, 0, 0]))
    assert terminated.tolist() == [True, False, False]
    with pytest.raises(AssertionError, match=r"\[0\].*reset_mask"):
        envs.step(np.array([3, 3, 3]))
    obs, infos = envs.reset(options={"reset_mask": np.array([True, False, False])})
    assert obs.tolist() == [START, [0, 2, 1, 0], [0, 2, 1, 0]] and infos == {}
    envs.step(np.array([3, 3, 3]))


BAD_MASKS = [
    [True, False, True],  # a list, not an array
    np.array([True, False]),  # wrong shape
    np.array([1, 0, 1]),  # wrong dtype
    np.array([False, False, False]),  # nothing to reset
]


@pytest.mark.parametrize("mask", BAD_MASKS, ids=["list", "shape", "dtype", "all-false"])
def test_bad_reset_masks_raise_the_same_errors_as_sync(mask):
    sync, native = make_pair(3, AutoresetMode.DISABLED)
    sync.reset()
    native.reset()
    with pytest.raises(Exception) as expected:
        sync.reset(options={"reset_mask": mask})
    with pytest.raises(type(expected.value), match="reset_mask"):
        native.reset(options={"reset_mask": mask})
    sync.close()


def test_wrong_seed_list_length_is_refused_like_sync():
    sync, native = make_pair(3)
    with pytest.raises(ValueError, match="num_envs=3"):
        sync.reset(seed=[1, 2])
    with pytest.raises(ValueError, match="num_envs=3"):
        native.reset(seed=[1, 2])
    sync.close()


@pytest.mark.parametrize(
    "actions",
    [
        np.array([0, 4]),
        np.array([-1, 0]),
        np.array([[0], [1]]),
        np.array([0, 1, 2]),
        np.array([0.5, 1]),
    ],
)
def test_bad_actions_are_refused(actions):
    envs = BurgerBotVectorEnv(2)
    envs.reset()
    with pytest.raises(ValueError, match="`actions` must"):
        envs.step(actions)


@pytest.mark.parametrize("bad", [0, -3, 2.5, True, "4"])
def test_bad_num_envs_is_refused(bad):
    with pytest.raises(ValueError, match="`num_envs` must be a positive whole number"):
        BurgerBotVectorEnv(bad)


def test_spaces_and_seeding_match_sync():
    sync, native = make_pair(6)
    assert native.observation_space == sync.observation_space
    assert native.action_space == sync.action_space
    assert native.single_observation_space == sync.single_observation_space
    assert native.single_action_space == sync.single_action_space
    sync.action_space.seed(42)
    native.action_space.seed(42)
    for _ in range(20):
        np.testing.assert_array_equal(sync.action_space.sample(), native.action_space.sample())
    sync.close()


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_render_gives_one_frame_per_env_like_sync(render_mode):
    sync, native = make_pair(3, render_mode=render_mode)
    sync.reset()
    native.reset()
    actions = np.array([0, 1, 2])
    sync.step(actions)
    native.step(actions)
    expected, actual = sync.render(), native.render()
    assert isinstance(actual, tuple) and len(actual) == 3
    for e, a in zip(expected, actual, strict=True):
        assert np.array_equal(e, a) if render_mode == "rgb_array" else e == a
    sync.close()


def test_metadata_tells_the_mode():
    for mode in MODES:
        assert BurgerBotVectorEnv(2, autoreset_mode=mode).metadata["autoreset_mode"] == mode


def test_make_vec_uses_the_native_vector_env():
    envs = gym.make_vec(burgerbot.ENV_ID, num_envs=5, vectorization_mode="vector_entry_point")
    assert isinstance(envs, BurgerBotVectorEnv) and envs.num_envs == 5 and envs.max_steps == 150
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (5, 4)
    envs.close()
    short = gym.make_vec(
        burgerbot.ENV_ID, num_envs=2, vectorization_mode="vector_entry_point", max_episode_steps=4
    )
    assert short.max_steps == 4


def test_returned_arrays_are_not_overwritten_by_the_next_step():
    envs = BurgerBotVectorEnv(4)
    obs, _ = envs.reset()
    first = envs.step(np.array([0, 0, 0, 0]))
    kept = [np.copy(x) for x in first[:4]]
    envs.step(np.array([1, 1, 1, 1]))
    for before, after in zip(kept, first[:4], strict=True):
        np.testing.assert_array_equal(before, after)
    assert obs.tolist() == [START] * 4
