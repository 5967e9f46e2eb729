"""Charts for the "Batch shapes" page: where the N robots stand, and CartPole's pole angles."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.views.batch_shapes_pictures import CARTPOLE_LIMITS

__all__ = ["POLE_ANGLE_LIMIT", "cell_count_heatmap", "pole_angle_chart"]

POLE_ANGLE_LIMIT = CARTPOLE_LIMITS.pole_angle
"""CartPole's pole-angle end condition (radians), read from the installed gymnasium."""

# Cells nobody can stand on are drawn in one dark colour instead of a count colour.
_BLOCKED_KINDS = ("obstacle", "hole")
_BLOCKED_COLOUR = OKABE_ITO[7]  # black
_FLOOR_COLOUR = "#eceff1"  # neutral: cells nobody stands on, as in world.render_rgb
_COUNT_RANGE = ["#FFFFFF", OKABE_ITO[0]]  # white to Okabe-Ito orange
_BAR_COLOUR, _LIMIT_COLOUR = OKABE_ITO[3], OKABE_ITO[4]  # blue bars, vermillion limits
_CELL_PIXELS = 44


def cell_count_heatmap(cells: pd.DataFrame, title: str) -> alt.LayerChart:
    """A grid of cells coloured by how many envs' agents stand there; blocked cells are dark.

    ``cells`` is long form with columns row, col, count, kind and label (one row per cell),
    as made by ``burgerbot.app.views.batch_shapes_pictures.burgerbot_cell_counts``.
    """
    axis_row = alt.Y("row:O", title="row", sort="ascending")
    axis_col = alt.X("col:O", title="col", axis=alt.Axis(orient="top", labelAngle=0))
    base = alt.Chart(cells)
    tooltip = ["row:O", "col:O", "kind:N", alt.Tooltip("count:Q", title="envs here")]
    blocked = (
        base.transform_filter(alt.FieldOneOfPredicate(field="kind", oneOf=list(_BLOCKED_KINDS)))
        .mark_rect(color=_BLOCKED_COLOUR, stroke="white")
        .encode(x=axis_col, y=axis_row, tooltip=tooltip)
    )
    open_filter = {"not": alt.FieldOneOfPredicate(field="kind", oneOf=list(_BLOCKED_KINDS))}
    floor = (
        base.transform_filter(open_filter)
        .mark_rect(color=_FLOOR_COLOUR, stroke="white")
        .encode(x=axis_col, y=axis_row, tooltip=tooltip)
    )
    counted = (
        base.transform_filter(open_filter)
        .transform_filter(alt.datum.count > 0)
        .mark_rect(stroke="white")
        .encode(
            x=axis_col,
            y=axis_row,
            color=alt.Color(
                "count:Q",
                title="envs on this cell",
                scale=alt.Scale(range=_COUNT_RANGE, domainMin=0),
            ),
            tooltip=tooltip,
        )
    )
    labels = base.mark_text(fontSize=12, fontWeight="bold").encode(
        x=axis_col,
        y=axis_row,
        text="label:N",
        color=alt.condition(
            alt.FieldOneOfPredicate(field="kind", oneOf=list(_BLOCKED_KINDS)),
            alt.value("white"),
            alt.value("black"),
        ),
    )
    return alt.layer(floor, counted, blocked, labels).properties(
        width=alt.Step(_CELL_PIXELS), height=alt.Step(_CELL_PIXELS), title=title
    )


def pole_angle_chart(angles: pd.DataFrame) -> alt.LayerChart:
    """One bar per env: how far its pole leans (radians), with CartPole's angle limit marked.

    ``angles`` has columns env and "pole angle" (long form: one row per env). The limits
    are constants (``alt.datum``), so the chart has a single data set.
    """
    base = alt.Chart(angles)
    bars = base.mark_bar(color=_BAR_COLOUR).encode(
        x=alt.X("env:O", title="env index (axis 0 of the batch)"),
        y=alt.Y(
            "pole angle:Q",
            title="pole angle (radians)",
            scale=alt.Scale(domain=[-0.25, 0.25], clamp=True),
        ),
        tooltip=[
            "env:O",
            alt.Tooltip("pole angle:Q", format=".4f"),
            alt.Tooltip("cart position:Q", format=".4f"),
        ],
    )
    limits = [
        base.mark_rule(color=_LIMIT_COLOUR, strokeDash=[4, 3]).encode(y=alt.datum(limit))
        for limit in (-POLE_ANGLE_LIMIT, POLE_ANGLE_LIMIT)
    ]
    return alt.layer(bars, *limits).properties(height=220)
