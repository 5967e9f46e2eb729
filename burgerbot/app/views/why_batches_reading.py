"""The "Why batches help" page's reading of a training comparison: each sentence follows the run.

A training click trains every NUM_ENVS with the same few seeds. How many env-steps a run
needs before its greedy policy reaches the goal for good varies a lot from seed to seed, so
the page never states "it needed X times the env-steps" as a fact: it compares the seeds'
spreads, and says how often a split as clean as the one seen would come up by luck alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import pairwise

import pandas as pd

from burgerbot.app.glossary import term_link

__all__ = [
    "LUCK_THRESHOLD",
    "SAME_BAND",
    "comparison_text",
    "needed_env_steps",
    "order_text",
    "sample_text",
    "separation_chance",
    "speed_text",
]

SAME_BAND = 1.15
"""Two medians within this factor of each other count as "about the same"."""

LUCK_THRESHOLD = 0.05
"""A split that luck alone would give at least this often "could well be luck"."""


def needed_env_steps(per_run: pd.DataFrame, num_envs: int) -> list[float]:
    """Env-steps each seed of ``num_envs`` needed to learn the task (inf: not learned in the run).

    ``per_run`` is `burgerbot.training.runs_frame`'s.

    Example:
        >>> frame = pd.DataFrame({"num_envs": [1, 1, 4], "reached": [True, False, True],
        ...                       "env_steps": [200, None, 900]})
        >>> needed_env_steps(frame, 1)
        [200.0, inf]
    """
    runs = per_run[per_run["num_envs"] == num_envs]
    return [
        float(steps) if reached else math.inf
        for reached, steps in zip(runs["reached"], runs["env_steps"], strict=True)
    ]


def separation_chance(m: int, n: int) -> float:
    """The chance that, if NUM_ENVS made no difference, every one of ``m`` runs needs fewer
    env-steps than every one of ``n`` runs, or every one more (either clean split).

    With no difference all orders of the ``m + n`` runs are equally likely, and just one
    order out of ``C(m + n, m)`` puts one group wholly first.

    Example:
        >>> round(separation_chance(3, 3), 3), f"{separation_chance(10, 10):.1e}"
        (0.1, '1.1e-05')
    """
    if m < 1 or n < 1:
        raise ValueError(f"`m` and `n` must be at least 1, got {m!r} and {n!r}")
    return min(1.0, 2 / math.comb(m + n, m))


def _needed(values: Sequence[float], num_envs: int) -> str:
    """What the seeds of ``num_envs`` needed, e.g. "NUM_ENVS=1 needed 200 to 700 env-steps
    over its 3 seeds"; seeds that did not learn are counted apart."""
    learned = sorted(v for v in values if not math.isinf(v))
    missed, seeds = len(values) - len(learned), len(values)
    if not learned:
        return f"NUM_ENVS={num_envs} did not learn it with any of its {seeds} seeds"
    if learned[0] == learned[-1]:
        span = f"{learned[0]:,.0f} env-steps"
    else:
        span = f"{learned[0]:,.0f} to {learned[-1]:,.0f} env-steps"
    if missed:
        who = f" with {len(learned)} of its {seeds} seeds ({missed} did not learn it)"
    elif seeds == 1:
        who = " (one seed)"
    elif learned[0] == learned[-1]:
        who = f" with each of its {seeds} seeds"
    else:
        who = f" over its {seeds} seeds"
    return f"NUM_ENVS={num_envs} needed {span}{who}"


def sample_text(small: Sequence[float], large: Sequence[float], n_small: int, n_large: int) -> str:
    """Did NUM_ENVS=``n_large`` need more or fewer env-steps than ``n_small``? Per seed, honestly.

    ``small`` and ``large`` are `needed_env_steps` of the two. The sentence calls a
    difference only when every seed of one needed fewer env-steps than every seed of the
    other, and then says how often luck alone splits runs that cleanly.
    """
    spreads = f"{_needed(small, n_small)}; {_needed(large, n_large)}."
    if max(large) < min(small):
        direction = "fewer"
    elif max(small) < min(large):
        direction = "more"
    else:
        return (
            f"{spreads} The seeds overlap, so this run **cannot tell** whether NUM_ENVS="
            f"{n_large} needs more or fewer env-steps than NUM_ENVS={n_small}: the seed "
            "matters more than NUM_ENVS here. More seeds would tell."
        )
    chance = separation_chance(len(small), len(large))
    if chance >= LUCK_THRESHOLD:
        luck = (
            f"If NUM_ENVS made no difference, a split this clean would still come up "
            f"{chance:.0%} of the time with {len(small)} and {len(large)} seeds: it could "
            "well be luck. More seeds would tell."
        )
    else:
        luck = (
            f"If NUM_ENVS made no difference, a split this clean would come up only "
            f"{chance:.2%} of the time with {len(small)} and {len(large)} seeds: unlikely to "
            "be luck alone."
        )
    return (
        f"{spreads} Every seed of NUM_ENVS={n_large} needed **{direction}** env-steps than "
        f"every seed of NUM_ENVS={n_small}. {luck}"
    )


def order_text(summary: pd.DataFrame) -> str | None:
    """The medians of env-steps needed, NUM_ENVS by NUM_ENVS, and whether they are in order.

    None with fewer than three NUM_ENVS that learned (two are compared by `sample_text`).
    """
    learned = summary[summary["reached"] > 0]
    if len(learned) < 3:
        return None
    medians = [float(m) for m in learned["env_steps"]]
    listed = ", ".join(
        f"{m:,.0f} (NUM_ENVS={int(n)})" for n, m in zip(learned["num_envs"], medians, strict=True)
    )
    steps = list(pairwise(medians))
    if all(b > a for a, b in steps):
        trend = "they rise with NUM_ENVS"
    elif all(b < a for a, b in steps):
        trend = "they fall with NUM_ENVS"
    elif all(a == b for a, b in steps):
        trend = "they are all the same"
    else:
        trend = "they are **not even in order** of NUM_ENVS, a sign of how much seeds vary"
    return f"Medians of the env-steps needed: {listed}: {trend}."


def speed_text(speed: float, n_small: int, n_large: int) -> str:
    """What ``speed`` (env-steps per second of ``n_large`` over ``n_small``) says, both ways."""
    if speed > SAME_BAND:
        return (
            f"NUM_ENVS={n_large} collected **{speed:.1f}x** as many env-steps per second as "
            f"NUM_ENVS={n_small}: one {term_link('step-call')} and one table update handle "
            f"{n_large} transitions, so their fixed cost is shared."
        )
    if speed < 1 / SAME_BAND:
        return (
            f"NUM_ENVS={n_large} collected **fewer** env-steps per second than NUM_ENVS="
            f"{n_small} ({speed:.2f}x): batching did not pay here. Timings on a shared "
            "machine are noisy: train again to see whether it holds."
        )
    return (
        f"NUM_ENVS={n_large} collected about as many env-steps per second as NUM_ENVS="
        f"{n_small} ({speed:.2f}x)."
    )


def _clock_text(small: pd.Series, large: pd.Series) -> str:
    if not (large["seconds"] > 0 and small["seconds"] > 0):
        return "Both learned it too fast to time."
    ratio = small["seconds"] / large["seconds"]
    times = f"median {large['seconds']:.3f} s vs {small['seconds']:.3f} s"
    if ratio > SAME_BAND:
        how = f"**{ratio:.1f}x less** wall-clock time than"
    elif ratio < 1 / SAME_BAND:
        how = f"**{1 / ratio:.1f}x more** wall-clock time than"
    else:
        how = "about as much wall-clock time as"
    return (
        f"NUM_ENVS={int(large['num_envs'])} learned it in {how} NUM_ENVS="
        f"{int(small['num_envs'])} ({times}). The clock mixes both effects: cheaper env-steps, "
        "and however many of them the seeds happened to need."
    )


def comparison_text(summary: pd.DataFrame, per_run: pd.DataFrame) -> str | None:
    """What the smallest and largest NUM_ENVS that learned the task say, in numbers.

    ``summary`` and ``per_run`` are `burgerbot.training.summarise_runs` and `runs_frame`.
    None when fewer than two NUM_ENVS learned it.
    """
    learned = summary[summary["reached"] > 0]
    if len(learned) < 2:
        return None
    small, large = learned.iloc[0], learned.iloc[-1]
    n_small, n_large = int(small["num_envs"]), int(large["num_envs"])
    speed = large["env_steps_per_s"] / small["env_steps_per_s"]
    sample = sample_text(
        needed_env_steps(per_run, n_small), needed_env_steps(per_run, n_large), n_small, n_large
    )
    order = order_text(summary)
    return "\n\n".join(
        [
            f"**Throughput.** {speed_text(speed, n_small, n_large)}",
            f"**Env-steps needed to learn** (sample efficiency). {sample}"
            + (f" {order}" if order else ""),
            f"**Net effect.** {_clock_text(small, large)}",
        ]
    )
