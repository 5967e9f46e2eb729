"""The "Why batches help" sentences follow the live batch: its prediction, points, takeaways."""

from __future__ import annotations

import pandas as pd
import pytest
from sentence_facts import bold, quotes

from burgerbot.app.logic.why_batches import (
    batch_counts_text,
    calls_explanation,
    calls_options,
    calls_truth,
    helps_points,
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
    explanation = calls_explanation(batch, n, buffer_layout(batch, n).step_calls)
    assert ("extra" in explanation) == (batch % n != 0)


def test_the_batch_of_2048_rows_with_4_envs_counts_its_transitions_and_reset_rows():
    # issue 22: "2,048 with 4 envs took 512": 1,879 transitions and 169 reset rows (seed 0)
    frame = rollout_buffer(2048, 4, seed=0)
    resets = int((frame["event"] == "reset").sum())
    text = calls_explanation(2048, 4, 512, resets)
    assert quotes(text, 2048, 4, 512, 2048 - resets, resets)
    first = takeaways(2048, 4, 512, resets)[0]
    # the one wording check of the batch's split into transitions and reset rows
    assert f"held {2048 - resets:,} transitions and {resets:,} reset rows" in first
    assert "transitions" not in takeaways(2048, 4, 512, None)[0]


def test_takeaways_follow_the_batch():
    plain = takeaways(2048, 4, 512, 169)
    assert len(plain) == 3 and quotes(plain[0], 2048, 4, 512, 1879, 169)
    assert "NEXT_STEP" in plain[0]
    same_step = takeaways(2048, 4, 512, None)
    assert "SAME_STEP" in same_step[0] and not quotes(same_step[0], 169)


@pytest.mark.parametrize(("n", "calls"), [(4, 512), (1, 2048), (16, 128)])
def test_when_it_helps_follows_the_batch(n, calls):
    points = helps_points(2048, n, calls)
    assert len(points) == 4
    if n == 1:  # one env batches nothing: every point says what 4 envs would change
        assert quotes(points[0], 2048, 1, 4, 512)
        assert quotes(points[1], 4) and quotes(points[2], 4)
        assert not quotes(points[1], 1) and not quotes(points[2], 1)
    else:
        assert bold(points[0])[-1] == f"{calls:,}" and quotes(points[0], 2048, n)
        assert quotes(points[1], n) and quotes(points[2], n)


def test_counts_of_one_read_in_the_singular():
    # (a SAME_STEP batch of 2,048 rows with 4 envs and seed 0 holds exactly 1 goal)
    text = batch_counts_text(pd.Series({"move": 1, "turn_or_stop": 3, "hit": 1, "goal": 1}), 6, "X")
    assert "**1** move," in text and "**1** hit," in text and "**1** goal." in text
    assert "**3** turns or stops" in text
    one_call = takeaways(64, 256, 1, 0)[0] + calls_explanation(64, 256, 1, 0)
    assert "1 calls" not in one_call and "1 `step()` calls" not in helps_points(64, 256, 1)[0]
