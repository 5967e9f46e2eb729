"""Sync vs Async: the words about where a step() call's time goes follow the numbers, both ways."""

from __future__ import annotations

import doctest
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pandas as pd
import pytest
from sentence_facts import bold, numbers, quotes

from burgerbot.app.logic import sync_vs_async as costs_view
from burgerbot.app.logic.sync_vs_async import (
    LESSON,
    Bookkeeping,
    Messages,
    faster_backend,
    measure_bookkeeping,
    measure_messages,
    overhead_kind,
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


# --- The plain step, timed beside Sync -------------------------------------------------------


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
    plain = rounds([3, 4, 3.5], [15, 16, 17])
    assert overhead_kind(cost, plain) == "cannot_win_back"
    text = overhead_text(cost, plain)
    assert bold(text) == ["60 µs", "900 µs", "840 µs more per call"]
    assert quotes(text, 210, 60)  # Async's extra per env, 60x a plain step (ratio of medians)
    assert "cannot win back" in text  # the family's one wording check
    # the round trip is named whole: not only the pipes and waking the workers
    assert "worker's loop and step" in text and "semaphore" in text
    cheap_cost = CallCost(4, 60 * US, 64 * US, None)
    assert overhead_kind(cheap_cost, plain) == "less_than_step"
    cheap = overhead_text(cheap_cost, plain)
    assert quotes(cheap, 3.5) and "win back" not in cheap
    assert overhead_kind(cost, None) == "extra"
    assert (
        quotes(overhead_text(cost, None), 840, 210)
        and numbers(overhead_text(cost, None))[-1] == 210
    )


def test_overhead_text_when_async_is_not_slower():
    cost = CallCost(4, 900 * US, 800 * US, None)
    assert overhead_kind(cost, None) == "not_slower"
    text = overhead_text(cost, None)
    assert quotes(text, 100) and "more per call" not in text  # 100 µs less, no extra claimed


# --- The prediction's truth and the takeaways -------------------------------


def test_the_lessons_comparison_is_4_envs_x_1000_calls_on_every_backend():
    assert TimingSettings((4,), 1_000) == LESSON
    assert plan(LESSON)[0] == {"sync": (4,), "async": (4,), "native": (4,)}


def test_speed_verdict_names_the_faster_class_either_way():
    sync_wins = frame([("sync", 4, 0.1), ("async", 4, 1.5), ("native", 4, 0.05)])
    assert faster_backend(sync_wins)[:2] == ("sync", pytest.approx(15.0))
    truth, why = speed_verdict(sync_wins)
    assert truth == "SyncVectorEnv" and quotes(why, 15.0)
    assert quotes(why, 38_095, 42_105, 2_540, 2_807)  # both sides' rounds
    # the ratio's range over the rounds: slowest Sync / fastest Async to the other way round
    assert quotes(why, round(38_095 / 2_807, 1), round(42_105 / 2_540, 1))
    assert "ratio of medians is 15.0×" in why  # the family's one wording check
    async_wins = frame([("sync", 4, 2.0), ("async", 4, 0.5)])
    assert faster_backend(async_wins)[:2] == ("async", pytest.approx(4.0))
    truth, why = speed_verdict(async_wins)
    assert truth == "AsyncVectorEnv" and quotes(why, 4.0)
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
    assert faster_backend(run)[0] == "similar"
    truth, why = speed_verdict(run)
    assert truth is None and "×" not in why  # the run cannot decide: nothing is scored
    assert "could not be told apart on this server" in why
    assert not quotes(takeaways(run, None)[1], 1.5)  # no ratio claimed in the takeaway either


def test_takeaways_follow_the_run_or_invite_one():
    before = takeaways(None, None)
    assert len(before) == 4 and not numbers(before[1])  # an invitation, no figures
    lesson = frame([("sync", 4, 0.1), ("async", 4, 1.5), ("native", 4, 0.05)])
    sync_won = takeaways(lesson, rounds([3, 4, 3.5], [15, 16, 17]))
    assert len(sync_won) == 4 and quotes(sync_won[1], 4, 15.0)  # 4 BurgerBots, 15.0x
    assert sync_won[1].index("SyncVectorEnv") < sync_won[1].index("Async")
    assert quotes(sync_won[2], 3.5)  # the plain step measured beside the run
    async_won = takeaways(frame([("sync", 4, 2.0), ("async", 4, 0.5)]), None)
    assert quotes(async_won[1], 4.0)
    assert async_won[1].index("AsyncVectorEnv") < async_won[1].index("SyncVectorEnv")


def test_docstring_examples_run():
    assert doctest.testmod(costs_view).failed == 0


def test_overhead_text_claims_no_difference_when_the_rounds_overlap():
    cost = CallCost(4, 60e-6, 900e-6, 20e-6)
    overlap = ("similar", 0.9, "4,000 env-steps/s (rounds 1 to 9) against 4,400 (rounds 2 to 8)")
    assert overhead_kind(cost, None, overlap) == "overlap"
    text = overhead_text(cost, None, overlap)
    assert quotes(text, 60, 900) and not quotes(text, 840)  # no difference claimed
    assert "could not be told apart" in text
    clear = ("slower", 0.07, "figures")
    assert overhead_kind(cost, None, clear) == "extra"
    assert "840 µs more per call" in bold(overhead_text(cost, None, clear))


# --- What Async pickles per env and call --------------------------------------------------------


def test_the_pickling_sentence_follows_its_share_of_asyncs_extra_time():
    cost = CallCost(4, sync_s=60 * US, async_s=460 * US, native_s=None)  # 100 µs extra per env
    small, most = Messages(120, 30, 10 * US), Messages(120, 30, 80 * US)
    assert small.share(cost) == pytest.approx(0.1) and most.share(cost) == pytest.approx(0.8)
    assert numbers(small.sentence(cost)) == [120, 30, 10, 10]  # bytes, time, share
    assert numbers(most.sentence(cost)) == [120, 30, 80, 80]
    assert "the rest is" in small.sentence(cost)  # the family's one wording check
    assert "the rest" not in most.sentence(cost)  # most of it explained: no rest to name
    slower_sync = CallCost(4, 460 * US, 60 * US, None)
    assert small.share(slower_sync) is None and small.sentence(slower_sync) is None


def test_the_pickling_share_follows_the_rounds_spread():
    cost = CallCost(4, sync_s=60 * US, async_s=460 * US, native_s=None)  # 100 µs extra per env
    pickling = Messages(120, 30, 60 * US, (55 * US, 60 * US, 65 * US))
    # every round says most: 55/110 to 65/90
    assert pickling.share_range(cost, [90 * US, 100 * US, 110 * US]) == pytest.approx(
        (0.5, 65 / 90)
    )
    assert "most" in pickling.sentence(cost, [90 * US, 100 * US, 110 * US])
    # the extra time's rounds spread from 50 µs to 300 µs: 18% to 130%, no verdict either way
    low, high = pickling.share_range(cost, [50 * US, 100 * US, 300 * US])
    assert low < 0.5 < high
    spread = pickling.sentence(cost, [50 * US, 100 * US, 300 * US])
    assert "most (" not in spread and "the rest" not in spread and quotes(spread, 18, 130)
    # every round says less than half: the rest is named
    few = Messages(120, 30, 10 * US, (9 * US, 10 * US, 11 * US))
    assert "the rest" in few.sentence(cost, [90 * US, 100 * US, 110 * US])
    # a round where Async was not slower: the medians decide, as without rounds
    assert pickling.share_range(cost, [-5 * US, 100 * US]) == pytest.approx((0.6, 0.6))


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
    assert quotes(apart, round(200 / 8), round(221 / 6))  # and the ratio's range
    # A plain step whose rounds reach 300 µs (a noisy machine): no ratio claimed
    noisy = overhead_text(cost, rounds([0.5, 2, 300], [15, 16, 17]), None, extra)
    assert quotes(noisy, 840, 2) and not quotes(noisy, 105)
    assert "win back" not in noisy and "less than" not in noisy
    # A round where Async was not slower than Sync: no ratio either
    mixed = overhead_text(cost, rounds([6, 7, 8], [15, 16, 17]), None, [-1e-6, 200e-6])
    assert "win back" not in mixed and not quotes(mixed, 30)
    assert costs_view.extra_per_env_rounds(run[run["backend"] == "sync"], 4) == []
