"""Charts for the "Goal scaling" page: goals and finished episodes against NUM_ENVS."""

from __future__ import annotations

from collections.abc import Sequence

import altair as alt
import pandas as pd

from burgerbot.app.palette import OKABE_ITO

__all__ = ["LAYERS", "LAYER_SHAPES", "METRIC_TITLES", "scaling_panel"]

METRIC_TITLES = {
    "goals": "Goals reached per run",
    "episodes": "Finished episodes per run",
}

# What each mark is: the legend names them, in this order, with these Okabe-Ito colours...
LAYERS = {
    "one run (one seed)": OKABE_ITO[0],  # orange
    "mean over the seeds": OKABE_ITO[7],  # black
    "95% interval of the mean": OKABE_ITO[7],
    "expected if counts grow with env-steps": OKABE_ITO[3],  # blue, dashed
}
# ...and these shapes, so no two marks differ by colour alone.
LAYER_SHAPES = dict(zip(LAYERS, ("circle", "diamond", "stroke", "stroke"), strict=True))
_POINT, _MEAN, _INTERVAL, _EXPECTED = LAYERS


def _panel(
    points: pd.DataFrame,
    bands: pd.DataFrame,
    metric: str,
    x_values: Sequence[int],
    log_y: bool,
) -> alt.LayerChart:
    """One metric's layers: expected line, one dot per run, the interval and the mean."""
    # Under the plot in two columns: the chart shares its row with the other metric's.
    legend = alt.Legend(title=None, orient="bottom", columns=2, labelLimit=0, symbolSize=80)
    colour = alt.Color(
        "layer:N", scale=alt.Scale(domain=list(LAYERS), range=list(LAYERS.values())), legend=legend
    )
    shape = alt.Shape(
        "layer:N",
        scale=alt.Scale(domain=list(LAYER_SHAPES), range=list(LAYER_SHAPES.values())),
        legend=legend,
    )
    x_axis = alt.Axis(values=list(x_values), format="d", title="NUM_ENVS (log scale, base 2)")
    x_scale = alt.Scale(type="log", base=2, nice=False, padding=14)
    title = METRIC_TITLES[metric] + (" (log scale)" if log_y else "")
    y_scale = alt.Scale(type="log") if log_y else alt.Scale(zero=True)
    y = alt.Y("value:Q", title=title, scale=y_scale)
    x_points = alt.X("x:Q", scale=x_scale, axis=x_axis)
    x_bands = alt.X("num_envs:Q", scale=x_scale, axis=x_axis)

    metric_points = points[points["metric"] == metric].assign(layer=_POINT)
    metric_bands = bands[bands["metric"] == metric]
    runs = (
        alt.Chart(metric_points)
        .mark_point(size=36, opacity=0.7, filled=True)
        .encode(
            x=x_points,
            y=y,
            color=colour,
            shape=shape,
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("seed:Q", title="seed"),
                alt.Tooltip("value:Q", title=metric, format=",d"),
            ],
        )
    )
    expected = (
        alt.Chart(metric_bands.assign(layer=_EXPECTED))
        .mark_line(strokeDash=[6, 4], strokeWidth=2)
        .encode(
            x=x_bands,
            y=alt.Y("expected:Q", scale=y_scale, title=title),
            color=colour,
            tooltip=[
                alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
                alt.Tooltip("expected:Q", title="expected", format=",.3g"),
            ],
        )
    )
    summary_tooltip = [
        alt.Tooltip("num_envs:Q", title="NUM_ENVS"),
        alt.Tooltip("mean:Q", title="mean", format=",.3g"),
        alt.Tooltip("low:Q", title="95% low", format=",.3g"),
        alt.Tooltip("high:Q", title="95% high", format=",.3g"),
    ]
    interval = (
        alt.Chart(metric_bands.dropna(subset=["low", "high"]).assign(layer=_INTERVAL))
        .mark_rule(strokeWidth=2.5)
        .encode(
            x=x_bands,
            y=alt.Y("low:Q", scale=y_scale, title=title),
            y2="high:Q",
            color=colour,
            tooltip=summary_tooltip,
        )
    )
    mean = (
        alt.Chart(metric_bands.assign(layer=_MEAN))
        .mark_point(size=110, filled=True)
        .encode(
            x=x_bands,
            y=alt.Y("mean:Q", scale=y_scale, title=title),
            color=colour,
            shape=shape,
            tooltip=summary_tooltip,
        )
    )
    return alt.layer(expected, runs, interval, mean).properties(
        # Streamlit fits the whole chart (axes and legend too) into this height. The page
        # writes the chart's title above it (a title inside the chart got clipped).
        height=400,
    )


def scaling_panel(points: pd.DataFrame, bands: pd.DataFrame, metric: str) -> alt.LayerChart:
    """One panel against NUM_ENVS (log2 x axis) for ``metric``: "goals" or "episodes".

    ``points`` and ``bands`` are the long-form frames of ``goal_scaling_summary.chart_data``:
    every run is a dot (moved a little sideways per seed), the mean of the seeds a
    diamond with its 95% interval as a vertical bar, and the dashed line is what the
    measured rate predicts. Goals keep a linear y axis (zeros must stay visible);
    episodes get a log y axis when every value and interval end is above zero.
    """
    if metric not in METRIC_TITLES:
        raise ValueError(f"`metric` must be one of {tuple(METRIC_TITLES)}, got {metric!r}")
    x_values = sorted(int(n) for n in bands["num_envs"].unique())
    log_y = False
    if metric == "episodes":
        # A log axis cannot show zero (or an interval reaching below it): stay linear then.
        episode_bands = bands[bands["metric"] == "episodes"]
        log_y = bool(
            (points.loc[points["metric"] == "episodes", "value"] > 0).all()
            and (episode_bands["low"].fillna(1) > 0).all()
        )
    return _panel(points, bands, metric, x_values, log_y)
