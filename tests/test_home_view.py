"""Home's views and charts: every sentence about who is faster follows the numbers, both ways."""

from __future__ import annotations

import pandas as pd
import pytest

from burgerbot.app.logic.home import (
    NO,
    PLAIN,
    PREDICTION_N,
    SETUPS,
    SIZES,
    YES,
    Rate,
    Speeds,
    chart_frame,
    compare,
    env_story,
    forward_chart,
    forward_frame,
    forward_story,
    measure_speeds,
    metric_delta,
    phrase,
    policy_story,
    prediction_explanation,
    prediction_truth,
    sizes_for,
    speed_chart,
    speed_takeaways,
)
from burgerbot.app.palette import OKABE_ITO, SHAPES


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
            "seconds_per_call": [us * 1e-6 for us in forward_us],
            "seconds_per_call_slowest": [us * 1.2e-6 for us in forward_us],
            "observations_per_s": [
                n / (us * 1e-6) for n, us in zip(sizes, forward_us, strict=True)
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


def test_compare_reads_the_spread_both_ways():
    assert compare(Rate((300, 280)), Rate((100, 95))) == "faster"
    assert compare(Rate((100, 95)), Rate((300, 280))) == "slower"
    # repeats overlapping: too close to call, either way round
    assert compare(Rate((110, 60)), Rate((100, 70))) == "similar"
    assert compare(Rate((100, 70)), Rate((110, 60))) == "similar"
    # one disturbed repeat that overlaps makes it too close to call, however far the best runs
    assert compare(Rate((300, 290, 50)), Rate((100, 95, 98))) == "similar"


def test_phrase_names_the_faster_one_only_when_every_repeat_says_so():
    assert phrase("A", Rate((300, 250, 310)), "B", Rate((100, 90, 105))) == (
        "A was **3x faster** than B in every repeat: 300 transitions/s (repeats 250 to 310) "
        "against 100 (repeats 90 to 105)"
    )
    assert phrase("A", Rate((100, 90, 95)), "B", Rate((300, 310, 290))).startswith(
        "B was **3.2x faster** than A in every repeat: 300 transitions/s"
    )
    # the same best runs, one of B's repeats disturbed: no factor
    close = phrase("A", Rate((100, 90, 95)), "B", Rate((300, 310, 50)))
    assert close == (
        "A and B were about as fast, their repeats overlapping: 95 transitions/s (repeats 90 "
        "to 100) against 300 (repeats 50 to 310)"
    )
    assert "faster" not in close


@pytest.mark.parametrize(
    ("rates", "truth", "faster"),
    [
        (like_this_server, NO, "the plain loop was"),
        (sync_always_wins, YES, "Sync with 16 envs was"),
    ],
)
def test_prediction_and_env_story_follow_the_data(rates, truth, faster):
    speeds = make_speeds(rates)
    assert prediction_truth(speeds) == truth
    story = env_story(speeds, 16)
    assert story.startswith(f"With random actions, {faster} **")
    assert ("bookkeeping added" in story) == (truth == NO)
    if truth == NO:
        assert "Sync was slower than the plain loop at every N measured (N = 1 to 64)" in story
        sync_us = 1e6 / like_this_server("sync", 16, False)
        assert f"that is {sync_us:.2g} µs for Sync against 2.5 µs" in prediction_explanation(speeds)
    else:
        assert "Sync was faster than the plain loop at every N measured" in story
        assert "Sync came out ahead even without a policy" in prediction_explanation(speeds)


def test_a_close_race_is_called_close():
    def close(loop, n, policy):
        return 100_000.0 if loop in ("plain", "sync") else 200_000.0

    speeds = make_speeds(close, spread=0.7)
    assert "Sync with 16 envs and the plain loop were about as fast" in env_story(speeds, 16)
    assert "too close to call" in prediction_explanation(speeds)


def test_env_story_reports_where_sync_overtakes():
    def overtakes(loop, n, policy):
        return 100_000.0 if loop == "plain" else 20_000.0 * n

    story = env_story(make_speeds(overtakes), 16)
    assert "Sync was faster than the plain loop at N = 16, 64 only" in story


def test_per_env_step_cost_is_computed_from_the_rates():
    story = env_story(make_speeds(like_this_server), 4)
    sync_us = 1e6 / like_this_server("sync", 4, False)
    assert f"Sync spent {sync_us:.2g} µs and the plain loop 2.5 µs" in story
    extra = sync_us - 2.5
    assert f"bookkeeping added {extra:.2g} µs per transition, {extra / 2.5:.2g} times" in story


def test_env_story_states_the_reset_rows_left_out_of_the_transitions():
    story = env_story(make_speeds(like_this_server), 16)
    assert "returned 16 rows" in story and "9.0% of Sync's were" in story


def test_policy_story_says_sync_turned_the_race_only_when_it_did():
    story = policy_story(make_speeds(like_this_server), 16)
    assert story.startswith("With the policy choosing every action, Sync with 16 envs was **")
    assert "The Sync that did not win on stepping alone won once each call also paid" in story
    sync_1, sync_64 = (like_this_server("sync", n, True) for n in (1, 64))
    assert f"Sync's rose from {sync_1:,.0f} (N = 1) to {sync_64:,.0f} (N = 64)" in story
    story = policy_story(make_speeds(sync_always_wins), 16)
    assert "The Sync that did not win" not in story

    def policy_hurts_sync(loop, n, policy):
        if loop == "plain":
            return 100_000.0 if policy else 400_000.0
        return 1_000.0 * (5 - n / 20) if loop == "sync" else 1e6

    story = policy_story(make_speeds(policy_hurts_sync), 16)
    assert "the plain loop was **" in story and "The Sync that did not win" not in story
    assert "Transitions per second (medians): Sync's fell from" in story


def test_forward_story_follows_the_cost_growth():
    flat = make_speeds(like_this_server, forward_us=(10, 11, 12, 20)).forwards
    text = forward_story(flat)
    assert "20 µs for 64 observations and 10 µs for 1 (medians of the repeats): 64 " in text
    assert "64 times the observations for 2 times the time" in text
    assert "each observation cost **32 times less**" in text
    proportional = make_speeds(like_this_server, forward_us=(10, 40, 160, 640)).forwards
    assert "did not clearly make each observation cheaper" in forward_story(proportional)


def test_metric_delta_points_the_way_the_numbers_go():
    assert metric_delta(Rate((50, 45)), Rate((200, 190))) == (
        "0.24x the plain loop",
        "down",
        "orange",
    )
    assert metric_delta(Rate((900, 850)), Rate((200, 190))) == ("4.5x the plain loop", "up", "blue")
    # overlapping repeats: no ratio at all (it flipped from 4x to 0.99x between runs)
    assert metric_delta(Rate((800, 150)), Rate((200, 160))) == (
        "about the same as the plain loop",
        "off",
        "gray",
    )


def test_takeaways_carry_the_measured_ratios():
    speeds = make_speeds(like_this_server, forward_us=(10, 11, 12, 25))
    alone, with_policy = speed_takeaways(speeds)
    ratio = like_this_server("sync", PREDICTION_N, False) / 400_000
    assert f"Sync with 16 envs ran at {ratio:.2g}x the plain loop's speed" in alone
    assert alone.endswith("batching alone does not speed up a world this cheap.")
    faster, _ = speed_takeaways(make_speeds(sync_always_wins))
    assert faster.endswith("here batching alone already paid.")
    assert "64 observations each of its observations cost 26x less than one alone" in with_policy
    ratio = like_this_server("sync", PREDICTION_N, True) / 30_000
    assert f"Sync with 16 envs ran at {ratio:.2g}x" in with_policy


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
    assert frame[frame["series"] == "measured"]["us_per_call"].tolist() == [10, 11, 12, 20]
    spec = forward_chart(frame).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["line", "point"]
    encoding = spec["layer"][0]["encoding"]
    assert set(encoding["color"]["scale"]["range"]) <= set(OKABE_ITO)
    assert encoding["strokeDash"]["scale"]["range"] == [[1, 0], [6, 4]]
    assert encoding["y"]["title"] == "µs per pass (log)"  # shorter than the plot is tall
