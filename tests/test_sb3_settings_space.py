"""Stable-Baselines3 (issue 37): what the page tells the learner about its side-by-side run
holds at every NUM_ENVS, step count and seed its widgets and URL allow. The first episode end
is checked against each BurgerBot stepped alone; SB3's agreement with each Gymnasium mode
against the run's raw rows. The SB3 half is marked ``sb3`` (skipped without it)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from sentence_facts import quotes
from spec_strategies import settings_of

from burgerbot.app.logic.sb3 import (
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    SB3,
    SPECS,
    around_first_end,
    side_by_side,
    takeaways,
)
from burgerbot.experiments import random_actions
from burgerbot.factories import burgerbot_factory

SPEC = {spec.key: spec for spec in SPECS}
ENDS = [
    {"n": SPEC["n"].default, "steps": SPEC["steps"].default, "seed": SPEC["seed"].default},
    # Nothing ends: the takeaway named SAME_STEP on a tie (5 of 5 pairs matched both modes).
    {"n": SPEC["n"].low, "steps": SPEC["steps"].low, "seed": SPEC["seed"].low},
    {"n": SPEC["n"].high, "steps": SPEC["steps"].high, "seed": SPEC["seed"].high},
    {"n": SPEC["n"].low, "steps": SPEC["steps"].high, "seed": SPEC["seed"].high},
]


def with_ends(test):
    """At least 30 generated settings, and every setting of `ENDS`."""
    for setting in ENDS:
        test = example(setting=setting)(test)
    checks = [HealthCheck.function_scoped_fixture]  # the ``sb3`` fixture: the module, no state
    run = settings(max_examples=30, deadline=None, suppress_health_check=checks)
    return run(given(setting=settings_of(SPECS))(test))


def first_ends(n: int, steps: int, seed: int) -> dict[int, tuple[int, list[int]]]:
    """Each env's first episode end, {env: (step, last observation)}, stepping each BurgerBot
    alone (seeded as a vector env seeds copy i: ``seed + i``) with the run's actions."""
    actions = np.concatenate(list(random_actions(seed, n, steps)))
    ends = {}
    for i in range(n):
        env = burgerbot_factory()()
        env.reset(seed=seed + i)
        for t in range(steps):
            obs, _, terminated, truncated, _ = env.step(int(actions[t, i]))
            if terminated or truncated:
                ends[i] = (t + 1, [int(x) for x in obs])
                break
    return ends


@with_ends
def test_the_first_episode_end_is_the_one_each_env_alone_reaches(setting):
    n, steps, seed = setting["n"], setting["steps"], setting["seed"]
    ends = first_ends(n, steps, seed)
    around = around_first_end(side_by_side(n, steps, seed, with_sb3=False), after=1)
    if not ends:  # the page says no episode ended
        assert around is None
        return
    step, env, tables = around
    assert (step, env) == min((at, i) for i, (at, _) in ends.items()), ends
    last = str(ends[env][1])
    shown = list(range(max(1, step - 1), min(steps, step + 1) + 1))
    for library, table in tables.items():  # "Env e, steps a to b": the steps every tab shows
        assert table["step"].tolist() == shown, library
    same, nxt = tables[GYM_SAME_STEP].set_index("step"), tables[GYM_NEXT_STEP].set_index("step")
    assert same["last obs"].tolist() == [last if t == step else "" for t in shown]
    assert nxt.loc[step, "obs"] == last  # NEXT_STEP returns the last observation itself
    assert [note != "" for note in nxt["note"]] == [t == step + 1 for t in shown]


def matches(frame, library: str) -> int:
    """(step, env) pairs where ``library`` returned SB3's observation, reward and done."""
    mine = frame[frame["library"] == library].reset_index(drop=True)
    sb3 = frame[frame["library"] == SB3].reset_index(drop=True)
    same = (mine["obs"] == sb3["obs"]) & (mine["done"] == sb3["done"])
    return int((same & np.isclose(mine["reward"], sb3["reward"])).sum())


@pytest.mark.sb3
@with_ends
def test_the_reset_takeaway_names_the_mode_sb3_matched(sb3, setting):
    n, steps, seed = setting["n"], setting["steps"], setting["seed"]
    side = side_by_side(n, steps, seed, with_sb3=True)
    counts = {
        "SAME_STEP": matches(side.frame, GYM_SAME_STEP),
        "NEXT_STEP": matches(side.frame, GYM_NEXT_STEP),
    }
    assert len(side.frame) == 3 * n * steps
    (bullet,) = [b for b in takeaways(None, side, "x") if "SAME_STEP" in b or "NEXT_STEP" in b]
    best = max(counts.values())
    assert quotes(bullet, best, n * steps), (counts, bullet)
    named = [mode for mode in counts if f"Gymnasium's {mode}" in bullet]
    if counts["SAME_STEP"] == counts["NEXT_STEP"]:  # no episode ended: nothing tells them apart
        assert not named and not first_ends(n, steps, seed), (counts, bullet)
    else:
        assert named == [max(counts, key=counts.get)], (counts, bullet)
