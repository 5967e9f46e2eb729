"""Glossary entries whose truth depends on the installed libraries, this machine or the
world's rules, checked against them."""

from __future__ import annotations

import ast
import inspect
import multiprocessing
import re
from pathlib import Path

from gymnasium.vector import AsyncVectorEnv

from burgerbot.app.glossary import LESSON, TERMS, start_method_here, taught_too_late
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


def test_spawn_says_fork_is_posix_and_leaves_this_machines_default_to_the_prediction():
    text = TERMS["spawn"].meaning
    assert "Linux only" not in text and "macOS included" in text
    default = multiprocessing.get_all_start_methods()[0]
    assert f"here is '{default}'" in start_method_here() and "here is" not in text


def test_terminated_says_hits_outnumber_goals_by_the_worlds_own_odds():
    text = TERMS["terminated"].meaning
    match = re.search(r"1 episode in ([\d,]+) reaches the burger", text)
    assert match, text
    episodes = int(match.group(1).replace(",", ""))
    assert episodes == round(1 / episode_odds().goal_chance) and episodes > 1_000
    assert "nearly every termination is a hit" in text


def _routed_pages() -> set[str]:
    source = (Path(__file__).parents[1] / "streamlit_app.py").read_text()
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "PAGES":
            return {file.removesuffix(".py") for _, file, _, _ in ast.literal_eval(node.value)}
    raise LookupError("no PAGES")


def test_every_term_is_first_taught_on_a_routed_page_or_in_the_lesson():
    pages = _routed_pages()
    for slug, term in TERMS.items():
        assert term.taught == LESSON or term.taught in pages, (slug, term.taught)
        assert term.taught == LESSON or term.forms, f"{slug}: no way to spot it on a page"


def test_each_term_is_spotted_in_its_own_entry():
    # A pattern that finds nothing (an escaped backslash too many) would let any page pass.
    spotted = {slug: term for slug, term in TERMS.items() if term.forms}
    assert len(spotted) > len(TERMS) // 2  # most terms are spotted on pages
    for slug, term in spotted.items():
        entry = f"{term.name} {term.meaning}"
        assert any(re.search(form, entry) for form in term.forms), slug


def test_a_term_used_before_the_page_that_teaches_it_is_found():
    # NEXT_STEP is taught on the Auto-reset page: Home may not use it, Goal scaling may.
    assert taught_too_late([("home", "the NEXT_STEP mode"), ("autoreset", "NEXT_STEP")]) == [
        "home uses 'auto-reset mode' (NEXT_STEP), first taught on autoreset"
    ]
    assert taught_too_late([("autoreset", "NEXT_STEP"), ("goal_scaling", "NEXT_STEP")]) == []
    # Taught off the path (Going further): the path may not use it at all.
    assert taught_too_late([("home", "a TD target")])[0].startswith("home uses 'bootstrapping")
    # Words the lesson teaches may be used anywhere.
    assert taught_too_late([("home", "terminated or truncated, a SyncVectorEnv")]) == []
