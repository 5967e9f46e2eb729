"""The "Goal statistics" sentences follow the sweep's numbers and their spread, both ways."""

from __future__ import annotations

import pandas as pd

from burgerbot.app.logic.goal_statistics import (
    budget_reading,
    level_reading,
    rate_reading,
    rise_reading,
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
    episodes = rise_reading(summary, "episodes")
    assert episodes.startswith("Every step up in NUM_ENVS gave clearly more finished episodes")
    goals = rise_reading(summary, "goals")
    assert "**cannot show** goals rising" in goals
    assert "9 of 12 runs saw no goal at all" in goals


def test_rise_reading_when_doubling_is_plain_to_see():
    goals = rise_reading(summarise(LONG), "goals")
    assert goals.startswith("Going from NUM_ENVS 4 to 8 gave clearly more goals")
    assert "cannot show" not in goals and "0 of 6 runs saw no goal" in goals


def test_rise_reading_names_the_steps_that_rise_and_those_that_cannot_tell():
    mixed = sweep(
        {
            1: [(0, 45)] * 3,
            2: [(0, 90)] * 2 + [(1, 90)],
            64: [(20, 2900), (22, 2910), (19, 2890)],
        }
    )
    text = rise_reading(summarise(mixed), "goals")
    assert "Goals clearly rose at 2 → 64" in text
    assert "at 1 → 2 the intervals overlap" in text


def test_rise_reading_reports_a_clear_drop_as_chance_not_a_rule():
    drop = sweep({4: [(40, 100), (42, 100)], 8: [(10, 200), (11, 200)]})
    text = rise_reading(summarise(drop), "goals")
    assert "gave clearly *fewer* goals" in text and "one comparison in 20" in text
    single_seed = sweep({4: [(0, 180)], 8: [(0, 360)]})
    assert "With one seed there is no interval" in rise_reading(summarise(single_seed), "episodes")
    assert rise_reading(summarise(sweep({4: [(0, 1)]})), "goals") is None


def test_level_reading_both_ways():
    level = sweep({4: [(1, 1800), (0, 1830)], 64: [(0, 1810), (1, 1820)]}, steps_per_env=None)
    summary = summarise(level)
    assert level_reading(summary, "goals") == (
        "Goals stay level: one value fits inside every NUM_ENVS's 95% interval."
    )
    assert level_reading(summary, "episodes").startswith("Finished episodes stay level")
    apart = sweep({4: [(1, 1800), (0, 1810)], 256: [(0, 1500), (1, 1510)]}, steps_per_env=None)
    text = level_reading(summarise(apart), "episodes")
    assert "do **not** stay level: NUM_ENVS 4's interval" in text
    assert "lies wholly above NUM_ENVS 256's" in text


def test_budget_reading_follows_the_budget_and_the_data():
    per_env = budget_reading(summarise(SHORT), "per_env")
    assert "**same steps per env**" in per_env and "**cannot show** goals rising" in per_env
    assert "cannot show" not in budget_reading(summarise(LONG), "per_env")
    total = sweep({4: [(1, 1800), (0, 1830)], 64: [(0, 1810), (1, 1820)]}, steps_per_env=None)
    text = budget_reading(summarise(total), "total")
    assert "**same total env-steps**" in text and "Goals stay level" in text
    lonely = budget_reading(summarise(sweep({4: [(0, 1)]})), "total")
    assert "nothing to compare" in lonely


def test_rate_reading_both_ways():
    assert "agree for every NUM_ENVS" in rate_reading(LONG)
    uneven = sweep({4: [(60, 1)], 8: [(2, 1)]}, steps_per_env=None)
    text = rate_reading(uneven)
    assert "differ here: NUM_ENVS 4's interval" in text and "above NUM_ENVS 8's" in text
    assert rate_reading(sweep({4: [(0, 1)]})) is None


def test_the_readings_follow_a_real_sweep():
    frame = goal_scaling([4, 8], 500, seeds=range(6), backend="native")
    summary = summarise(frame)
    lows, highs = summary["goals_low"].tolist(), summary["goals_high"].tolist()
    apart = highs[0] < lows[1]
    assert ("**cannot show** goals rising" in rise_reading(summary, "goals")) == (not apart)
