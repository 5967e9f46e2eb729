"""BurgerBotEnv: the single environment, its registration and its episodes."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import burgerbot
from burgerbot import BurgerBotEnv, world

N, E, S, W = 0, 1, 2, 3
FWD, LEFT, RIGHT, STOP = 0, 1, 2, 3


def test_spaces_and_first_observation():
    env = BurgerBotEnv()
    assert env.observation_space == gym.spaces.MultiDiscrete([7, 7, 4, 3])
    assert env.observation_space.dtype == np.int64
    assert env.action_space == gym.spaces.Discrete(4)
    obs, info = env.reset(seed=123)
    assert obs.tolist() == [0, 0, 1, 1] and obs.dtype == np.int64 and info == {}


def test_seed_changes_nothing_about_the_start():
    env = BurgerBotEnv()
    firsts = {tuple(env.reset(seed=seed)[0]) for seed in range(20)}
    assert firsts == {(0, 0, 1, 1)}


def test_a_short_walk_step_by_step():
    env = BurgerBotEnv()
    env.reset()
    expected = [
        (FWD, [0, 1, E, 0], 1.0, False),  # one clear cell left ahead -> near
        (RIGHT, [0, 1, S, 0], -0.1, False),  # obstacle (1,1) below
        (LEFT, [0, 1, E, 0], -0.1, False),
        (FWD, [0, 2, E, 0], 1.0, False),
        (FWD, [0, 2, E, 0], -10.0, True),  # into the obstacle at (0,3)
    ]
    for action, obs, reward, terminated in expected:
        o, r, term, trunc, info = env.step(action)
        assert (o.tolist(), r, term, trunc, info) == (obs, reward, terminated, False, {})


def test_reaching_the_goal():
    env = BurgerBotEnv()
    env.reset()
    # Down column 0 is blocked at (3,0); route: east 2, south 6, east 4.
    path = [FWD, FWD, RIGHT] + [FWD] * 6 + [LEFT] + [FWD] * 4
    results = [env.step(a) for a in path]
    assert [r[2] for r in results[:-1]] == [False] * (len(path) - 1)
    obs, reward, terminated, truncated, _ = results[-1]
    assert obs.tolist() == [6, 6, E, 0] and reward == 50.0 and terminated and not truncated


def test_truncation_alone_at_max_steps():
    env = BurgerBotEnv()
    env.reset()
    for step in range(1, 151):
        _, reward, terminated, truncated, _ = env.step(STOP)
        assert reward == -0.1 and not terminated
        assert truncated == (step == 150)


def test_truncation_together_with_termination():
    env = BurgerBotEnv()
    env.reset()
    for _ in range(148):
        assert env.step(STOP)[3] is False
    assert env.step(LEFT)[1:4] == (-0.1, False, False)  # step 149: face north
    _, reward, terminated, truncated, _ = env.step(FWD)  # step 150: into the wall
    assert (reward, terminated, truncated) == (-10.0, True, True)


def test_max_steps_is_a_constructor_argument():
    env = BurgerBotEnv(max_steps=3)
    env.reset()
    assert [env.step(STOP)[3] for _ in range(3)] == [False, False, True]
    env.reset()
    assert env.step(STOP)[3] is False


@pytest.mark.parametrize("bad", [0, -5, 2.5, "150", True, None])
def test_bad_max_steps_is_refused_with_its_value(bad):
    with pytest.raises(ValueError, match="`max_steps` must be a positive whole number"):
        BurgerBotEnv(max_steps=bad)


@pytest.mark.parametrize("bad", [-1, 4, 17])
def test_bad_action_is_refused(bad):
    env = BurgerBotEnv()
    env.reset()
    with pytest.raises(ValueError, match=f"got {bad}"):
        env.step(bad)


def test_numpy_integer_actions_work():
    env = BurgerBotEnv()
    env.reset()
    assert env.step(np.int64(0))[0].tolist() == [0, 1, 1, 0]


def test_returned_observations_are_independent_copies():
    env = BurgerBotEnv()
    first, _ = env.reset()
    first[0] = 99
    assert env.reset()[0].tolist() == [0, 0, 1, 1]


def test_renders():
    env = BurgerBotEnv(render_mode="ansi")
    env.reset()
    assert env.render().splitlines()[0] == "> . . O . . ."
    env = BurgerBotEnv(render_mode="rgb_array")
    env.reset()
    frame = env.render()
    assert frame.shape == (224, 224, 3) and frame.dtype == np.uint8
    assert BurgerBotEnv().render() is None
    with pytest.raises(ValueError, match="`render_mode`"):
        BurgerBotEnv(render_mode="human")


def test_registered_with_both_entry_points():
    spec = gym.spec(burgerbot.ENV_ID)
    assert spec.entry_point == "burgerbot.env:BurgerBotEnv"
    assert spec.vector_entry_point == "burgerbot.vector:BurgerBotVectorEnv"
    assert spec.max_episode_steps == 150


def test_check_env_passes_without_warnings():
    env = gym.make(burgerbot.ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env.unwrapped)
    env.close()


def test_gym_make_truncates_at_150_like_the_env_itself():
    env = gym.make(burgerbot.ENV_ID)
    env.reset(seed=0)
    flags = [env.step(STOP)[3] for _ in range(150)]
    assert flags == [False] * 149 + [True]
    env.close()


def test_random_episodes_match_the_pure_rules():
    """Follow the env and `world.transition` side by side for many random steps."""
    env = BurgerBotEnv()
    rng = np.random.default_rng(7)
    obs, _ = env.reset()
    state = (0, 0, E)
    for action in rng.integers(0, 4, 20_000).tolist():
        out = world.transition(*state, action)
        obs, reward, terminated, truncated, _ = env.step(action)
        assert obs.tolist() == list(world.observe(out.row, out.col, out.heading))
        assert (reward, terminated) == (out.reward, out.terminated)
        state = (out.row, out.col, out.heading)
        if terminated or truncated:
            obs, _ = env.reset()
            state = (0, 0, E)
