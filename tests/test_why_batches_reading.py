"""The "Why batches help" sentences follow the live batch: its prediction and takeaways."""

from __future__ import annotations

import pytest
from sentence_facts import quotes

from burgerbot.app.logic.why_batches import (
    calls_explanation,
    calls_options,
    calls_truth,
    takeaways,
)
from burgerbot.buffers import buffer_layout, rollout_buffer

# --- The prediction and the takeaways -------------------------------------------------------


@pytest.mark.parametrize(("batch", "n"), [(2048, 4), (2048, 1), (1000, 16), (64, 256)])
def test_the_calls_prediction_has_the_live_answer_among_four_options(batch, n):
    options = calls_options(batch, n)
    assert len(options) == len(set(options)) == 4
    frame = rollout_buffer(batch, n, seed=0)
    truth = calls_truth(frame)
    assert truth in options
    assert truth == f"{buffer_layout(batch, n).step_calls:,}"
    layout = buffer_layout(batch, n)
    explanation = calls_explanation(batch, n, layout.step_calls)
    assert quotes(explanation, batch, n, layout.step_calls)
    # an overshoot is counted only when the batch is not a multiple of N
    assert quotes(explanation, layout.collected - batch) == (batch % n != 0)


def test_the_verdict_counts_the_runs_reset_rows_to_mask_out():
    # issue 22: 2,048 rows with 4 envs: 169 reset rows (seed 0)
    frame = rollout_buffer(2048, 4, seed=0)
    resets = int((frame["event"] == "reset").sum())
    text = calls_explanation(2048, 4, 512, resets)
    assert quotes(text, 2048, 4, 512, resets)
    assert "mask" in text  # taught here, in one clause (the glossary says so)
    assert not quotes(calls_explanation(2048, 4, 512, None), resets)  # SAME_STEP: none
    assert "None of them" in calls_explanation(2048, 4, 512, 0)  # said, not left out


def test_takeaways_follow_the_batch():
    plain = takeaways(2048, 4, 512, 169)
    assert len(plain) == 5 and quotes(plain[0], 512) and quotes(plain[-1], 169)
    same_step = takeaways(2048, 4, 512, None)
    assert len(same_step) == 4 and not any(quotes(b, 169) for b in same_step)
    # one env batches nothing: the first takeaway says what 4 envs would take
    assert quotes(takeaways(2048, 1, 2048, None)[0], 2048, 4, 512)
    assert "tends to" in plain[2]  # more varied rows tend to lower the variance: no promise


def test_counts_of_one_read_in_the_singular():
    one_call = takeaways(64, 256, 1, 0)[0] + calls_explanation(64, 256, 1, 0)
    assert "1 calls" not in one_call and "1 call" in one_call
