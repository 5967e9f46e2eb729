"""Cost sweeps over its whole settings space (issue 37): the shown script parses, the budget
refusal and its advice hold, and every sentence on a sweep follows the sweep's raw rounds.

A live sweep at the far end of a range takes minutes, so the sweep is built here at the drawn
settings, shaped as `run_timing` shapes it (three rounds per backend and NUM_ENVS, medians)."""

from __future__ import annotations

import ast
import dataclasses

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import numbers
from spec_strategies import defaults_of, ends_of, settings_of

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.cost_sweeps import (
    PREDICTION,
    SPECS,
    check_budget,
    model_cost,
    native_remark,
    predicted_crossover,
    prediction_truth,
    resolve_settings,
    takeaways,
)
from burgerbot.app.scripts.cost_sweeps import snippet_for
from burgerbot.app.timing import plan

FINDING = {**defaults_of(SPECS)}  # the default script once held `RUNS = [` and an empty line
SPREADS = st.sampled_from([0.0, 0.05, 0.4])


def timing_frame(runs, steps: int, work_s: float, spread, seed, per_call=None):
    """A `run_timing` frame: per-call times by a rough model (or ``per_call``), each round off
    by a log-normal factor of sigma ``spread``, so that some rounds overlap and some lie apart."""
    rng = np.random.default_rng(seed)
    per_call = per_call or {
        "sync": lambda n: n * (5e-6 + work_s),
        "async": lambda n: 300e-6 + n * work_s / 2,
        "native": lambda n: 20e-6 + 5e-8 * n,
    }
    rows = []
    for backend, sizes in runs.items():
        for n in sizes:
            rounds = [steps * per_call[backend](n) * rng.lognormal(0, spread) for _ in range(3)]
            step_s = float(np.median(rounds))
            rows.append(
                {"backend": backend, "num_envs": n, "steps": steps, "work_seconds": work_s,
                 "create_s": 0.01, "reset_s": 0.0, "step_s": step_s, "close_s": 0.01,
                 "env_steps": n * steps, "env_steps_per_s": n * steps / step_s,
                 "step_s_rounds": rounds}
            )  # fmt: skip
    return pd.DataFrame(rows)


def rounds(frame: pd.DataFrame, backend: str, n: int) -> list[float] | None:
    row = frame[(frame["backend"] == backend) & (frame["num_envs"] == n)]
    return None if row.empty else list(row["step_s_rounds"].iloc[0])


def beat(frame, a: str, b: str, n: int) -> bool:
    """Every round of ``a`` took less time than every round of ``b`` (raw rounds)."""
    ra, rb = rounds(frame, a, n), rounds(frame, b, n)
    return ra is not None and rb is not None and max(ra) < min(rb)


def check_budget_advice(swept) -> None:
    runs, notes = plan(swept)
    skipped = [n for n in swept.num_envs if n > CAPS.max_async_envs]
    said = [numbers(note.split("skips")[1]) for note in notes if "skips" in note]
    assert said == ([skipped] if skipped else []), notes
    few = [n for n in swept.num_envs if n <= CAPS.max_async_envs]
    slow = sum(few) * 2 if swept.work_us else sum(few) + sum(swept.num_envs)
    native = 0 if swept.work_us else sum(swept.num_envs)
    calls = sum(map(len, runs.values())) * swept.steps
    fits = (
        slow * swept.steps <= min(CAPS.max_sync_sweep_env_steps, CAPS.max_sweep_env_steps)
        and native * swept.steps <= CAPS.max_sweep_env_steps
        and calls <= CAPS.max_sweep_step_calls
        and slow * swept.steps * swept.work_seconds <= CAPS.max_timing_work_seconds
    )
    refusal = check_budget(swept)
    assert (refusal is None) == (fits and runs != {}), refusal
    if refusal and "lower the step() calls per run to " in refusal:
        advised = int(numbers(refusal.split("lower the step() calls per run to ")[1])[0])
        assert check_budget(dataclasses.replace(swept, steps=advised)) is None, refusal


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS), spread=SPREADS, seed=st.integers(0, 2**16))
@example(values=FINDING, spread=0.05, seed=0)
@example(values={**FINDING, "work_us": 0}, spread=0.4, seed=1)
@example(values={**FINDING, "n": (9,), "work_us": 1}, spread=0.0, seed=0)  # nothing ran
def test_every_sentence_follows_the_sweep(values, spread, seed):
    swept, _ = resolve_settings(values)
    ast.parse(snippet_for(swept))
    check_budget_advice(swept)
    runs, _ = plan(swept)
    if not runs:  # refused above: nothing to time
        return
    frame = timing_frame(runs, swept.steps, swept.work_seconds, spread, seed)
    # The prediction: a verdict only when every round of one beat every round of the other.
    truth = prediction_truth(frame, swept)
    (n,) = PREDICTION.num_envs
    asks = (swept.work_kind, swept.work_us) == (PREDICTION.work_kind, PREDICTION.work_us)
    assert (truth is not None) == (asks and n in runs.get("async", ())), truth
    if truth:
        expected = ("AsyncVectorEnv" if beat(frame, "async", "sync", n)
                    else "SyncVectorEnv" if beat(frame, "sync", "async", n) else None)  # fmt: skip
        assert truth[0] == expected, truth
    # The takeaway names exactly the NUM_ENVS where Async won every round.
    said = takeaways(frame, swept, cores=2)[0]
    wins = [m for m in swept.num_envs if beat(frame, "async", "sync", m)]
    if swept.work_us:
        assert ("did not clearly beat" in said) == (not wins), said
        assert not wins or numbers(said.split("NUM_ENVS")[-1]) == wins, said
    # Native's remark: slower at the smallest N in every round, faster at the largest.
    remark = native_remark(frame)
    both = sorted(set(runs.get("native", ())) & set(runs.get("sync", ())))
    slower = len(both) > 1 and beat(frame, "sync", "native", both[0])
    assert (remark is not None) == slower, remark
    if remark:
        faster = beat(frame, "native", "sync", both[-1])
        assert ("as fast as Sync" in remark) == faster, remark
    # The model's crossover: the step cost at which both backends take as long per call.
    cost = model_cost(frame, swept)
    for kind in ("busy", "sleep") if cost else ():
        w = predicted_crossover(cost, 2, kind)
        p = cost.num_envs if kind == "sleep" else min(cost.num_envs, 2)
        if w is not None and w > 0:
            left, right = cost.sync_s + cost.num_envs * w, cost.async_s + cost.num_envs * w / p
            assert abs(left - right) <= 1e-9 * left, (kind, cost)
        assert (w is None) == (p <= 1), (kind, cost)


def test_the_shown_script_parses_at_both_ends_of_every_range():
    for values in ends_of(SPECS):
        swept, _ = resolve_settings(values)
        ast.parse(snippet_for(swept))
        check_budget_advice(swept)
