"""The benchmark's baseline follows BurgerBot's rules exactly (`burgerbot.baseline`)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from burgerbot import world
from burgerbot.baseline import StraightforwardBurgerBot
from burgerbot.env import BurgerBotEnv

# A route from the start to the goal: east x2, south x2, east x2, south x3, east x2, south.
ROUTE_TO_GOAL = [0, 0, 2, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 0, 2, 0]


def assert_same_step(expected: tuple, got: tuple, where: str) -> None:
    obs, reward, terminated, truncated, info = got
    assert obs.dtype == np.int64 and obs.shape == (4,), where
    np.testing.assert_array_equal(obs, expected[0], err_msg=where)
    assert (reward, terminated, truncated, info) == expected[1:], where


def rollout_both(actions: list[int], max_steps: int = 150) -> Counter:
    """Step both envs with the same actions, resetting on episode end; count what happened."""
    reference, baseline = BurgerBotEnv(max_steps=max_steps), StraightforwardBurgerBot(max_steps)
    ref_obs, _ = reference.reset(seed=0)
    obs, _ = baseline.reset(seed=0)
    np.testing.assert_array_equal(obs, ref_obs)
    seen: Counter = Counter()
    for i, action in enumerate(actions):
        expected = reference.step(action)
        assert_same_step(expected, baseline.step(action), f"step {i}, action {action}")
        _, reward, terminated, truncated, _ = expected
        seen[{-10.0: "hit", 50.0: "goal", 1.0: "move", -0.1: "turn_or_stop"}[reward]] += 1
        seen["truncated"] += truncated
        if terminated or truncated:
            ref_obs, _ = reference.reset()
            obs, _ = baseline.reset()
            np.testing.assert_array_equal(obs, ref_obs)
    return seen


def test_baseline_matches_burgerbot_env_over_a_long_random_rollout():
    actions = np.random.default_rng(1).integers(0, 4, size=20_000).tolist()
    seen = rollout_both(actions)
    assert seen["hit"] > 1000 and seen["move"] > 1000 and seen["turn_or_stop"] > 1000


def test_baseline_matches_burgerbot_env_when_episodes_run_to_truncation():
    # Mostly turning and stopping, so many episodes last the full 150 steps.
    actions = np.random.default_rng(2).choice(4, size=20_000, p=[0.03, 0.32, 0.32, 0.33])
    seen = rollout_both(actions.tolist())
    assert seen["truncated"] >= 5


@pytest.mark.parametrize("max_steps", [150, len(ROUTE_TO_GOAL)])
def test_baseline_matches_burgerbot_env_on_the_way_to_the_goal(max_steps):
    seen = rollout_both(ROUTE_TO_GOAL, max_steps=max_steps)
    assert seen["goal"] == 1
    assert seen["truncated"] == (max_steps == len(ROUTE_TO_GOAL))


def test_baseline_follows_the_world_rules_from_every_state():
    env = StraightforwardBurgerBot()
    env.reset(seed=0)
    for state in range(world.NUM_STATES):
        row, col, heading = world.state_of_index(state)
        if not world.is_free(row, col):
            continue
        for action in range(world.NUM_ACTIONS):
            env.row, env.col, env.heading, env.steps = row, col, heading, 0
            obs, reward, terminated, truncated, _ = env.step(action)
            out = world.transition(row, col, heading, action)
            where = f"state {(row, col, heading)}, action {action}"
            assert obs.tolist() == list(world.observe(out.row, out.col, out.heading)), where
            assert (reward, terminated, truncated) == (out.reward, out.terminated, False), where


def test_baseline_rejects_a_bad_action_like_burgerbot_env():
    env = StraightforwardBurgerBot()
    env.reset()
    with pytest.raises(ValueError, match="`action` must be 0, 1, 2 or 3, got 4"):
        env.step(4)
    assert env.steps == 0
