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
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.settings import ChoiceSetting, IntSetting, clamp_num_envs
from burgerbot.buffers import BufferLayout

__all__ = [
    "AUTORESET_CHOICES",
    "EVENT_COLOURS",
    "EVENT_LABELS",
    "EVENT_SHAPES",
    "MAX_DRAWN_ENVS",
    "MAX_DRAWN_STEPS",
    "SPECS",
    "BufferDrawing",
    "BufferSettings",
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
    "resolve_settings",
    "takeaways",
]

MAX_DRAWN_ENVS = 12
"""The buffer picture draws at most this many envs (columns: it fits a phone's width)..."""

MAX_DRAWN_STEPS = 16
"""...and at most this many ``step()`` calls (rows): cells wide enough to read each marker."""

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
    """How much of a rollout buffer the page's picture draws (the batch itself is whole)."""

    drawn_envs: int
    drawn_steps: int
    clipped: bool
    """True when the picture shows only part of the buffer."""


def buffer_drawing(
    layout: BufferLayout,
    max_drawn_envs: int = MAX_DRAWN_ENVS,
    max_drawn_steps: int = MAX_DRAWN_STEPS,
) -> BufferDrawing:
    """The envs (columns) and ``step()`` calls (rows) of ``layout`` the picture draws.

    Example:
        >>> from burgerbot.buffers import buffer_layout
        >>> buffer_drawing(buffer_layout(16384, 256))
        BufferDrawing(drawn_envs=12, drawn_steps=16, clipped=True)
    """
    drawn_envs = min(layout.num_envs, max_drawn_envs)
    drawn_steps = min(layout.step_calls, max_drawn_steps)
    clipped = drawn_envs < layout.num_envs or drawn_steps < layout.step_calls
    return BufferDrawing(drawn_envs, drawn_steps, clipped)


def drawn_text(layout: BufferLayout, drawing: BufferDrawing) -> str:
    """Which part of the buffer the picture shows (its heading ends with it).

    Example:
        >>> from burgerbot.buffers import buffer_layout
        >>> layout = buffer_layout(2048, 4)
        >>> drawn_text(layout, buffer_drawing(layout))
        'the first 16 of 512 step() calls, all 4 envs'
    """
    num_envs = layout.num_envs
    calls = (
        f"the first {drawing.drawn_steps:,} of {layout.step_calls:,} step() calls"
        if drawing.drawn_steps < layout.step_calls
        else (
            f"all {layout.step_calls:,} step() calls"
            if layout.step_calls > 1
            else "the single step() call"
        )
    )
    envs = (
        f"the first {drawing.drawn_envs} of {num_envs} envs"
        if drawing.drawn_envs < num_envs
        else (f"all {num_envs} envs" if num_envs > 1 else "the single env")
    )
    return f"{calls}, {envs}"


# --- The buffer as a chart -------------------------------------------------------------------

EVENT_LABELS = {
    "move": "move (+1)",
    "turn_or_stop": "turn or stop (−0.1)",
    "hit": "hit (−10, ends)",
    "goal": "goal (+50, ends)",
    "truncated": "time limit (ends)",
    "reset": "reset row (not a transition)",
}
"""What each ``event`` of `burgerbot.experiments.rollout` means, with its reward."""

_ORANGE, _SKY, _GREEN, _BLUE, _VERMILLION, _PURPLE, _YELLOW, _BLACK = OKABE_ITO
_GREY = "#8C8C8C"

EVENT_COLOURS = {
    "move": _GREEN,
    "turn_or_stop": _SKY,
    "hit": _VERMILLION,
    "goal": _BLUE,
    "truncated": _BLACK,
    "reset": _GREY,
}
"""One colour per event, no two alike (Okabe-Ito, and a grey for the rows that are no
transition)."""

EVENT_SHAPES = {
    "move": "triangle-up",
    "turn_or_stop": "circle",
    "hit": "cross",
    "goal": "diamond",
    "truncated": "triangle-down",
    "reset": "square",
}
"""One marker shape per event, so that no event is told apart by colour alone."""

_CELL_PIXELS = 24
_MIN_WIDTH = 220  # the legend's width, under the plot
_AXIS_PIXELS = (70, 50)  # the step() axis on the left, the env axis on top
_LEGEND_PIXELS = 140  # six entries, one under the other


def buffer_cells(frame: pd.DataFrame, drawn_envs: int, drawn_steps: int) -> pd.DataFrame:
    """The part of a rollout buffer the picture draws, one row per cell (long form).

    ``frame`` is `burgerbot.buffers.rollout_buffer`'s; keeps ``step <= drawn_steps`` and
    ``env < drawn_envs`` and adds the event's label.
    """
    cells = frame.loc[
        (frame["step"] <= drawn_steps) & (frame["env"] < drawn_envs),
        ["step", "env", "action", "reward", "event", "episode", "ends_episode"],
    ].copy()
    cells["event"] = cells["event"].astype(str)
    cells["what happened"] = cells["event"].map(EVENT_LABELS)
    return cells.reset_index(drop=True)


def buffer_plot_size(drawn_envs: int, drawn_steps: int) -> tuple[int, int]:
    """Pixel width and height of the picture's plot area: a cell of at least 24 px per row
    (env-step), and at least the legend's width.

    >>> buffer_plot_size(4, 16), buffer_plot_size(12, 16)
    ((220, 384), (288, 384))
    """
    return max(_MIN_WIDTH, drawn_envs * _CELL_PIXELS), drawn_steps * _CELL_PIXELS


def buffer_chart_size(drawn_envs: int, drawn_steps: int) -> tuple[int, int]:
    """The width and height to give the chart: Streamlit fits the whole chart (plot, axes and
    the legend under it) into them, so they are the plot area's plus room for the rest."""
    width, height = buffer_plot_size(drawn_envs, drawn_steps)
    return width + _AXIS_PIXELS[0], height + _AXIS_PIXELS[1] + _LEGEND_PIXELS


def buffer_heatmap(frame: pd.DataFrame, drawn_envs: int, drawn_steps: int) -> alt.Chart:
    """The rollout buffer as a steps x envs grid: row = ``step()`` call, column = env, one
    marker per row of the buffer, its shape and colour saying what happened (and so its
    reward). Hits, goals and time limits end an episode; in NEXT_STEP mode the env's next
    row is its reset row."""
    cells = buffer_cells(frame, drawn_envs, drawn_steps)
    width, height = buffer_chart_size(drawn_envs, drawn_steps)
    events = list(EVENT_LABELS)
    labels = [EVENT_LABELS[e] for e in events]
    legend = alt.Legend(orient="bottom", direction="vertical", columns=1, labelLimit=240)
    return (
        alt.Chart(cells)
        .mark_point(filled=True, size=150, strokeWidth=2.5, opacity=1)
        .encode(
            x=alt.X(
                "env:O",
                title="env (column)",
                scale=alt.Scale(domain=list(range(drawn_envs))),
                axis=alt.Axis(orient="top", labelAngle=0),
            ),
            y=alt.Y(
                "step:O",
                title="step() call (row)",
                scale=alt.Scale(domain=list(range(1, drawn_steps + 1))),
                axis=alt.Axis(values=[1, *range(4, drawn_steps + 1, 4)]),
            ),
            color=alt.Color(
                "what happened:N",
                title=None,
                scale=alt.Scale(domain=labels, range=[EVENT_COLOURS[e] for e in events]),
                legend=legend,
            ),
            shape=alt.Shape(
                "what happened:N",
                scale=alt.Scale(domain=labels, range=[EVENT_SHAPES[e] for e in events]),
                legend=legend,
            ),
            tooltip=[
                alt.Tooltip("step:Q", title="step() call"),
                alt.Tooltip("env:Q"),
                alt.Tooltip("action:Q"),
                alt.Tooltip("reward:Q"),
                alt.Tooltip("what happened:N"),
                alt.Tooltip("episode:Q", title="episode of this env"),
            ],
        )
        .properties(
            width=width,
            height=height,
            description=(
                "The rollout buffer: one marker per row, env in the column (x) and step() call "
                "in the row (y). Each event has its own marker shape and colour: triangle-up "
                "move, circle turn or stop, cross hit, diamond goal, triangle-down time limit, "
                "square reset row."
            ),
        )
    )


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
    """Why the live run needed ``calls`` step() calls and, in NEXT_STEP mode, how many of its
    rows were reset rows: ``resets`` (None in SAME_STEP mode). Teaches "mask" in one clause.

    Example:
        >>> calls_explanation(2048, 4, 512, 169)  # doctest: +ELLIPSIS
        '2,048 rows ÷ 4 per call = 512 calls. 169 of the 2,048 rows were NEXT_STEP reset rows...'
    """
    rows = calls * num_envs
    per_call = f"{num_envs} per call" if num_envs != 1 else "1 per call"
    text = f"{batch_size:,} rows ÷ {per_call} = {counted(calls, 'call')}"
    if rows != batch_size:
        text += f", rounded up ({counted(rows - batch_size, 'row')} too many)"
    text += "."
    if resets:
        were = (
            "was a NEXT_STEP reset row, not a transition: the update masks it out (drops it"
            if resets == 1
            else "were NEXT_STEP reset rows, not transitions: the update masks them out (drops them"
        )
        text += f" {resets:,} of the {rows:,} rows {were} with a true/false array, a mask)."
    elif resets == 0:
        text += " None of them was a NEXT_STEP reset row."
    return text


def takeaways(batch_size: int, num_envs: int, calls: int, resets: int | None) -> list[str]:
    """The page's key takeaways, computed from this batch's run: when vectorisation helps.

    ``resets`` is the NEXT_STEP reset rows of the batch (None in SAME_STEP mode).
    """
    first = f"N envs fill a batch of B rows in ⌈B ÷ N⌉ `step()` calls: here {calls:,}"
    if num_envs == 1:
        first += f"; 4 envs would take {math.ceil(batch_size / 4):,}"
    bullets = [
        first + ".",
        "PPO (on-policy) needs about N times fewer calls per update (one call at least, once "
        "N reaches B); DQN (off-policy) fills its replay buffer N times faster.",
        "Rows from N episodes at once are more varied, which tends to make each update less "
        "noisy (not guaranteed).",
        "Batching pays where each call has a fixed cost, such as one forward pass of the policy "
        "network for the whole batch; for BurgerBot's microsecond step the gain is small.",
    ]
    if resets:
        were = "was a reset row" if resets == 1 else "were reset rows"
        bullets.append(f"Here {resets:,} of the rows {were}, which the update masks out.")
    return bullets
