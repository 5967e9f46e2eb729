"""Glossary entries whose truth depends on the installed libraries, this machine or the
world's rules, checked against them."""

from __future__ import annotations

import inspect
import multiprocessing
import re

from gymnasium.vector import AsyncVectorEnv

from burgerbot.app.glossary import TERMS
from burgerbot.app.logic.sync_vs_async import takeaways
from burgerbot.factories import make_vector_env
from burgerbot.random_agent import episode_odds


def test_async_says_observations_come_back_through_shared_memory_as_the_app_builds_it():
    assert inspect.signature(AsyncVectorEnv).parameters["shared_memory"].default is True
    envs = make_vector_env("async", 2)
    try:
        assert envs.shared_memory  # the observations are read from shared memory
    finally:
        envs.close()
    for text in (TERMS["async"].meaning, takeaways(None, None)[0]):
        assert re.search(r"observations (come back )?through shared memory", text), text
        assert not re.search(r"(actions and results|observations[^;.]*) through pipes", text)


def test_spawn_says_fork_is_posix_and_names_this_machines_default():
    text = TERMS["spawn"].meaning
    assert "Linux only" not in text and "macOS included" in text
    assert f"it is '{multiprocessing.get_all_start_methods()[0]}'" in text


def test_terminated_says_hits_outnumber_goals_by_the_worlds_own_odds():
    text = TERMS["terminated"].meaning
    match = re.search(r"1 episode in ([\d,]+) reaches the burger", text)
    assert match, text
    episodes = int(match.group(1).replace(",", ""))
    assert episodes == round(1 / episode_odds().goal_chance) and episodes > 1_000
    assert "nearly every termination is a hit" in text
