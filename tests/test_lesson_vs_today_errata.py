"""The closing page's errata (what Home used to open with), checked against the installed
libraries: each line's verdict, its page, and the goal line's exact figures."""

from __future__ import annotations

import inspect
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.lesson_vs_today import ERRATA, errata, goal_erratum
from burgerbot.factories import burgerbot_factory
from burgerbot.random_agent import episode_odds, goal_odds, long_run_goal_rate

ROOT = Path(__file__).resolve().parent.parent
PAGES = {p.name for p in (ROOT / "app_pages").glob("*.py")}


def test_every_erratum_has_a_known_verdict_and_links_the_page_that_runs_it():
    lines = errata()
    assert [f.kind for f in lines] == [
        "changed",
        "changed",
        "not_visible",
        "never_valid",
        "never_valid",
        "imprecise",
    ]
    assert all(f.kind in VERDICTS and f.page in PAGES for f in lines)
    assert {f.page for f in lines} == {"autoreset.py", "sb3.py", "goal_scaling.py"}
    assert set(ERRATA) | {goal_erratum()} == set(lines)


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


def test_the_goal_line_shows_the_librarys_exact_figures():
    fix = goal_erratum()
    four, eight = goal_odds(500, 4), goal_odds(500, 8)
    # burgerbot.random_agent's figures, not a page's own approximation
    assert f"with 4 envs: {four.describe()}; with 8: {eight.describe()}" in fix.fix
    assert "0.0453" in fix.fix and "95.6%" in fix.fix and "0.0906" in fix.fix
    assert "91.3%" in fix.fix
    per_goal = 1 / long_run_goal_rate()
    assert f"one goal per {per_goal:,.0f} env-steps" in fix.detail
    assert f"{episode_odds().mean_rows:.1f} rows" in fix.detail
    assert "about 800,000 env-steps per setting" in fix.detail
