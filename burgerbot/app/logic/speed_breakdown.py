"""Speed breakdown: the plain loop, Sync and native across N, without and with a policy
network, and what one forward pass costs for a batch.

Every sentence saying who was faster is made here from the measured numbers, the fastest and
the slowest of the repeats (the spread), so its wording follows the data either way
(`burgerbot.app.rates`).
"""

from __future__ import annotations

from typing import Any, cast

import altair as alt
import pandas as pd

from burgerbot.app.glossary import term_link
from burgerbot.app.palette import SHAPES, colour_scale
from burgerbot.app.rates import (
    NUM_ENVS_CHOICES,
    Rate,
    Speeds,
    capital,
    compare,
    figure,
    ratio,
    times,
    us,
)
from burgerbot.app.settings import IntSetting
from burgerbot.speed import forward_speeds, loop_speeds

__all__ = [
    "NO",
    "PLAIN",
    "PREDICTION_N",
    "SETUPS",
    "SIZES",
    "SPECS",
    "YES",
    "chart_frame",
    "env_story",
    "forward_chart",
    "forward_frame",
    "forward_story",
    "measure_speeds",
    "policy_story",
    "prediction_explanation",
    "prediction_truth",
    "sizes_for",
    "speed_chart",
    "speed_takeaways",
]

SPECS = [IntSetting("n", "NUM_ENVS", 16, 1, NUM_ENVS_CHOICES[-1])]
SIZES = (1, 4, 16, 64)
"""Numbers of envs always measured (the learner's NUM_ENVS joins them)."""
PREDICTION_N = 16
YES, NO = "Yes, Sync is faster", "No, the plain loop is faster"
SECONDS, REPEATS = 0.02, 5
"""Timing budget per repeat and repeats per row, taken in turns: about two seconds in all.
Each repeat makes hundreds of `step()` calls; the verdicts read the five repeats' spread."""
STEPPING = {False: "random actions (the env alone)", True: "a policy network picks each action"}


def sizes_for(num_envs: int) -> tuple[int, ...]:
    """`SIZES` with ``num_envs`` added, in order.

    >>> sizes_for(16), sizes_for(128)
    ((1, 4, 16, 64), (1, 4, 16, 64, 128))
    """
    return tuple(sorted({*SIZES, int(num_envs)}))


def measure_speeds(num_envs: int, seconds: float = SECONDS, repeats: int = REPEATS) -> Speeds:
    """Measure everything the page shows, at `SIZES` and ``num_envs`` (about two seconds)."""
    sizes = sizes_for(num_envs)
    return Speeds(
        loop_speeds(sizes, seconds=seconds, repeats=repeats),
        forward_speeds(sizes, seconds=seconds, repeats=repeats),
    )


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


def _per_transition_us(rate: Rate) -> str:
    return us(1 / rate.median)


def _reset_rows(speeds: Speeds, num_envs: int) -> str:
    """What the vector envs returned besides transitions: NEXT_STEP's auto-reset rows."""
    share = speeds.reset_share("sync", num_envs)
    return (
        f" Counted as {term_link('transition', 'transitions')}: a vector env returned "
        f"{num_envs:,} rows ({term_link('env-step', 'env-steps')}) per call, but "
        f"{share:.1%} of Sync's were {term_link('autoreset', 'auto-reset')} rows, no "
        "transitions, and are left out, as the plain loop's `reset()` calls return none."
    )


def phrase(a_name: str, a: Rate, b_name: str, b: Rate) -> str:
    """Who was faster, with both figures: a ranking only when every repeat of one beat every
    repeat of the other, and then the ratio of the medians with its range (the closest and the
    widest pair of repeats); overlapping repeats "could not be told apart on this server"."""
    kind = compare(a, b)
    if kind == "similar":
        return (
            f"{a_name} and {b_name} could not be told apart on this server, their repeats "
            f"overlapping: {a.quoted()} against {b.quoted('')}"
        )
    fast_name, fast, slow_name, slow = (
        (a_name, a, b_name, b) if kind == "faster" else (b_name, b, a_name, a)
    )
    return (
        f"{fast_name} was faster than {slow_name} in every repeat: the ratio of the medians "
        f"was **{times(ratio(fast, slow))}**, the repeats' ratios ranged from "
        f"{times(fast.slowest / slow.best)} to {times(fast.best / slow.slowest)} "
        f"({fast.quoted()} against {slow.quoted('')})"
    )


def env_story(speeds: Speeds, num_envs: int) -> str:
    """Stepping alone: the plain loop against Sync and native at ``num_envs``, and across N."""
    plain = speeds.rate("plain")
    sync, native = speeds.rate("sync", num_envs), speeds.rate("native", num_envs)
    sync_name, native_name = f"Sync with {num_envs:,} envs", f"native with {num_envs:,} envs"
    text = (
        f"With random actions, {phrase(sync_name, sync, 'the plain loop', plain)}. "
        f"{capital(phrase(native_name, native, 'the plain loop', plain))}. "
        f"Per transition (medians), Sync spent {_per_transition_us(sync)} and the plain loop "
        f"{_per_transition_us(plain)}. Across N, Sync was {_crossing(speeds, 'sync', False)}."
    )
    if compare(sync, plain) == "slower":
        extra = 1 / sync.median - 1 / plain.median  # seconds per transition beyond the loop's
        text += (
            " A `step()` call of Sync steps its envs one by one in Python and then stacks "
            f"their results: from the medians, that bookkeeping added about {us(extra)} per "
            "transition"
        )
        if sync.best / sync.slowest > 2 or plain.best / plain.slowest > 2:
            text += (
                f", a rough figure: Sync's repeats ranged from {sync.slowest:,.0f} to "
                f"{sync.best:,.0f} transitions/s and the plain loop's from "
                f"{plain.slowest:,.0f} to {plain.best:,.0f}, more than 2x apart, so the "
                "noise of this server dominates it."
            )
        else:
            text += f", {figure(extra * plain.median)} times the plain loop's whole time per step."
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
        f"One forward pass of the policy took {us(n / batched.median)} for {n:,} "
        f"observations and {us(int(first['batch_size']) / one.median)} for "
        f"{int(first['batch_size'])} (medians of the repeats): {n:,} times the observations "
        f"for {figure(grew)} times the time"
    )
    if compare(batched, one) == "faster":
        return text + (
            f", so each observation cost **{figure(ratio(batched, one))} times less** in the "
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
        f". {capital(phrase(native_name, native, 'the plain loop', plain))}. "
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


def prediction_truth(speeds: Speeds) -> str | None:
    """The answer the live run gave: with the policy, Sync at `PREDICTION_N` envs against the
    plain loop."""
    kind = compare(speeds.rate("sync", PREDICTION_N, True), speeds.rate("plain", 1, True))
    # Overlapping repeats cannot be told apart: no answer to score (`learning.check`).
    return {"faster": YES, "slower": NO, "similar": None}[kind]


def prediction_explanation(speeds: Speeds) -> str:
    """Why, with the numbers (and a note when the two were too close to call)."""
    sync, plain = speeds.rate("sync", PREDICTION_N, True), speeds.rate("plain", 1, True)
    text = (
        f"Measured here with the policy picking every action, the question's {PREDICTION_N} "
        f"envs whatever NUM_ENVS says: Sync collected {sync.quoted()}, the plain loop "
        f"{plain.quoted()}."
    )
    kind = compare(sync, plain)
    if kind == "similar":
        return text + (
            " Their repeats overlap: they could not be told apart on this server (measure "
            "again, or run the script below on your machine)."
        )
    if kind == "slower":
        return text + (
            f" The plain loop ran the network {PREDICTION_N} times for each of Sync's calls "
            "and still came out ahead here: the forward passes Sync saved did not make up for "
            "its cost per call."
        )
    return text + (
        " The plain loop runs the network once per transition, Sync once per call of "
        f"{PREDICTION_N} rows: the forward passes Sync saved paid for its cost per call."
    )


def speed_takeaways(speeds: Speeds) -> list[str]:
    """The run-dependent "Key takeaways" (the page adds the fixed ones)."""
    n = PREDICTION_N
    sync, plain = speeds.rate("sync", n), speeds.rate("plain")
    sync_policy, plain_policy = speeds.rate("sync", n, True), speeds.rate("plain", 1, True)
    forwards = cast(pd.DataFrame, speeds.forwards)  # `measure_speeds` always measures them
    largest = int(forwards["batch_size"].iloc[-1])
    verdict = {
        "slower": "batching alone does not speed up a world this cheap",
        "faster": "here batching alone already paid",
        "similar": "too close to call on this server",
    }[compare(sync, plain)]

    def against(a: Rate, b: Rate) -> str:
        if compare(a, b) == "similar":
            return "about the plain loop's speed (the repeats overlap)"
        return f"{times(ratio(a, b))} the plain loop's speed"

    one, batched = _observation_rates(forwards, 0), _observation_rates(forwards, -1)
    batch_cheaper = compare(batched, one) == "faster"
    cheaper = (
        f"each of its observations cost {times(ratio(batched, one))} less than one alone"
        if batch_cheaper
        else "its observations were not clearly cheaper than one alone"
    )
    # "so" only when the cheaper batch and Sync's win with a policy go together; when they
    # part (a noisy run, a slow server), the second half is a separate finding, not a result.
    follows = batch_cheaper and compare(sync_policy, plain_policy) == "faster"
    link = ", so with a policy" if follows else "; with a policy,"
    return [
        f"Stepping alone, Sync with {n} envs ran at {against(sync, plain)} here: {verdict}.",
        f"In one policy forward pass for {largest} observations {cheaper}{link} "
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
    """Long form for the forward-pass chart: measured (the median of the repeats, as
    `forward_story` quotes it), and what cost in proportion to N gives."""
    sizes = forwards["batch_size"]
    medians = [_observation_rates(forwards, i).median for i in range(len(forwards))]
    measured = sizes / pd.Series(medians, index=forwards.index) * 1e6
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


# --- Charts: transitions per second against N, and a policy forward pass against N ---

# The speed chart's panel width in pixels: with its axis it fits a phone's 358-pixel column
# (a faceted chart cannot fit its container; at 440 it spilled past the page at 390 px).
_PANEL_WIDTH = 290

PLAIN = "plain loop (1 env)"
SETUPS = (PLAIN, "Sync", "native")
"""The setups of `chart_frame`, in legend order."""

SETUP_DASHES = ([6, 4], [1, 0], [2, 2])
"""Each setup's line: the plain loop's rule dashed, Sync solid, native dotted."""


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
    dash = alt.StrokeDash(
        "setup:N",
        title=None,
        scale=alt.Scale(domain=list(SETUPS), range=list(SETUP_DASHES)),
        legend=None,  # the legend's shapes name the setups; the dash is one cue more
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
    lines = vectors.mark_line().encode(strokeDash=dash)
    points = base.mark_point(filled=True, size=80, opacity=1).encode(shape=shape)
    plain = (
        alt.Chart()
        .transform_filter(alt.datum.setup == PLAIN)
        .mark_rule(strokeDash=[6, 4])
        .encode(y=y, color=colour, strokeDash=dash, tooltip=tooltip)
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
        # Two lines: one would be wider than the narrow panel and spill past a phone's screen.
        .properties(
            title=["Transitions collected per second (log scale),", "measured on this server"],
            description=(
                "Transitions collected per second (y, log scale) against N, envs per step() "
                "call (x, log scale), one panel per way of picking actions: the plain loop "
                "(1 env) is a circle at N = 1 and a dashed line across, Sync a solid line "
                "with squares, native a dotted line with triangles."
            ),
        )
    )


def forward_chart(frame: pd.DataFrame) -> alt.LayerChart:
    """Microseconds per policy forward pass against the batch size, both axes logarithmic.

    ``frame`` is `forward_frame`'s: the measured cost and, dashed,
    what it would be if it grew in proportion to the batch.
    """
    values = sorted(int(n) for n in frame["batch_size"].unique())
    series = list(dict.fromkeys(frame["series"]))
    encoding: dict[str, Any] = {
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
            alt.Tooltip("us_per_call:Q", title="µs per forward pass (median)", format=",.1f"),
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
    ).properties(
        title=["One policy forward pass,", "measured on this server"],
        description=(
            "Microseconds per policy forward pass (y, log scale) against observations per "
            "pass (x, log scale): the measured cost is a solid line with circles, the cost if "
            "it grew in proportion to the batch a dashed line with squares."
        ),
        height=250,
    )
