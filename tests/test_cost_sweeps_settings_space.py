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
    crossover_text,
    model_cost,
    native_remark,
    predicted_crossover,
    prediction_truth,
    resolve_settings,
    speedup_text,
    takeaways,
    whole_us,
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
@given(
    values=settings_of(SPECS), spread=SPREADS, seed=st.integers(0, 2**16), cores=st.integers(1, 8)
)
@example(values=FINDING, spread=0.05, seed=0, cores=2)
@example(values={**FINDING, "work_us": 0}, spread=0.4, seed=1, cores=2)
@example(values={**FINDING, "n": (9,), "work_us": 1}, spread=0.0, seed=0, cores=2)  # nothing ran
@example(values={**FINDING, "work_us": 0}, spread=0.0, seed=0, cores=1)  # "1 core(s)"
@example(values={**FINDING, "n": (1, 2), "work_kind": "busy"}, spread=0.0, seed=0, cores=8)
def test_every_sentence_follows_the_sweep(values, spread, seed, cores):
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
    said = takeaways(frame, swept, cores)[0]
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
    check_speedup(frame, swept, cores, wins)
    check_crossover(model_cost(frame, swept), cores)
    assert numbers(takeaways(frame, swept, cores)[2].split("),")[1])[0] == cores


def check_speedup(frame, swept, cores: int, wins: list[int]) -> None:
    """With a step cost: Async's wins, its largest speed-up (of medians, with its range over
    the rounds) and the busy ceiling, against the raw rounds."""
    text = speedup_text(frame, swept.work_us, swept.work_kind, cores)
    both = [m for m in swept.num_envs if rounds(frame, "sync", m) and rounds(frame, "async", m)]
    assert (text is None) == (not both), text
    if text is None:
        return
    verdict, rest = text.split(" The largest speed-up")
    assert ("did not clearly beat" in verdict) == (not wins), verdict
    assert not wins or numbers(verdict.split("NUM_ENVS")[-1]) == wins, verdict
    ups = {
        m: np.median(rounds(frame, "sync", m)) / np.median(rounds(frame, "async", m)) for m in both
    }
    best = max(ups, key=ups.__getitem__)
    sync, fast = rounds(frame, "sync", best), rounds(frame, "async", best)
    ratio, at, low, high = numbers(rest)[:4]
    assert (ratio, at) == (round(ups[best], 2), best), rest
    assert (low, high) == (round(min(sync) / max(fast), 2), round(max(sync) / min(fast), 2)), rest
    if swept.work_kind == "busy":
        assert numbers(rest.split("at most")[1])[0] == min(max(both), cores), rest


def check_crossover(cost, cores: int) -> None:
    """The model's thresholds as shown, and how many workers compute at once."""
    text = crossover_text(cost, cores)
    if cost is None:
        return
    busy, sleep = (predicted_crossover(cost, cores, kind) for kind in ("busy", "sleep"))
    assert (f"above about **{whole_us(busy)}**" in text) if busy is not None else "never" in text
    assert (
        (f"above about **{whole_us(sleep)}**" in text)
        if sleep is not None
        else "**sleep**" not in text
    )
    if busy is not None:
        line = text.split("- **busy**")[1].split("\n")[0]
        at_once = min(cost.num_envs, cores)
        assert numbers(line.split("At best Async is")[1])[:4] == [
            at_once,
            at_once,
            cost.num_envs,
            cores,
        ], line


def test_the_shown_script_parses_at_both_ends_of_every_range():
    for values in ends_of(SPECS):
        swept, _ = resolve_settings(values)
        ast.parse(snippet_for(swept))
        check_budget_advice(swept)
