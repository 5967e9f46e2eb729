"""Learning speed over its whole settings space (issue 37): the shown scripts parse (and run
from a file at the defaults), and every sentence on a comparison follows the seeds' raw figures.

Training at the far end of a range takes minutes, so the runs are built here at the drawn
settings, shaped as `training.runs_frame` and `summarise_runs` shape them."""

from __future__ import annotations

import ast
import math

import numpy as np
import pandas as pd
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, numbers
from shown_scripts import assert_script_behaves
from spec_strategies import defaults_of, ends_of, settings_of

from burgerbot.app.logic.learning_speed import (
    SAMPLE_OPTIONS,
    SPECS,
    comparison_text,
    cost_text,
    env_steps_per_s,
    resolve_settings,
    sample_explanation,
    sample_truth,
    takeaways,
)
from burgerbot.app.scripts.learning_speed import q_learning_script, training_script
from burgerbot.training import QLearningConfig, compare_num_envs, runs_frame

DEFAULTS = defaults_of(SPECS)


def synthetic(sizes, env_steps: int, seeds: int, learn: float, spread: float, seed: int):
    """``runs_frame`` and ``summarise_runs`` frames: a seed learns with chance ``learn``, after
    one of a few env-step counts (so seeds tie or overlap), at a rate growing with NUM_ENVS."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in sizes:
        for s in range(seeds):
            reached = bool(rng.random() < learn)
            needed = n * math.ceil(env_steps * rng.choice([0.05, 0.2, 0.5, 1.0]) / n)
            rate = 3_000 * n**0.7 * rng.lognormal(0, spread)
            rows.append({"num_envs": n, "seed": s, "reached": reached,
                         "env_steps": needed if reached else None,
                         "seconds": needed / rate if reached else None,
                         "env_steps_per_s": rate})  # fmt: skip
    runs = pd.DataFrame(rows)
    summary = pd.DataFrame(
        [{"num_envs": n, "seeds": len(g), "reached": int(g["reached"].sum()),
          "env_steps": g.loc[g["reached"], "env_steps"].median()}
         for n, g in runs.groupby("num_envs", sort=True)]
    )  # fmt: skip
    return summary, runs


def needed(runs, n):
    mine = runs[runs["num_envs"] == n]
    return [s if r else math.inf for r, s in zip(mine["reached"], mine["env_steps"], strict=True)]


def apart(a, b) -> str:
    """Whether every one of ``a`` is below every one of ``b`` ("lower"), above ("higher"), or
    neither ("overlap")."""
    return "lower" if max(a) < min(b) else "higher" if min(a) > max(b) else "overlap"


@settings(max_examples=30, deadline=None)
@given(
    values=settings_of(SPECS),
    learn=st.sampled_from([0.0, 0.6, 1.0]),
    spread=st.sampled_from([0.02, 0.5]),
    seed=st.integers(0, 2**16),
)
@example(values=DEFAULTS, learn=1.0, spread=0.02, seed=0)
@example(values={**DEFAULTS, "ns": (1, 256), "seeds": 1}, learn=0.6, spread=0.5, seed=0)  # 1 seeds
@example(values={**DEFAULTS, "ns": (1, 16)}, learn=0.0, spread=0.5, seed=0)  # nothing learned
def test_every_sentence_follows_the_seeds(values, learn, spread, seed):
    train, _ = resolve_settings(values)
    ast.parse(training_script(train.num_envs_list, train.env_steps, train.seeds, train.first_seed))
    ast.parse(q_learning_script(train.num_envs_list[0], train.env_steps, train.first_seed))
    sizes, seeds = train.num_envs_list, train.seeds
    summary, runs = synthetic(sizes, train.env_steps, seeds, learn, spread, seed)
    small, large = sizes[0], sizes[-1]
    a, b = needed(runs, small), needed(runs, large)
    order = apart(b, a)
    truth = {"lower": SAMPLE_OPTIONS[0], "higher": SAMPLE_OPTIONS[1]}.get(order, SAMPLE_OPTIONS[2])
    assert sample_truth(runs, small, large) == truth
    text = sample_explanation(runs, small, large)
    assert bold(text) == [{"lower": "fewer", "higher": "more"}.get(order, "cannot tell")], text
    if order != "overlap":
        chance = 2 / math.comb(2 * seeds, seeds)
        assert ("could well be luck" in text) == (chance >= 0.05), text
    for n, got in ((small, a), (large, b)):
        part = text.split(f"NUM_ENVS={n} ")[1].split(";")[0]
        learned = sum(not math.isinf(x) for x in got)
        if 0 < learned < seeds:
            assert numbers(part)[-3:] == [learned, seeds, seeds - learned], part
        assert part.startswith("did not learn it") == (learned == 0), part
    assert "its 1 seeds" not in text
    # Throughput, smallest against largest NUM_ENVS: a verdict only when the seeds lie apart.
    rates = env_steps_per_s(runs)
    learned_ns = [n for n in sizes if any(not math.isinf(x) for x in needed(runs, n))]
    said = comparison_text(summary, runs)
    assert (said is None) == (len(sizes) < 2)
    if said and seeds > 1:
        speed = said.split("**Env-steps needed")[0]
        verdict = apart(rates[large], rates[small])
        assert ("could not be told apart" in speed) == (verdict == "overlap"), speed
        assert ("**fewer**" in speed) == (verdict == "lower"), speed
        assert ("ratio of medians" in speed) == (verdict != "overlap"), speed
        medians = [np.median([x for x in needed(runs, n) if x < math.inf]) for n in learned_ns]
        steps = np.diff(medians)
        trend = "rise" if all(steps > 0) else "fall" if all(steps < 0) else "same" if all(
            steps == 0) else "not even in order"  # fmt: skip
        assert (trend in said) == (len(medians) >= 3), said
    cost = cost_text(rates, 2.0)
    if cost and len(sizes) > 1 and seeds > 1:
        assert ("did **not** clearly fall" in cost) == (
            apart(rates[large], rates[small]) != "higher"
        )
    # The takeaway on the learner's run: its direction from the raw seeds, or none.
    bullets = takeaways(summary, runs)
    assert len(bullets) == 3 + (len(learned_ns) >= 2)
    if len(learned_ns) >= 2:
        first, last = needed(runs, learned_ns[0]), needed(runs, learned_ns[-1])
        word = {"lower": "fewer", "higher": "more"}.get(apart(last, first), "overlapped")
        assert word in bullets[-1], bullets[-1]


def test_the_scripts_parse_at_both_ends_and_run_from_a_file_at_the_defaults(tmp_path):
    for values in ends_of(SPECS):
        train, _ = resolve_settings(values)
        ast.parse(training_script(train.num_envs_list, train.env_steps, train.seeds, 0))
    train, _ = resolve_settings(DEFAULTS)
    n, steps, seed = train.num_envs_list[0], train.env_steps, train.first_seed
    out = assert_script_behaves(q_learning_script(n, steps, seed), tmp_path / "q")
    (run,) = runs_frame(
        compare_num_envs([n], [seed], QLearningConfig(env_steps=steps))
    ).itertuples()
    assert (f"learned at {run.env_steps:,} env-steps" in out) == bool(run.reached), out
    script = training_script(train.num_envs_list, steps, train.seeds, seed)
    assert "env-steps per second" in assert_script_behaves(script, tmp_path / "t")
