"""Home page chart: transitions collected per second, 1 env against N envs."""

from __future__ import annotations

import altair as alt
import pandas as pd

__all__ = ["speed_chart", "speed_chart_spec"]


def speed_chart(table: pd.DataFrame) -> alt.LayerChart:
    """A dot per setup in ``table`` on a log axis of transitions per second, value labelled."""
    base = alt.Chart(
        table, title="Transitions collected per second, measured on this server"
    ).encode(
        x=alt.X(
            "transitions_per_s:Q",
            title="transitions per second (log scale)",
            scale=alt.Scale(type="log"),
        ),
        y=alt.Y("setup:N", title=None, sort=None, axis=alt.Axis(labelLimit=320)),
        color=alt.Color("backend:N", title="backend"),
        tooltip=[
            alt.Tooltip("setup:N"),
            alt.Tooltip("transitions_per_call:Q", title="transitions per step() call"),
            alt.Tooltip("transitions_per_s:Q", title="transitions per second", format=",.0f"),
            alt.Tooltip("seconds_per_call:Q", title="seconds per step() call", format=".2e"),
        ],
    )
    dots = base.mark_circle(size=220, opacity=1)
    labels = base.mark_text(align="left", dx=12, fontSize=13).encode(
        text=alt.Text("transitions_per_s:Q", format=",.0f")
    )
    return (dots + labels).properties(height=200)


def speed_chart_spec(table: pd.DataFrame) -> dict:
    """`speed_chart` as a Vega-Lite spec with its data inline, for ``st.vega_lite_chart``.

    Made once per measurement and kept with it: turning the chart into a spec validates it
    against Vega-Lite's schema, which costs about 0.1 s on every run otherwise.
    """
    spec = speed_chart(table).to_dict()
    # The chart has no configuration of its own: this is altair's default theme, whose sizes
    # Streamlit leaves out too (it draws the chart at the page's width).
    spec.pop("config", None)
    return spec
