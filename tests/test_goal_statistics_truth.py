"""Same total env-steps (issue 37, finding 1): what the page tells the learner about a sweep
holds at every setting it can reach, checked against the exact expectations of
`burgerbot.random_agent` and the runs' raw counts, not against the helpers that wrote it."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, quotes

from burgerbot.app.logic.goal_statistics import (
    SPECS,
    budget_reading,
    rate_reading,
    resolve_settings,
    run_sweep,
    summarise,
    takeaways,
)
from burgerbot.random_agent import episode_odds, expected_episodes, goal_odds
from burgerbot.statistics import poisson_interval

SPEC = {spec.key: spec for spec in SPECS}
N, TOTAL, SEEDS = SPEC["n"], SPEC["total"], SPEC["seeds"]
FINDING = {"n": (1, 16, 256, 1024), "total": 20_000, "seeds": 10}


def first_goal_step() -> int:
    """The first step of an episode at which a goal has any chance, from the step-by-step odds."""
    return int(np.flatnonzero(episode_odds().goal_at)[0])


def facts(frame: pd.DataFrame) -> dict[str, object]:
    """What the raw runs and the exact expectations say, computed here from scratch."""
    expected, goal_misses, episode_misses = {}, set(), set()
    for n, group in frame.groupby("num_envs"):
        calls = int(group["env_steps"].iloc[0]) // int(n)
        expected[int(n)] = goal_odds(calls, int(n)).expected_goals
        low, high = (x / len(group) for x in poisson_interval(int(group["goals"].sum())))
        if not low <= expected[int(n)] <= high:
            goal_misses.add(int(n))
        episodes = group["episodes"].to_numpy(dtype=float)
        if len(episodes) > 1:
            half = 1.96 * episodes.std(ddof=1) / math.sqrt(len(episodes))
            if abs(episodes.mean() - expected_episodes(calls, int(n))) > half:
                episode_misses.add(int(n))
    values = list(expected.values())
    level = max(values) > 0 and min(values) >= 0.95 * max(values)
    return {"level": level, "goals": goal_misses, "episodes": episode_misses}


def named(text: str) -> set[int]:
    """The NUM_ENVS a reading names as missing their expectation."""
    return {int(part.split("'s")[0]) for part in text.split("NUM_ENVS ")[1:] if "misses" in part}


def check_total_reading(frame: pd.DataFrame) -> None:
    truth = facts(frame)
    text = budget_reading(summarise(frame), "total")
    lead, _, found = text.partition(" In this sweep: ")
    assert quotes(lead, first_goal_step())
    if frame["num_envs"].nunique() > 1:
        assert ("not" in bold(lead)) == (not truth["level"]), lead
    goals, _, episodes = found.partition("Finished episodes:")
    assert named(goals) == truth["goals"], text
    assert named(episodes) == truth["episodes"], text
    assert "should" not in text and "stay level whatever" not in text


def synthetic(sizes: tuple[int, ...], total: int, seeds: int, shift: float, seed: int):
    """A sweep's table with counts drawn around the exact expectations (``shift`` moves them,
    so that some intervals miss)."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        calls = total // n
        goals = rng.poisson(goal_odds(calls, n).expected_goals * shift, size=seeds)
        mean = expected_episodes(calls, n) * shift
        episodes = rng.normal(mean, math.sqrt(mean) + 1, size=seeds).round().clip(0)
        for s in range(seeds):
            rows.append(
                {
                    "num_envs": n,
                    "seed": s,
                    "steps_per_env": calls,
                    "env_steps": n * calls,
                    "goals": int(goals[s]),
                    "episodes": int(episodes[s]),
                }
            )
    return pd.DataFrame(rows)


@settings(max_examples=30, deadline=None)
@given(
    sizes=st.lists(st.integers(N.low, N.high), min_size=1, max_size=N.max_items),
    total=st.integers(TOTAL.low, TOTAL.high),
    seeds=st.integers(SEEDS.low, SEEDS.high),
    shift=st.sampled_from([1.0, 0.5, 2.0]),
    seed=st.integers(0, 2**16),
)
@example(sizes=list(FINDING["n"]), total=20_000, seeds=10, shift=1.0, seed=0)
@example(sizes=[N.low], total=TOTAL.low, seeds=SEEDS.low, shift=1.0, seed=0)
@example(sizes=[N.high], total=TOTAL.high, seeds=SEEDS.high, shift=1.0, seed=0)
@example(sizes=[N.low, N.high], total=TOTAL.high, seeds=SEEDS.high, shift=1.0, seed=0)
@example(sizes=[N.low, N.high], total=TOTAL.low, seeds=SEEDS.low, shift=2.0, seed=0)
def test_the_total_budget_reading_follows_the_exact_expectations(sizes, total, seeds, shift, seed):
    resolved, _ = resolve_settings(
        {"n": sizes, "steps": 1, "total": total, "seeds": seeds, "backend": "native",
         "budget": "total"}
    )  # fmt: skip
    frame = synthetic(resolved.num_envs, resolved.total_env_steps, seeds, shift, seed)
    check_total_reading(frame)
    rates = rate_reading(frame)  # runs of different lengths: no rate sentence
    assert rates is None or frame["steps_per_env"].nunique() == 1


@pytest.mark.parametrize(
    "values",
    [FINDING, FINDING | {"total": 10_000, "seeds": 9}, FINDING | {"n": (1, 16, 256), "seeds": 11}],
    ids=["finding", "half-the-steps", "one-size-fewer"],
)
def test_a_real_sweep_at_the_finding_and_beside_it(values):
    resolved, _ = resolve_settings(values | {"steps": 500, "backend": "native", "budget": "total"})
    frame = run_sweep(resolved).frame
    check_total_reading(frame)
    assert not facts(frame)["level"]  # 19 to 78 steps per env at 1024 or 256 envs: far fewer


def test_the_takeaway_gives_the_exact_split():
    bullet = takeaways()[2]
    assert quotes(bullet, first_goal_step(), 20_000, 1_024, 19)
    assert quotes(bullet, float(f"{goal_odds(20_000).expected_goals:.3g}"))
    assert quotes(bullet, float(f"{goal_odds(19, 1_024).expected_goals:.3g}"))
    assert "stay level whatever" not in bullet
