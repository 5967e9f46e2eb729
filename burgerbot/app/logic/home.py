"""Home's live speed story: a plain loop, Sync and native, without and with a policy network.

Every sentence saying who was faster is made here from the measured numbers, the fastest and
the slowest of the repeats (the spread), so its wording follows the data either way.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import altair as alt
import numpy as np
import pandas as pd

from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.palette import SHAPES, colour_scale
from burgerbot.app.scripts.home import SB3_FIX
from burgerbot.app.settings import IntSetting
from burgerbot.bench import compare_timings
from burgerbot.random_agent import episode_odds, goal_odds, long_run_goal_rate
from burgerbot.speed import forward_speeds, loop_speeds

__all__ = [
    "LESSON_FIXES",
    "NO",
    "PATH",
    "PLAIN",
    "PREDICTION_N",
    "SAME",
    "SETUPS",
    "SIZES",
    "SPECS",
    "YES",
    "LessonFix",
    "Speeds",
    "Stop",
    "chart_frame",
    "compare",
    "env_story",
    "forward_chart",
    "forward_frame",
    "forward_story",
    "lesson_goal_fix",
    "measure_speeds",
    "metric_delta",
    "policy_story",
    "prediction_explanation",
    "prediction_truth",
    "ratio",
    "sizes_for",
    "speed_chart",
    "speed_takeaways",
]

SPECS = [IntSetting("n", "NUM_ENVS", 16, 2, CAPS.max_envs)]
SIZES = (1, 4, 16, 64)
"""Numbers of envs always measured (the learner's NUM_ENVS joins them)."""
PREDICTION_N = 16
YES, NO = "Yes, Sync is faster", "No, the plain loop is faster"
SAME = "About the same here"
"""The live run's answer when the repeats of Sync and the plain loop overlap."""
SECONDS, REPEATS = 0.02, 5
"""Timing budget per repeat and repeats per row, taken in turns: about two seconds in all.
Each repeat makes hundreds of `step()` calls; the verdicts read the five repeats' spread."""
STEPPING = {False: "random actions (the env alone)", True: "a policy network picks each action"}


def sizes_for(num_envs: int) -> tuple[int, ...]:
    """`SIZES` with ``num_envs`` added, in order.

    >>> sizes_for(16), sizes_for(100)
    ((1, 4, 16, 64), (1, 4, 16, 64, 100))
    """
    return tuple(sorted({*SIZES, int(num_envs)}))


@dataclass(frozen=True)
class Rate:
    """Transitions per second, one figure per timed repeat (taken in turns with the others)."""

    samples: tuple[float, ...]

    @property
    def best(self) -> float:
        return max(self.samples)

    @property
    def slowest(self) -> float:
        return min(self.samples)

    @property
    def median(self) -> float:
        return float(np.median(self.samples))

    def quoted(self, unit: str = " transitions/s") -> str:
        """The median with the spread of the repeats, as the sentences quote it.

        >>> Rate((90_000.0, 100_000.0, 120_000.0)).quoted()
        '100,000 transitions/s (repeats 90,000 to 120,000)'
        """
        return f"{self.median:,.0f}{unit} (repeats {self.slowest:,.0f} to {self.best:,.0f})"


@dataclass(frozen=True)
class Speeds:
    """One measurement: `burgerbot.speed.loop_speeds` and `forward_speeds` frames."""

    loops: pd.DataFrame
    forwards: pd.DataFrame

    def rate(self, loop: str, num_envs: int = 1, policy: bool = False) -> Rate:
        """The rate of one row of ``loops`` (the plain loop always has ``num_envs=1``)."""
        rows = self._rates.get((loop, int(num_envs), bool(policy)), [])
        if len(rows) != 1:
            raise KeyError(f"no single row for {loop!r}, num_envs={num_envs}, policy={policy}")
        return rows[0]

    @cached_property
    def _rates(self) -> dict[tuple[str, int, bool], list[Rate]]:
        """Every row of ``loops`` by (loop, num_envs, policy), read once: a page asks often."""
        rates: dict[tuple[str, int, bool], list[Rate]] = {}
        columns = ["loop", "num_envs", "policy", "transition_rates"]
        for loop, num_envs, policy, samples in self.loops[columns].itertuples(index=False):
            rates.setdefault((loop, int(num_envs), bool(policy)), []).append(
                Rate(tuple(float(x) for x in samples))
            )
        return rates

    def sizes(self) -> list[int]:
        """The numbers of envs measured for Sync and native."""
        return sorted({num_envs for loop, num_envs, _ in self._rates if loop != "plain"})

    def reset_share(self, loop: str, num_envs: int, policy: bool = False) -> float:
        """The share of ``loop``'s rows at ``num_envs`` that were auto-reset rows."""
        df = self.loops
        row = df[(df["loop"] == loop) & (df["num_envs"] == num_envs) & (df["policy"] == policy)]
        return float(row["reset_row_share"].iloc[0])


def measure_speeds(num_envs: int, seconds: float = SECONDS, repeats: int = REPEATS) -> Speeds:
    """Measure everything Home shows, at `SIZES` and ``num_envs`` (about two seconds)."""
    sizes = sizes_for(num_envs)
    return Speeds(
        loop_speeds(sizes, seconds=seconds, repeats=repeats),
        forward_speeds(sizes, seconds=seconds, repeats=repeats),
    )


def compare(a: Rate, b: Rate) -> str:
    """``"faster"``, ``"slower"`` or ``"similar"``: ``a`` against ``b``, by their spreads.

    `burgerbot.bench.compare_timings`: clear only when every repeat of one beat every repeat
    of the other; otherwise about as fast.

    >>> compare(Rate((300, 250)), Rate((100, 90))), compare(Rate((100, 60)), Rate((110, 70)))
    ('faster', 'similar')
    """
    return compare_timings(a.samples, b.samples).verdict


def ratio(a: Rate, b: Rate) -> float:
    """How many times ``b``'s median rate ``a``'s is."""
    return compare_timings(a.samples, b.samples).ratio


def _times(value: float) -> str:
    return f"{_figure(value)}x"


def _figure(value: float) -> str:
    """Two significant figures below 10, whole numbers above (never "2.1e+02").

    Example:
        >>> _figure(0.314), _figure(3.14), _figure(214.3), _figure(12345.6)
        ('0.31', '3.1', '214', '12,346')
    """
    return f"{value:.2g}" if value < 10 else f"{value:,.0f}"


def phrase(a_name: str, a: Rate, b_name: str, b: Rate) -> str:
    """Who was faster, in words, with both figures; "about as fast" when the repeats overlap.

    A factor is given only when every repeat of one beat every repeat of the other.
    """
    kind = compare(a, b)
    if kind == "similar":
        return (
            f"{a_name} and {b_name} were about as fast, their repeats overlapping: "
            f"{a.quoted()} against {b.quoted('')}"
        )
    fast_name, fast, slow_name, slow = (
        (a_name, a, b_name, b) if kind == "faster" else (b_name, b, a_name, a)
    )
    return (
        f"{fast_name} was **{_times(ratio(fast, slow))} faster** than {slow_name} in every "
        f"repeat: {fast.quoted()} against {slow.quoted('')}"
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def metric_delta(rate: Rate, plain: Rate) -> tuple[str, str, str]:
    """The metric's delta text, arrow and colour against the plain loop (Okabe-Ito blue/orange).

    A ratio only when the repeats do not overlap.

    >>> metric_delta(Rate((50, 45)), Rate((200, 150)))
    ('0.27x the plain loop', 'down', 'orange')
    >>> metric_delta(Rate((50, 45)), Rate((60, 40)))
    ('about the same as the plain loop', 'off', 'gray')
    """
    kind = compare(rate, plain)
    if kind == "similar":
        return "about the same as the plain loop", "off", "gray"
    arrow = {"faster": "up", "slower": "down"}[kind]
    colour = {"faster": "blue", "slower": "orange"}[kind]
    return f"{_times(ratio(rate, plain))} the plain loop", arrow, colour


def _crossing(speeds: Speeds, loop: str, policy: bool) -> str:
    """Where ``loop`` stands against the plain loop across the N measured."""
    plain = speeds.rate("plain", 1, policy)
    kinds = {n: compare(speeds.rate(loop, n, policy), plain) for n in speeds.sizes()}
    sizes = list(kinds)
    span = f"N = {sizes[0]:,} to {sizes[-1]:,}"
    if all(k == "slower" for k in kinds.values()):
        return f"slower than the plain loop at every N measured ({span})"
    if all(k == "faster" for k in kinds.values()):
        return f"faster than the plain loop at every N measured ({span})"
    faster = [n for n, k in kinds.items() if k == "faster"]
    if faster:
        return f"faster than the plain loop at N = {', '.join(f'{n:,}' for n in faster)} only"
    return f"never clearly faster than the plain loop ({span})"


def _us(seconds: float) -> str:
    """Microseconds, two significant digits, no exponent.

    >>> _us(7.34e-6), _us(1.2345e-3)
    ('7.3 µs', '1,200 µs')
    """
    return f"{float(f'{seconds * 1e6:.2g}'):,g} µs"


def _per_transition_us(rate: Rate) -> str:
    return _us(1 / rate.median)


def _reset_rows(speeds: Speeds, num_envs: int) -> str:
    """What the vector envs returned besides transitions: NEXT_STEP's auto-reset rows."""
    share = speeds.reset_share("sync", num_envs)
    return (
        f" Counted as {term_link('transition', 'transitions')}: a vector env returned "
        f"{num_envs:,} rows ({term_link('env-step', 'env-steps')}) per call, but "
        f"{share:.1%} of Sync's were {term_link('autoreset', 'auto-reset')} rows, no "
        "transitions, and are left out, as the plain loop's `reset()` calls return none."
    )


def env_story(speeds: Speeds, num_envs: int) -> str:
    """Stepping alone: the plain loop against Sync and native at ``num_envs``, and across N."""
    plain = speeds.rate("plain")
    sync, native = speeds.rate("sync", num_envs), speeds.rate("native", num_envs)
    sync_name, native_name = f"Sync with {num_envs:,} envs", f"native with {num_envs:,} envs"
    text = (
        f"With random actions, {phrase(sync_name, sync, 'the plain loop', plain)}. "
        f"{_capital(phrase(native_name, native, 'the plain loop', plain))}. "
        f"Per transition (medians), Sync spent {_per_transition_us(sync)} and the plain loop "
        f"{_per_transition_us(plain)}. Across N, Sync was {_crossing(speeds, 'sync', False)}."
    )
    if compare(sync, plain) == "slower":
        extra = 1 / sync.median - 1 / plain.median  # seconds per transition beyond the loop's
        text += (
            " A `step()` call of Sync steps its envs one by one in Python and then stacks "
            f"their results: that bookkeeping added {_us(extra)} per transition, "
            f"{_figure(extra * plain.median)} times the plain loop's whole time per step."
        )
    return text + _reset_rows(speeds, num_envs)


def _observation_rates(forwards: pd.DataFrame, index: int) -> Rate:
    row = forwards.iloc[index]
    return Rate(tuple(float(x) for x in row["observation_rates"]))


def forward_story(forwards: pd.DataFrame) -> str:
    """How the cost of one forward pass grew from 1 observation to the largest batch."""
    first, last = forwards.iloc[0], forwards.iloc[-1]
    n = int(last["batch_size"])
    one, batched = _observation_rates(forwards, 0), _observation_rates(forwards, -1)
    grew = n / ratio(batched, one)  # the time of a pass of n over one of 1 (medians)
    text = (
        f"One forward pass of the policy took {_us(n / batched.median)} for {n:,} "
        f"observations and {_us(int(first['batch_size']) / one.median)} for "
        f"{int(first['batch_size'])} (medians of the repeats): {n:,} times the observations "
        f"for {_figure(grew)} times the time"
    )
    if compare(batched, one) == "faster":
        return text + (
            f", so each observation cost **{_figure(ratio(batched, one))} times less** in the "
            "batch, in every repeat."
        )
    return text + ": here the batch did not clearly make each observation cheaper."


def _trend(speeds: Speeds, policy: bool) -> str:
    """How Sync's and native's transitions per second changed from the smallest N to the largest."""
    low, high = speeds.sizes()[0], speeds.sizes()[-1]
    words = {"faster": "rose", "slower": "fell", "similar": "did not clearly change"}
    parts = []
    for loop, name in (("sync", "Sync"), ("native", "native")):
        first, last = speeds.rate(loop, low, policy), speeds.rate(loop, high, policy)
        kind = compare(last, first)
        overlap = " (their repeats overlap)" if kind == "similar" else ""
        parts.append(
            f"{name}'s {words[kind]} from {first.median:,.0f} (N = {low:,}) to "
            f"{last.median:,.0f} (N = {high:,}){overlap}"
        )
    return "Transitions per second (medians): " + "; ".join(parts) + "."


def policy_story(speeds: Speeds, num_envs: int) -> str:
    """With the policy: one forward pass per step (plain loop) against one per call (vector)."""
    plain = speeds.rate("plain", 1, True)
    sync, native = speeds.rate("sync", num_envs, True), speeds.rate("native", num_envs, True)
    sync_name, native_name = f"Sync with {num_envs:,} envs", f"native with {num_envs:,} envs"
    text = (
        f"With the policy choosing every action, {phrase(sync_name, sync, 'the plain loop', plain)}"
        f". {_capital(phrase(native_name, native, 'the plain loop', plain))}. "
        f"{_trend(speeds, True)}"
    )
    alone = compare(speeds.rate("sync", num_envs), speeds.rate("plain"))
    if alone != "faster" and compare(sync, plain) == "faster":
        text += (
            " The Sync that did not win on stepping alone won once each call also paid for a "
            f"forward pass: the plain loop pays one per transition, Sync one per {num_envs:,} "
            "rows."
        )
    return text


def prediction_truth(speeds: Speeds) -> str:
    """The answer the live run gave: Sync at `PREDICTION_N` envs against the plain loop."""
    kind = compare(speeds.rate("sync", PREDICTION_N), speeds.rate("plain"))
    return {"faster": YES, "slower": NO, "similar": SAME}[kind]


def prediction_explanation(speeds: Speeds) -> str:
    """Why, with the numbers (and a note when the two were too close to call)."""
    sync, plain = speeds.rate("sync", PREDICTION_N), speeds.rate("plain")
    text = (
        f"Measured here, the question's {PREDICTION_N} envs whatever the slider says: Sync "
        f"collected {sync.quoted()}, the plain loop {plain.quoted()}."
    )
    kind = compare(sync, plain)
    if kind == "similar":
        return text + (
            " Their repeats overlap: too close to call on this server (measure again, or run "
            "the script below on your machine)."
        )
    if kind == "slower":
        return text + (
            f" Per transition that is {_us(1 / sync.median)} for Sync against "
            f"{_us(1 / plain.median)} for the plain loop: batching alone does not make a cheap "
            "env faster. Where batching pays is shown below."
        )
    return text + " On this server Sync came out ahead even without a policy."


def speed_takeaways(speeds: Speeds) -> list[str]:
    """The run-dependent "Key takeaways" (the page adds the fixed ones)."""
    n = PREDICTION_N
    sync, plain = speeds.rate("sync", n), speeds.rate("plain")
    sync_policy, plain_policy = speeds.rate("sync", n, True), speeds.rate("plain", 1, True)
    forwards = speeds.forwards
    largest = int(forwards["batch_size"].iloc[-1])
    verdict = {
        "slower": "batching alone does not speed up a world this cheap",
        "faster": "here batching alone already paid",
        "similar": "too close to call on this server",
    }[compare(sync, plain)]

    def against(a: Rate, b: Rate) -> str:
        if compare(a, b) == "similar":
            return "about the plain loop's speed (the repeats overlap)"
        return f"{_times(ratio(a, b))} the plain loop's speed"

    one, batched = _observation_rates(forwards, 0), _observation_rates(forwards, -1)
    cheaper = (
        f"each of its observations cost {_times(ratio(batched, one))} less than one alone"
        if compare(batched, one) == "faster"
        else "its observations were not clearly cheaper than one alone"
    )
    return [
        f"Stepping alone, Sync with {n} envs ran at {against(sync, plain)} here: {verdict}.",
        f"In one policy forward pass for {largest} observations {cheaper}, so with a policy "
        f"Sync with {n} envs ran at {against(sync_policy, plain_policy)}.",
    ]


def chart_frame(speeds: Speeds) -> pd.DataFrame:
    """Long form for the speed chart: one row per (stepping, setup, N)."""
    df = speeds.loops
    names = {"plain": "plain loop (1 env)", "sync": "Sync", "native": "native"}
    return pd.DataFrame(
        {
            "stepping": df["policy"].map(STEPPING),
            "setup": df["loop"].map(names),
            "num_envs": df["num_envs"],
            "transitions_per_s": df["transitions_per_s_median"].round(0),
            "slowest_repeat": df["transitions_per_s_slowest"].round(0),
            "fastest_repeat": df["transitions_per_s"].round(0),
            "us_per_call": (df["seconds_per_call"] * 1e6).round(1),
        }
    )


def forward_frame(forwards: pd.DataFrame) -> pd.DataFrame:
    """Long form for the forward-pass chart: measured, and what cost in proportion to N gives."""
    sizes = forwards["batch_size"]
    measured = forwards["seconds_per_call"] * 1e6
    proportional = measured.iloc[0] * sizes / sizes.iloc[0]
    return pd.concat(
        [
            pd.DataFrame({"batch_size": sizes, "us_per_call": measured, "series": "measured"}),
            pd.DataFrame(
                {
                    "batch_size": sizes,
                    "us_per_call": proportional,
                    "series": "if it grew in proportion to N",
                }
            ),
        ],
        ignore_index=True,
    ).round({"us_per_call": 1})


# --- views/home_path.py ---
# Home's map: the lesson's code that no longer works as written, and a path through the pages.

TARGET_GOALS = 20
"""Goals expected per setting before a doubling stands out from the noise."""
LESSON_CALLS = 500
"""The lesson's experiment: 500 `step()` calls with 4 envs, then with 8."""


@dataclass(frozen=True)
class LessonFix:
    """One place where the lesson's code does not work as written today, and the fix."""

    kind: str
    """A key of `burgerbot.app.labels.VERDICTS`."""
    problem: str
    fix: str
    page: str
    """The file in app_pages/ that runs it."""
    link: str
    detail: str = ""
    """More on it, for a tooltip."""


def lesson_goal_fix() -> LessonFix:
    """The goal experiment's line, its counts exact from the world's rules (`random_agent`)."""
    odds = episode_odds()
    per_goal = 1 / long_run_goal_rate()
    needed = float(f"{TARGET_GOALS * per_goal:.2g}")
    return LessonFix(
        "not_visible",
        f"{LESSON_CALLS} steps with 4 envs, then 8: the goal count roughly doubles",
        f"true on average, but with 4 envs: {goal_odds(LESSON_CALLS, 4).describe()}; with 8: "
        f"{goal_odds(LESSON_CALLS, 8).describe()}",
        "goal_scaling.py",
        "Goal scaling",
        f"A random BurgerBot reaches the goal in 1 episode of {1 / odds.goal_chance:,.0f}. An "
        f"episode takes {odds.mean_rows:.1f} rows of a vector env on average ("
        f"{odds.mean_length:.1f} steps and its auto-reset row), so the long-run rate is one "
        f"goal per {per_goal:,.0f} env-steps (all exact, from the world's rules). Seeing the "
        f"doubling takes about {needed:,.0f} env-steps per setting ({TARGET_GOALS} goals "
        "expected), or many seeds.",
    )


LESSON_FIXES = (
    LessonFix(
        "changed",
        "the call that ends an episode returns the next episode's first observation",
        "it returns the final one; the *next* call resets that env (NEXT_STEP)",
        "autoreset.py",
        "Auto-reset",
        "Since gymnasium 1.0 the default is `AutoresetMode.NEXT_STEP`: the reset call ignores "
        "that env's action and returns reward 0 with both flags False.",
    ),
    LessonFix(
        "changed",
        '`infos["final_observation"]`',
        'gone: `obs` of the ending call (NEXT_STEP), or `infos["final_obs"]` (SAME_STEP)',
        "autoreset.py",
        "Auto-reset",
        "`gym.vector.SyncVectorEnv(fns, autoreset_mode=AutoresetMode.SAME_STEP)` behaves as the "
        "lesson says, with the keys `final_obs` and `final_info` (and masks `_final_obs`, "
        "`_final_info`).",
    ),
    LessonFix(
        "never_valid",
        '`PPO("MlpPolicy", env, n_envs=4)`',
        f"`{SB3_FIX}`, then pass that to PPO",
        "sb3.py",
        "Stable-Baselines3",
        "No Stable-Baselines3 release had an `n_envs` argument on PPO: a mistake in the "
        "lesson's text, not a change in the library.",
    ),
    LessonFix(
        "never_valid",
        "a Gymnasium `SyncVectorEnv` given to PPO",
        "SB3's own VecEnv (`make_vec_env` builds a `DummyVecEnv`)",
        "sb3.py",
        "Stable-Baselines3",
        "No Stable-Baselines3 release ever trained on a Gymnasium vector env as N envs (older "
        "releases took it for one env with a batched observation and failed in training); "
        "SB3's own VecEnvs reset on the same step and keep the last observation in "
        '`infos[i]["terminal_observation"]`.',
    ),
)
"""The lines whose wording is fixed; `lesson_goal_fix` gives the goal experiment's line."""


@dataclass(frozen=True)
class Stop:
    """One stop on the suggested path: a page and what to do there."""

    page: str
    title: str
    what: str


PATH = (
    Stop("batch_shapes.py", "Batch shapes", "every array one call returns"),
    Stop("autoreset.py", "Auto-reset", "episodes ending and restarting"),
    Stop("training_data.py", "From batches to training data", "which rows are transitions"),
    Stop("why_batches.py", "Why batches help", "calls per PPO batch"),
    Stop("learning_speed.py", "Does batching make learning faster?", "Q-learning per NUM_ENVS"),
    Stop("sb3.py", "Stable-Baselines3", "`make_vec_env` and SB3's VecEnv"),
    Stop("goal_scaling.py", "Goal scaling", "exercise 1: goals with 8 envs"),
    Stop("sync_vs_async.py", "Sync vs Async", "exercise 2: one process or many"),
    Stop("mistakes.py", "Shapes, dtypes and mistakes", "exercise 3, common errors"),
    Stop("lesson_vs_today.py", "The lesson vs today", "every disagreement, run live"),
    Stop("vector_wrappers.py", "Wrapping a vector env", "log returns right in every mode"),
)
"""The suggested order through the pages (the Glossary is there whenever a word is new)."""


# --- charts/home.py ---
# Home page charts: transitions per second against N, and a policy forward pass against N.

# The speed chart's panel width in pixels: with its axis it fits a 600-pixel column.
_PANEL_WIDTH = 440

PLAIN = "plain loop (1 env)"
SETUPS = (PLAIN, "Sync", "native")
"""The setups of `chart_frame`, in legend order."""


def _x(values: list[int], field: str, title: str) -> alt.X:
    return alt.X(
        f"{field}:Q",
        title=title,
        scale=alt.Scale(type="log", base=2, nice=False, padding=12),
        axis=alt.Axis(values=values, format="d"),
    )


def speed_chart(frame: pd.DataFrame) -> alt.FacetChart:
    """Transitions per second against N, one panel per way of picking actions, stacked.

    ``frame`` is `chart_frame`'s. Sync and native are lines with
    markers of their own shape; the plain loop (one env) is a point at N = 1 and a dashed
    line across the panel, so every N can be read against it.
    """
    values = sorted(int(n) for n in frame["num_envs"].unique())
    colour = alt.Color(
        "setup:N", title=None, scale=colour_scale(SETUPS), legend=alt.Legend(orient="top")
    )
    shape = alt.Shape(
        "setup:N",
        title=None,
        scale=alt.Scale(domain=list(SETUPS), range=list(SHAPES[:3])),
        legend=alt.Legend(orient="top"),
    )
    # No axis title: one per stacked panel is longer than the panel is tall (they overlapped);
    # the chart's title says what the axis is.
    y = alt.Y("transitions_per_s:Q", title=None, scale=alt.Scale(type="log"))
    tooltip = [
        alt.Tooltip("setup:N"),
        alt.Tooltip("stepping:N"),
        alt.Tooltip("num_envs:Q", title="N"),
        alt.Tooltip("transitions_per_s:Q", title="transitions/s (median)", format=",.0f"),
        alt.Tooltip("slowest_repeat:Q", title="transitions/s (slowest repeat)", format=",.0f"),
        alt.Tooltip("fastest_repeat:Q", title="transitions/s (fastest repeat)", format=",.0f"),
        alt.Tooltip("us_per_call:Q", title="µs per step() call", format=",.1f"),
    ]
    base = alt.Chart().encode(
        x=_x(values, "num_envs", "N, envs per step() call (log scale)"),
        y=y,
        color=colour,
        tooltip=tooltip,
    )
    vectors = base.transform_filter(alt.datum.setup != PLAIN)
    lines = vectors.mark_line()
    points = base.mark_point(filled=True, size=80, opacity=1).encode(shape=shape)
    plain = (
        alt.Chart()
        .transform_filter(alt.datum.setup == PLAIN)
        .mark_rule(strokeDash=[6, 4])
        .encode(y=y, color=colour, tooltip=tooltip)
    )
    steppings = list(dict.fromkeys(frame["stepping"]))
    # One panel above the other: Vega-Lite cannot fit a faceted chart to its container, and
    # two panels side by side at a readable width spilled past the page on a laptop screen.
    return (
        alt.layer(plain, lines, points, data=frame)
        .properties(width=_PANEL_WIDTH, height=130)
        .facet(
            row=alt.Row(
                "stepping:N",
                title=None,
                sort=steppings,
                header=alt.Header(
                    labelOrient="top", labelAngle=0, labelAnchor="start", labelFontSize=12
                ),
            )
        )
        .properties(title="Transitions collected per second (log scale), measured on this server")
    )


def forward_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Microseconds per policy forward pass against the batch size, both axes logarithmic.

    ``frame`` is `forward_frame`'s: the measured cost and, dashed,
    what it would be if it grew in proportion to the batch.
    """
    values = sorted(int(n) for n in frame["batch_size"].unique())
    series = list(dict.fromkeys(frame["series"]))
    encoding = {
        "x": _x(values, "batch_size", "observations per forward pass (log scale)"),
        "y": alt.Y(
            # Short: a rotated title longer than the plot makes Vega's "fit" shrink the plot.
            "us_per_call:Q",
            title="µs per pass (log)",
            scale=alt.Scale(type="log"),
        ),
        "color": alt.Color(
            "series:N", title=None, scale=colour_scale(series), legend=alt.Legend(orient="top")
        ),
        "strokeDash": alt.StrokeDash(
            "series:N",
            title=None,
            scale=alt.Scale(domain=series, range=[[1, 0], [6, 4]]),
            legend=alt.Legend(orient="top"),
        ),
        "tooltip": [
            alt.Tooltip("series:N", title="what"),
            alt.Tooltip("batch_size:Q", title="observations"),
            alt.Tooltip("us_per_call:Q", title="µs per forward pass", format=",.1f"),
        ],
    }
    base = alt.Chart(frame).encode(**encoding)
    shape = alt.Shape(
        "series:N",
        title=None,
        scale=alt.Scale(domain=series, range=list(SHAPES[:2])),
        legend=alt.Legend(orient="top"),
    )
    return (
        base.mark_line() + base.mark_point(filled=True, size=70, opacity=1).encode(shape=shape)
    ).properties(title="One policy forward pass, measured on this server", height=250)
