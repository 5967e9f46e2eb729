"""Why batches help (issue 37): what the page says of its batch holds at every NUM_ENVS, batch
size, auto-reset mode and seed its widgets and URL allow, checked against the live rollout's
raw rows, not against the helpers that wrote it."""

from __future__ import annotations

import ast
import math
import re

from hypothesis import example, given, settings
from sentence_facts import numbers, quotes
from shown_scripts import assert_script_behaves
from spec_strategies import defaults_of, ends_of, settings_of

from burgerbot.app.logic.why_batches import (
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    SPECS,
    buffer_drawing,
    calls_explanation,
    calls_options,
    calls_question,
    calls_truth,
    drawn_text,
    resolve_settings,
    takeaways,
)
from burgerbot.app.scripts.why_batches import buffer_script
from burgerbot.buffers import buffer_layout, rollout_buffer

DEFAULTS = defaults_of(SPECS)


def noun_after(text: str, count: int) -> list[str]:
    """The words right after ``count`` wherever the text quotes it."""
    return re.findall(rf"(?<![\d.,]){count:,} (\w+)", text)


def check(values: dict) -> None:
    batch, _ = resolve_settings(values)
    n, size, mode = batch.num_envs, batch.batch_size, batch.mode
    frame = rollout_buffer(size, n, batch.seed, mode)
    calls = math.ceil(size / n)  # the rule, worked out here
    assert len(frame) == calls * n and calls_truth(frame) == f"{calls:,}"
    ended = (frame["terminated"] | frame["truncated"]).to_numpy().reshape(calls, n)
    resets = int(ended[:-1].sum()) if mode == "NEXT_STEP" else None  # the call after an end
    question = calls_question(size, n)
    assert quotes(question, size, n) and noun_after(question, n)[-1] == (
        "env" if n == 1 else "envs"
    )
    options = calls_options(size, n)
    assert len(set(options)) == 4 and f"{calls:,}" in options
    assert [numbers(o)[0] for o in options] == sorted(numbers(o)[0] for o in options)
    text = calls_explanation(size, n, calls, resets)
    assert quotes(text, size, n, calls), text
    over = calls * n - size
    if over:  # "(1 row too many)", "(3 rows too many)"
        assert re.search(rf"\({over:,} rows? too many\)", text).group(0) == (
            f"({over:,} row{'s' * (over != 1)} too many)"
        ), text
    if resets:
        (verb,) = re.findall(rf"{resets:,} of the {calls * n:,} rows (\w+)", text)
        assert verb == ("was" if resets == 1 else "were"), text
    assert ("None of them" in text) == (resets == 0), text
    bullets = takeaways(size, n, calls, resets)
    assert quotes(bullets[0], calls) and (n > 1 or quotes(bullets[0], math.ceil(size / 4)))
    assert "tends to" in bullets[2] and "less noisy" in bullets[2]  # the lesson's hedge
    assert len(bullets) == 4 + bool(resets)
    if resets:
        assert quotes(bullets[-1], resets) and (" was " in bullets[-1]) == (resets == 1)
    shown = drawn_text(buffer_layout(size, n), buffer_drawing(buffer_layout(size, n)))
    drawn_calls, drawn_envs = min(calls, MAX_DRAWN_STEPS), min(n, MAX_DRAWN_ENVS)
    calls_part, envs_part = shown.split(", ")
    for part, count, drawn in ((calls_part, calls, drawn_calls), (envs_part, n, drawn_envs)):
        assert quotes(part, drawn) if count > 1 else "single" in part, shown
    assert ("first" in calls_part) == (drawn_calls < calls), shown
    assert ("first" in envs_part) == (drawn_envs < n), shown
    ast.parse(buffer_script(size, n, batch.seed, mode))


@settings(max_examples=30, deadline=None)
@given(values=settings_of(SPECS))
@example(values=DEFAULTS)  # the lesson's batch: "tends to make each update less noisy"
@example(values=DEFAULTS | {"n": 2, "batch": 65})  # "(1 rows too many)" before issue 37
@example(values=DEFAULTS | {"n": 8, "batch": 64, "bseed": 24})  # "1 of the 64 rows were"
@example(values=DEFAULTS | {"n": 256, "batch": 64, "mode": "SAME_STEP", "bseed": 9999})
@example(values=DEFAULTS | {"n": 1, "batch": 16384, "bseed": 9999})
def test_every_sentence_follows_the_live_batch(values):
    check(values)


def test_the_ends_of_every_range():
    for values in ends_of(SPECS):
        check(values)


def test_the_default_script_runs_from_a_file_and_prints_the_pages_batch(tmp_path):
    out = assert_script_behaves(buffer_script(), tmp_path)
    frame = rollout_buffer(2048, 4, 0, "NEXT_STEP")
    resets = int((frame["event"] == "reset").sum())
    assert "step() calls: 512 | buffer shape: (512, 4)" in out
    assert f"reset rows to mask out: {resets} | transitions: {2048 - resets}" in out
