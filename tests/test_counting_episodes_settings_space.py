"""Counting finished episodes (issue 37): what the page tells the learner about its counting run
holds at every setting its widgets and URL allow, checked against the raw rows of both runs and
the exact expectations of `burgerbot.random_agent`. The runs are the native env's, whose counts
are Sync's (test_counting_episodes.py)."""

from __future__ import annotations

import ast

import numpy as np
from hypothesis import example, given, settings
from sentence_facts import bold, numbers, quotes
from spec_strategies import ends_of, settings_of

from burgerbot.app.logic.counting_episodes import (
    MODES,
    OPTIONS,
    SPECS,
    count_finished_by_mode,
    counting_sentence,
    prediction_truth,
    question,
    resolve_settings,
    takeaway_bullets,
)
from burgerbot.app.scripts.counting_episodes import counting_script
from burgerbot.checks import autoreset_mode
from burgerbot.experiments import rollout
from burgerbot.random_agent import expected_episodes

BASE = next(ends_of(SPECS))
FINDINGS = [
    BASE | {"n": 16, "steps": 1, "seed": 9},  # 0 and 0: once "shorter by luck"; "fewer on average"
    BASE | {"n": 1, "steps": 19, "seed": 1},  # more by luck, episodes of the same length (9)
    BASE | {"n": 21, "steps": 3, "seed": 631425},  # a tie "made up for" reset calls never spent
    BASE | {"n": 1, "steps": 3, "seed": 0},  # "fewer on average" in 3 calls: the same expectation
]


def with_examples(test):
    for values in [*FINDINGS, *ends_of(SPECS)]:
        test = example(values=values)(test)
    return test


def raw(n: int, steps: int, seed: int) -> dict[str, tuple[np.ndarray, int]]:
    """Per mode: finished episodes per env, and the calls spent on a reset."""
    facts = {}
    for mode in MODES:
        frame = rollout("native", n, steps, seed, autoreset_mode(mode))
        ended = (frame["terminated"] | frame["truncated"]).to_numpy()
        per_env = ended.reshape(steps, n).sum(axis=0)
        facts[mode] = per_env, int((frame["event"] == "reset").sum())
    return facts


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS))
@with_examples
def test_every_sentence_about_the_count_follows_the_runs(values):
    page, _ = resolve_settings(values)
    n, steps = page.num_envs, page.steps
    facts = raw(n, steps, page.seed)
    (nxt_env, resets), (same_env, _) = facts["NEXT_STEP"], facts["SAME_STEP"]
    nxt, same = int(nxt_env.sum()), int(same_env.sum())
    counts = count_finished_by_mode("native", n, steps, page.seed)
    text = counting_sentence(counts)
    assert bold(text) == [f"{nxt:,}", f"{same:,}"], text
    fewer = int((nxt_env < same_env).sum())
    assert numbers(text.split("(")[1])[:2] == [fewer, n] and ("envs)" in text) == (n > 1), text
    branch = {"fewer calls": nxt < same, "No episode": nxt == same == 0, "tie": 0 < nxt == same}
    branch["by luck"] = nxt > same
    assert {phrase: phrase in text for phrase in branch} == branch, text
    assert resets or "reset" not in text, text  # no word of reset calls NEXT_STEP never spent
    truth = {-1: OPTIONS[0], 0: None, 1: OPTIONS[2]}[int(np.sign(nxt - same))]
    assert prediction_truth(counts) == truth
    bullet = takeaway_bullets(counts)[1]
    assert quotes(bullet, nxt, same) and ("not always" in bullet) == (nxt >= same), bullet
    if nxt >= same:  # "fewer on average, from T calls on": against the exact expectation
        first = int(numbers(bullet)[0])
        assert first > 0, bullet
        assert expected_episodes(first - 1, n) == expected_episodes(first - 1, n, "SAME_STEP")
        for calls in (first, steps) if steps >= first else (first,):
            assert expected_episodes(calls, n) < expected_episodes(calls, n, "SAME_STEP")
    asked = question(page)
    assert quotes(asked, n, steps) and ("BurgerBots" in asked) == (n > 1), asked
    script = ast.parse(counting_script(page))
    constants = {
        node.targets[0].id: node.value.value
        for node in script.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
    }
    assert constants == {"NUM_ENVS": n, "STEPS": steps, "SEED": page.seed}
