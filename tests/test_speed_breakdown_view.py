"""Speed breakdown's sentences and charts: every sentence about who is faster follows the
numbers, both ways."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import bold, numbers, quotes

from burgerbot.app.logic.speed_breakdown import (
    NO,
    PLAIN,
    PREDICTION_N,
    SETUPS,
    SIZES,
    SPECS,
    YES,
    chart_frame,
    env_story,
    forward_chart,
    forward_frame,
    forward_story,
    measure_speeds,
    phrase,
    policy_story,
    prediction_explanation,
    prediction_truth,
    sizes_for,
    speed_chart,
    speed_takeaways,
)
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.app.rates import Rate, Speeds, compare


def make_speeds(rates, forward_us=(10.0, 12.0, 15.0, 30.0), spread=0.9, sizes=SIZES) -> Speeds:
    """A measurement with made-up rates: ``rates[(loop, n, policy)]`` or a callable of them.

    Each row's three repeats are ``spread`` times the rate, the rate (the median) and the
    rate over ``spread``; vector rows have 9% auto-reset rows.
    """
    rows = []
    for policy in (False, True):
        for loop, n in [("plain", 1)] + [(lp, n) for lp in ("sync", "native") for n in sizes]:
            rate = rates(loop, n, policy) if callable(rates) else rates[(loop, n, policy)]
            share = 0.0 if loop == "plain" else 0.09
            rows.append(
                {
                    "loop": loop,
                    "num_envs": n,
                    "policy": policy,
                    "step_calls": 100,
                    "seconds": 100 * n / rate,
                    "transitions": 100 * n,
                    "transitions_per_s": rate / spread,
                    "transitions_per_s_slowest": rate * spread,
                    "transitions_per_s_median": rate,
                    "transition_rates": [rate * spread, rate, rate / spread],
                    "reset_row_share": share,
                    "env_steps_per_s": rate / (1 - share),
                    "seconds_per_call": n / rate,
                }
            )
    forwards = pd.DataFrame(
        {
            "batch_size": list(sizes),
            "calls": 100,
            "seconds_per_call": [us * 0.95e-6 for us in forward_us],  # the fastest repeat
            "seconds_per_call_slowest": [us * 1.2e-6 for us in forward_us],
            "observations_per_s": [
                n / (us * 0.95e-6) for n, us in zip(sizes, forward_us, strict=True)
            ],
            "observation_rates": [
                [n / (us * 1e-6) * f for f in (0.95, 1.0, 1 / 0.95)]
                for n, us in zip(sizes, forward_us, strict=True)
            ],
        }
    )
    return Speeds(pd.DataFrame(rows), forwards)


def like_this_server(loop, n, policy):
    """Roughly what the lesson notes measured: Sync loses stepping alone, wins with a policy."""
    if loop == "plain":
        return 30_000.0 if policy else 400_000.0
    if loop == "sync":
        per_step = 12e-6 + (15e-6 / n if policy else 0) + 30e-6 / n
        return 1 / per_step
    return n / (25e-6 + (15e-6 if policy else 0))


def sync_always_wins(loop, n, policy):
    if loop == "plain":
        return 50_000.0
    return 80_000.0 * n


def across_n(story: str) -> str:
    """The env story's sentence on Sync against the plain loop over every N measured."""
    match = re.search(r"Across N, (.*?)\.", story)
    assert match, story
    return match.group(1)


def two_sig(x: float) -> float:
    """``x`` as the sentences print it (two significant figures)."""
    return float(f"{x:.2g}")


def test_compare_reads_the_spread_both_ways():
    assert compare(Rate((300, 280)), Rate((100, 95))) == "faster"
    assert compare(Rate((100, 95)), Rate((300, 280))) == "slower"
    # repeats overlapping: too close to call, either way round
    assert compare(Rate((110, 60)), Rate((100, 70))) == "similar"
    assert compare(Rate((100, 70)), Rate((110, 60))) == "similar"
    # one disturbed repeat that overlaps makes it too close to call, however far the best runs
    assert compare(Rate((300, 290, 50)), Rate((100, 95, 98))) == "similar"


def test_phrase_names_the_faster_one_only_when_every_repeat_says_so():
    text = phrase("A", Rate((300, 250, 310)), "B", Rate((100, 90, 105)))
    # A ranking, the ratio of the medians (3x) and its range: 250 / 105 to 310 / 90.
    assert bold(text) == ["3x"] and text.index("A") < text.index("B")
    assert quotes(text, 2.4, 3.4)
    flipped = phrase("A", Rate((100, 90, 95)), "B", Rate((300, 310, 290)))
    assert bold(flipped) == ["3.2x"] and flipped.startswith("B")
    # the same best runs, one of B's repeats disturbed: no factor, no ranking, no "as fast"
    close = phrase("A", Rate((100, 90, 95)), "B", Rate((300, 310, 50)))
    assert bold(close) == [] and "faster" not in close and "as fast" not in close
    assert "told apart" in close  # the family's one wording check


repeats = st.lists(st.floats(1e3, 2e6), min_size=2, max_size=7)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(SPECS[0].low, SPECS[0].high), a=repeats, b=repeats)
@example(  # finding 4: 3.7x apart by their medians, the repeats overlapping
    n=16, a=[131_335, 60_000, 300_000], b=[19_246, 10_000, 150_000]
)
@example(  # finding 5: 10x by the medians, 1.06x at the closest pair
    n=SPECS[0].default, a=[197_280, 777_199, 1_663_841], b=[1_696, 77_713, 185_350]
)
@example(n=SPECS[0].low, a=[2e6, 2e6], b=[1e3, 1e3])
@example(n=SPECS[0].high, a=[1e3, 2e6], b=[1e3, 2e6])
def test_a_race_is_ranked_only_when_every_repeat_says_so(n, a, b):
    name = f"Sync with {n:,} envs"
    text = phrase(name, Rate(tuple(a)), "the plain loop", Rate(tuple(b)))
    fast, slow = (a, b) if min(a) > max(b) else (b, a) if min(b) > max(a) else (None, None)
    if fast is None:
        assert bold(text) == [] and "faster" not in text and "as fast" not in text
        return
    assert text.startswith(name if fast is a else "the plain loop")
    (said,) = bold(text)
    medians = float(np.median(fast) / np.median(slow))
    assert float(said.rstrip("x").replace(",", "")) == pytest.approx(medians, rel=0.05, abs=0.05)
    closest, widest = min(fast) / max(slow), max(fast) / min(slow)
    shown = numbers(text.split("ranged from")[1])
    assert shown[0] == pytest.approx(closest, rel=0.05, abs=0.05)
    assert shown[1] == pytest.approx(widest, rel=0.05, abs=0.05)


@pytest.mark.parametrize(("rates", "lost"), [(like_this_server, True), (sync_always_wins, False)])
def test_env_story_follows_the_data(rates, lost):
    speeds = make_speeds(rates)
    story = env_story(speeds, 16)
    sync, plain = speeds.rate("sync", 16), speeds.rate("plain")
    # the race at 16 envs, as `phrase` puts it (its wording is checked once, above)
    assert compare(sync, plain) == ("slower" if lost else "faster")
    assert phrase("Sync with 16 envs", sync, "the plain loop", plain) in story
    assert ("bookkeeping" in story) == lost
    across = across_n(story)
    assert ("slower" if lost else "faster") in across and "every N" in across
    assert quotes(across, 1, 64)  # N = 1 to 64, every size measured


def policy_hurts_sync(loop, n, policy):
    """Sync loses with the policy too, and falls with N."""
    if loop == "plain":
        return 100_000.0 if policy else 400_000.0
    return 1_000.0 * (5 - n / 20) if loop == "sync" else 1e6


@pytest.mark.parametrize(
    ("rates", "truth"),
    [(like_this_server, YES), (sync_always_wins, YES), (policy_hurts_sync, NO)],
)
def test_the_prediction_is_the_race_with_the_policy(rates, truth):
    speeds = make_speeds(rates)
    assert prediction_truth(speeds) == truth
    sync, plain = speeds.rate("sync", 16, True), speeds.rate("plain", 1, True)
    assert compare(sync, plain) == ("faster" if truth == YES else "slower")
    explanation = prediction_explanation(speeds)
    assert quotes(explanation, round(sync.median), round(plain.median))
    assert ("still came out ahead" in explanation) == (truth == NO)
    assert ("paid for its cost per call" in explanation) == (truth == YES)


def test_a_close_race_is_called_close():
    def close(loop, n, policy):
        return 100_000.0 if loop in ("plain", "sync") else 200_000.0

    speeds = make_speeds(close, spread=0.7)
    assert compare(speeds.rate("sync", 16), speeds.rate("plain")) == "similar"
    story = env_story(speeds, 16)
    assert bold(story) == [] and "told apart" in story  # no factor for either race
    assert "never clearly faster" in across_n(story)
    assert "told apart" in prediction_explanation(speeds)
    assert prediction_truth(speeds) is None  # nothing to score


def test_env_story_reports_where_sync_overtakes():
    def overtakes(loop, n, policy):
        return 100_000.0 if loop == "plain" else 20_000.0 * n

    story = env_story(make_speeds(overtakes), 16)
    across = across_n(story)
    assert "faster" in across and "only" in across
    # 20,000 x N beats 100,000 (repeats 10% apart) from N = 16 on; the sizes are 1, 4, 16, 64
    assert SIZES == (1, 4, 16, 64) and quotes(across, 16, 64) and not quotes(across, 4)


def test_per_env_step_cost_is_computed_from_the_rates():
    story = env_story(make_speeds(like_this_server), 4)
    sync_us = 1e6 / like_this_server("sync", 4, False)
    plain_us = 1e6 / like_this_server("plain", 1, False)  # 2.5 µs
    extra = sync_us - plain_us
    assert quotes(story, two_sig(sync_us), plain_us, two_sig(extra), two_sig(extra / plain_us))
    # the one wording check of the bookkeeping sentence
    assert (
        f"bookkeeping added about {extra:.2g} µs per transition, {extra / 2.5:.2g} times" in story
    )


def test_a_noisy_bookkeeping_figure_says_it_is_rough():
    # Finding 10: the repeats spread far more than 2x (here 0.4x to 2.5x each median): the
    # figure comes with the repeats' range and no multiple of the plain loop's time.
    def far_apart(loop, n, policy):  # the plain loop 10x faster by the medians
        return 500_000.0 if loop == "plain" else 50_000.0

    speeds = make_speeds(far_apart, spread=0.4)
    sync, plain = speeds.rate("sync", 4), speeds.rate("plain")
    story = env_story(speeds, 4)
    assert compare(sync, plain) == "slower"  # 200,000+ against at most 125,000
    said = story.split("bookkeeping")[1]
    assert quotes(said, round(min(sync.samples)), round(max(sync.samples)))
    assert quotes(said, round(min(plain.samples)), round(max(plain.samples)))
    assert "times the plain loop" not in said


def test_env_story_states_the_reset_rows_left_out_of_the_transitions():
    speeds = make_speeds(like_this_server)
    story = env_story(speeds, 16)
    (share,) = set(speeds.loops.loc[speeds.loops["loop"] == "sync", "reset_row_share"])
    assert quotes(story, 16, round(100 * share, 1)) and "auto-reset" in story


def test_policy_story_says_sync_turned_the_race_only_when_it_did():
    speeds = make_speeds(like_this_server)
    story = policy_story(speeds, 16)
    sync, plain = speeds.rate("sync", 16, True), speeds.rate("plain", 1, True)
    assert compare(sync, plain) == "faster" and compare(*alone_rates(speeds)) == "slower"
    assert story.startswith("With the policy choosing every action, ")
    assert phrase("Sync with 16 envs", sync, "the plain loop", plain) in story
    # the race turned: the one wording check of that sentence
    assert "The Sync that did not win on stepping alone won once each call also paid" in story
    sync_1, sync_64 = (like_this_server("sync", n, True) for n in (1, 64))
    assert trend(story) == "rose" and quotes(story, round(sync_1), round(sync_64))
    story = policy_story(make_speeds(sync_always_wins), 16)
    assert "did not win" not in story  # Sync won stepping alone too: nothing turned

    speeds = make_speeds(policy_hurts_sync)
    story = policy_story(speeds, 16)
    sync, plain = speeds.rate("sync", 16, True), speeds.rate("plain", 1, True)
    assert compare(sync, plain) == "slower"
    assert phrase("Sync with 16 envs", sync, "the plain loop", plain) in story
    assert "did not win" not in story
    assert trend(story) == "fell"


def alone_rates(speeds: Speeds):
    """Sync at 16 envs and the plain loop, stepping alone (no policy)."""
    return speeds.rate("sync", 16), speeds.rate("plain")


def policy_rates(speeds: Speeds):
    """Sync at 16 envs and the plain loop, with the policy picking every action."""
    return speeds.rate("sync", 16, True), speeds.rate("plain", 1, True)


def trend(story: str) -> str:
    """Whether the policy story says Sync's transitions per second rose or fell with N."""
    match = re.search(r"Sync's (rose|fell|did not clearly change)", story)
    assert match, story
    return match.group(1)


def test_forward_story_follows_the_cost_growth():
    flat = make_speeds(like_this_server, forward_us=(10, 11, 12, 20)).forwards
    text = forward_story(flat)
    # 20 µs for 64 observations, 10 µs for 1: 64 times the observations for 2 times the time
    assert quotes(text, 20, 64, 10, 1, 2)
    assert bold(text) == [f"{64 / 2:.0f} times less"]  # each observation's cost, 64 / 2
    proportional = make_speeds(like_this_server, forward_us=(10, 40, 160, 640)).forwards
    text = forward_story(proportional)
    assert bold(text) == [] and "not clearly" in text and quotes(text, 640, 64, 10, 1)


def test_takeaways_carry_the_measured_ratios():
    speeds = make_speeds(like_this_server, forward_us=(10, 11, 12, 25))
    alone, with_policy = speed_takeaways(speeds)
    assert compare(*alone_rates(speeds)) == "slower"
    ratio = like_this_server("sync", PREDICTION_N, False) / 400_000
    # the one wording check of the takeaway's ratio
    assert f"Sync with 16 envs ran at {ratio:.2g}x the plain loop's speed" in alone
    assert "does not speed up" in alone and "already paid" not in alone
    faster, _ = speed_takeaways(make_speeds(sync_always_wins))
    assert "already paid" in faster and "does not speed up" not in faster
    observations = 64 / (25e-6) / (1 / 10e-6)  # the forward pass's observations per second
    assert quotes(with_policy, 64, float(f"{observations:.0f}"))  # 26x less each
    ratio = like_this_server("sync", PREDICTION_N, True) / 30_000
    assert quotes(with_policy, PREDICTION_N, two_sig(ratio))


def test_the_policy_takeaway_says_so_only_when_the_cheaper_batch_and_syncs_win_agree():
    """A cheaper batch (25 µs for 64 observations, 10 µs for 1) with Sync winning reads as
    cause and effect; with Sync losing, or a batch no cheaper, it must not."""
    agree = speed_takeaways(make_speeds(like_this_server, forward_us=(10, 11, 12, 25)))[1]
    assert compare(*policy_rates(make_speeds(like_this_server))) == "faster"
    assert ", so with a policy" in agree
    loses = speed_takeaways(make_speeds(policy_hurts_sync, forward_us=(10, 11, 12, 25)))[1]
    assert compare(*policy_rates(make_speeds(policy_hurts_sync))) == "slower"
    assert ", so " not in loses
    flat = speed_takeaways(make_speeds(like_this_server, forward_us=(10, 100, 300, 640)))[1]
    assert "not clearly cheaper" in flat and ", so " not in flat


def test_sizes_always_hold_the_prediction_and_the_chosen_n():
    assert PREDICTION_N in SIZES and 1 in SIZES
    assert sizes_for(100) == (*SIZES, 100) and sizes_for(4) == SIZES


def test_measure_speeds_measures_every_size_with_and_without_the_policy():
    speeds = measure_speeds(6, seconds=0.001, repeats=2)
    assert speeds.sizes() == [1, 4, 6, 16, 64]
    assert speeds.forwards["batch_size"].tolist() == [1, 4, 6, 16, 64]
    for policy in (False, True):
        assert speeds.rate("plain", 1, policy).best > 0
        assert speeds.rate("native", 6, policy).slowest > 0
    with pytest.raises(KeyError):
        speeds.rate("sync", 7)


def test_speed_chart_is_one_panel_per_stepping_with_okabe_ito_colours_and_shapes():
    frame = chart_frame(make_speeds(like_this_server))
    assert set(frame["setup"]) == set(SETUPS) and len(frame) == 2 * (1 + 2 * len(SIZES))
    spec = speed_chart(frame).to_dict()
    assert spec["facet"]["row"]["field"] == "stepping"
    layers = spec["spec"]["layer"]
    assert [layer["mark"]["type"] for layer in layers] == ["rule", "line", "point"]
    colour = layers[2]["encoding"]["color"]["scale"]
    assert colour["domain"] == list(SETUPS) and set(colour["range"]) <= set(OKABE_ITO)
    assert layers[2]["encoding"]["shape"]["scale"]["range"] == list(SHAPES[:3])
    assert layers[0]["transform"] == [{"filter": f"(datum.setup === '{PLAIN}')"}]
    assert layers[0]["mark"]["strokeDash"] == [6, 4]
    assert spec["spec"]["layer"][1]["encoding"]["y"]["scale"]["type"] == "log"


def test_forward_chart_shows_the_measured_cost_against_cost_in_proportion():
    forwards = make_speeds(like_this_server, forward_us=(10, 11, 12, 20)).forwards
    frame = forward_frame(forwards)
    proportional = frame[frame["series"] != "measured"]["us_per_call"].tolist()
    assert proportional == [10, 40, 160, 640]
    # The medians of the repeats, as the sentence beside the chart quotes them.
    assert frame[frame["series"] == "measured"]["us_per_call"].tolist() == [10, 11, 12, 20]
    assert forward_story(forwards).startswith("One forward pass of the policy took 20")
    spec = forward_chart(frame).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "point"]
    encoding = spec["layer"][0]["encoding"]
    assert set(encoding["color"]["scale"]["range"]) <= set(OKABE_ITO)
    assert encoding["strokeDash"]["scale"]["range"] == [[1, 0], [6, 4]]
    assert encoding["y"]["title"] == "µs per pass (log)"  # shorter than the plot is tall
