"""Seeding on "From batches to training data": the live demos checked against gymnasium directly,
and each sentence fed tables going each way."""

from __future__ import annotations

import dataclasses

import gymnasium as gym
import numpy as np
import pandas as pd
from sentence_facts import code_spans, numbers, quotes

from burgerbot.app.logic import training_data as seeding


def cartpole_start(seed):
    env = gym.make("CartPole-v1")
    obs, _ = env.reset(seed=seed)
    env.close()
    return obs


def test_reset_with_one_seed_seeds_sub_env_i_with_seed_plus_i():
    table = seeding.reset_seeds(11)
    assert table["same start as a single env's reset(seed=…)"].tolist() == [
        "s + 0",
        "s + 1",
        "s + 2",
    ]
    # Independently of the view: a SyncVectorEnv against single envs.
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("CartPole-v1")] * 3)
    obs, _ = envs.reset(seed=11)
    envs.close()
    assert all(np.array_equal(obs[i], cartpole_start(11 + i)) for i in range(3))
    said = seeding.reset_seeds_sentence(table)
    assert code_spans(said) == ["reset(seed=s + i)"] and numbers(said)[0] == 3  # all 3 line up


def test_the_reset_sentence_reports_a_mismatch():
    table = pd.DataFrame(
        {"sub-env": [0, 1], "same start as a single env's reset(seed=…)": ["s + 0", "none"]}
    )
    assert seeding.reset_seeds_sentence(table).startswith("Here the starts do not line up")


def test_one_seed_for_all_sub_envs_repeats_the_episode_and_seed_s_does_not():
    table = seeding.same_seed_trajectories(4)
    same = table[table["call"].str.contains(r"\[")]
    spread = table[~table["call"].str.contains(r"\[")]
    assert same["identical to sub-env 0"].all()
    assert same["episode length"].nunique() == 1
    assert spread["seed it got"].tolist() == [4, 5, 6]
    assert not spread["identical to sub-env 0"].iloc[1:].any()
    sentence = seeding.same_seed_sentence(table)
    assert code_spans(sentence) == ["reset(seed=[4] * 3)", "reset(seed=4)"]  # in that order
    assert "no other sub-env repeats" in sentence  # the family's one wording check


def test_the_same_seed_sentence_counts_partial_copies():
    table = pd.DataFrame(
        {
            "call": ["x"] * 4,
            "identical to sub-env 0": [True, True, False, True],
        }
    )
    assert quotes(seeding.same_seed_sentence(table), 2, 3)  # 2 of 3 repeat


def test_a_later_reset_with_a_seed_overrides_the_factories_seeds():
    table = seeding.factory_reseeding(0)
    seeded = table[table["call after the factories"] == "envs.reset(seed=0)"]
    unseeded = table[table["call after the factories"] == "envs.reset()"]
    assert seeded["= reset(seed=0 + i)"].all() and not seeded["= factory seed's next start"].any()
    assert unseeded["= factory seed's next start"].all()
    assert not unseeded["= reset(seed=0 + i)"].any()
    sentence = seeding.factory_sentence(table, 0)
    assert code_spans(sentence) == ["envs.reset(seed=0)", "envs.reset()"]  # each call's finding
    assert "left the factories' generators running" in sentence  # the one wording check


def test_the_factory_sentence_follows_a_table_going_the_other_way():
    table = pd.DataFrame(
        {
            "call after the factories": ["envs.reset(seed=3)"] * 2,
            "= reset(seed=3 + i)": [False, False],
            "= factory seed's next start": [True, True],
        }
    )
    factories = seeding.factory_sentence(table, 3)
    assert code_spans(factories) == ["envs.reset(seed=3)"]
    table["= reset(seed=3 + i)"] = [True, False]
    table["= factory seed's next start"] = [False, False]
    neither = seeding.factory_sentence(table, 3)
    assert code_spans(neither) == ["envs.reset(seed=3)"] and neither != factories


def test_burgerbot_draws_nothing_from_its_seed():
    check = seeding.burgerbot_seed_check(5)
    assert check.starts == ("[0, 0, 1, 1]", "[0, 0, 1, 1]")
    assert check.same_trajectory and check.generator_untouched
    untouched = seeding.burgerbot_seed_sentence(check)
    assert quotes(untouched, 5, 6, 50)  # the two seeds, the 50 actions
    drawing = seeding.burgerbot_seed_sentence(dataclasses.replace(check, generator_untouched=False))
    assert quotes(drawing, 5, 6) and drawing != untouched
    assert "draws no random number" in untouched  # the family's one wording check


def test_only_action_space_seed_repeats_the_random_actions():
    table = seeding.action_seeding(2)
    assert table["same both times"].tolist() == [True, False]
    repeated = seeding.action_seeding_sentence(table)
    assert code_spans(repeated)[:2] == ["envs.action_space", "envs.reset(seed=...)"]
    table["same both times"] = [False, True]
    flipped = seeding.action_seeding_sentence(table)
    assert "did not repeat" in flipped and "did not repeat" not in repeated  # one wording check


def test_the_demo_bundles_every_table_with_its_sentence():
    demo = seeding.seeding_demo(0)
    assert demo.reset_text == seeding.reset_seeds_sentence(demo.reset)
    assert demo.action_text == seeding.action_seeding_sentence(demo.action)
