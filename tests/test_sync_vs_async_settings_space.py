"""Sync vs Async over the timing data a run can produce (issue 37): the page has no settings,
so its space is the rounds a run may measure. Each sentence is checked against the raw rounds:
a ranking only when they lie apart, the figures it quotes, "most" only when every round says so.
"""

from __future__ import annotations

import ast
import itertools
import statistics

from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, numbers
from test_cost_sweeps_settings_space import timing_frame

from burgerbot.app.logic.sync_vs_async import (
    LESSON,
    Bookkeeping,
    Messages,
    extra_per_env_rounds,
    overhead_text,
    speed_verdict,
    takeaways,
)
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER
from burgerbot.app.timing import call_costs, compare_backends

(N,) = LESSON.num_envs
MICRO = st.floats(1e-6, 400e-6)  # seconds per env-step: from a bare step to a slow server


def runs(frame, backend):
    return list(frame.loc[frame["backend"] == backend, "step_s_rounds"].iloc[0])


@settings(max_examples=30, deadline=None)
@given(
    spread=st.sampled_from([0.0, 0.05, 0.4]),
    seed=st.integers(0, 2**16),
    sync_us=st.floats(2, 200),
    async_us=st.floats(20, 1_000),
    plain=st.lists(MICRO, min_size=7, max_size=7),
    pickles=st.lists(st.floats(1e-6, 100e-6), min_size=5, max_size=5),
)
@example(spread=0.05, seed=0, sync_us=15, async_us=300, plain=[3e-6] * 7, pickles=[3e-6] * 5)
@example(spread=0.4, seed=1, sync_us=200, async_us=700, plain=[400e-6] * 7, pickles=[100e-6] * 5)
@example(spread=0.0, seed=2, sync_us=200, async_us=20, plain=[1e-6] * 7, pickles=[1e-6] * 5)
def test_every_sentence_follows_the_rounds(spread, seed, sync_us, async_us, plain, pickles):
    model = {"sync": lambda n: n * sync_us * 1e-6, "async": lambda n: async_us * 1e-6,
             "native": lambda n: 20e-6}  # fmt: skip
    frame = timing_frame(dict.fromkeys(model, (N,)), LESSON.steps, 0, spread, seed, model)
    sync, async_ = runs(frame, "sync"), runs(frame, "async")
    sync_fast, async_fast = max(sync) < min(async_), max(async_) < min(sync)
    # The verdict on the prediction, and the ranges it quotes (env-steps/s, from the rounds).
    truth, why = speed_verdict(frame)
    assert truth == ("SyncVectorEnv" if sync_fast else "AsyncVectorEnv" if async_fast else None)
    rates = [round(N * LESSON.steps / s) for s in (max(sync), min(sync), max(async_), min(async_))]
    assert numbers(why)[1:5] == rates, why
    if truth:
        fast, slow = (sync, async_) if sync_fast else (async_, sync)
        ratio = statistics.median(slow) / statistics.median(fast)
        figures = (ratio, min(slow) / max(fast), max(slow) / min(fast))
        assert numbers(why)[5:8] == [float(f"{x:.1f}") for x in figures], why
    bullet = takeaways(frame, None)[1]
    assert ("could not be told apart" in bullet) == (truth is None), bullet
    assert truth is None or bullet.index(truth) < bullet.index("was faster"), bullet
    # Where Async's time goes: an extra claimed only when Async lost every round, set against
    # the plain step as a ratio only when every round's extra lies apart from every plain step.
    (cost,) = call_costs(frame)
    book = Bookkeeping(N, LESSON.steps, tuple(plain), tuple(plain))
    extra = [(a - s) / LESSON.steps / N for a, s in zip(async_, sync, strict=True)]
    assert extra_per_env_rounds(frame, N) == extra
    rounds = compare_backends(frame, "async", "sync", N)
    text = overhead_text(cost, book, rounds, extra)
    assert ("more per call" in " ".join(bold(text))) == sync_fast, text
    if sync_fast:
        above, below = min(extra) > max(plain), max(extra) < min(plain)
        assert ("ratio of medians" in text) == above, text
        assert ("less than a plain BurgerBot step" in text) == below, text
        assert ("overlaps" in text) == (not above and not below), text
    # The pickling's share of the extra: "most" only when every pair of rounds says so.
    said = Messages(40, 90, statistics.median(pickles), tuple(pickles)).sentence(cost, extra)
    assert (said is None) == (cost.extra_s <= 0)
    if said and sync_fast:
        shares = [p / x for p, x in itertools.product(pickles, extra)]
        assert ("most (" in said) == (min(shares) >= 0.5), said
        assert ("the rest" in said) == (max(shares) < 0.5), said


def test_the_exercise_answer_parses_and_ranks_only_rounds_that_lie_apart():
    tree = ast.parse(EXERCISE_ANSWER)
    tests = [ast.unparse(node.test) for node in ast.walk(tree) if isinstance(node, ast.If)]
    assert "max(sync_s) < min(async_s)" in tests and "max(async_s) < min(sync_s)" in tests
