"""Home's list of the lesson's code that no longer works as written, checked against the
installed libraries, and its path through the pages."""

from __future__ import annotations

import inspect
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.home import (
    LESSON_FIXES,
    PATH,
    EpisodeFacts,
    episode_facts,
    lesson_goal_fix,
)
from burgerbot.factories import make_env, make_vector_env
from burgerbot.statistics import poisson_zero_chance

ROOT = Path(__file__).resolve().parent.parent
PAGES = {p.name for p in (ROOT / "app_pages").glob("*.py")}


def test_every_fix_has_a_known_verdict_and_links_a_page_that_exists():
    fixes = [*LESSON_FIXES, lesson_goal_fix()]
    assert [f.kind for f in fixes] == [
        "changed",
        "changed",
        "never_valid",
        "never_valid",
        "not_visible",
    ]
    assert all(f.kind in VERDICTS and f.page in PAGES for f in fixes)
    assert {f.page for f in fixes} == {"autoreset.py", "sb3.py", "goal_scaling.py"}


def test_the_path_visits_every_page_but_home_and_the_glossary_once():
    assert sorted(stop.page for stop in PATH) == sorted(PAGES - {"home.py", "glossary.py"})


def ended_after_three_forward_steps(**kwargs):
    """BurgerBot starts at (0, 0) facing east; the third forward hits the obstacle at (0, 3)."""
    envs = gym.vector.SyncVectorEnv([make_env()], **kwargs)
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
    envs = gym.vector.SyncVectorEnv([make_env() for _ in range(2)])
    with pytest.raises((ValueError, TypeError, AssertionError)):
        sb3.PPO("MlpPolicy", envs)
    envs.close()
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    fixed = make_vec_env(make_env(), n_envs=4)
    assert isinstance(fixed, DummyVecEnv) and fixed.num_envs == 4
    sb3.PPO("MlpPolicy", fixed, n_steps=8, batch_size=8)  # the fix is accepted
    # SB3's own vector envs reset on the ending step; the last observation is in the infos
    fixed.reset()
    for _ in range(3):  # the third forward hits the obstacle at (0, 3)
        obs, _, dones, infos = fixed.step(np.zeros(4, dtype=np.int64))
    assert dones.tolist() == [True] * 4 and obs[0].tolist() == [0, 0, 1, 1]
    assert infos[0]["terminal_observation"].tolist() == [0, 2, 1, 0]
    fixed.close()


def test_episode_facts_agree_with_random_robots():
    facts = episode_facts()
    envs = make_vector_env("native", 2048)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = ended = hits = 0
    for _ in range(200):
        _, reward, terminated, truncated, _ = envs.step(rng.integers(0, 4, size=2048))
        steps += 2048
        ended += int((terminated | truncated).sum())
        hits += int((reward == -10.0).sum())
    envs.close()
    # NEXT_STEP: each episode also takes one reset call, counted in `steps` here
    assert steps / ended == pytest.approx(facts.mean_length + 1, rel=0.03)
    assert hits / ended == pytest.approx(1 - facts.goal_chance, abs=0.002)
    # truncation at max_steps=1 ends every episode after one step, far from the goal
    assert episode_facts(max_steps=1) == EpisodeFacts(goal_chance=0.0, mean_length=1.0)
    # the goal is 12 moves and at least 2 turns away: 13 steps cannot reach it, 14 can
    assert episode_facts(max_steps=13).goal_chance == 0.0
    assert 0 < episode_facts(max_steps=14).goal_chance < facts.goal_chance


def test_the_goal_line_computes_its_counts_from_the_facts():
    facts = EpisodeFacts(goal_chance=0.01, mean_length=9.0)
    assert facts.expected_goals(500, 4) == pytest.approx(2.0)
    fix = lesson_goal_fix(facts)
    assert "2.00 and 4.00 goals are expected" in fix.fix
    assert f"{poisson_zero_chance(2.0):.0%} and {poisson_zero_chance(4.0):.0%} of runs" in fix.fix
    assert "1 episode of 100, episodes last 9.0 steps" in fix.detail
    assert "about 18,000 env-steps per setting (20 goals expected)" in fix.detail
    # the lesson's experiment with the real world (burgerbot-world.md: about 0.05 goals)
    real = lesson_goal_fix()
    assert "0.05 and 0.10 goals are expected: 95% and 91% of runs show none" in real.fix
