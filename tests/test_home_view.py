"""Home's sentences: what a call gave and cost, who won, and the takeaways follow the numbers,
both ways."""

from __future__ import annotations

import pandas as pd
import pytest
from sentence_facts import quotes

from burgerbot.app.logic.home import (
    NO,
    PREDICTION_N,
    SAME,
    YES,
    call_story,
    measure_speeds,
    per_call,
    prediction_explanation,
    prediction_truth,
    sizes_for,
    speed_takeaways,
)
from burgerbot.app.rates import NUM_ENVS_CHOICES, Speeds, nearest_choice

RESET_SHARE = 0.09


def make_speeds(rates, spread=0.9, sizes=(16, 64)) -> Speeds:
    """Stepping alone, made-up rates ``rates(loop, n)``: repeats ``spread`` times the rate, the
    rate (the median) and the rate over ``spread``; vector rows are 9% auto-reset rows."""
    rows = []
    for loop, n in [("plain", 1)] + [(lp, n) for lp in ("sync", "native") for n in sizes]:
        rate = rates(loop, n)
        rows.append(
            {
                "loop": loop,
                "num_envs": n,
                "policy": False,
                "transition_rates": [rate * spread, rate, rate / spread],
                "reset_row_share": 0.0 if loop == "plain" else RESET_SHARE,
            }
        )
    return Speeds(pd.DataFrame(rows))


def sync_loses(loop, n):
    """Roughly this server: a plain step 2.5 µs, a Sync call 12 µs + 3 µs per env."""
    if loop == "plain":
        return 400_000.0
    if loop == "sync":
        return n * (1 - RESET_SHARE) / (12e-6 + 3e-6 * n)
    return n / 25e-6


def sync_wins(loop, n):
    return 50_000.0 if loop == "plain" else 80_000.0 * n


def close(loop, n):
    return 100_000.0


def test_sizes_hold_the_question_and_the_chosen_num_envs():
    assert sizes_for(PREDICTION_N) == (16,) and sizes_for(1) == (1, 16)
    assert PREDICTION_N in NUM_ENVS_CHOICES


def test_per_call_is_the_rows_the_transitions_among_them_and_the_time():
    speeds = make_speeds(sync_loses)
    call = per_call(speeds, "sync", 16)
    assert call.rows == 16 and call.transitions == pytest.approx(16 * (1 - RESET_SHARE))
    # a Sync call of 16 envs: 12 + 3 x 16 = 60 µs
    assert call.seconds == pytest.approx(60e-6) and call.calls_per_second == pytest.approx(1e6 / 60)
    assert quotes(call.caption(), 16, 14.6, round(1e6 / 60))
    step = per_call(speeds, "plain")
    assert (step.rows, step.transitions, step.seconds) == (1, 1.0, pytest.approx(2.5e-6))
    assert quotes(step.caption(), 1, 400_000)


@pytest.mark.parametrize(
    ("rates", "spread", "truth"), [(sync_loses, 0.9, NO), (sync_wins, 0.9, YES), (close, 0.7, SAME)]
)
def test_the_call_story_and_the_check_follow_the_race(rates, spread, truth):
    speeds = make_speeds(rates, spread)
    assert prediction_truth(speeds) == truth
    story = call_story(speeds, 16)
    step, call = per_call(speeds, "plain"), per_call(speeds, "sync", 16)
    assert quotes(story, 16, float(f"{call.seconds / step.seconds:.2g}"))
    assert ("fewer transitions per second" in story) == (truth == NO)
    assert ("more transitions per second" in story) == (truth == YES)
    assert ("about as many" in story) == (truth == SAME)
    explanation = prediction_explanation(speeds)
    sync, plain = speeds.rate("sync", 16), speeds.rate("plain")
    assert quotes(explanation, round(sync.median), round(plain.median))
    assert ("too close to call" in explanation) == (truth == SAME)
    assert ("came out ahead" in explanation) == (truth == YES)


def test_a_call_of_one_env_is_one_row():
    speeds = make_speeds(sync_loses, sizes=(1, 16))
    assert "returned 1 row and" in call_story(speeds, 1)
    assert "with 1 env returned" in call_story(speeds, 1)


def test_a_vector_env_of_one_env_says_its_row_is_a_transition_only_on_average():
    """A SyncVectorEnv of 1 env returns its auto-reset rows too: 0.91 transitions per call,
    so its calls per second exceed its transitions per second (the plain loop's do not)."""
    speeds = make_speeds(sync_loses, sizes=(1, 16))
    call = per_call(speeds, "sync", 1)
    assert call.transitions == pytest.approx(1 - RESET_SHARE)
    assert quotes(call.caption(), 1, 1 - RESET_SHARE, round(call.calls_per_second))
    step = per_call(speeds, "plain")
    assert quotes(step.caption(), 1, round(step.calls_per_second))


def test_takeaways_carry_the_measured_ratios_or_say_about_the_same():
    speeds = make_speeds(sync_loses)
    alone, native = speed_takeaways(speeds)
    ratio = sync_loses("sync", 16) / sync_loses("plain", 1)
    assert f"Sync with 16 envs ran at {ratio:.2g}x the plain loop's speed" in alone
    assert "does not speed up" in alone
    assert quotes(native, float(f"{sync_loses('native', 16) / 400_000:.2g}"), 16)
    alone, native = speed_takeaways(make_speeds(close, 0.7))
    assert "about the plain loop's speed" in alone and "too close to call" in alone
    assert "already paid" in speed_takeaways(make_speeds(sync_wins))[0]


def test_a_url_num_envs_snaps_to_the_nearest_choice_on_a_log_scale():
    assert nearest_choice({"n": 64}) == (64, [])
    assert nearest_choice({"n": 100})[0] == 128 and nearest_choice({"n": 90})[0] == 64
    value, (note,) = nearest_choice({"n": 3})
    assert value in (2, 4) and "using" in note


def test_measure_speeds_measures_stepping_alone_at_the_question_and_the_choice():
    speeds = measure_speeds(4, seconds=0.001, repeats=2)
    assert speeds.sizes() == [4, 16] and not speeds.loops["policy"].any()
    assert speeds.rate("sync", 4).best > 0 and speeds.rate("native", 16).slowest > 0
