"""Exact goal figures for a random agent (`burgerbot.random_agent`): checked three ways.

1. Against a plain Markov chain over every (state, step-in-episode, reset-pending) triple,
   stepped call by call: a slower, independent route to the same numbers.
2. Against real runs of the native vector env, with Poisson and binomial tolerances.
3. The settled tail past 20,000 calls against the term-by-term sums.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot import random_agent
from burgerbot.random_agent import episode_odds, goal_odds, long_run_goal_rate
from burgerbot.vector import BurgerBotVectorEnv
from burgerbot.world import GOAL_REWARD, NUM_ACTIONS, NUM_STATES, START_STATE, TABLES


def chain_odds(calls: int, mode: str, max_steps: int = 150) -> tuple[float, float, float]:
    """One env's expected goals, chance of none and finished episodes, by stepping the chain."""
    size = NUM_STATES * max_steps + 1  # (step, state) pairs, then "the next call resets"
    reset_row = size - 1
    index = np.arange(size - 1)
    state, step = index % NUM_STATES, index // NUM_STATES
    keys = state[:, None] * NUM_ACTIONS + np.arange(NUM_ACTIONS)
    ended = TABLES.terminated[keys] | (step[:, None] + 1 >= max_steps)
    after_end = reset_row if mode == "NEXT_STEP" else START_STATE
    goes_to = np.where(ended, after_end, (step[:, None] + 1) * NUM_STATES + TABLES.next_state[keys])
    goes_to = np.vstack([goes_to, np.full(NUM_ACTIONS, START_STATE)]).ravel()
    goal = np.vstack([TABLES.reward[keys] == GOAL_REWARD, np.zeros((1, NUM_ACTIONS), bool)])
    every, clean = np.zeros(size), np.zeros(size)
    every[START_STATE] = clean[START_STATE] = 1.0
    ends = np.vstack([ended, np.zeros((1, NUM_ACTIONS), bool)]).sum(axis=1) / NUM_ACTIONS
    expected = episodes = 0.0
    for _ in range(calls):
        expected += float(every @ goal.sum(axis=1)) / NUM_ACTIONS
        episodes += float(every @ ends)
        moved = np.repeat(every, NUM_ACTIONS) / NUM_ACTIONS
        kept = np.where(goal.ravel(), 0.0, np.repeat(clean, NUM_ACTIONS) / NUM_ACTIONS)
        every = np.bincount(goes_to, weights=moved, minlength=size)
        clean = np.bincount(goes_to, weights=kept, minlength=size)
    return expected, float(clean.sum()), episodes


@pytest.mark.parametrize("mode", random_agent.MODES)
@pytest.mark.parametrize("calls", [0, 1, 9, 149, 150, 151, 420])
def test_the_renewal_sums_equal_the_whole_chain_stepped_call_by_call(mode, calls):
    expected, none, episodes = chain_odds(calls, mode)
    odds = goal_odds(calls, num_envs=3, mode=mode)
    assert odds.expected_goals == pytest.approx(3 * expected, rel=1e-9, abs=1e-15)
    assert odds.chance_of_none == pytest.approx(none**3, rel=1e-12)
    finished = random_agent.expected_episodes(calls, num_envs=3, mode=mode)
    assert finished == pytest.approx(3 * episodes, rel=1e-9, abs=1e-12)


def test_a_short_time_limit_is_followed_exactly():
    # With max_steps=12 truncation is common: the chain and the sums must still agree.
    expected, none, episodes = chain_odds(200, "NEXT_STEP", max_steps=12)
    odds = goal_odds(200, mode="NEXT_STEP", max_steps=12)
    assert odds.expected_goals == pytest.approx(expected, rel=1e-9)
    assert odds.chance_of_none == pytest.approx(none, rel=1e-12)
    assert episode_odds("NEXT_STEP", 12).ends_at.sum() == pytest.approx(1.0)
    finished = random_agent.expected_episodes(200, mode="NEXT_STEP", max_steps=12)
    assert finished == pytest.approx(episodes, rel=1e-9)


@pytest.mark.parametrize("mode", random_agent.MODES)
def test_the_settled_tail_equals_the_term_by_term_sums(mode, monkeypatch):
    calls = 5_000
    whole = goal_odds(calls, mode=mode)
    monkeypatch.setattr(random_agent, "_EXACT_CALLS", 1_500)
    tail = goal_odds(calls, mode=mode)
    assert tail.expected_goals == pytest.approx(whole.expected_goals, rel=1e-10)
    assert tail.chance_of_none == pytest.approx(whole.chance_of_none, rel=1e-10)


@pytest.mark.parametrize("mode", random_agent.MODES)
def test_finished_episodes_past_the_exact_part_follow_the_settled_rate(mode, monkeypatch):
    whole = random_agent.expected_episodes(5_000, mode=mode)
    monkeypatch.setattr(random_agent, "_EXACT_CALLS", 1_500)
    random_agent.expected_episodes.cache_clear()
    assert random_agent.expected_episodes(5_000, mode=mode) == pytest.approx(whole, rel=1e-10)
    random_agent.expected_episodes.cache_clear()


def test_the_fewest_steps_to_a_goal_is_where_goals_can_first_happen():
    fewest = random_agent.fewest_steps_to_goal()
    # Independently: the first step of an episode with a chance of reaching the goal...
    assert fewest == int(np.flatnonzero(episode_odds().goal_at)[0])
    # ...so a run of one step fewer per env expects no goal at all, whatever NUM_ENVS.
    assert goal_odds(fewest - 1, num_envs=1024).expected_goals == 0.0
    assert goal_odds(fewest, num_envs=1).expected_goals > 0.0
    # The shortest path drives it: 12 cells east and south, and 2 turns at the least.
    assert fewest >= 12 + 2


def test_the_long_run_rate_is_what_long_runs_approach():
    rate = long_run_goal_rate()
    odds = goal_odds(1_000_000)
    assert odds.expected_goals / odds.env_steps == pytest.approx(rate, rel=1e-3)
    # NEXT_STEP's reset rows are rows without a goal: SAME_STEP has a higher rate per row.
    same = long_run_goal_rate("SAME_STEP")
    ratio = episode_odds("NEXT_STEP").mean_rows / episode_odds("SAME_STEP").mean_rows
    assert same / rate == pytest.approx(ratio)


def test_twice_the_envs_expect_twice_the_goals_and_square_the_chance_of_none():
    four, eight = goal_odds(500, num_envs=4), goal_odds(500, num_envs=8)
    assert eight.expected_goals == pytest.approx(2 * four.expected_goals)
    assert eight.chance_of_none == pytest.approx(four.chance_of_none**2)
    assert four.env_steps == 2_000 and four.chance_of_some == pytest.approx(1 - four.chance_of_none)


@pytest.mark.parametrize("mode", random_agent.MODES)
def test_real_runs_of_the_native_env_agree(mode):
    # 8,192 robots x 600 calls: about 130 goals expected; Poisson and binomial spreads.
    num_envs, calls = 8_192, 600
    envs = BurgerBotVectorEnv(num_envs, autoreset_mode=AutoresetMode[mode])
    rng = np.random.default_rng(2026)
    envs.reset(seed=0)
    goals = np.zeros(num_envs, dtype=np.int64)
    for _ in range(calls):
        _, rewards, *_ = envs.step(rng.integers(0, NUM_ACTIONS, size=num_envs))
        goals += rewards == GOAL_REWARD
    envs.close()
    odds = goal_odds(calls, num_envs=num_envs, mode=mode)
    assert abs(goals.sum() - odds.expected_goals) < 4 * math.sqrt(odds.expected_goals)
    one = goal_odds(calls, mode=mode).chance_of_none
    spread = math.sqrt(num_envs * one * (1 - one))
    assert abs(np.count_nonzero(goals == 0) - num_envs * one) < 4 * spread


def test_the_lessons_experiment_in_figures():
    # 500 calls with 4 and with 8 envs: the figures the pages quote, to their shown precision.
    four, eight = goal_odds(500, 4), goal_odds(500, 8)
    assert (round(four.expected_goals, 4), round(eight.expected_goals, 4)) == (0.0453, 0.0906)
    assert (round(four.chance_of_none, 3), round(eight.chance_of_none, 3)) == (0.956, 0.913)
    assert 40_000 < 1 / long_run_goal_rate() < 40_500


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"calls": -1}, "calls"),
        ({"calls": 5, "num_envs": 0}, "num_envs"),
        ({"calls": 5, "mode": "DISABLED"}, "mode"),
        ({"calls": 5, "max_steps": 0}, "max_steps"),
    ],
)
def test_bad_arguments_are_named(kwargs, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        goal_odds(**kwargs)
