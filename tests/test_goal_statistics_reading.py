"""The "Goal statistics" sentences follow the sweep's numbers and their spread, both ways."""

from __future__ import annotations

import pandas as pd
from sentence_facts import bold, quotes

from burgerbot.app.logic.goal_statistics import (
    budget_reading,
    expectation_misses,
    expectation_reading,
    rate_reading,
    rise_reading,
    rise_steps,
    summarise,
)
from burgerbot.experiments import goal_scaling


def sweep(
    counts: dict[int, list[tuple[int, int]]], steps_per_env: int | None = 500
) -> pd.DataFrame:
    """A sweep table: for each NUM_ENVS, (goals, episodes) per seed.

    ``steps_per_env=None`` gives every NUM_ENVS the same 20,000 env-steps (the total budget).
    """
    rows = []
    for n, runs in counts.items():
        env_steps = n * steps_per_env if steps_per_env else 20_000
        for seed, (goals, episodes) in enumerate(runs):
            rows.append(
                {
                    "num_envs": n,
                    "seed": seed,
                    "env_steps": env_steps,
                    "goals": goals,
                    "episodes": episodes,
                }
            )
    return pd.DataFrame(rows)


# Same steps per env: rare goals (mostly 0) and plentiful, doubling episodes.
SHORT = sweep(
    {
        4: [(0, 180), (0, 185), (1, 178), (0, 182)],
        8: [(0, 360), (0, 365), (0, 358), (1, 362)],
        16: [(0, 720), (1, 722), (0, 716), (0, 725)],
    }
)
# The "Try this" kind of sweep: plenty of goals, clearly doubling.
LONG = sweep(
    {
        4: [(19, 70_000), (21, 70_100), (20, 69_900)],
        8: [(41, 140_000), (38, 140_200), (40, 139_800)],
    }
)


def test_rise_reading_when_goals_hide_and_episodes_show_the_rise():
    summary = summarise(SHORT)
    assert rise_steps(summary, "episodes") == {
        "more": [(4, 8), (8, 16)],
        "fewer": [],
        "unclear": [],
    }
    assert rise_steps(summary, "goals") == {"more": [], "fewer": [], "unclear": [(4, 8), (8, 16)]}
    goals = rise_reading(summary, "goals")
    assert "cannot show" in bold(goals)  # the family's verdict, stressed
    assert "cannot show" not in bold(rise_reading(summary, "episodes"))
    assert quotes(goals, 9, 12)  # 9 of 12 runs saw no goal at all


def test_rise_reading_when_doubling_is_plain_to_see():
    summary = summarise(LONG)
    assert rise_steps(summary, "goals") == {"more": [(4, 8)], "fewer": [], "unclear": []}
    goals = rise_reading(summary, "goals")
    assert not bold(goals) and quotes(goals, 4, 8, 0, 6)  # 0 of 6 runs saw no goal


def test_rise_reading_names_the_steps_that_rise_and_those_that_cannot_tell():
    mixed = sweep(
        {
            1: [(0, 45)] * 3,
            2: [(0, 90)] * 2 + [(1, 90)],
            64: [(20, 2900), (22, 2910), (19, 2890)],
        }
    )
    steps = rise_steps(summarise(mixed), "goals")
    assert steps == {"more": [(2, 64)], "fewer": [], "unclear": [(1, 2)]}
    text = rise_reading(summarise(mixed), "goals")
    assert text.index("2 → 64") < text.index("1 → 2")  # the rise first, then what cannot tell


def test_rise_reading_reports_a_clear_drop_as_chance_not_a_rule():
    drop = sweep({4: [(40, 100), (42, 100)], 8: [(10, 200), (11, 200)]})
    assert rise_steps(summarise(drop), "goals") == {"more": [], "fewer": [(4, 8)], "unclear": []}
    text = rise_reading(summarise(drop), "goals")
    assert "one comparison in 20" in text  # the family's one wording check: chance, not a rule
    single_seed = summarise(sweep({4: [(0, 180)], 8: [(0, 360)]}))
    assert rise_steps(single_seed, "episodes")["unclear"] == [(4, 8)]
    assert not quotes(rise_reading(single_seed, "episodes"), 4, 8)  # no interval to name
    assert rise_reading(summarise(sweep({4: [(0, 1)]})), "goals") is None
    assert rise_steps(summarise(sweep({4: [(0, 1)]})), "goals") is None


def test_expectation_reading_both_ways():
    # 20,000 env-steps as 4 x 5,000 and 64 x 312: counts near their exact expectations...
    near = sweep({4: [(0, 1820), (1, 1830)], 64: [(0, 1815), (1, 1830)]}, steps_per_env=None)
    summary = summarise(near)
    assert expectation_misses(summary, "goals") == []
    assert expectation_misses(summary, "episodes") == []
    assert "NUM_ENVS 4" not in expectation_reading(summary, "episodes")
    # ...and episodes far below 256's expectation (1,8xx): that one is named, with its figures.
    low = sweep({4: [(1, 1820), (0, 1830)], 256: [(0, 1500), (1, 1510)]}, steps_per_env=None)
    ((n, lo, hi, expected),) = expectation_misses(summarise(low), "episodes")
    assert n == 256 and hi < expected
    text = expectation_reading(summarise(low), "episodes")
    assert quotes(text, 256, round(expected)) and "NUM_ENVS 4" not in text
    single_seed = summarise(sweep({4: [(0, 1800)]}, steps_per_env=None))
    assert expectation_reading(single_seed, "episodes") is None  # no interval


def test_budget_reading_follows_the_budget_and_the_data():
    per_env = budget_reading(summarise(SHORT), "per_env")
    assert per_env.endswith(rise_reading(summarise(SHORT), "goals"))
    assert rise_reading(summarise(SHORT), "episodes") in per_env
    assert bold(per_env)[0] == "same steps per env" and "cannot show" in bold(per_env)
    assert "cannot show" not in bold(budget_reading(summarise(LONG), "per_env"))
    # 4 x 5,000 against 64 x 312 steps: expected goals 0.48 against 0.43, not level within 5%.
    total = sweep({4: [(1, 1800), (0, 1830)], 64: [(0, 1810), (1, 1820)]}, steps_per_env=None)
    text = budget_reading(summarise(total), "total")
    assert bold(text) == ["same total env-steps", "not"]
    assert expectation_reading(summarise(total), "goals") in text
    lonely = budget_reading(summarise(sweep({4: [(0, 1)]})), "total")
    assert bold(lonely) == ["same total env-steps"] and "In this sweep" in lonely
    assert expectation_reading(summarise(sweep({4: [(0, 1)]})), "goals") in lonely


def test_rate_reading_both_ways():
    # The "Try this" sweep's runs: 210,000 steps per env, about 21 and 42 goals expected.
    long = sweep({4: [(19, 1), (21, 1), (20, 1)], 8: [(41, 1), (38, 1), (44, 1)]}, 210_000)
    assert not quotes(rate_reading(long), 4)  # holds the exact rate: no NUM_ENVS named
    uneven = sweep({4: [(60, 1)], 8: [(2, 1)]}, steps_per_env=500)
    text = rate_reading(uneven)
    assert quotes(text, 4) and quotes(text, 8)  # 60 is far above, 2 far below
    assert rate_reading(sweep({4: [(0, 1)]})) is None
    # Same total env-steps: runs of different lengths have different rates; no rate sentence.
    assert rate_reading(sweep({4: [(60, 1)], 8: [(2, 1)]}, steps_per_env=None)) is None


def test_the_readings_follow_a_real_sweep():
    frame = goal_scaling([4, 8], 500, seeds=range(6), backend="native")
    summary = summarise(frame)
    lows, highs = summary["goals_low"].tolist(), summary["goals_high"].tolist()
    apart = highs[0] < lows[1]
    assert rise_steps(summary, "goals")["more"] == ([(4, 8)] if apart else [])
    assert ("cannot show" in bold(rise_reading(summary, "goals"))) == (not apart)
