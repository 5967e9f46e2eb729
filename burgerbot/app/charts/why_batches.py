"""Charts for "Why batches help": the rollout buffer and learning curves."""

from __future__ import annotations

import altair as alt
import pandas as pd

from burgerbot.app.palette import OKABE_ITO, SHAPES

__all__ = [
    "CURVE_METRICS",
    "EVENT_COLOURS",
    "EVENT_LABELS",
    "buffer_cells",
    "buffer_chart_size",
    "buffer_heatmap",
    "buffer_plot_size",
    "learning_curve",
]

EVENT_LABELS = {
    "move": "move forward (+1)",
    "turn_or_stop": "turn or stop (−0.1)",
    "hit": "hit (−10, episode ends)",
    "goal": "goal (+50, episode ends)",
    "truncated": "time limit (episode ends)",
    "reset": "reset step (0, action ignored)",
}
"""What each ``event`` of `burgerbot.experiments.rollout` means, with its reward."""

_ORANGE, _SKY, _GREEN, _BLUE, _VERMILLION, _PURPLE, _YELLOW, _BLACK = OKABE_ITO

EVENT_COLOURS = {
    "move": _GREEN,
    "turn_or_stop": _SKY,
    "hit": _VERMILLION,
    "goal": _PURPLE,
    "truncated": _ORANGE,
    "reset": _YELLOW,
}
"""Okabe-Ito colours, one per event (a heatmap's cells can only differ by colour; the
tooltip and the table tab name each cell's event too)."""

_CURVE_COLOURS = OKABE_ITO[:6]  # as many as NUM_ENVS values a comparison may hold

CURVE_METRICS = {
    "reaches_goal": ("greedy policy reaches goal (% of seeds)", ".0%"),
    "goal_rate": ("training episodes at goal (last 100)", ".0%"),
    "greedy_return": ("greedy policy's return from the start", ".1f"),
}
"""Columns of `burgerbot.training.curves_frame` a learning curve can show: (title, format)."""

_Y_AXIS_PIXELS = 80
_X_AXIS_PIXELS = 70
_SIDE_LEGEND_PIXELS = 300  # the legend beside a narrow heatmap
_BOTTOM_LEGEND_PIXELS = (560, 120)  # the legend, in two columns, under a wide one
_MAX_WIDTH = 720
_MAX_HEIGHT = 640
_CELL_GAP = 0.08  # share of a column left blank on each side, so the envs stand apart


def buffer_cells(frame: pd.DataFrame, drawn_envs: int, drawn_steps: int) -> pd.DataFrame:
    """The part of a rollout buffer the heatmap draws, one row per cell (long form).

    ``frame`` is `burgerbot.buffers.rollout_buffer`'s; keeps ``step <= drawn_steps`` and
    ``env < drawn_envs`` and adds the cell edges (``x0``, ``x1``, ``y0``, ``y1``: env ``i``
    spans ``i..i+1`` less a small gap, step ``t`` spans ``t-1..t``) and the event's label.
    """
    cells = frame.loc[
        (frame["step"] <= drawn_steps) & (frame["env"] < drawn_envs),
        ["step", "env", "action", "reward", "event", "episode", "ends_episode"],
    ].copy()
    cells["event"] = cells["event"].astype(str)
    cells["what happened"] = cells["event"].map(EVENT_LABELS)
    gap = _CELL_GAP if drawn_envs <= 16 else 0.0
    cells["x0"], cells["x1"] = cells["env"] + gap, cells["env"] + 1 - gap
    cells["y0"], cells["y1"] = cells["step"] - 1, cells["step"]
    return cells.reset_index(drop=True)


def buffer_plot_size(drawn_envs: int, drawn_steps: int) -> tuple[int, int]:
    """Pixel width and height of the heatmap's plot area (axes and legend come on top).

    The shape follows the buffer's: one env is a tall thin strip, many envs a wide band.
    """
    width = min(_MAX_WIDTH, max(40, drawn_envs * 28))
    height = min(_MAX_HEIGHT, max(120, drawn_steps * 5))
    return width, height


def _legend_beside(drawn_envs: int, drawn_steps: int) -> bool:
    width, _ = buffer_plot_size(drawn_envs, drawn_steps)
    return width + _Y_AXIS_PIXELS + _SIDE_LEGEND_PIXELS <= _MAX_WIDTH


def buffer_chart_size(drawn_envs: int, drawn_steps: int) -> tuple[int, int]:
    """The width and height to give ``st.altair_chart``, which treats them as the whole
    chart's size: the plot area plus its axes and the legend (beside or under it)."""
    width, height = buffer_plot_size(drawn_envs, drawn_steps)
    if _legend_beside(drawn_envs, drawn_steps):
        return width + _Y_AXIS_PIXELS + _SIDE_LEGEND_PIXELS, height + _X_AXIS_PIXELS
    legend_width, legend_height = _BOTTOM_LEGEND_PIXELS
    return max(width + _Y_AXIS_PIXELS, legend_width), height + _X_AXIS_PIXELS + legend_height


def _env_ticks(drawn_envs: int, most: int = 16) -> list[float]:
    every = max(1, -(-drawn_envs // most))
    return [env + 0.5 for env in range(0, drawn_envs, every)]


def buffer_heatmap(frame: pd.DataFrame, drawn_envs: int, drawn_steps: int) -> alt.LayerChart:
    """The rollout buffer as a steps x envs grid: row = ``step()`` call, column = env.

    Each cell is one transition coloured by what happened (and so by its reward); a dark
    line under a cell marks the end of that env's episode.
    """
    cells = buffer_cells(frame, drawn_envs, drawn_steps)
    width, height = buffer_plot_size(drawn_envs, drawn_steps)
    x = alt.X(
        "x0:Q",
        title="env (column of the buffer)",
        scale=alt.Scale(domain=[0, drawn_envs], nice=False, zero=True),
        # Ticks sit in the middle of each column and are labelled with the env index.
        axis=alt.Axis(
            orient="top",
            values=_env_ticks(drawn_envs),
            labelExpr="format(datum.value - 0.5, 'd')",
            grid=False,
        ),
    )
    y = alt.Y(
        "y0:Q",
        title="step() call (row of the buffer)",
        scale=alt.Scale(domain=[0, drawn_steps], reverse=True, nice=False),
        axis=alt.Axis(tickMinStep=1, format="d"),
    )
    labels = list(EVENT_LABELS.values())
    if _legend_beside(drawn_envs, drawn_steps):
        legend = alt.Legend(orient="right", labelLimit=240, symbolSize=160)
    else:
        legend = alt.Legend(
            orient="bottom", direction="vertical", columns=2, labelLimit=240, symbolSize=160
        )
    colour = alt.Color(
        "what happened:N",
        title="What the transition was",
        scale=alt.Scale(domain=labels, range=[EVENT_COLOURS[e] for e in EVENT_LABELS]),
        legend=legend,
    )
    tooltip = [
        alt.Tooltip("step:Q", title="step() call"),
        alt.Tooltip("env:Q"),
        alt.Tooltip("action:Q"),
        alt.Tooltip("reward:Q"),
        alt.Tooltip("what happened:N"),
        alt.Tooltip("episode:Q", title="episode of this env"),
    ]
    base = alt.Chart(cells)
    rects = base.mark_rect().encode(x=x, x2="x1:Q", y=y, y2="y1:Q", color=colour, tooltip=tooltip)
    boundaries = (
        base.transform_filter(alt.datum.ends_episode)
        .mark_rule(color=_BLACK, strokeWidth=1.2)
        .encode(x="x0:Q", x2="x1:Q", y="y1:Q")
    )
    return alt.layer(rects, boundaries).properties(width=width, height=height)


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
        x_enc = alt.X("env_steps:Q", title="env-steps collected (transitions)")
    else:
        x_enc = alt.X(
            "seconds:Q",
            title="seconds of training (log scale)",
            scale=alt.Scale(type="log"),
        )
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
        .properties(height=280)
    )
