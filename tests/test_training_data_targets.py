"""burgerbot.targets: buffer, mask and TD targets, checked on hand-made runs of the real env.

The hand-checked case (2 BurgerBots, max_steps=4, 6 step() calls):

- env 0 goes forward three times: (0,1) +1, (0,2) +1, then into the obstacle at (0,3):
  a hit, -10, terminated on call 3. In NEXT_STEP mode call 4 is its reset row.
- env 1 goes forward (+1 to (0,1)), turns left (now facing north) and stops twice: the
  time limit truncates it on call 4 at [0, 1, 0, 0]. In NEXT_STEP mode call 5 is its reset row.
"""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from burgerbot.targets import (
    GAMMA,
    collect_buffer,
    distance_value,
    follows_world_rules,
    td_targets,
    transition_mask,
    world_outcomes,
)

T, F = True, False
HAND_ACTIONS = np.array([[0, 0], [0, 1], [0, 3], [3, 3], [3, 3], [3, 3]])
START = [0, 0, 1, 1]


def hand_buffer(mode: str):
    return collect_buffer(2, 6, mode, seed=0, max_steps=4, actions=HAND_ACTIONS)


def test_the_hand_case_is_what_the_real_env_does():
    buffer = hand_buffer("NEXT_STEP")
    assert buffer.rewards[:, 0].tolist() == [1.0, 1.0, -10.0, 0.0, -0.1, -0.1]
    assert buffer.terminated[:, 0].tolist() == [F, F, T, F, F, F]
    assert buffer.truncated[:, 1].tolist() == [F, F, F, T, F, F]
    assert buffer.rewards[4, 1] == 0.0 and buffer.returned_obs[4, 1].tolist() == START
    assert buffer.next_obs[3, 1].tolist() == [0, 1, 0, 0]  # the final observation


def test_next_step_mask_drops_exactly_the_calls_after_an_end():
    buffer = hand_buffer("NEXT_STEP")
    mask = transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")
    assert mask[:, 0].tolist() == [T, T, T, F, T, T]
    assert mask[:, 1].tolist() == [T, T, T, T, F, T]
    # Independently: the dropped rows are the ones that do not replay under the world's rules.
    assert np.array_equal(follows_world_rules(buffer), mask)


def test_same_step_keeps_every_row_once_the_final_obs_comes_from_infos():
    buffer = hand_buffer("SAME_STEP")
    mask = transition_mask(buffer.terminated, buffer.truncated, AutoresetMode.SAME_STEP)
    assert mask.all()
    assert buffer.final_from_infos[:, 0].tolist() == [F, F, T, F, F, F]
    assert buffer.returned_obs[2, 0].tolist() == START  # already the next start
    assert follows_world_rules(buffer).all()
    # Reading the returned obs instead breaks exactly the ending rows whose final obs differs.
    broken = ~follows_world_rules(buffer, buffer.returned_obs)
    assert np.array_equal(broken, buffer.ended)


def test_the_mask_carries_an_end_over_from_the_previous_buffer():
    ended = np.zeros((3, 2), dtype=bool)
    mask = transition_mask(ended, ended, "NEXT_STEP", ended_before=np.array([T, F]))
    assert mask[:, 0].tolist() == [F, T, T] and mask[:, 1].all()


def test_disabled_mode_and_bad_shapes_are_refused():
    flags = np.zeros((2, 2), dtype=bool)
    with pytest.raises(ValueError, match="NEXT_STEP or SAME_STEP"):
        transition_mask(flags, flags, "DISABLED")
    with pytest.raises(ValueError, match="shape"):
        transition_mask(flags[0], flags[0], "NEXT_STEP")
    with pytest.raises(ValueError, match="actions"):
        collect_buffer(2, 3, actions=np.zeros((2, 2)))
    with pytest.raises(ValueError, match="gamma"):
        td_targets(np.zeros(1), np.zeros(1), np.zeros((1, 4)), gamma=1.5)


def test_td_targets_bootstrap_on_truncation_and_not_on_termination():
    buffer = hand_buffer("SAME_STEP")
    targets = td_targets(buffer.rewards, buffer.terminated, buffer.next_obs)
    assert targets[2, 0] == -10.0  # the hit: terminated, no bootstrap
    # The truncation: -0.1 + 0.9 * V([0, 1, 0, 0]), V = -(6 + 5)
    assert targets[3, 1] == pytest.approx(-0.1 + GAMMA * -11.0)
    # Bootstrapping from SAME_STEP's returned obs would use the next start's value instead.
    wrong = td_targets(buffer.rewards, buffer.terminated, buffer.returned_obs)
    assert wrong[3, 1] == pytest.approx(-0.1 + GAMMA * -12.0)


def test_targets_with_and_without_the_mask_differ_exactly_at_the_reset_rows():
    buffer = hand_buffer("NEXT_STEP")
    mask = transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")
    plain = td_targets(buffer.rewards, buffer.terminated, buffer.next_obs)
    masked = td_targets(buffer.rewards, buffer.terminated, buffer.next_obs, mask=mask)
    assert np.array_equal(np.isnan(masked), ~mask)
    assert np.array_equal(plain[mask], masked[mask])
    # A reset row's made-up target: reward 0.0, no termination, next obs the start.
    assert plain[3, 0] == pytest.approx(GAMMA * -12.0) and plain[4, 1] == plain[3, 0]


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_on_random_buffers_the_mask_is_the_world_check(mode, seed):
    buffer = collect_buffer(4, 15, mode, seed=seed, max_steps=4)
    mask = transition_mask(buffer.terminated, buffer.truncated, mode)
    assert np.array_equal(mask, follows_world_rules(buffer))
    assert (~mask).any() == (mode == "NEXT_STEP")


def test_the_same_seed_gives_the_same_buffer_and_another_seed_another():
    a, b = collect_buffer(seed=3), collect_buffer(seed=3)
    assert np.array_equal(a.actions, b.actions) and np.array_equal(a.obs, b.obs)
    assert not np.array_equal(a.actions, collect_buffer(seed=4).actions)


def test_world_outcomes_and_the_value_follow_the_rules():
    rewards, terminated, next_obs = world_outcomes(np.array([[0, 2, 1, 0], [5, 6, 2, 0]]), [0, 0])
    assert rewards.tolist() == [-10.0, 50.0] and terminated.tolist() == [T, T]
    assert next_obs[1].tolist()[:2] == [6, 6]
    assert distance_value(np.array(START)) == -12.0
