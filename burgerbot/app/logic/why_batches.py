"""The "Why batches help" page's logic: its URL settings, the app's limits, the rollout
buffer's picture and its texts."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import altair as alt
import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import ChoiceSetting, IntSetting, clamp_num_envs
from burgerbot.buffers import BufferLayout

__all__ = [
    "AUTORESET_CHOICES",
    "EVENT_COLOURS",
    "EVENT_LABELS",
    "MAX_DRAWN_ENVS",
    "MAX_DRAWN_STEPS",
    "SPECS",
    "BufferDrawing",
    "BufferSettings",
    "batch_counts_text",
    "buffer_cells",
    "buffer_chart_size",
    "buffer_drawing",
    "buffer_heatmap",
    "buffer_plot_size",
    "calls_explanation",
    "calls_options",
    "calls_pid",
    "calls_question",
    "calls_truth",
    "drawn_text",
    "helps_points",
    "resolve_settings",
    "takeaways",
]

MAX_DRAWN_ENVS = 64
"""The buffer heatmap draws at most this many envs (columns)..."""

MAX_DRAWN_STEPS = 64
"""...and at most this many ``step()`` calls (rows): at most 4,096 cells in the browser."""

AUTORESET_CHOICES = ("NEXT_STEP", "SAME_STEP")

SPECS = (
    IntSetting("n", "NUM_ENVS", default=4, low=1, high=256),
    IntSetting("batch", "Rows per update (batch size)", default=2048, low=64, high=16384),
    ChoiceSetting("mode", "Auto-reset mode", default="NEXT_STEP", choices=AUTORESET_CHOICES),
    IntSetting("bseed", "Seed of the random agent", default=0, low=0, high=9999),
)

# --- Settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BufferSettings:
    """The batch the first section fills: NUM_ENVS, batch size, auto-reset mode and seed."""

    num_envs: int
    batch_size: int
    mode: str
    seed: int


def resolve_settings(
    values: Mapping[str, Any], caps: Caps = CAPS
) -> tuple[BufferSettings, list[str]]:
    """The page's values with the app's caps applied, and a note for each change made.

    NUM_ENVS is capped like any native env.

    Example:
        >>> values = {"n": 4, "batch": 2048, "mode": "NEXT_STEP", "bseed": 0}
        >>> resolve_settings(values)
        (BufferSettings(num_envs=4, batch_size=2048, mode='NEXT_STEP', seed=0), [])
    """
    notes: list[str] = []
    num_envs, cap_note = clamp_num_envs("native", int(values["n"]), caps)
    if cap_note:
        notes.append(cap_note)
    buffer = BufferSettings(num_envs, int(values["batch"]), values["mode"], int(values["bseed"]))
    return buffer, notes


# --- The buffer picture -----------------------------------------------------------------------


@dataclass(frozen=True)
class BufferDrawing:
    """How much of a rollout buffer the page's heatmap draws (the batch itself is whole)."""

    drawn_envs: int
    drawn_steps: int
    clipped: bool
    """True when the heatmap shows only part of the buffer."""


def buffer_drawing(
    layout: BufferLayout,
    max_drawn_envs: int = MAX_DRAWN_ENVS,
    max_drawn_steps: int = MAX_DRAWN_STEPS,
) -> BufferDrawing:
    """The envs (columns) and ``step()`` calls (rows) of ``layout`` the heatmap draws.

    Example:
        >>> from burgerbot.buffers import buffer_layout
        >>> buffer_drawing(buffer_layout(16384, 256))
        BufferDrawing(drawn_envs=64, drawn_steps=64, clipped=True)
    """
    drawn_envs = min(layout.num_envs, max_drawn_envs)
    drawn_steps = min(layout.step_calls, max_drawn_steps)
    clipped = drawn_envs < layout.num_envs or drawn_steps < layout.step_calls
    return BufferDrawing(drawn_envs, drawn_steps, clipped)


def drawn_text(layout: BufferLayout, drawing: BufferDrawing) -> str:
    """Which part of the buffer the heatmap shows, as a sentence.

    Example:
        >>> from burgerbot.buffers import buffer_layout
        >>> layout = buffer_layout(2048, 4)
        >>> drawn_text(layout, buffer_drawing(layout))
        'Drawn: the first 64 of 512 step() calls for all 4 envs.'
    """
    num_envs = layout.num_envs
    shown = (
        f"Drawn: the first {drawing.drawn_steps:,} of {layout.step_calls:,} step() calls"
        if drawing.drawn_steps < layout.step_calls
        else f"All {layout.step_calls:,} step() calls"
    )
    shown += (
        f" for the first {drawing.drawn_envs} of {num_envs} envs."
        if drawing.drawn_envs < num_envs
        else (f" for all {num_envs} envs." if num_envs > 1 else " for the single env.")
    )
    return shown


def batch_counts_text(events: pd.Series, collected: int, mode: str) -> str:
    """What the whole batch holds, event by event (``events`` counts each ``event``)."""
    resets = int(events.get("reset", 0))
    turns = counted(int(events.get("turn_or_stop", 0)), "turn or stop", "turns or stops", bold=True)
    reset_text = (
        f" **{resets:,}** of them are NEXT_STEP reset rows (the call after an episode ends: "
        "reward 0, the action was ignored), so the batch holds "
        f"**{collected - resets:,} transitions**. A learner must leave the reset rows out of "
        "the update; SAME_STEP mode, like Stable-Baselines3's own vector envs, has none."
        if mode == "NEXT_STEP"
        else " SAME_STEP mode resets an env on the very call its episode ends, so every row is "
        "a real transition."
    )
    return (
        f"In the whole batch of {collected:,} rows ({term_link('env-step', 'env-steps')}): "
        f"{counted(int(events.get('move', 0)), 'move', bold=True)}, "
        f"{turns}, "
        f"{counted(int(events.get('hit', 0)), 'hit', bold=True)}, "
        f"{counted(int(events.get('goal', 0)), 'goal', bold=True)}." + reset_text
    )


# --- The buffer as a chart -------------------------------------------------------------------

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


# --- The prediction, when batching helps, the key takeaways ----------------------------------


def calls_pid(batch_size: int, num_envs: int) -> str:
    """The prediction's id: a new question for each (batch, NUM_ENVS), so a locked answer
    always belongs to the numbers it was given for.

    >>> calls_pid(2048, 4)
    'why_batches_calls_2048_4'
    """
    return f"why_batches_calls_{batch_size}_{num_envs}"


def calls_question(batch_size: int, num_envs: int) -> str:
    return (
        f"PPO fills a batch of **{batch_size:,} rows** per update (one row per env per call). "
        f"With **{num_envs} env{'s' if num_envs != 1 else ''}**, how many `step()` calls fill "
        "the batch?"
    )


def calls_options(batch_size: int, num_envs: int) -> list[str]:
    """Four answers, smallest first: the right one (batch ÷ N, rounded up) and likely slips.

    Example:
        >>> calls_options(2048, 4)
        ['4', '512', '2,048', '8,192']
        >>> calls_options(2048, 1)
        ['1', '1,024', '2,048', '4,096']
    """
    right = math.ceil(batch_size / num_envs)
    candidates = [right, batch_size, batch_size * num_envs, num_envs, batch_size // 2]
    candidates += [2 * batch_size, right + 1]
    distinct = list(dict.fromkeys(c for c in candidates if c >= 1))[:4]
    return [f"{c:,}" for c in sorted(distinct)]


def calls_truth(rollout: pd.DataFrame) -> str:
    """The ``step()`` calls the live run made to fill its batch (its last ``step`` number)."""
    return f"{int(rollout['step'].max()):,}"


def calls_explanation(batch_size: int, num_envs: int, calls: int, resets: int | None = None) -> str:
    """Why the live run needed ``calls`` step() calls, and (NEXT_STEP) how many rows of them
    were transitions: ``resets`` is the run's auto-reset rows (None in SAME_STEP mode)."""
    rows = calls * num_envs
    text = (
        f"Each `step()` call returns one row per env (an env-step), {num_envs} per call, so "
        f"{batch_size:,} rows take ⌈{batch_size:,} ÷ {num_envs}⌉ = {calls:,} "
        f"call{'s' if calls != 1 else ''}."
    )
    if rows != batch_size:
        text += f" The last call overshoots: {rows - batch_size:,} extra."
    if resets is not None:
        text += (
            f" In NEXT_STEP mode those {rows:,} rows held {rows - resets:,} transitions and "
            f"{resets:,} auto-reset rows (this run's count)."
        )
    return text


def helps_points(batch_size: int, num_envs: int, calls: int) -> list[str]:
    """When vectorisation helps (the lesson's point 4), with this batch's numbers.

    Example:
        >>> print(helps_points(2048, 4, 512)[0])  # doctest: +ELLIPSIS
        **On-policy methods such as PPO:** 2,048 rows per update with 4 envs take **512** ...
    """
    envs = f"{num_envs} env{'s' if num_envs != 1 else ''}"
    if num_envs == 1:
        on_policy = (
            f"{batch_size:,} rows per update with 1 env take {calls:,} `step()` calls; with 4 "
            f"envs they would take {math.ceil(batch_size / 4):,}."
        )
    else:
        on_policy = (
            f"{batch_size:,} rows per update with {envs} take **{calls:,}** `step()` "
            f"call{'s' if calls != 1 else ''} "
            f"instead of {batch_size:,}."
        )
    # One env has nothing to batch: say what 4 envs would change, not that 1 env changed it.
    if num_envs == 1:
        off_policy = ": with 4 envs they would fill their replay buffer 4 times faster per call."
        varied = "with 4 envs one update's rows would come from 4 episodes at different stages"
    else:
        off_policy = (
            f" fill their replay buffer faster: each call adds {envs}' worth of transitions."
        )
        varied = f"one update's rows come from {envs} at different stages of their episodes"
    return [
        f"**On-policy methods such as PPO:** {on_policy}",
        f"**Off-policy methods such as DQN**{off_policy}",
        f"**More varied data:** {varied}, not one long stretch of a single episode, so the "
        "update is less noisy.",
        "**For a world as tiny as BurgerBot the gain is small:** a step costs microseconds, so "
        "there is little per-call cost to share. The pattern matters because "
        "Stable-Baselines3 is built on it.",
    ]


def takeaways(batch_size: int, num_envs: int, calls: int, resets: int | None) -> list[str]:
    """The page's key takeaways, computed from this batch's run.

    ``resets`` is the NEXT_STEP reset rows of the batch (None in SAME_STEP mode).
    """
    envs = f"{num_envs} env{'s' if num_envs != 1 else ''}"
    first = (
        f"N envs fill a batch of B rows in ⌈B ÷ N⌉ `step()` calls: {batch_size:,} with {envs} "
        f"took {calls:,}"
    )
    if resets is not None:
        first += (
            f", and in NEXT_STEP mode {'those' if calls != 1 else 'that'} {calls:,} "
            f"call{'s' if calls != 1 else ''} held "
            f"{calls * num_envs - resets:,} transitions and {resets:,} reset rows, which the "
            "update must mask out"
        )
    else:
        first += "; SAME_STEP mode leaves no reset rows"
    return [
        first + ".",
        "Off-policy methods fill their replay buffer N times faster per call, and every "
        "update sees pieces of N episodes at once.",
        "Batching shares each call's fixed cost (Python, numpy, a policy's forward pass) "
        "over N env-steps: that is what it buys. For BurgerBot that cost is small; the "
        "pattern matters because Stable-Baselines3 is built on it.",
    ]
