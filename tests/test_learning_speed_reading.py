"""The "Does batching make learning faster?" sentences follow the training numbers and their
spread, both ways."""

from __future__ import annotations

import math
import re
from itertools import permutations

import numpy as np
import pandas as pd
import pytest
from sentence_facts import bold, quotes

from burgerbot.app.logic.learning_speed import (
    SAMPLE_OPTIONS,
    comparison_text,
    cost_text,
    needed_env_steps,
    order_text,
    plain_step_microseconds,
    sample_explanation,
    sample_pid,
    sample_text,
    sample_truth,
    separation_chance,
    speed_text,
    takeaways,
)
from burgerbot.training import QLearningConfig, compare_num_envs, runs_frame, summarise_runs


def per_run(needed: dict[int, list[float | None]]) -> pd.DataFrame:
    """A runs_frame-like table: env-steps each seed needed (None: not learned)."""
    rows = [
        {"num_envs": n, "seed": s, "reached": v is not None, "env_steps": v}
        for n, values in needed.items()
        for s, v in enumerate(values)
    ]
    return pd.DataFrame(rows)


def summary(rows: list[tuple[int, int, int, float | None, float, float]]) -> pd.DataFrame:
    """num_envs, seeds, reached, median env-steps, seconds, env-steps per second."""
    columns = ["num_envs", "seeds", "reached", "env_steps", "seconds", "env_steps_per_s"]
    return pd.DataFrame(rows, columns=columns)


# --- The chance of a clean split by luck ----------------------------------------------------


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 3), (3, 3)])
def test_separation_chance_counts_the_orders_that_split_cleanly(m, n):
    orders = set(permutations("a" * m + "b" * n))
    clean = [o for o in orders if "".join(o) in ("a" * m + "b" * n, "b" * n + "a" * m)]
    assert separation_chance(m, n) == pytest.approx(len(clean) / len(orders))
    with pytest.raises(ValueError):
        separation_chance(0, 3)


# --- Env-steps needed: the sentence follows the seeds, each way ------------------------------


def test_needed_env_steps_marks_runs_that_did_not_learn():
    frame = per_run({1: [200, None], 4: [900]})
    assert needed_env_steps(frame, 1) == [200.0, math.inf]


def test_overlapping_seeds_cannot_tell_whichever_median_is_larger():
    # The numbers: medians 200 vs 384, but the seeds overlap.
    text = sample_text([200, 200, 700], [288, 384, 3168], 1, 16)
    assert bold(text) == ["cannot tell"]  # neither "more" nor "fewer"
    assert quotes(text, 200, 700, 288, 3168, 3)  # each NUM_ENVS's range over its seeds
    # the one wording check of a NUM_ENVS's seeds' spread
    assert "NUM_ENVS=1 needed 200 to 700 env-steps over its 3 seeds" in text
    reverse = sample_text([288, 384, 3168], [200, 200, 700], 1, 16)
    assert bold(reverse) == ["cannot tell"]


@pytest.mark.parametrize(
    ("small", "large", "word"),
    [([100, 150, 200], [300, 400, 500], "more"), ([300, 400, 500], [100, 150, 200], "fewer")],
)
def test_a_clean_split_with_three_seeds_could_be_luck(small, large, word):
    text = sample_text(small, large, 1, 16)
    assert bold(text) == [word]
    assert separation_chance(3, 3) == pytest.approx(0.10)
    assert quotes(text, 10) and "could well be luck" in text  # 10%: at least LUCK_THRESHOLD


def test_a_clean_split_with_many_seeds_is_unlikely_luck():
    small, large = list(range(100, 110)), list(range(500, 510))
    text = sample_text(small, large, 2, 8)
    assert bold(text) == ["more"]
    assert quotes(text, 0.00) and "unlikely" in text  # 2 / C(20, 10) = 0.0011%
    assert "could well be luck" not in text


def test_a_run_that_did_not_learn_counts_as_needing_more():
    text = sample_text([200, 300], [math.inf, math.inf], 1, 4)
    assert bold(text) == ["more"]
    assert "did not learn" in text and quotes(text, 200, 300, 4, 2)
    assert "inf" not in text
    mixed = sample_text([200, math.inf, 700], [300, 400, 500], 1, 4)
    assert bold(mixed) == ["cannot tell"]
    # the learned range over 2 of 3 seeds, and the 1 that did not learn
    assert "did not learn" in mixed and quotes(mixed, 200, 700, 2, 3, 1)
    assert "(one seed)" in sample_text([200], [300], 1, 4)


@pytest.mark.parametrize(
    ("medians", "trend"),
    [
        ([200, 900, 384], "not even in order"),
        ([200, 300, 384], "rise"),
        ([900, 300, 200], "fall"),
        ([300, 300, 300], "all the same"),
    ],
)
def test_order_text_says_whether_the_medians_follow_num_envs(medians, trend):
    rows = [(n, 3, 3, m, 0.1, 1000.0) for n, m in zip([1, 4, 16], medians, strict=True)]
    text = order_text(summary(rows))
    # only the unordered case is stressed; each trend word appears in its own case alone
    assert bold(text) == (["not even in order"] if trend == "not even in order" else [])
    assert [w for w in ("rise", "fall", "all the same", "not even in order") if w in text] == [
        trend
    ]
    listed = re.findall(r"([\d,]+) \(NUM_ENVS=(\d+)\)", text)
    assert [(float(m.replace(",", "")), int(n)) for m, n in listed] == list(
        zip(medians, [1, 4, 16], strict=True)
    )
    assert order_text(summary(rows[:2])) is None


@pytest.mark.parametrize(("speed", "verdict"), [(8.0, ["8.0x"]), (0.5, ["fewer"]), (1.05, [])])
def test_speed_text_follows_the_seeds_spread(speed, verdict):
    small = [1000.0, 950.0, 1050.0]
    text = speed_text(small, [x * speed for x in small], 1, 16)
    assert bold(text) == verdict  # a factor, "fewer", or no verdict when the seeds overlap
    assert ("could not be told apart" in text) == (not verdict)
    assert ("fixed cost" in text) == (speed > 1.15)
    assert quotes(text, *(round(x * speed) for x in small))  # NUM_ENVS=16's median and range
    # the one wording check of a median with its seeds' range
    assert "NUM_ENVS=1: 1,000 env-steps/s (seeds 950 to 1,050)" in text


def test_speed_text_gives_no_factor_when_one_noisy_seed_overlaps():
    # medians 10x apart, but one seed of NUM_ENVS=16 was as slow as NUM_ENVS=1's
    text = speed_text([1000.0, 950.0, 1050.0], [10_000.0, 1_000.0, 9_500.0], 1, 16)
    assert bold(text) == [] and "could not be told apart" in text
    # the other way round: no "fewer" either
    text = speed_text([10_000.0, 1_000.0, 9_500.0], [1000.0, 950.0, 1050.0], 1, 16)
    assert bold(text) == [] and "could not be told apart" in text
    # a single seed each: figures, no verdict
    one = speed_text([1000.0], [8000.0], 1, 16)
    assert bold(one) == [] and "no spread" in one and quotes(one, 1000, 8000)


def test_comparison_text_reads_throughput_always_and_learning_from_those_that_learned():
    table = summary(
        [
            (1, 3, 3, 200.0, 0.06, 3_000.0),
            (4, 3, 3, 900.0, 0.10, 12_000.0),
            (16, 3, 3, 384.0, 0.01, 32_000.0),
            (64, 3, 0, None, None, 50_000.0),
        ]
    )
    runs = per_run({1: [200, 200, 700], 4: [900, 200, 1200], 16: [288, 384, 3168]})
    speeds = {1: [3_000.0, 2_900.0, 3_100.0], 4: [12_000.0] * 3, 16: [32_000.0, 31_000.0, 33_000.0]}
    runs["env_steps_per_s"] = [v for n in (1, 4, 16) for v in speeds[n]]
    runs["seconds"] = [0.6, 0.5, 0.7, 0.2, 0.2, 0.2, 0.1, 0.12, 0.11]
    text = comparison_text(table, runs)
    speed = np.median(speeds[16]) / np.median(speeds[1])  # 32,000 / 3,000
    clock = np.median([0.6, 0.5, 0.7]) / np.median([0.1, 0.12, 0.11])  # 0.6 s / 0.11 s
    headings = ["Throughput.", "Env-steps needed to learn", "Net effect."]
    verdicts = [f"{speed:.1f}x", "cannot tell", "not even in order", f"{clock:.1f}x less"]
    assert [b for b in bold(text) if b not in headings] == verdicts
    assert quotes(text, 0.110, 0.100, 0.120)  # NUM_ENVS=16's seconds: median and range
    slower = runs.assign(seconds=[0.1, 0.12, 0.11, 0.2, 0.2, 0.2, 0.6, 0.5, 0.7])
    assert bold(comparison_text(table, slower))[-1] == f"{clock:.1f}x more"
    # the seeds overlap: no factor
    mixed = runs.assign(seconds=[0.6, 0.1, 0.7, 0.2, 0.2, 0.2, 0.5, 0.12, 0.11])
    overlap = comparison_text(table, mixed)
    assert bold(overlap)[-1] == "Net effect." and "could not be told apart" in overlap
    # one NUM_ENVS learned: throughput, which does not depend on learning, stays on its own
    only_one_learned = comparison_text(table.assign(reached=[3, 0, 0, 0]), runs)
    assert bold(only_one_learned) == ["Throughput.", f"{speed:.1f}x"]
    assert comparison_text(table, runs[runs["num_envs"] == 1]) is None  # one NUM_ENVS run


def test_millisecond_training_times_decide_nothing():
    # the headline: 0.002 s against 0.089 s read as "55.9x less wall-clock time"
    table = summary([(1, 3, 3, 200.0, 0.089, 3_000.0), (16, 3, 3, 384.0, 0.002, 9_000.0)])
    runs = per_run({1: [200, 200, 700], 16: [288, 384, 3168]})
    runs["env_steps_per_s"] = [3_000.0, 2_900.0, 3_100.0, 9_000.0, 8_800.0, 9_100.0]
    runs["seconds"] = [0.089, 0.08, 0.09, 0.002, 0.0021, 0.0019]
    text = comparison_text(table, runs)
    assert bold(text)[-1] == "Net effect."  # no "x less" or "x more" after it
    assert "decide nothing" in text and quotes(text, 0.002, 0.089)


# --- Where the time goes: measured, both ways -----------------------------------------------


def test_plain_step_costs_a_few_microseconds_not_less_than_one():
    assert 0.3 < plain_step_microseconds(seconds=0.05) < 200


def seeds(rate: float) -> list[float]:
    return [rate * 0.95, rate, rate * 1.05]


def test_cost_text_follows_the_measured_costs():
    shared = cost_text({1: seeds(5_000.0), 16: seeds(40_000.0)}, plain_us=2.5)
    # µs per env-step at NUM_ENVS=1 and 16 (1e6 / median speed), then the plain loop's
    assert bold(shared) == ["200.0 µs", "25.0 µs", "2.5 µs"]
    assert quotes(shared, 99)  # 1 - 2.5 / 200 of each env-step's cost is around the move
    assert quotes(shared, 200, 400, 16, 2.0)  # per call: 200 µs, 400 µs: 16x the env-steps, 2x
    # the ratio's range over the seeds: calls per second 4,750 to 5,250 against 2,375 to 2,625
    assert quotes(shared.split("ratio of medians")[1], 1.8, 2.2)
    assert "A batch shares" in shared
    flat = cost_text({1: seeds(5_000.0), 16: seeds(5_100.0)}, plain_us=2.5)
    assert "not" in bold(flat) and "A batch shares" not in flat
    env_bound = cost_text({1: seeds(300_000.0), 16: seeds(600_000.0)}, plain_us=2.5)
    # it fell, but the env is most of the cost (3.3 µs against the plain loop's 2.5 µs)
    assert "not" not in bold(env_bound) and "A batch shares" not in env_bound
    assert "large part" in env_bound
    # 8x apart in the median, but one seed of 16 as slow as 1's: no "fell"
    noisy = cost_text({1: seeds(5_000.0), 16: [40_000.0, 5_000.0, 41_000.0]}, plain_us=2.5)
    assert "not" in bold(noisy)
    # 128x the env-steps per call, the calls' costs overlapping across seeds: no cost ratio
    overlap = cost_text({2: [8_000.0, 10_000.0, 12_000.0], 256: seeds(256 * 5_000.0)}, 2.5)
    assert quotes(overlap, 200, 128) and not quotes(overlap, 1.0)
    # every 256-env call quicker than every 1-env call: no ratio below 1 either
    cheaper = cost_text({1: seeds(2_000.0), 256: seeds(256 * 2_300.0)}, plain_us=2.5)
    assert quotes(cheaper, 500, 256) and not quotes(cheaper, 0.9)
    one = cost_text({4: [10_000.0]}, plain_us=2.5)
    assert bold(one) == ["100.0 µs", "2.5 µs"] and "BurgerBotEnv" in one
    assert "no spread" in cost_text({1: [5_000.0], 16: [40_000.0]}, plain_us=2.5)
    assert cost_text({1: [math.inf]}, plain_us=2.5) is None


# --- The prediction and the takeaways -------------------------------------------------------


def test_takeaways_follow_the_training_run():
    plain = takeaways()
    assert len(plain) == 3
    table = summary([(1, 3, 3, 200.0, 0.1, 1.0), (16, 3, 3, 384.0, 0.1, 1.0)])
    overlap = takeaways(table, per_run({1: [200, 200, 700], 16: [288, 384, 3168]}))
    assert len(overlap) == 4 and "overlapped" in overlap[-1]
    assert quotes(overlap[-1], 384, 200)  # the two medians
    more = takeaways(table, per_run({1: [100, 150], 16: [300, 400]}))
    assert "needed more" in more[-1] and "needed fewer" not in more[-1]
    fewer = takeaways(table, per_run({1: [300, 400], 16: [100, 150]}))
    assert "needed fewer" in fewer[-1] and "needed more" not in fewer[-1]


@pytest.mark.parametrize(
    ("needed", "answer"),
    [
        ({1: [300, 400, 500], 16: [100, 150, 200]}, 0),
        ({1: [100, 150], 16: [300, 400]}, 1),
        ({1: [100, None], 16: [300, 400]}, 2),  # a seed that never learned overlaps all
        ({1: [100, 150], 16: [300, None]}, 1),  # ...and counts as needing more
        ({1: [200, 200, 700], 16: [288, 384, 3168]}, 2),
        ({1: [None], 16: [None]}, 2),
    ],
)
def test_the_prediction_reads_the_seeds_both_ways(needed, answer):
    runs = per_run(needed)
    assert sample_truth(runs, 1, 16) == SAMPLE_OPTIONS[answer]
    explanation = sample_explanation(runs, 1, 16)
    if answer == 2:
        assert "cannot tell" in explanation
    else:
        assert ("fewer", "more")[answer] in bold(explanation)


def test_the_prediction_at_the_defaults_is_answered_by_the_librarys_run():
    runs = runs_frame(compare_num_envs([1, 4, 16], seeds=[0, 1, 2], config=QLearningConfig()))
    truth = sample_truth(runs, 1, 16)
    small, large = needed_env_steps(runs, 1), needed_env_steps(runs, 16)
    assert (truth == SAMPLE_OPTIONS[2]) == (min(small) <= max(large) and min(large) <= max(small))
    assert truth in SAMPLE_OPTIONS
    assert sample_pid(1, 16) != sample_pid(1, 4)  # a new question per pair compared


def test_training_is_the_same_every_time_but_for_the_clock():
    """The page's caption: everything but the seconds repeats for the same settings."""
    config = QLearningConfig(env_steps=1_000)
    first, second = (
        runs_frame(compare_num_envs([1, 4], seeds=[0, 1], config=config)) for _ in range(2)
    )
    timing = ["seconds", "env_steps_per_s"]
    pd.testing.assert_frame_equal(first.drop(columns=timing), second.drop(columns=timing))
    assert set(summarise_runs(compare_num_envs([4], seeds=[0], config=config))["num_envs"]) == {4}
