"""Home's logic: the counts beside the timings, the one timing-comparison wording, and the
prediction's answer, each following the numbers both ways (made-up repeats and a real run)."""

from __future__ import annotations

import statistics
from datetime import UTC, datetime

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sentence_facts import quotes

from burgerbot.app.logic.home import (
    BOTH,
    COLUMNS,
    FORWARD,
    NEITHER,
    NUM_ENVS,
    OPTIONS,
    STEPPING,
    TRANSITIONS,
    Costs,
    cost_table,
    measure_costs,
    prediction_explanation,
    prediction_truth,
    ranking,
    run_caption,
    saver,
)
from burgerbot.app.measured import Measured
from burgerbot.speed import calls_to_collect

SYNC_CALLS = 68


def make_costs(ms: dict[tuple[str, str], list[float]]) -> Costs:
    """Made-up repeats, milliseconds per 1,000 transitions, by (loop, part)."""
    rows = [
        {
            "loop": loop,
            "num_envs": 1 if loop == "plain" else NUM_ENVS,
            "part": part,
            "calls": TRANSITIONS if loop == "plain" else SYNC_CALLS,
            "seconds": [x / 1000 for x in samples],
        }
        for (loop, part), samples in ms.items()
    ]
    return Costs(pd.DataFrame(rows))


# Roughly this server: Sync steps 4x slower, its forward passes 10x cheaper.
TYPICAL = {
    ("plain", "stepping"): [0.45, 0.46, 0.48],
    ("plain", "forward"): [9.7, 10.0, 11.0],
    ("sync", "stepping"): [1.9, 2.0, 2.1],
    ("sync", "forward"): [0.95, 1.0, 1.1],
}
OVERLAP = [1.0, 1.5, 2.0]


def with_parts(stepping: str, forward: str) -> Costs:
    """Sync 'less', 'more' or 'overlap' time than the plain loop on each part."""
    samples = {"less": [1.0, 1.1, 1.2], "more": [3.0, 3.3, 3.6], "overlap": OVERLAP}
    plain = [1.4, 1.6, 1.9]
    return make_costs(
        {
            ("plain", "stepping"): plain,
            ("plain", "forward"): plain,
            ("sync", "stepping"): samples[stepping],
            ("sync", "forward"): samples[forward],
        }
    )


@pytest.mark.parametrize(
    ("stepping", "forward", "truth"),
    [
        ("more", "less", FORWARD),
        ("less", "less", BOTH),
        ("less", "more", STEPPING),
        ("more", "more", NEITHER),
        ("overlap", "less", None),
        ("more", "overlap", None),
    ],
)
def test_the_answer_is_an_option_only_when_both_parts_could_be_told_apart(stepping, forward, truth):
    costs = with_parts(stepping, forward)
    assert prediction_truth(costs) == truth
    assert truth is None or truth in OPTIONS
    explanation = prediction_explanation(costs)
    # one sentence per part, each a ranking or "could not be told apart"
    assert explanation.count("could not be told apart") == [stepping, forward].count("overlap")
    assert ("Measure again" in explanation) == (truth is None)


def test_saver_names_the_loop_whose_every_repeat_took_less_time():
    costs = make_costs(TYPICAL)
    assert saver(costs, "stepping") == "plain" and saver(costs, "forward") == "sync"
    assert saver(costs, "both") == "sync"  # 10.2-11.5 ms against 2.9-3.2 ms
    assert prediction_truth(costs) == FORWARD


samples = st.lists(st.floats(0.01, 100.0), min_size=2, max_size=7)


@given(samples, samples)
def test_ranking_ranks_only_without_overlap_and_quotes_the_ratio_of_medians(a, b):
    text = ranking("Sync", a, "the plain loop", b)
    if max(a) < min(b) or max(b) < min(a):
        slow, fast = (a, b) if min(a) > max(b) else (b, a)
        ratio = statistics.median(slow) / statistics.median(fast)
        low, high = min(slow) / max(fast), max(slow) / min(fast)
        assert "ratio of medians" in text
        assert text.startswith("Sync took" if slow is a else "the plain loop took")
        expected = [float(f"{x:.2g}") if x < 10 else round(x) for x in (ratio, low, high)]
        assert quotes(text, *expected)
        assert low <= ratio <= high
    else:
        assert text == "Sync and the plain loop could not be told apart on this server"


def test_the_table_puts_each_count_beside_its_timing():
    costs = make_costs(TYPICAL)
    table = cost_table(costs)
    assert list(table.columns) == list(COLUMNS.values())
    assert table.index.name == "Per 1,000 transitions"
    plain, sync = table[COLUMNS["plain"]], table[COLUMNS["sync"]]
    assert plain["step() calls"] == plain["Forward passes"] == "1,000"
    assert sync["step() calls"] == sync["Forward passes"] == str(SYNC_CALLS)
    assert plain["Stepping, CPU ms"] == "0.46 (0.45–0.48)"
    assert sync["Forward passes, CPU ms"] == "1 (0.95–1.1)"
    # both: each round's stepping and forward repeats added
    assert costs.ms("sync", "both") == pytest.approx((2.85, 3.0, 3.2))
    assert sync["Both, CPU ms"] == "3 (2.85–3.2)"


def test_the_caption_says_whose_run_it_was_and_when():
    record = Measured(datetime(2026, 12, 5, 9, 30, 7, tzinfo=UTC), 1.0, "vm", 2, "3.12", ())
    assert run_caption(record) == "Your run, started at 09:30:07 UTC on this server (2 cores)."


def test_a_real_run_counts_without_timing_and_times_every_part_five_times():
    costs = measure_costs(seconds=0.002, repeats=5)
    assert costs.calls("plain") == costs.calls("plain", "forward") == TRANSITIONS
    # Sync: a seeded count, the same in every run; a little over 1,000 / 16 calls
    assert costs.calls("sync") == costs.calls("sync", "forward") == calls_to_collect(NUM_ENVS)
    assert TRANSITIONS / NUM_ENVS < costs.calls("sync") < 1.2 * TRANSITIONS / NUM_ENVS
    for loop in ("plain", "sync"):
        for part in ("stepping", "forward", "both"):
            assert len(costs.ms(loop, part)) == 5 and min(costs.ms(loop, part)) > 0
    assert prediction_truth(costs) in (*OPTIONS, None)


def test_calls_to_collect_is_a_count_no_timing_changes():
    assert calls_to_collect(16) == calls_to_collect(16) == SYNC_CALLS
    assert calls_to_collect(1, 50) >= 50  # one env: some rows start a new episode
