"""From batches to training data (issue 37): what the page says of its buffer, TD targets,
episode ends and seeding holds at every mode, NUM_ENVS, step() calls, max_steps and seed its
widgets and URL allow, checked against the buffer's raw arrays (targets worked out here), not
against the helpers that wrote it."""

from __future__ import annotations

import ast
import re

import numpy as np
from hypothesis import example, given, settings
from sentence_facts import numbers, quotes
from shown_scripts import assert_script_behaves
from spec_strategies import defaults_of, ends_of, settings_of

from burgerbot.app.logic.training_data import (
    ROWS_OPTIONS,
    SPECS,
    endings,
    endings_sentence,
    resolve_settings,
    rows_answer,
    rows_explanation,
    seeding_demo,
    takeaways,
    targets_sentence,
    training_run,
)
from burgerbot.app.scripts.training_data import (
    bootstrap_fragment,
    buffer_script,
    seeding_script,
    targets_script,
)

DEFAULTS = defaults_of(SPECS)
SHORTEST = DEFAULTS | {"n": 1, "steps": 2, "max": 1}  # one end, one reset row (issue 37)


def value(obs: np.ndarray) -> np.ndarray:
    """V(obs): minus the rows and columns from the robot to the burger at (6, 6)."""
    return -(np.abs(6 - obs[..., 0]) + np.abs(6 - obs[..., 1])).astype(float)


def one_or_many(text: str, count: int, one: str, many: str) -> None:
    """The sentence says ``one`` for a count of 1 and ``many`` otherwise (and not the other)."""
    said, other = (one, many) if count == 1 else (many, one)
    assert said in text and other not in text, (count, text)


def near(text: str, *values: float) -> bool:
    """The text quotes each value to two decimals (either way at a tie: means differ in ulps)."""
    return all(any(abs(x - v) <= 0.005 + 1e-9 for x in numbers(text)) for v in values)


def check(values: dict) -> None:
    run = training_run(resolve_settings(values)[0])
    b, mode = run.buffer, run.settings.mode
    ended, size = b.terminated | b.truncated, b.rewards.size
    reset = np.zeros_like(ended)
    if mode == "NEXT_STEP":
        reset[1:] = ended[:-1]  # the call after an end resets that env
    resets, ends, real = int(reset.sum()), int(ended.sum()), size - int(reset.sum())
    # The prediction and its explanation
    assert rows_answer(run) == ROWS_OPTIONS[1 if resets else 2]
    text = rows_explanation(run)
    assert quotes(text, size) and (not resets or quotes(text, resets, ends)), text
    if resets:
        one_or_many(text, ends, "is a real transition", "are real transitions")
    elif mode == "SAME_STEP" and ends:
        one_or_many(text, ends, "row that ends", "rows that end")
    # TD targets, worked out here from the raw arrays
    targets = b.rewards + 0.9 * (1.0 - b.terminated) * value(b.next_obs)
    text = targets_sentence(run)
    if resets:
        assert np.allclose(targets[reset], 0.9 * -12.0)  # reset rows: reward 0, then the start
        kept = targets[~reset].mean()
        assert quotes(text, resets, size, -10.8) and near(text, targets.mean(), kept), text
        word = "higher" if targets.mean() > kept else "lower"
        assert np.isclose(targets.mean(), kept) or word in text, text
        one_or_many(text, resets, "target (-10.80", "targets (each -10.80")
        assert (
            re.search(rf"over the {real} real transitions?\.", text)
            .group(0)
            .endswith("transition." if real == 1 else "transitions.")
        ), text
    else:
        assert numbers(text)[0] == size and near(text, targets.mean()), text
    # Episode ends: the two wrong targets, worked out here
    term_only, trunc_only = b.terminated & ~b.truncated, b.truncated & ~b.terminated
    counts = [ends, int(term_only.sum()), int(trunc_only.sum())]
    text = endings_sentence(run, endings(run))
    if not ends:
        assert "No episode ended" in text
        return
    assert shown_ends(text) == counts, text
    after_term = int((b.terminated & (value(b.next_obs) != 0)).sum())  # + 0.9 V where 0 is right
    from_returned = int((trunc_only & (value(b.returned_obs) != value(b.next_obs))).sum())
    assert numbers(text.split("Bootstrapping")[1])[0] == after_term, text
    tail = text.split("Bootstrapping")[2]
    assert (numbers(tail)[:1] == [from_returned]) if from_returned else "changes none" in tail
    if mode == "SAME_STEP" and not from_returned and trunc_only.any():  # valued as the start
        assert "no truncated row" not in tail and (value(b.next_obs[trunc_only]) == -12).all()
    # Takeaways: the reset rows and the made-up targets, counted
    bullets = takeaways(run, seeding_demo(run.settings.seed))
    assert not resets or (quotes(bullets[0], resets, size) and quotes(bullets[1], resets))


def shown_ends(text: str) -> list[int]:
    first = text.split(".")[0]  # "This buffer holds 3 episode ends: 1 terminated, 2 truncated"
    return [int(x) for x in numbers(first)[:3]]


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS))
@example(values=DEFAULTS)
@example(values=SHORTEST)  # "the 1 row that end an episode are", "over the 1 real transitions"
@example(values=SHORTEST | {"mode": "SAME_STEP"})  # "no truncated row bootstraps" of 2 that do
@example(values={"mode": "SAME_STEP", "n": 8, "steps": 30, "max": 20, "seed": 2**31 - 1})
def test_every_sentence_follows_the_buffer(values):
    check(values)


def test_the_ends_of_every_range_and_their_scripts():
    for values in ends_of(SPECS):
        check(values)
        settings_ = resolve_settings(values)[0]
        for script in (buffer_script(settings_), targets_script(settings_)):
            ast.parse(script)
        ast.parse(seeding_script(settings_.seed))
        ast.parse(bootstrap_fragment(settings_.mode))


def test_the_seeding_sentences_follow_their_tables_at_the_far_seed():
    demo = seeding_demo(SPECS[-1].high)
    matched = demo.reset["same start as a single env's reset(seed=…)"].tolist()
    assert ("Each of the 3" in demo.reset_text) == (matched == ["s + 0", "s + 1", "s + 2"])
    same_both = demo.action["same both times"].tolist()
    assert demo.action_text.count("repeated") == sum(same_both)


def test_the_default_buffer_script_runs_from_a_file(tmp_path):
    run = training_run(resolve_settings(DEFAULTS)[0])
    out = assert_script_behaves(buffer_script(run.settings), tmp_path)
    assert f"not transitions: {int((~run.mask).sum())} of {run.mask.size} rows" in out
