"""The closing page's differences, checked against the installed libraries directly (not
through the page's scripts): changed since gymnasium 1.0, and never valid in SB3."""

from __future__ import annotations

import inspect
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot.factories import burgerbot_factory

ROOT = Path(__file__).resolve().parent.parent
PAGES = {p.name for p in (ROOT / "app_pages").glob("*.py")}


def ended_after_three_forward_steps(**kwargs):
    """BurgerBot starts at (0, 0) facing east; the third forward hits the obstacle at (0, 3)."""
    envs = gym.vector.SyncVectorEnv([burgerbot_factory()], **kwargs)
    envs.reset(seed=0)
    for _ in range(2):
        envs.step(np.array([0]))
    ending = envs.step(np.array([0]))
    after = envs.step(np.array([0]))
    envs.close()
    return envs, ending, after


def test_changed_since_gymnasium_1_the_ending_call_returns_the_final_observation():
    envs, (obs, reward, terminated, _, infos), after = ended_after_three_forward_steps()
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP  # the default
    assert obs.tolist() == [[0, 2, 1, 0]] and terminated.tolist() == [True]
    assert reward.tolist() == [-10.0] and "final_observation" not in infos
    # the next call resets, ignores the action and returns reward 0
    assert after[0].tolist() == [[0, 0, 1, 1]] and after[1].tolist() == [0.0]
    assert after[2].tolist() == [False] and after[3].tolist() == [False]  # both flags


def test_changed_since_same_step_mode_keeps_it_in_final_obs_not_final_observation():
    _, (obs, _, _, _, infos), _ = ended_after_three_forward_steps(
        autoreset_mode=AutoresetMode.SAME_STEP
    )
    assert obs.tolist() == [[0, 0, 1, 1]]  # already the next episode's first observation
    assert "final_observation" not in infos
    assert infos["final_obs"][0].tolist() == [0, 2, 1, 0]


@pytest.mark.sb3
def test_never_valid_ppo_has_no_n_envs_and_refuses_a_gymnasium_vector_env(sb3):
    assert "n_envs" not in inspect.signature(sb3.PPO).parameters
    envs = gym.vector.SyncVectorEnv([burgerbot_factory() for _ in range(2)])
    with pytest.raises((ValueError, TypeError, AssertionError)):
        sb3.PPO("MlpPolicy", envs)
    envs.close()
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    fixed = make_vec_env(burgerbot_factory(), n_envs=4)
    assert isinstance(fixed, DummyVecEnv) and fixed.num_envs == 4
    model = sb3.PPO("MlpPolicy", fixed, n_steps=8, batch_size=8)  # the fix is accepted
    assert model.n_steps * model.n_envs == 32  # n_steps counts calls per env (imprecise)
    # SB3's own vector envs reset on the ending step; the last observation is in the infos
    fixed.reset()
    for _ in range(3):  # the third forward hits the obstacle at (0, 3)
        obs, _, dones, infos = fixed.step(np.zeros(4, dtype=np.int64))
    assert dones.tolist() == [True] * 4 and obs[0].tolist() == [0, 0, 1, 1]
    assert infos[0]["terminal_observation"].tolist() == [0, 2, 1, 0]
    fixed.close()
