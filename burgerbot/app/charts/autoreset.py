"""Charts for the "Auto-reset" page: episodes per sub-environment over time, and episode counts."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.palette import OKABE_ITO, SHAPES, colour_scale
from burgerbot.app.views.autoreset import MODES
from burgerbot.app.views.autoreset_timeline import RESET_MARKERS

__all__ = [
    "COUNTING_HEIGHT",
    "END_MARKERS",
    "MODE_SHAPES",
    "SEGMENT_COLOURS",
    "episode_timeline",
    "finished_episodes_chart",
]

_SKY_BLUE, _BLUISH_GREEN, _VERMILLION, _REDDISH_PURPLE, _YELLOW, _BLACK = (
    OKABE_ITO[i] for i in (1, 2, 4, 5, 6, 7)
)

SEGMENT_COLOURS = {
    "episodes 0, 2, 4, …": _SKY_BLUE,
    "episodes 1, 3, 5, …": _YELLOW,
    "reset step": "#ffffff",
}
"""Cell fill (Okabe-Ito): episodes alternate two colours; NEXT_STEP's reset step is left blank."""

END_MARKERS = {
    "goal": (SHAPES[3], _BLUISH_GREEN),  # diamond
    "hit": (SHAPES[4], _VERMILLION),  # cross
    "truncated": (SHAPES[5], _REDDISH_PURPLE),  # triangle-down
}
"""(shape, colour) of the marker on the step where an episode ends, by cause: every marker
differs by its shape as well as its colour."""

# A filled vertical bar (Vega scales a custom shape path from the square -1..1): it sits at
# the ending cell's right edge, where SAME_STEP's reset happens.
_BAR_SHAPE = "M-0.3,-1L0.3,-1L0.3,1L-0.3,1Z"
_RESET_STYLE = {
    RESET_MARKERS["NEXT_STEP"]: (SHAPES[0], _BLACK),  # circle
    RESET_MARKERS["SAME_STEP"]: (_BAR_SHAPE, _BLACK),
    RESET_MARKERS["DISABLED"]: (SHAPES[1], _BLACK),  # square
}
# Where a reset marker sits, relative to its cell's centre, in steps. NEXT_STEP: the
# middle of its own reset cell; SAME_STEP: inside the ending cell, at its right edge;
# DISABLED: on the boundary after the ending cell (the reset is a call of its own).
_RESET_OFFSET = {
    RESET_MARKERS["NEXT_STEP"]: 0.0,
    RESET_MARKERS["SAME_STEP"]: 0.32,
    RESET_MARKERS["DISABLED"]: 0.5,
}
_MARKER_STYLE = {**END_MARKERS, **_RESET_STYLE}

_LABEL_LIMIT = 400
COUNTING_HEIGHT = 130
"""The counting chart's plot height in pixels (its legend and axes come on top)."""

MODE_SHAPES = dict(zip(MODES, SHAPES, strict=False))
"""The counting chart marks each mode's bar top with its own shape, as well as its colour."""

_TOOLTIP = [
    alt.Tooltip("step:Q", title="step() call"),
    alt.Tooltip("env:O", title="env"),
    alt.Tooltip("episode:Q", title="episode"),
    alt.Tooltip("action:N", title="action sent"),
    alt.Tooltip("obs:N", title="obs returned"),
    alt.Tooltip("reward:Q", title="reward", format=".1f"),
    alt.Tooltip("terminated:N"),
    alt.Tooltip("truncated:N"),
    alt.Tooltip("final obs:N", title="final obs"),
    alt.Tooltip("note:N", title="what happened"),
]


def _row_pixels(num_envs: int) -> int:
    """Tall rows for a few envs, thinner ones (never below 10 px) for many."""
    return max(10, min(26, 640 // max(1, num_envs)))


def _markers(cells: pd.DataFrame) -> pd.DataFrame:
    """One row per marker: ends at the cell centre, resets placed by ``_RESET_OFFSET``."""
    ends = cells[cells["end"].notna()].assign(marker=lambda f: f["end"], x=lambda f: f["step"])
    resets = cells[cells["reset"].notna()].assign(marker=lambda f: f["reset"])
    resets = resets.assign(x=resets["step"] + resets["reset"].map(_RESET_OFFSET))
    return pd.concat([ends, resets], ignore_index=True)


def episode_timeline(
    cells: pd.DataFrame, shown_steps: int, highlight: tuple[int, int, int] | None = None
) -> alt.LayerChart:
    """One row per sub-environment, one cell per ``step()`` call, coloured by episode.

    ``cells`` is long form as made by
    ``burgerbot.app.views.autoreset_timeline.timeline_cells``: columns step, env, episode,
    action, obs, reward, terminated, truncated, final obs, segment, end, reset, note.
    Markers show goals, hits, truncations and resets; every cell and marker has a tooltip.
    Drag or scroll over the chart to pan or zoom along the steps.
    ``highlight=(env, first_step, last_step)`` draws a thick outline around those cells.
    """
    num_envs = int(cells["env"].max()) + 1 if len(cells) else 1
    row = _row_pixels(num_envs)
    cells = cells.assign(start=cells["step"] - 0.46, stop=cells["step"] + 0.46)
    x_scale = alt.Scale(domain=[0.5, shown_steps + 0.5], nice=False)
    x_axis = alt.Axis(tickMinStep=1, format="d", title="step() call (1 = the first step)")
    y = alt.Y(
        "env:O",
        title=None,
        axis=alt.Axis(labelExpr="'env ' + datum.value", labelFontSize=12),
    )
    segments = list(SEGMENT_COLOURS)
    present = [s for s in segments if s in set(cells["segment"])]
    zoom = alt.selection_interval(bind="scales", encodings=["x"])
    rects = (
        alt.Chart(cells)
        .mark_rect(stroke="#525252", strokeWidth=0.6, clip=True)
        .encode(
            x=alt.X("start:Q", scale=x_scale, axis=x_axis),
            x2="stop:Q",
            y=y,
            # fill, not color: the markers' colour scale stays separate (one legend each).
            fill=alt.Fill(
                "segment:N",
                title="cell colour",
                scale=alt.Scale(domain=present, range=[SEGMENT_COLOURS[s] for s in present]),
                legend=alt.Legend(
                    orient="top",
                    symbolStrokeColor="#525252",
                    symbolType="square",
                    labelLimit=_LABEL_LIMIT,
                ),
            ),
            tooltip=_TOOLTIP,
        )
        .add_params(zoom)
    )
    markers = _markers(cells)
    order = [m for m in _MARKER_STYLE if m in set(markers["marker"])]
    points = (
        alt.Chart(markers)
        .mark_point(filled=True, size=max(25, row * row // 4), opacity=1, clip=True)
        .encode(
            x=alt.X("x:Q", scale=x_scale, axis=x_axis),
            y=y,
            shape=alt.Shape(
                "marker:N",
                title="marker",
                scale=alt.Scale(domain=order, range=[_MARKER_STYLE[m][0] for m in order]),
                legend=alt.Legend(orient="top", labelLimit=_LABEL_LIMIT),
            ),
            color=alt.Color(
                "marker:N",
                title="marker",
                scale=alt.Scale(domain=order, range=[_MARKER_STYLE[m][1] for m in order]),
                legend=alt.Legend(orient="top", labelLimit=_LABEL_LIMIT),
            ),
            tooltip=[alt.Tooltip("marker:N", title="marker"), *_TOOLTIP],
        )
    )
    layers = [rects, points]
    if highlight is not None:
        env, first, last = highlight
        box = pd.DataFrame({"env": [env], "start": [first - 0.5], "stop": [last + 0.5]})
        layers.append(
            alt.Chart(box)
            .mark_rect(fillOpacity=0, stroke="#000000", strokeWidth=3, clip=True)
            .encode(x=alt.X("start:Q", scale=x_scale, axis=x_axis), x2="stop:Q", y=y)
        )
    # Streamlit fits the whole chart (legends and axis too) into the spec's height.
    # fit-x: the width fits the page; the height is the rows', and the legends and axis come
    # on top (Streamlit's default "fit" would squeeze the rows into the height).
    return alt.layer(*layers).properties(
        width="container",
        height=row * num_envs,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )


def finished_episodes_chart(counts: pd.DataFrame) -> alt.LayerChart:
    """Bars: finished episodes per env, one bar per auto-reset mode side by side.

    Each mode has its Okabe-Ito colour and a marker of its own shape on its bars' tops, so
    the modes stay apart without colour. ``counts`` is long form as made by
    ``burgerbot.app.views.autoreset_counting.count_finished_by_mode``: columns mode, env,
    finished episodes, goals, hits, truncations.
    """
    modes = [m for m in MODES if m in set(counts["mode"])]
    legend = alt.Legend(orient="top", title="auto-reset mode")
    base = alt.Chart(counts).encode(
        x=alt.X("env:O", title="sub-environment (env index)", axis=alt.Axis(labelAngle=0)),
        xOffset=alt.XOffset("mode:N", sort=modes),
        y=alt.Y("finished episodes:Q", title="finished episodes"),
        color=alt.Color("mode:N", sort=modes, scale=colour_scale(modes), legend=legend),
        tooltip=["mode:N", "env:O", "finished episodes:Q", "goals:Q", "hits:Q", "truncations:Q"],
    )
    tops = base.mark_point(filled=True, size=70, stroke=_BLACK, strokeWidth=0.8).encode(
        shape=alt.Shape(
            "mode:N",
            sort=modes,
            scale=alt.Scale(domain=modes, range=[MODE_SHAPES[m] for m in modes]),
            legend=legend,
        )
    )
    return alt.layer(base.mark_bar(), tops).properties(
        width="container",
        height=COUNTING_HEIGHT,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )
