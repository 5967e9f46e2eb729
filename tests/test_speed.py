"""burgerbot.speed: the numpy policy network and the measurements (behaviour, not timings)."""

from __future__ import annotations

import numpy as np
import pytest

from burgerbot import speed
from burgerbot.speed import OBS_SCALE, MLPPolicy, forward_speeds, loop_speeds
from burgerbot.world import TABLES

OBSERVATIONS = np.asarray(TABLES.observation)  # every observation BurgerBot can give


def test_policy_layers_are_4_64_64_4_by_default_and_follow_hidden():
    assert MLPPolicy().sizes == (4, 64, 64, 4)
    policy = MLPPolicy(hidden=(8,))
    assert policy.sizes == (4, 8, 4)
    assert [w.shape for w in policy.weights] == [(4, 8), (8, 4)]
    assert all(w.dtype == np.float32 for w in policy.weights)


@pytest.mark.parametrize("n", [1, 3, 196])
def test_policy_gives_one_action_per_observation_row(n):
    actions = MLPPolicy(seed=1).act(OBSERVATIONS[:n])
    assert actions.shape == (n,) and actions.dtype == np.int64
    assert ((actions >= 0) & (actions < 4)).all()


def test_a_batched_forward_pass_gives_each_row_what_it_gives_alone():
    policy = MLPPolicy(seed=2)
    batched = policy.logits(OBSERVATIONS)
    alone = np.concatenate([policy.logits(obs[None]) for obs in OBSERVATIONS])
    np.testing.assert_allclose(batched, alone, rtol=1e-5, atol=1e-6)
    assert batched.shape == (len(OBSERVATIONS), 4)


def test_the_forward_pass_is_the_documented_network():
    policy = MLPPolicy(seed=3)
    obs = OBSERVATIONS[:5]
    x = obs / OBS_SCALE.astype(np.float64)
    for w, b in zip(policy.weights[:-1], policy.biases[:-1], strict=True):
        x = np.tanh(x @ w + b)
    expected = x @ policy.weights[-1] + policy.biases[-1]
    np.testing.assert_allclose(policy.logits(obs), expected, rtol=1e-4, atol=1e-5)
    # inputs are scaled to 0..1 by the largest value of each entry
    assert (OBSERVATIONS.max(axis=0) == OBS_SCALE).all()


def test_the_same_seed_gives_the_same_network_and_actions():
    a, b, c = MLPPolicy(seed=4), MLPPolicy(seed=4), MLPPolicy(seed=5)
    assert (a.act(OBSERVATIONS) == b.act(OBSERVATIONS)).all()
    assert not np.allclose(a.logits(OBSERVATIONS), c.logits(OBSERVATIONS))


def test_sampled_actions_follow_the_softmax_of_the_logits():
    policy = MLPPolicy(seed=6)
    obs = np.repeat(OBSERVATIONS[[17]], 40_000, axis=0)
    logits = policy.logits(obs[:1])[0].astype(np.float64)
    probabilities = np.exp(logits - logits.max())
    probabilities /= probabilities.sum()
    counts = np.bincount(policy.act(obs), minlength=4) / len(obs)
    # 40,000 draws: the standard error of each share is below 0.0025
    np.testing.assert_allclose(counts, probabilities, atol=0.012)


@pytest.mark.parametrize("bad", [np.zeros(4), np.zeros((2, 3)), np.zeros((1, 2, 4))])
def test_policy_wants_a_batch_of_observations(bad):
    with pytest.raises(ValueError, match=r"`obs` must have shape \(N, 4\)"):
        MLPPolicy().act(bad)


def test_loop_speeds_has_a_row_per_loop_size_and_policy():
    df = loop_speeds([1, 3], seconds=0.002, repeats=2)
    assert df[["loop", "num_envs", "policy"]].values.tolist() == [
        ["plain", 1, False],
        ["sync", 1, False],
        ["sync", 3, False],
        ["native", 1, False],
        ["native", 3, False],
        ["plain", 1, True],
        ["sync", 1, True],
        ["sync", 3, True],
        ["native", 1, True],
        ["native", 3, True],
    ]
    # Transitions are the rows left after the auto-reset rows: N per call less the reset share.
    vector = df[df["loop"] != "plain"]
    np.testing.assert_allclose(
        vector["transitions"],
        vector["step_calls"] * vector["num_envs"] * (1 - vector["reset_row_share"]),
    )
    plain = df[df["loop"] == "plain"]
    assert (plain["transitions"] == plain["step_calls"]).all()
    assert (plain["reset_row_share"] == 0).all()
    np.testing.assert_allclose(df["transitions_per_s"], df["transitions"] / df["seconds"])
    np.testing.assert_allclose(df["seconds_per_call"], df["seconds"] / df["step_calls"])
    np.testing.assert_allclose(
        df["env_steps_per_s"], df["transitions_per_s"] / (1 - df["reset_row_share"])
    )
    assert (df["transitions_per_s_slowest"] <= df["transitions_per_s"] * (1 + 1e-12)).all()
    assert (df["transition_rates"].map(len) == 2).all()
    assert (df["seconds"] >= 0.002).all() and (df["step_calls"] >= 2).all()
    assert df.attrs["settings"]["repeats"] == 2


class ScriptedEnvs:
    """A stand-in vector env of 3 envs whose episodes end as scripted, call by call."""

    num_envs = 3

    def __init__(self, ended_per_call):
        self.ended = iter(ended_per_call)

    def reset(self, seed=None):
        return np.zeros((3, 4), dtype=np.int64), {}

    def step(self, actions):
        ended = np.array(next(self.ended), dtype=bool)
        obs = np.zeros((3, 4), dtype=np.int64)
        return obs, np.zeros(3), ended, np.zeros(3, dtype=bool), {}


@pytest.mark.parametrize("policy", [None, MLPPolicy()])
def test_a_vector_call_counts_its_auto_reset_rows_out_of_the_transitions(policy):
    # call 1: env 0 ends; call 2: env 0 resets (no transition), envs 1 and 2 end;
    # call 3: envs 1 and 2 reset; call 4: all three step
    ended = [[1, 0, 0], [0, 1, 1], [0, 0, 0], [0, 0, 0]]
    tally = speed.Tally()
    chunk = speed._vector_chunk(ScriptedEnvs(ended), policy, np.random.default_rng(0), tally)
    assert [chunk() for _ in ended] == [3, 2, 1, 3]
    assert (tally.calls, tally.env_steps, tally.reset_rows) == (4, 12, 3)
    assert tally.reset_share == 0.25


def test_about_one_row_in_eleven_is_a_reset_row_with_random_actions():
    from burgerbot.random_agent import episode_odds

    df = loop_speeds([64], seconds=0.02, repeats=2)
    measured = df.loc[(df["loop"] == "native") & ~df["policy"], "reset_row_share"].item()
    # the exact long-run share: one reset row per episode's rows (mean length + 1)
    assert measured == pytest.approx(1 / episode_odds().mean_rows, rel=0.15)


def count_forward_passes(monkeypatch) -> list[int]:
    """Record the batch size of every forward pass the measurement makes."""
    batches: list[int] = []
    act = MLPPolicy.act

    def counting(self, obs):
        batches.append(len(obs))
        return act(self, obs)

    monkeypatch.setattr(MLPPolicy, "act", counting)
    return batches


def test_the_plain_loop_runs_the_policy_once_per_step_on_one_observation(monkeypatch):
    batches = count_forward_passes(monkeypatch)
    chunk = speed._plain_chunk(MLPPolicy(), np.random.default_rng(0))
    assert chunk() == speed.PLAIN_CHUNK
    assert batches == [1] * speed.PLAIN_CHUNK


def test_a_vector_env_runs_the_policy_once_per_call_on_the_whole_batch(monkeypatch):
    from burgerbot.factories import make_vector_env

    batches = count_forward_passes(monkeypatch)
    envs = make_vector_env("sync", 5)
    try:
        chunk = speed._vector_chunk(envs, MLPPolicy(), np.random.default_rng(0))
        counts = [chunk() for _ in range(3)]
        # 5 rows per call; the first call follows a reset, so all 5 are transitions
        assert counts[0] == 5 and all(0 <= c <= 5 for c in counts)
    finally:
        envs.close()
    assert batches == [5, 5, 5]


def test_without_a_policy_no_forward_pass_is_made(monkeypatch):
    batches = count_forward_passes(monkeypatch)
    loop_speeds([2], seconds=0.001, repeats=1)
    assert batches and set(batches) == {1, 2}  # only the policy rows ran it
    batches.clear()
    speed._plain_chunk(None, np.random.default_rng(0))()
    assert batches == []


def test_forward_speeds_has_a_row_per_batch_size():
    df = forward_speeds([1, 5, 2], seconds=0.002, repeats=2)
    assert df["batch_size"].tolist() == [1, 5, 2]
    np.testing.assert_allclose(df["seconds_per_call"], df["seconds"] / df["calls"])
    np.testing.assert_allclose(df["observations_per_s"], df["batch_size"] / df["seconds_per_call"])
    assert (df["seconds_per_call_slowest"] >= df["seconds_per_call"] * (1 - 1e-12)).all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"seconds": 0}, "`seconds` must be a positive number"),
        ({"seconds": True}, "`seconds` must be a positive number"),
        ({"repeats": 0}, "`repeats` must be a positive whole number"),
    ],
)
def test_bad_budgets_are_refused(kwargs, message):
    for measure in (loop_speeds, forward_speeds):
        with pytest.raises(ValueError, match=message):
            measure([1], **kwargs)


def test_bad_sizes_are_refused():
    with pytest.raises(ValueError, match="`sizes` must be a positive whole number"):
        loop_speeds([0])
    with pytest.raises(ValueError, match="`hidden` must be a positive whole number"):
        MLPPolicy(hidden=(64, -1))
