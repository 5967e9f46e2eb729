"""Home page charts: transitions per second against N, and a policy forward pass against N."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.palette import SHAPES, colour_scale

__all__ = ["PLAIN", "SETUPS", "forward_chart", "speed_chart"]

# The speed chart's panel width in pixels: with its axis it fits a 600-pixel column.
_PANEL_WIDTH = 440

PLAIN = "plain loop (1 env)"
SETUPS = (PLAIN, "Sync", "native")
"""The setups of `burgerbot.app.views.home.chart_frame`, in legend order."""


def _x(values: list[int], field: str, title: str) -> alt.X:
    return alt.X(
        f"{field}:Q",
        title=title,
        scale=alt.Scale(type="log", base=2, nice=False, padding=12),
        axis=alt.Axis(values=values, format="d"),
    )


def speed_chart(frame: pd.DataFrame) -> alt.FacetChart:
    """Transitions per second against N, one panel per way of picking actions, stacked.

    ``frame`` is `burgerbot.app.views.home.chart_frame`'s. Sync and native are lines with
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
        alt.Tooltip("transitions_per_s:Q", title="transitions/s (best repeat)", format=",.0f"),
        alt.Tooltip("slowest_repeat:Q", title="transitions/s (slowest repeat)", format=",.0f"),
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

    ``frame`` is `burgerbot.app.views.home.forward_frame`'s: the measured cost and, dashed,
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
