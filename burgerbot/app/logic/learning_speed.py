"""The "Does batching make learning faster?" page's logic: tabular Q-learning once per
NUM_ENVS, its settings and limits, and the sentences that read its runs."""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, SupportsInt, cast

import altair as alt
import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.glossary import term_link
from burgerbot.app.palette import OKABE_ITO, SHAPE_WORDS, SHAPES
from burgerbot.app.settings import IntListSetting, IntSetting
from burgerbot.bench import compare_timings
from burgerbot.env import BurgerBotEnv

__all__ = [
    "CURVE_METRICS",
    "LUCK_THRESHOLD",
    "MIN_VERDICT_SECONDS",
    "NUM_ENVS_CHOICES",
    "SAMPLE_OPTIONS",
    "SPECS",
    "TrainingSettings",
    "comparison_text",
    "cost_text",
    "env_steps_per_s",
    "learning_curve",
    "needed_env_steps",
    "order_text",
    "plain_step_microseconds",
    "plan_training",
    "resolve_settings",
    "sample_explanation",
    "sample_pid",
    "sample_question",
    "sample_text",
    "sample_truth",
    "separation_chance",
    "speed_text",
    "summary_table",
    "takeaways",
]

NUM_ENVS_CHOICES = (1, 2, 4, 8, 16, 32, 64)
"""NUM_ENVS values offered for the training comparison (the URL may ask for others)."""

SPECS = (
    IntListSetting("ns", "NUM_ENVS to compare", default=(1, 4, 16), low=1, high=256, max_items=6),
    IntSetting("steps", "Env-steps per run", default=5_000, low=500, high=CAPS.max_train_env_steps),
    IntSetting("seeds", "Seeds per NUM_ENVS", default=3, low=1, high=10),
    IntSetting("tseed", "First seed", default=0, low=0, high=9999),
)


# --- Settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainingSettings:
    """The training comparison: which NUM_ENVS, env-steps per run, how many seeds from where."""

    num_envs_list: tuple[int, ...]
    env_steps: int
    seeds: int
    first_seed: int

    @property
    def key(self) -> tuple[tuple[int, ...], int, int, int]:
        """The arguments of one training click (what its results are cached under)."""
        return (self.num_envs_list, self.env_steps, self.seeds, self.first_seed)

    @property
    def runs(self) -> int:
        """Training runs one click makes: one per (NUM_ENVS, seed)."""
        return len(self.num_envs_list) * self.seeds


def plan_training(
    num_envs_list: Sequence[int], seeds: int, env_steps: int, max_total: int | None = None
) -> tuple[int, str | None]:
    """Env-steps per run so that all runs of one click stay within ``max_train_env_steps``.

    Returns the env-steps per run and a note when the cap bit.

    Example:
        >>> plan_training([1, 4, 16], seeds=3, env_steps=10_000, max_total=400_000)
        (10000, None)
        >>> plan_training([1, 4, 16], seeds=3, env_steps=50_000, max_total=400_000)[0]
        44444
    """
    max_total = CAPS.max_train_env_steps if max_total is None else max_total
    runs = max(1, len(num_envs_list)) * max(1, seeds)
    allowed = max(1, max_total // runs)
    if env_steps <= allowed:
        return env_steps, None
    return allowed, (
        f"{runs} runs x {env_steps:,} env-steps would pass this app's limit of "
        f"{max_total:,} env-steps per training click (it keeps one click short on a shared "
        f"server): using {allowed:,} per run."
    )


def resolve_settings(
    values: Mapping[str, Any], caps: Caps = CAPS
) -> tuple[TrainingSettings, list[str]]:
    """The page's values with the app's caps applied, and a note for each change made.

    The NUM_ENVS to compare are sorted without repeats; the env-steps per run shrink so one
    click stays within ``caps.max_train_env_steps``.

    Example:
        >>> values = {"ns": [16, 1, 16], "steps": 5_000, "seeds": 3, "tseed": 0}
        >>> training, notes = resolve_settings(values)
        >>> training.num_envs_list, training.runs, notes
        ((1, 16), 6, [])
    """
    notes: list[str] = []
    chosen = tuple(sorted({int(n) for n in values.get("ns", ())}))
    seeds = int(values["seeds"])
    env_steps, train_note = plan_training(
        chosen, seeds, int(values["steps"]), caps.max_train_env_steps
    )
    if train_note:
        notes.append(train_note)
    return TrainingSettings(chosen, env_steps, seeds, int(values["tseed"])), notes


# --- Training results -------------------------------------------------------------------------


def summary_table(summary: pd.DataFrame) -> pd.DataFrame:
    """`burgerbot.training.summarise_runs`'s frame with the page's column names."""
    return pd.DataFrame(
        {
            "NUM_ENVS": summary["num_envs"],
            "runs that learned it": [
                f"{r} of {s}" for r, s in zip(summary["reached"], summary["seeds"], strict=True)
            ],
            "env-steps needed": summary["env_steps"],
            "episodes needed": summary["episodes"],
            "step() calls needed": summary["step_calls"],
            "seconds needed": summary["seconds"],
            "env-steps per second": summary["env_steps_per_s"],
        }
    )


# --- Learning curves --------------------------------------------------------------------------

_CURVE_COLOURS = OKABE_ITO[:6]  # as many as NUM_ENVS values a comparison may hold

CURVE_METRICS = {
    "reaches_goal": ("greedy policy reaches goal (% of seeds)", ".0%"),
    "goal_rate": ("training episodes at goal (last 100)", ".0%"),
    "greedy_return": ("greedy policy's return from the start", ".1f"),
}
"""Columns of `burgerbot.training.curves_frame` a learning curve can show: (title, format)."""


def learning_curve(
    curves: pd.DataFrame, x: str = "env_steps", y: str = "reaches_goal"
) -> alt.Chart:
    """One line per NUM_ENVS from `burgerbot.training.curves_frame`.

    ``x="env_steps"`` (linear axis: what each transition buys) or ``x="seconds"`` (log
    axis: what each second of training buys); ``y`` one of `CURVE_METRICS`.
    """
    if x not in ("env_steps", "seconds"):
        raise ValueError(f"`x` must be 'env_steps' or 'seconds', got {x!r}")
    if y not in CURVE_METRICS:
        raise ValueError(f"`y` must be one of {list(CURVE_METRICS)}, got {y!r}")
    y_title, y_format = CURVE_METRICS[y]
    data = curves if x == "env_steps" else curves[curves["seconds"] > 0]
    if x == "env_steps":
        x_title = "env-steps collected"
        x_enc = alt.X("env_steps:Q", title=x_title)
    else:
        x_title = "seconds of training (log scale)"
        x_enc = alt.X("seconds:Q", title=x_title, scale=alt.Scale(type="log"))
    y_scale = alt.Scale(domain=[0, 1]) if y_format.endswith("%") else alt.Scale()
    sizes = sorted(int(n) for n in curves["num_envs"].unique())
    colours = [_CURVE_COLOURS[i % len(_CURVE_COLOURS)] for i in range(len(sizes))]
    shapes = [SHAPES[i % len(SHAPES)] for i in range(len(sizes))]
    return (
        alt.Chart(data)
        .mark_line(point=alt.OverlayMarkDef(size=40, filled=True), interpolate="step-after")
        .encode(
            x=x_enc,
            y=alt.Y(f"{y}:Q", title=y_title, scale=y_scale, axis=alt.Axis(format=y_format)),
            # Colour and marker shape both tell the NUM_ENVS apart (one legend for both).
            color=alt.Color(
                "num_envs:O", title="NUM_ENVS", scale=alt.Scale(domain=sizes, range=colours)
            ),
            shape=alt.Shape(
                "num_envs:O", title="NUM_ENVS", scale=alt.Scale(domain=sizes, range=shapes)
            ),
            tooltip=[
                alt.Tooltip("num_envs:O", title="NUM_ENVS"),
                alt.Tooltip("env_steps:Q", title="env-steps", format=","),
                alt.Tooltip("step_calls:Q", title="step() calls", format=","),
                alt.Tooltip("seconds:Q", format=".3f"),
                alt.Tooltip(f"{y}:Q", title=y_title, format=y_format),
            ],
        )
        .properties(
            height=280,
            description=(
                f"{y_title[0].upper()}{y_title[1:]} (y) against {x_title} (x), one line per "
                "NUM_ENVS, each with its own colour and marker shape ("
                + ", ".join(f"{n}: {SHAPE_WORDS[s]}" for n, s in zip(sizes, shapes, strict=True))
                + ")."
            ),
        )
    )


# --- Reading a comparison ---------------------------------------------------------------------
# The page's reading of a training comparison: each sentence follows the run.
#
# A training click trains every NUM_ENVS with the same few seeds. How many env-steps a run
# needs before its greedy policy reaches the goal for good varies a lot from seed to seed, so
# the page never states "it needed X times the env-steps" as a fact: it compares the seeds'
# spreads, and says how often a split as clean as the one seen would come up by luck alone.

MIN_VERDICT_SECONDS = 0.1
"""Training times below this (median) decide nothing: a few milliseconds on a shared machine
are mostly noise (a rerun once turned 55.9x into 0.8x)."""

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
        if seeds == 1:
            return f"NUM_ENVS={num_envs} did not learn it (one seed)"
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
        if all(math.isinf(v) for v in [*small, *large]):
            return (
                f"{spreads} Neither learned it, so this run **cannot tell** whether NUM_ENVS="
                f"{n_large} needs more or fewer env-steps than NUM_ENVS={n_small}. More "
                "env-steps per run would tell."
            )
        return (
            f"{spreads} The seeds overlap, so this run **cannot tell** whether NUM_ENVS="
            f"{n_large} needs more or fewer env-steps than NUM_ENVS={n_small}. More seeds "
            "would tell."
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


def _finite(values: Iterable[float]) -> list[float]:
    return [float(v) for v in values if 0 < float(v) < math.inf]


def _spread(values: Sequence[float], unit: str, digits: str = ",.0f") -> str:
    """The median and, with two or more, the range: "1,200 env-steps/s (seeds 900 to 1,500)"."""
    median = float(np.median(values))
    if len(values) < 2:
        return f"{median:{digits}}{unit} (one seed)"
    return f"{median:{digits}}{unit} (seeds {min(values):{digits}} to {max(values):{digits}})"


def speed_text(small: Sequence[float], large: Sequence[float], n_small: int, n_large: int) -> str:
    """Env-steps per second of ``n_large`` against ``n_small``, seed by seed, both ways.

    ``small`` and ``large`` are each seed's env-steps per second. A factor only when every
    seed of one beat every seed of the other (`burgerbot.bench.compare_timings`).
    """
    small, large = _finite(small), _finite(large)
    if not small or not large:
        return "The runs were too short to time."
    figures = (
        f"NUM_ENVS={n_large}: {_spread(large, ' env-steps/s')}; NUM_ENVS={n_small}: "
        f"{_spread(small, ' env-steps/s')}"
    )
    if len(small) < 2 or len(large) < 2:
        return (
            f"{figures}. With one seed there is no spread to compare: train with two seeds "
            "or more before reading a factor into it."
        )
    result = compare_timings(large, small)
    if result.verdict == "faster":
        return (
            f"NUM_ENVS={n_large} collected **{result.ratio:.1f}x** as many env-steps per second "
            f"as NUM_ENVS={n_small} (ratio of medians), in every seed ({figures}): one "
            f"{term_link('step-call')} "
            f"and one table update handle {n_large} env-steps, so their fixed cost is shared."
        )
    if result.verdict == "slower":
        return (
            f"NUM_ENVS={n_large} collected **fewer** env-steps per second than NUM_ENVS="
            f"{n_small} in every seed ({result.ratio:.2f}x, ratio of medians; {figures}): "
            "batching did not pay here."
        )
    return (
        f"NUM_ENVS={n_large} and NUM_ENVS={n_small} could not be told apart on this server in "
        f"env-steps per second: their seeds overlap ({figures})."
    )


def _seconds(per_run: pd.DataFrame, num_envs: int) -> list[float]:
    """Seconds of training each seed of ``num_envs`` took to learn it (seeds that did)."""
    runs = per_run[(per_run["num_envs"] == num_envs) & per_run["reached"]]
    return _finite(runs["seconds"].dropna())


def _clock_text(per_run: pd.DataFrame, n_small: int, n_large: int) -> str:
    """Wall-clock time to learn it, seed by seed: a verdict only from spreads long enough."""
    small, large = _seconds(per_run, n_small), _seconds(per_run, n_large)
    if not small or not large:
        return "Both learned it too fast to time."
    figures = (
        f"NUM_ENVS={n_large}: {_spread(large, ' s', '.3f')}; NUM_ENVS={n_small}: "
        f"{_spread(small, ' s', '.3f')}"
    )
    mixes = (
        " The clock mixes both effects: cheaper env-steps, and however many of them the seeds "
        "happened to need."
    )
    if min(np.median(small), np.median(large)) < MIN_VERDICT_SECONDS:
        return (
            f"Training time to learn it: {figures}. Times of a few milliseconds are mostly "
            "noise on a shared machine, so they decide nothing here: the throughput and the "
            "env-steps needed, above, do. Train with more env-steps per run for times worth "
            "comparing."
        )
    if len(small) < 2 or len(large) < 2:
        return (
            f"Training time to learn it: {figures}. With one seed that learned it there is no "
            f"spread to compare.{mixes}"
        )
    result = compare_timings([1 / x for x in large], [1 / x for x in small])
    if result.verdict == "faster":
        how = f"in **{result.ratio:.1f}x less** wall-clock time than"
    elif result.verdict == "slower":
        how = f"in **{1 / result.ratio:.1f}x more** wall-clock time than"
    else:
        return (
            f"NUM_ENVS={n_large} and NUM_ENVS={n_small} could not be told apart on this server "
            f"in wall-clock time to learn it: their seeds overlap ({figures}).{mixes}"
        )
    return (
        f"NUM_ENVS={n_large} learned it {how} NUM_ENVS={n_small} (ratio of medians; "
        f"{figures}).{mixes}"
    )


def env_steps_per_s(per_run: pd.DataFrame) -> dict[int, list[float]]:
    """Each NUM_ENVS's env-steps per second, one figure per seed (`training.runs_frame`)."""
    return {
        int(cast(SupportsInt, n)): [float(x) for x in group["env_steps_per_s"]]
        for n, group in per_run.groupby("num_envs", sort=True)
    }


def comparison_text(summary: pd.DataFrame, per_run: pd.DataFrame) -> str | None:
    """What the runs say, in numbers: throughput from the smallest and largest NUM_ENVS run
    (it does not depend on learning), then sample efficiency and the net effect from the
    smallest and largest NUM_ENVS that learned the task, when at least two did.

    ``summary`` and ``per_run`` are `burgerbot.training.summarise_runs` and `runs_frame`.
    None when fewer than two NUM_ENVS were run.
    """
    speeds = env_steps_per_s(per_run)
    if len(speeds) < 2:
        return None
    fewest, most = min(speeds), max(speeds)
    parts = [f"**Throughput.** {speed_text(speeds[fewest], speeds[most], fewest, most)}"]
    learned = summary[summary["reached"] > 0]
    if len(learned) >= 2:
        n_small, n_large = int(learned["num_envs"].iloc[0]), int(learned["num_envs"].iloc[-1])
        sample = sample_text(
            needed_env_steps(per_run, n_small),
            needed_env_steps(per_run, n_large),
            n_small,
            n_large,
        )
        order = order_text(summary)
        parts += [
            f"**Env-steps needed to learn** (sample efficiency). {sample}"
            + (f" {order}" if order else ""),
            f"**Net effect.** {_clock_text(per_run, n_small, n_large)}",
        ]
    return "\n\n".join(parts)


# --- Where the time goes ----------------------------------------------------------------------
# Where a training run's time goes, per env-step: measured, never typed in.
#
# One plain `BurgerBotEnv.step()` costs a few microseconds. A training step costs far more at
# NUM_ENVS=1: choosing the actions and updating the table are a handful of numpy calls per
# ``step()`` call whose cost hardly grows with N. A batch shares that cost out, which is what
# the page's throughput numbers show.


def plain_step_microseconds(seconds: float = 0.2, seed: int = 0) -> float:
    """Microseconds per step of a plain loop of random actions on one `BurgerBotEnv`.

    Resets (after an episode ends) are part of the loop and of its time, as in any loop
    that keeps collecting transitions. Runs for about ``seconds``.

    Example:
        >>> 0 < plain_step_microseconds(seconds=0.01) < 10_000
        True
    """
    env = BurgerBotEnv()
    actions = np.random.default_rng(seed).integers(0, 4, size=4096).tolist()
    steps, elapsed = 0, 0.0
    try:
        env.reset(seed=seed)
        while elapsed < seconds:
            start = time.perf_counter()
            for action in actions:
                _, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    env.reset()
            elapsed += time.perf_counter() - start
            steps += len(actions)
    finally:
        env.close()
    return elapsed / steps * 1e6


def cost_text(speeds: Mapping[int, Sequence[float]], plain_us: float) -> str | None:
    """Microseconds per env-step of training at the smallest and largest NUM_ENVS, in words.

    ``speeds`` maps NUM_ENVS to each seed's training speed (env-steps per second); the
    figures are medians, and "fell" is said only when every seed of the larger NUM_ENVS was
    faster than every seed of the smaller (`burgerbot.bench.compare_timings`). ``plain_us``
    is `plain_step_microseconds` measured beside it. None with no usable speed.

    Example:
        >>> print(cost_text({1: [5_000, 4_800, 5_200], 16: [40_000, 39_000, 41_000]}, plain_us=3))
        ... # doctest: +ELLIPSIS
        Per [env-step](glossary#env-step), training took **200.0 µs** with NUM_ENVS=1 and ...
    """
    usable = {n: _finite(v) for n, v in speeds.items() if _finite(v)}
    if not usable:
        return None
    n_small, n_large = min(usable), max(usable)
    small_us = 1e6 / float(np.median(usable[n_small]))
    large_us = 1e6 / float(np.median(usable[n_large]))
    plain = (
        f"A plain loop over one `BurgerBotEnv` took **{plain_us:.1f} µs** per step on the same "
        "machine just before"
    )
    if n_small == n_large:
        return (
            f"Per env-step, training took **{small_us:.1f} µs** with NUM_ENVS={n_small}. "
            f"{plain}: the rest is choosing actions and updating the table."
        )
    head = (
        f"Per {term_link('env-step')}, training took **{small_us:.1f} µs** with NUM_ENVS="
        f"{n_small} and **{large_us:.1f} µs** with NUM_ENVS={n_large}. {plain}"
    )
    share = 1 - plain_us / small_us
    if len(usable[n_small]) < 2 or len(usable[n_large]) < 2:
        return (
            f"{head}. With one seed each there is no spread to tell whether the cost per "
            "env-step fell with NUM_ENVS: train with two seeds or more."
        )
    fell = compare_timings(usable[n_large], usable[n_small]).verdict == "faster"
    # The cost per call is a timing comparison of its own: a ratio only when the seeds'
    # call rates lie apart (a few short calls at a large NUM_ENVS are mostly noise).
    calls_per_s = {n: [rate / n for rate in usable[n]] for n in (n_small, n_large)}
    calls = compare_timings(calls_per_s[n_large], calls_per_s[n_small]).verdict
    if calls == "slower":
        small_calls, large_calls = calls_per_s[n_small], calls_per_s[n_large]
        for_cost = (
            f"{large_us * n_large / (small_us * n_small):.1f}x the cost (ratio of medians; "
            f"{min(small_calls) / max(large_calls):.1f}x to "
            f"{max(small_calls) / min(large_calls):.1f}x over the seeds)"
        )
    elif calls == "similar":
        for_cost = (
            "a cost per call that could not be told apart on this server (the seeds' costs "
            "per call overlap)"
        )
    else:
        for_cost = "no more cost per call (quicker in every seed here: noise on a shared machine)"
    per_call = (
        f"One call cost {small_us * n_small:,.0f} µs with NUM_ENVS={n_small} and "
        f"{large_us * n_large:,.0f} µs with NUM_ENVS={n_large} (medians): "
        f"{n_large / n_small:g}x the env-steps for {for_cost}."
    )
    if fell and share > 0.5:
        part = "over 99%" if share > 0.99 else f"about {share:.0%}"
        return (
            f"{head}, so at NUM_ENVS={n_small} {part} of each env-step's cost is the work "
            "around the robot's move: the numpy calls of one `step()` call of the vector env, "
            f"choosing the actions, updating the table. {per_call} A batch shares that cost "
            "out. A neural-network method pays one forward pass of its policy per call too, "
            "shared the same way."
        )
    if fell:
        return (
            f"{head}. The env itself is a large part of the cost at NUM_ENVS={n_small}, yet "
            f"the cost per env-step still fell: {per_call}"
        )
    return (
        f"{head}. The cost per env-step did **not** clearly fall with NUM_ENVS={n_large} in "
        f"this run (the seeds' speeds overlap or went the other way): {per_call}"
    )


# --- The prediction and the key takeaways -----------------------------------------------------

SAMPLE_OPTIONS = ("Fewer, in every seed", "More, in every seed", "Neither: the seeds overlap")
"""Answers to the prediction: does the largest NUM_ENVS need fewer env-steps to learn?"""


def sample_pid(n_small: int, n_large: int) -> str:
    """The prediction's id: a new question for each pair compared.

    >>> sample_pid(1, 16)
    'learning_speed_sample_1_16'
    """
    return f"learning_speed_sample_{n_small}_{n_large}"


def sample_question(n_small: int, n_large: int, env_steps: int) -> str:
    return (
        f"Every NUM_ENVS trains on the same {env_steps:,} env-steps, with the same seeds. "
        f"Does **NUM_ENVS={n_large}** need fewer or more env-steps than **NUM_ENVS={n_small}** "
        "before it has learned the task?"
    )


def sample_truth(per_run: pd.DataFrame, n_small: int, n_large: int) -> str:
    """The answer the runs give, one of `SAMPLE_OPTIONS`: a direction only when every seed
    of one NUM_ENVS needed fewer env-steps than every seed of the other (a seed that never
    learned counts as needing more).

    Example:
        >>> runs = pd.DataFrame({"num_envs": [1, 1, 16, 16], "reached": [True] * 4,
        ...                      "env_steps": [200, 700, 288, 3168]})
        >>> sample_truth(runs, 1, 16)
        'Neither: the seeds overlap'
    """
    small, large = needed_env_steps(per_run, n_small), needed_env_steps(per_run, n_large)
    if max(large) < min(small):
        return SAMPLE_OPTIONS[0]
    if max(small) < min(large):
        return SAMPLE_OPTIONS[1]
    return SAMPLE_OPTIONS[2]


def sample_explanation(per_run: pd.DataFrame, n_small: int, n_large: int) -> str:
    """What the seeds needed, in numbers (`sample_text`)."""
    return sample_text(
        needed_env_steps(per_run, n_small), needed_env_steps(per_run, n_large), n_small, n_large
    )


def takeaways(
    summary: pd.DataFrame | None = None, per_run: pd.DataFrame | None = None
) -> list[str]:
    """The page's key takeaways; the last one is computed from the learner's run, if any.

    ``summary`` and ``per_run`` are `burgerbot.training.summarise_runs` and `runs_frame`.
    """
    bullets = [
        "Batching shares each `step()` call's fixed cost (Python, numpy, choosing the actions, "
        "a policy's forward pass) over N env-steps: more env-steps per second.",
        "Sample efficiency, the env-steps needed to learn, is another question: N robots "
        "exploring side by side are not promised to learn from fewer transitions.",
        "How many env-steps a run needs varies a lot from seed to seed: compare several seeds "
        "per NUM_ENVS, never one run each.",
    ]
    learned = None if summary is None else summary[summary["reached"] > 0]
    if learned is not None and per_run is not None and len(learned) >= 2:
        small, large = int(learned["num_envs"].iloc[0]), int(learned["num_envs"].iloc[-1])
        a, b = needed_env_steps(per_run, small), needed_env_steps(per_run, large)
        medians = float(learned["env_steps"].iloc[-1]), float(learned["env_steps"].iloc[0])
        if max(b) < min(a):
            bullets.append(
                f"In your run every seed of NUM_ENVS={large} needed fewer env-steps than every "
                f"seed of NUM_ENVS={small}; with few seeds, train with more before calling it "
                "a rule."
            )
        elif max(a) < min(b):
            bullets.append(
                f"In your run every seed of NUM_ENVS={large} needed more env-steps than every "
                f"seed of NUM_ENVS={small}: batching bought env-steps per second, not "
                "learning per env-step."
            )
        else:
            bullets.append(
                f"In your run the env-steps needed overlapped from seed to seed (medians "
                f"{medians[0]:,.0f} for NUM_ENVS={large}, {medians[1]:,.0f} for {small}): more "
                "envs did not clearly save or cost transitions."
            )
    return bullets
