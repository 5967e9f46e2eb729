"""Sync vs Async: the words about where a step() call's time goes follow the numbers, both ways."""

from __future__ import annotations

import doctest
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pandas as pd
import pytest
from sentence_facts import quotes

from burgerbot.app.logic import sync_vs_async as costs_view
from burgerbot.app.logic.sync_vs_async import (
    LESSON,
    SAME,
    Bookkeeping,
    Messages,
    faster_backend,
    measure_bookkeeping,
    measure_messages,
    overhead_text,
    speed_verdict,
    takeaways,
)
from burgerbot.app.timing import CallCost, TimingSettings, micros, plan

US = 1e-6


def rounds(plain: list[float], sync: list[float]) -> Bookkeeping:
    return Bookkeeping(4, 1_000, tuple(x * US for x in plain), tuple(x * US for x in sync))


def frame(rows: list[tuple[str, int, float]], steps: int = 1_000, spread=0.05) -> pd.DataFrame:
    """A run_timing-like frame: each row's three rounds are its step_s times 1 - spread, 1 and
    1 + spread (the median is step_s)."""
    return pd.DataFrame(
        [
            {
                "backend": b,
                "num_envs": n,
                "steps": steps,
                "step_s": s,
                "env_steps_per_s": n * steps / s,
                "step_s_rounds": [s * (1 - spread), s, s * (1 + spread)],
            }
            for b, n, s in rows
        ]
    )


# --- Sync's bookkeeping against a plain loop ---------------------------------------------------


def test_mostly_bookkeeping_when_sync_is_clearly_and_much_slower():
    text = rounds([3, 4, 3.5], [15, 16, 17]).sentence()
    assert "**3.5 µs** per step" in text and "**16 µs** per env-step" in text
    assert "most of Sync's time per env-step, about 78% of it, is its own bookkeeping" in text


def test_mostly_the_step_when_sync_adds_little():
    text = rounds([10, 11, 12], [14, 15, 16]).sentence()
    assert "BurgerBot's own step is most of Sync's time" in text
    assert (
        "bookkeeping adds the other 27%" in text
        and "most of Sync's time per env-step, about" not in text
    )


def test_overlapping_ranges_leave_the_answer_open():
    text = rounds([3, 4, 20], [15, 16, 17]).sentence()
    assert "overlap" in text and "bookkeeping:" not in text and "Measure again" in text


def test_a_plain_loop_slower_than_sync_is_called_noise():
    text = rounds([20, 21, 22], [15, 16, 17]).sentence()
    assert "every plain round was slower" in text and "bookkeeping:" not in text


def test_measure_bookkeeping_times_both_over_the_same_env_steps():
    result = measure_bookkeeping(num_envs=3, calls=40, rounds=3)
    assert result.num_envs == 3 and result.env_steps == 120
    assert len(result.plain_s) == len(result.sync_s) == 3
    assert all(0 < x < 0.01 for x in result.plain_s + result.sync_s)


def test_micros():
    assert [micros(x * US) for x in (0.94, 9.96, 16.4, 1250)] == [
        "0.9 µs",
        "10.0 µs",
        "16 µs",
        "1,250 µs",
    ]


# --- Async's overhead ------------------------------------------------------------------------


def test_overhead_text_when_async_is_slower_compares_with_the_plain_step():
    cost = CallCost(4, sync_s=60 * US, async_s=900 * US, native_s=20 * US)
    text = overhead_text(cost, rounds([3, 4, 3.5], [15, 16, 17]))
    assert "**60 µs** with Sync and **900 µs** with Async (20 µs with native)" in text
    assert "**840 µs more per call**, about 210 µs per env, 60× what a plain BurgerBot step" in text
    assert "cannot win back" in text
    cheap = overhead_text(CallCost(4, 60 * US, 64 * US, None), rounds([3, 4, 3.5], [15, 16, 17]))
    assert "less than a plain BurgerBot step took (3.5 µs)" in cheap and "win back" not in cheap
    assert overhead_text(cost, None).endswith("about 210 µs per env.")


def test_overhead_text_when_async_is_not_slower():
    text = overhead_text(CallCost(4, 900 * US, 800 * US, None), None)
    assert "Async was not slower per call here (100 µs less)" in text
    assert "more per call" not in text


# --- The prediction's truth and the takeaways -------------------------------


def test_the_lessons_comparison_is_4_envs_x_1000_calls_on_every_backend():
    assert TimingSettings((4,), 1_000) == LESSON
    assert plan(LESSON)[0] == {"sync": (4,), "async": (4,), "native": (4,)}


def test_speed_verdict_names_the_faster_class_either_way():
    sync_wins = frame([("sync", 4, 0.1), ("async", 4, 1.5), ("native", 4, 0.05)])
    truth, why = speed_verdict(sync_wins)
    assert truth == "SyncVectorEnv" and "SyncVectorEnv was 15.0× as fast" in why
    assert "in every round" in why
    assert "Sync 40,000 env-steps/s (rounds 38,095 to 42,105) against 2,667" in why
    async_wins = frame([("sync", 4, 2.0), ("async", 4, 0.5)])
    truth, why = speed_verdict(async_wins)
    assert truth == "AsyncVectorEnv" and "AsyncVectorEnv was 4.0× as fast" in why
    assert faster_backend(frame([("sync", 4, 1.0)])) is None
    with pytest.raises(ValueError, match="no Sync and Async rows"):
        speed_verdict(frame([("sync", 4, 1.0)]))


@pytest.mark.parametrize("slow", ["sync", "async"])
def test_overlapping_rounds_are_called_about_the_same_whichever_median_is_ahead(slow):
    # medians 1.5x apart, but one busy round of the faster backend overlaps the other's
    run = frame([("sync", 4, 0.2), ("async", 4, 0.3)], spread=0.05)
    fast = "async" if slow == "sync" else "sync"
    times = {slow: 0.3, fast: 0.2}
    rounds_of = {fast: [0.19, 0.2, 0.35], slow: [0.29, 0.3, 0.31]}
    run["step_s"] = run["backend"].map(times)
    run["step_s_rounds"] = run["backend"].map(rounds_of)
    truth, why = speed_verdict(run)
    assert truth == SAME and "too close to call" in why and "× as fast" not in why
    assert "about as fast" in takeaways(run, None)[1]


def test_takeaways_follow_the_run_or_invite_one():
    before = takeaways(None, None)
    assert len(before) == 4 and "Run the lesson's comparison" in before[1]
    lesson = frame([("sync", 4, 0.1), ("async", 4, 1.5), ("native", 4, 0.05)])
    most = takeaways(lesson, rounds([3, 4, 3.5], [15, 16, 17]))
    assert len(most) == 5
    assert "SyncVectorEnv was 15.0× as fast as AsyncVectorEnv in every round" in most[1]
    assert "bookkeeping was most of its time" in most[2]
    smaller = takeaways(lesson, rounds([10, 11, 12], [14, 15, 16]))
    assert "bookkeeping was the smaller part" in smaller[2]
    unclear = takeaways(lesson, rounds([3, 4, 20], [15, 16, 17]))
    assert len(unclear) == 4 and not any("bookkeeping" in b for b in unclear)
    async_won = takeaways(frame([("sync", 4, 2.0), ("async", 4, 0.5)]), None)
    assert "AsyncVectorEnv was 4.0× as fast as SyncVectorEnv" in async_won[1]
    assert all("this project's class, not Gymnasium's" in b for b in before[-1:])


def test_docstring_examples_run():
    assert doctest.testmod(costs_view).failed == 0


def test_overhead_text_claims_no_difference_when_the_rounds_overlap():
    cost = CallCost(4, 60e-6, 900e-6, 20e-6)
    overlap = ("similar", 0.9, "4,000 env-steps/s (rounds 1 to 9) against 4,400 (rounds 2 to 8)")
    text = overhead_text(cost, None, overlap)
    assert "no clear difference" in text and "more per call" not in text
    clear = ("slower", 0.07, "figures")
    assert "**840 µs more per call**" in overhead_text(cost, None, clear)


# --- What Async pickles per env and call --------------------------------------------------------


def test_the_pickling_sentence_follows_its_share_of_asyncs_extra_time():
    cost = CallCost(4, sync_s=60 * US, async_s=460 * US, native_s=None)  # 100 µs extra per env
    small = Messages(120, 30, 10 * US).sentence(cost)
    assert "a 120-byte message out and a 30-byte one back" in small
    assert "10% of Async's extra 100 µs per env" in small and "waking each worker" in small
    most = Messages(120, 30, 80 * US).sentence(cost)
    assert "most (80%) of Async's extra 100 µs" in most and "waking" not in most
    assert Messages(120, 30, 10 * US).sentence(CallCost(4, 460 * US, 60 * US, None)) is None


def test_measure_messages_pickles_what_async_sends_for_one_env():
    messages = measure_messages(repeats=50, rounds=3)
    action = np.int64(1)
    assert messages.out_bytes == len(ForkingPickler.dumps(("step", action)))
    # The observation comes back through shared memory: the message holds None in its place.
    assert messages.back_bytes < messages.out_bytes + 200
    assert 0 < messages.pickle_s < 0.01


def test_asyncs_extra_against_the_plain_step_is_a_ratio_only_when_their_rounds_lie_apart():
    # Sync 60 µs and Async 900 µs per call, 4 envs: 210 µs extra per env in the middle round
    run = frame([("sync", 4, 0.060), ("async", 4, 0.900)], spread=0.05)
    extra = costs_view.extra_per_env_rounds(run, 4)
    assert extra == pytest.approx([(0.855 - 0.057) / 4_000, 0.210e-3, (0.945 - 0.063) / 4_000])
    cost = CallCost(4, sync_s=60 * US, async_s=900 * US, native_s=None)
    apart = overhead_text(cost, rounds([6, 7, 8], [15, 16, 17]), None, extra)
    assert quotes(apart, 840, 210, 30) and "win back" in apart  # 210 / 7: ranges apart
    # A plain step whose rounds reach 300 µs (a noisy machine): no ratio, both ranges quoted
    noisy = overhead_text(cost, rounds([0.5, 2, 300], [15, 16, 17]), None, extra)
    assert quotes(noisy, 840, 200, 221, 0.5, 300) and not quotes(noisy, 105)
    assert "win back" not in noisy and "less than" not in noisy
    # A round where Async was not slower than Sync: no ratio either
    mixed = overhead_text(cost, rounds([6, 7, 8], [15, 16, 17]), None, [-1e-6, 200e-6])
    assert "win back" not in mixed and not quotes(mixed, 30)
    assert costs_view.extra_per_env_rounds(run[run["backend"] == "sync"], 4) == []
