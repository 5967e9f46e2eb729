"""The "From batches to training data" chart: the batch's TD targets without and with the mask."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.palette import OKABE_ITO, SHAPES

__all__ = ["ROW_KINDS", "target_counts", "targets_chart"]

ROW_KINDS = ("real transition", "reset row (not a transition)")
"""The two kinds of buffer row, in legend order (`views.training_data_tables.target_points`)."""

_KIND_COLOURS = (OKABE_ITO[3], OKABE_ITO[4])  # blue, vermillion
_KIND_SHAPES = (SHAPES[0], SHAPES[4])  # circle, cross


def target_counts(points: pd.DataFrame) -> pd.DataFrame:
    """How many rows of each kind got each TD target, per batch (the chart's data)."""
    counts = (
        points.groupby(["batch", "row", "target"], sort=False)
        .size()
        .reset_index(name="rows")
        .sort_values(["batch", "target", "row"], ascending=[False, True, True])
    )
    return counts.reset_index(drop=True)


def targets_chart(counts: pd.DataFrame) -> alt.Chart:
    """One line of points per batch: each point a TD target value, sized by how many rows got it.

    Reset rows are vermillion crosses, real transitions blue circles (shape and colour).
    """
    kind = alt.Color(
        "row:N",
        title="row",
        scale=alt.Scale(domain=list(ROW_KINDS), range=list(_KIND_COLOURS)),
        legend=alt.Legend(orient="bottom"),
    )
    return (
        alt.Chart(counts, title="TD targets in the batch: without vs with the mask")
        .mark_point(filled=True, opacity=0.85)
        .encode(
            x=alt.X("target:Q", title="TD target", scale=alt.Scale(zero=False)),
            y=alt.Y("batch:N", title=None, sort=["without mask", "with mask"]),
            color=kind,
            shape=alt.Shape(
                "row:N", scale=alt.Scale(domain=list(ROW_KINDS), range=list(_KIND_SHAPES))
            ),
            size=alt.Size("rows:Q", title="rows", scale=alt.Scale(range=[60, 600])),
            tooltip=["batch", "row", alt.Tooltip("target:Q", format=".2f"), "rows"],
        )
        .properties(height=140)
    )
