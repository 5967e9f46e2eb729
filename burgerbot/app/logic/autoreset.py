"""The "Auto-reset" page's Streamlit-free logic: its settings and runs, the tables and
sentences computed from them, and its charts."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import altair as alt
import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import checks, world
from burgerbot.app.caps import CAPS
from burgerbot.app.labels import counted
from burgerbot.app.markdown import markdown_html, markdown_table
from burgerbot.app.palette import OKABE_ITO, SHAPE_WORDS, SHAPES
from burgerbot.app.settings import ChoiceSetting, IntSetting, parse_values
from burgerbot.app.versions import installed_version
from burgerbot.checks import MAX_SEED
from burgerbot.experiments import MAX_ROLLOUT_ROWS, Progress, rollout
from burgerbot.factories import burgerbot_factory

__all__ = [
    "BACKEND_CHOICES",
    "ENDS_AS_IN_NEXT_STEP",
    "ENDS_AS_IN_THE_LESSON",
    "ENDS_WITH_A_HIDDEN_RESET",
    "ENDS_WITH_NOTHING",
    "END_CAUSES",
    "END_COLUMNS",
    "END_MARKERS",
    "FINAL_COLUMNS",
    "MAX_STEPPER_ENVS",
    "MAX_TIMELINE_ENVS",
    "MODES",
    "OBS_COLUMNS",
    "OPTIONS",
    "PAGE_MODES",
    "READABLE_ENVS",
    "RESET_MARKERS",
    "SEGMENT_COLOURS",
    "SPECS",
    "START_OBS",
    "STEPPER_MAX_ROWS",
    "TABLE_COLUMNS",
    "TIMELINE_MAX_CELLS",
    "AutoresetSettings",
    "EndingCalls",
    "call_markdown",
    "call_rows",
    "call_title",
    "default_autoreset_mode",
    "end_cause",
    "ending_calls",
    "episode_ends",
    "episode_timeline",
    "gymnasium_version",
    "lesson_verdict",
    "mode_of",
    "obs_text",
    "prediction_explanation",
    "question",
    "resolve_settings",
    "run_page_rollout",
    "same_step_end_keys",
    "stepper_calls",
    "stepper_end",
    "stepper_views",
    "takeaway_bullets",
    "timeline_cells",
    "timeline_highlight",
    "timeline_steps",
    "widget_values",
]


# --- Settings: the modes, the URL settings and the run they describe ------------------------------
# The "Auto-reset" page's settings: the modes, the URL settings and the run they describe.

MODES = ("NEXT_STEP", "SAME_STEP", "DISABLED")
"""The auto-reset modes by their ``AutoresetMode`` member names, the default first."""

PAGE_MODES = MODES[:2]
"""The modes the page offers: the two that reset by themselves (DISABLED has its own page)."""

BACKEND_CHOICES = ("sync", "native")
"""Sync is what the lesson uses; native (BurgerBotVectorEnv) must give the very same run."""

MAX_TIMELINE_ENVS = 64
"""Local cap (not in CAPS): one timeline row per env stops being readable long before this."""

START_OBS = world.START_OBSERVATION
"""Every BurgerBot episode starts with this observation: [0, 0, 1, 1]."""

OBS_COLUMNS = world.OBSERVATION_FIELDS
"""A ``rollout`` frame's observation columns, in observation order."""

FINAL_COLUMNS = tuple(f"final_{name}" for name in OBS_COLUMNS)
"""A ``rollout`` frame's final-observation columns (filled on the step an episode ends)."""

_N_HIGH = min(MAX_TIMELINE_ENVS, CAPS.max_envs)

SPECS = (
    IntSetting("n", "NUM_ENVS", 4, 1, _N_HIGH),
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", PAGE_MODES),
    # Seed 2: the default run's NEXT_STEP ends 8 episodes, SAME_STEP 12 (as the next page,
    # Counting, finds on average), and each of the 8 ends has a call after it.
    IntSetting("seed", "Seed", 2, 0, MAX_SEED),
    IntSetting("steps", "step() calls", 30, 1, CAPS.max_steps_per_run),
    ChoiceSetting("backend", "Backend", "sync", BACKEND_CHOICES),
)


def mode_of(name: str) -> AutoresetMode:
    """``"NEXT_STEP"`` -> ``AutoresetMode.NEXT_STEP`` (and so on).

    Only the page's names are accepted (not the enum's values, which the library also
    reads): a page setting is always one of ``MODES``.

    Example:
        >>> mode_of("SAME_STEP")
        <AutoresetMode.SAME_STEP: 'SameStep'>
    """
    if name not in MODES:
        raise ValueError(f"`mode` must be one of {MODES}, got {name!r}")
    return checks.autoreset_mode(name)


def obs_text(values: Any) -> str:
    """An observation as learners see it printed: ``[0, 2, 1, 0]``.

    Example:
        >>> obs_text(START_OBS)
        '[0, 0, 1, 1]'
    """
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def gymnasium_version() -> str:
    """The installed gymnasium's version, read live from the package metadata."""
    return installed_version("gymnasium") or "not installed"


@dataclass(frozen=True)
class AutoresetSettings:
    """What the page runs: the timeline run."""

    num_envs: int
    mode: str
    seed: int
    steps: int
    backend: str

    @property
    def autoreset_mode(self) -> AutoresetMode:
        return mode_of(self.mode)


def resolve_settings(values: Mapping[str, Any]) -> tuple[AutoresetSettings, list[str]]:
    """Turn the page's values into runnable settings, with a note for each change made.

    Values come from widgets that already keep to their ranges; this only guards the
    limits that depend on two settings at once (or on caps raised locally).

    Example:
        >>> settings, notes = resolve_settings(
        ...     {"n": 4, "mode": "SAME_STEP", "seed": 0, "steps": 40, "backend": "sync"}
        ... )
        >>> settings.autoreset_mode, notes
        (<AutoresetMode.SAME_STEP: 'SameStep'>, [])
    """
    picked, notes = parse_values(SPECS, values)
    num_envs, steps = picked["n"], picked["steps"]
    # Only matters when BURGERBOT_MAX_STEPS_PER_RUN is raised: rollout refuses bigger runs.
    if num_envs * steps > MAX_ROLLOUT_ROWS:
        notes.append(
            f"The timeline run would record {num_envs * steps:,} steps; this page records at most "
            f"{MAX_ROLLOUT_ROWS:,}: using {MAX_ROLLOUT_ROWS // num_envs:,} step() calls."
        )
    steps = min(steps, MAX_ROLLOUT_ROWS // num_envs)
    settings = AutoresetSettings(
        num_envs=num_envs,
        mode=picked["mode"],
        seed=picked["seed"],
        steps=steps,
        backend=picked["backend"],
    )
    return settings, notes


def widget_values(settings: AutoresetSettings) -> dict[str, Any]:
    """The settings by URL key, so that each widget shows the value really used."""
    return {
        "n": settings.num_envs,
        "mode": settings.mode,
        "seed": settings.seed,
        "steps": settings.steps,
        "backend": settings.backend,
    }


def run_page_rollout(
    settings: AutoresetSettings, backend: str | None = None, progress: Progress | None = None
) -> pd.DataFrame:
    """``experiments.rollout`` for the page's timeline settings (on ``backend`` if given)."""
    return rollout(
        backend or settings.backend,
        settings.num_envs,
        settings.steps,
        settings.seed,
        settings.autoreset_mode,
        progress=progress,
    )


# --- The prediction: what the ending call and the next call return --------------------------------
# The "Auto-reset" page's prediction: what the ending call and the next call return in NEXT_STEP.
#
# The answer is read from a live run: every episode end that has a call after it is sorted into
# one of the `OPTIONS` by what the two calls really returned.

_START = obs_text(START_OBS)

ENDS_AS_IN_NEXT_STEP = f"end: final obs, real reward · next: {_START}, reward 0.0"
ENDS_AS_IN_THE_LESSON = f"end: {_START}, real reward · next: a normal step"
ENDS_WITH_A_HIDDEN_RESET = "end: final obs, real reward · next: a normal step"
ENDS_WITH_NOTHING = f"end: {_START}, reward 0.0 · next: a normal step"
OPTIONS = (ENDS_AS_IN_THE_LESSON, ENDS_AS_IN_NEXT_STEP, ENDS_WITH_A_HIDDEN_RESET, ENDS_WITH_NOTHING)
"""The answers offered, in the order shown."""


def question(default_mode: str) -> str:
    """The question, saying whether NEXT_STEP is the installed gymnasium's default mode."""
    default = " (your gymnasium's default)" if default_mode == "NEXT_STEP" else ""
    return (
        f"In **NEXT_STEP** mode{default}, a robot hits a wall (reward -10) on some `step()` "
        "call. What do `obs[i]` and `rewards[i]` hold for it on that call (**end**) and on the "
        "**next** call? (A normal step uses the action.)"
    )


@dataclass(frozen=True)
class EndingCalls:
    """What the ending call and the next call returned, over every episode end of a run.

    Only ends with a call after them (same env) count. ``by_option`` maps each option of
    `OPTIONS` to how many ends looked like it.
    """

    by_option: dict[str, int]
    example: dict[str, object] | None
    """The first end: env, step, final obs, reward, the next call's action, obs and reward."""
    next_actions: tuple[int, ...]
    """The distinct actions sent on the calls after an end (sorted)."""
    unfollowed: int = 0
    """Episode ends on the run's last call: no call after them shows what comes next."""

    @property
    def ends(self) -> int:
        return sum(self.by_option.values())

    @property
    def truth(self) -> str | None:
        """The option every end agreed on; None if no end had a call after it, or they differ."""
        seen = [option for option, count in self.by_option.items() if count]
        return seen[0] if len(seen) == 1 else None


def _option(start_on_end: bool, zero_on_end: bool, reset_next: bool) -> str:
    if start_on_end:
        return ENDS_WITH_NOTHING if zero_on_end else ENDS_AS_IN_THE_LESSON
    return ENDS_AS_IN_NEXT_STEP if reset_next else ENDS_WITH_A_HIDDEN_RESET


def ending_calls(frame: pd.DataFrame) -> EndingCalls:
    """Sort every episode end of a ``rollout`` frame into one of `OPTIONS`, from its values.

    An ending call "returns the start" when its ``obs`` is ``[0, 0, 1, 1]``; its reward is
    "real" when it is not 0.0 (BurgerBot never gives 0.0 for a step of an episode). The next
    call "is a reset" when it returns the start, reward 0.0 and both flags False.

    Example:
        >>> from burgerbot.experiments import rollout
        >>> ending_calls(rollout("native", 2, 12, seed=0)).truth  # no end has a call after it
        >>> ending_calls(rollout("native", 2, 20, seed=0)).truth == ENDS_AS_IN_NEXT_STEP
        True
    """
    if frame.empty:
        return EndingCalls({option: 0 for option in OPTIONS}, None, ())
    num_envs = int(frame["env"].max()) + 1
    obs = frame[list(OBS_COLUMNS)].to_numpy()
    rewards = frame["reward"].to_numpy()
    flags = (frame["terminated"] | frame["truncated"]).to_numpy()
    # Rows go step by step, env by env: the same env's next call is num_envs rows on.
    ends = np.flatnonzero(flags[: len(frame) - num_envs])
    after = ends + num_envs
    is_start = (obs == np.asarray(START_OBS)).all(axis=1)
    start_on_end, zero_on_end = is_start[ends], rewards[ends] == 0.0
    reset_next = is_start[after] & (rewards[after] == 0.0) & ~flags[after]
    counts = Counter(
        _option(bool(s), bool(z), bool(r))
        for s, z, r in zip(start_on_end, zero_on_end, reset_next, strict=True)
    )
    example = None
    if len(ends):
        first, next_row = int(ends[0]), int(after[0])
        example = {
            "env": int(frame["env"].iloc[first]),
            "step": int(frame["step"].iloc[first]),
            "obs": obs_text(obs[first]),
            "reward": float(rewards[first]),
            "next action": int(frame["action"].iloc[next_row]),
            "next obs": obs_text(obs[next_row]),
            "next reward": float(rewards[next_row]),
        }
    actions = tuple(sorted({int(a) for a in frame["action"].to_numpy()[after]}))
    unfollowed = int(flags[len(frame) - num_envs :].sum())
    return EndingCalls(
        {option: counts.get(option, 0) for option in OPTIONS}, example, actions, unfollowed
    )


def prediction_explanation(calls: EndingCalls, run_mode: str) -> str:
    """What the NEXT_STEP run showed, in words that follow its numbers; once the answer is
    seen, what NEXT_STEP, SAME_STEP and DISABLED mean (each in one clause).

    ``run_mode`` is the mode of the timeline above (the NEXT_STEP run is a separate one
    when it is not NEXT_STEP).
    """
    where = (
        "the timeline's run"
        if run_mode == "NEXT_STEP"
        else "a NEXT_STEP run of these settings (switch the mode to see it)"
    )
    them = "it" if calls.unfollowed == 1 else "them"
    last = (
        f"{counted(calls.unfollowed, 'episode')} ended on the last call, with no call after {them}"
    )
    ex = calls.example
    if ex is None:
        return f"{last if calls.unfollowed else 'No episode ended'} in {where}: try more steps."
    text = (
        f"{'All' if calls.ends > 1 else 'The'} {counted(calls.ends, 'episode end')} in {where} "
        "looked so"
        if calls.truth is not None
        else f"The {counted(calls.ends, 'episode end')} in {where} did not all look alike"
    )
    text += f"; {last}." if calls.unfollowed else "."
    if calls.truth == ENDS_AS_IN_NEXT_STEP:
        text += (
            " So **NEXT_STEP** restarts a robot on the call after its ending one, ignoring "
            "that call's action: keep that call out of your [training data](training_data). "
            "**SAME_STEP** restarts it inside the ending call, as in the lesson; **DISABLED** "
            "never does ([its own page](disabled_mode))."
        )
    return text


# --- The timeline's data: one cell per (step, env) ------------------------------------------------
# The "Auto-reset" page's timeline data: one cell per (step, env), with its end and reset marks.

READABLE_ENVS = 16
"""Up to this many envs the timeline rows stay tall enough to read comfortably."""

TIMELINE_MAX_CELLS = 4_800
"""The timeline draws at most this many (step, env) cells (below altair's 5,000-row limit)."""

RESET_MARKERS = {
    "NEXT_STEP": "reset step (action ignored)",
    "SAME_STEP": "reset inside the ending step",
    "DISABLED": "reset(reset_mask) after the step",
}
"""How the timeline labels the moment a sub-environment is reset, per mode."""

_CELL_COLUMNS = [
    "step",
    "env",
    "episode",
    "action",
    "obs",
    "reward",
    "event",
    "terminated",
    "truncated",
    "final obs",
    "segment",
    "end",
    "reset",
    "note",
]


TABLE_COLUMNS = tuple(c for c in _CELL_COLUMNS if c not in ("event", "segment", "end", "reset"))
"""The timeline's cells as its "data as a table" shows them (without the drawing columns)."""


def _row_note(row: Mapping[str, Any], mode: str) -> str:
    env, k = int(row["env"]), int(row["episode"])
    if row["event"] == "reset":
        return (
            f"This call only reset env {env}: its action was ignored, the reward is 0 and obs "
            f"is episode {k}'s first observation."
        )
    if not (row["terminated"] or row["truncated"]):
        return "moved forward" if row["event"] == "move" else "turned or stopped"
    cause = end_cause(row)
    if mode == "NEXT_STEP":
        return (
            f"Episode {k} ended ({cause}). obs is its final observation; the next call "
            f"resets env {env}."
        )
    if mode == "SAME_STEP":
        return (
            f"Episode {k} ended ({cause}) and env {env} was reset inside this call: obs is "
            f'already the next episode\'s start; the final observation is in infos["final_obs"].'
        )
    return (
        f"Episode {k} ended ({cause}). obs is its final observation. Nothing resets by itself: "
        f"the page then called reset(options={{'reset_mask': mask}}) for env {env}."
    )


def timeline_steps(num_envs: int, steps: int) -> int:
    """How many of a run's ``steps`` the timeline draws: all, up to `TIMELINE_MAX_CELLS` cells.

    Example:
        >>> timeline_steps(4, 30), timeline_steps(64, 2000)
        (30, 75)
    """
    return min(steps, max(1, TIMELINE_MAX_CELLS // num_envs))


def timeline_cells(
    frame: pd.DataFrame, mode: str, max_cells: int = TIMELINE_MAX_CELLS
) -> tuple[pd.DataFrame, int]:
    """Long-form cells for the timeline chart, and how many steps they cover.

    One row per (step, env) of the first ``max_cells // num_envs`` steps (at least one),
    with display columns: ``action`` ("0 forward"), ``obs`` and ``final obs`` as text,
    ``segment`` (which colour: alternating episodes, or NEXT_STEP's reset step),
    ``end`` (goal / hit / truncated / None), ``reset`` (the mode's reset marker or None)
    and ``note`` (what happened, in words).
    """
    mode_of(mode)
    num_envs = int(frame["env"].max()) + 1 if len(frame) else 1
    shown_steps = max(1, max_cells // num_envs)
    cells = frame[frame["step"] <= shown_steps].copy()
    shown_steps = int(cells["step"].max()) if len(cells) else 0
    ended = cells["terminated"] | cells["truncated"]
    cells["action"] = [f"{a} {world.ACTION_NAMES[a]}" for a in cells["action"]]
    cells["obs"] = [obs_text(v) for v in cells[list(OBS_COLUMNS)].to_numpy()]
    cells["final obs"] = [
        obs_text(v) if end else ""
        for v, end in zip(cells[list(FINAL_COLUMNS)].to_numpy(), ended, strict=True)
    ]
    is_reset = cells["event"] == "reset"
    cells["segment"] = np.where(
        is_reset,
        "reset step",
        np.where(cells["episode"] % 2 == 0, "episodes 0, 2, 4, …", "episodes 1, 3, 5, …"),
    )
    cells["end"] = np.where(ended, cells["event"].astype(str), np.array(None))
    resets = is_reset if mode == "NEXT_STEP" else ended
    cells["reset"] = np.where(resets, RESET_MARKERS[mode], np.array(None))
    records = cast(list[dict[str, Any]], cells.to_dict("records"))  # columns named by str
    cells["note"] = [_row_note(row, mode) for row in records]
    cells["event"] = cells["event"].astype(str)
    return cells[_CELL_COLUMNS].reset_index(drop=True), shown_steps


def timeline_highlight(
    end: Mapping[str, Any] | None, mode: str, steps: int
) -> tuple[int, int, int] | None:
    """``(env, first_step, last_step)`` to outline for an episode end (None: no end).

    In NEXT_STEP mode the outline takes in the reset step after the end, when the run has it.

    Example:
        >>> timeline_highlight({"env": 1, "step": 12}, "NEXT_STEP", 40)
        (1, 12, 13)
        >>> timeline_highlight({"env": 1, "step": 12}, "SAME_STEP", 40)
        (1, 12, 12)
    """
    if end is None:
        return None
    last = end["step"] + 1 if mode == "NEXT_STEP" and end["step"] < steps else end["step"]
    return int(end["env"]), int(end["step"]), int(last)


# --- The timeline as a chart ----------------------------------------------------------------------
# Charts for the "Auto-reset" page: episodes per sub-environment over time.

_SKY_BLUE, _BLUISH_GREEN, _VERMILLION, _REDDISH_PURPLE, _YELLOW, _BLACK = (
    OKABE_ITO[i] for i in (1, 2, 4, 5, 6, 7)
)

SEGMENT_COLOURS = {
    "episodes 0, 2, 4, …": _SKY_BLUE,
    "episodes 1, 3, 5, …": _YELLOW,
    "reset step": "#ffffff",
}
"""Cell fill (Okabe-Ito): episodes alternate two colours; NEXT_STEP's reset step is left blank."""

SEGMENT_DASHES = {
    "episodes 0, 2, 4, …": [1, 0],
    "episodes 1, 3, 5, …": [3, 2],
    "reset step": [1, 2],
}
"""Cell outline: solid, dashed or dotted, so the episodes alternate by more than colour."""

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
_SHAPE_NAMES = {**SHAPE_WORDS, _BAR_SHAPE: "upright bars"}
"""How the chart's description names each marker shape."""

_LABEL_LIMIT = 400
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


_PHONE_PLOT_PX = 300
"""About how wide the timeline's plot is on a phone (390 px screen, less the row labels)."""


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

    ``cells`` is long form as made by ``timeline_cells``: columns step, env, episode,
    action, obs, reward, terminated, truncated, final obs, segment, end, reset, note.
    Markers show goals, hits, truncations and resets; every cell and marker has a tooltip.
    Drag or scroll over the chart to pan or zoom along the steps.
    ``highlight=(env, first_step, last_step)`` draws a thick outline around those cells.
    """
    num_envs = int(cells["env"].max()) + 1 if len(cells) else 1
    row = _row_pixels(num_envs)
    cells = cells.assign(start=cells["step"] - 0.46, stop=cells["step"] + 0.46)
    marker_size = max(25, row * row // 4)  # in square pixels
    # A marker on the first or last step is wider than its cell on a phone: the steps axis
    # goes a marker's radius further at each end (on a phone's plot), so the chart's edge
    # does not cut it in half.
    margin = math.sqrt(marker_size) / 2 * shown_steps / _PHONE_PLOT_PX
    x_scale = alt.Scale(domain=[0.5 - margin, shown_steps + 0.5 + margin], nice=False)
    x_axis = alt.Axis(tickMinStep=1, format="d", title="step() call (1 = the first step)")
    y = alt.Y(
        "env:O",
        title=None,
        axis=alt.Axis(labelExpr="'env ' + datum.value", labelFontSize=12),
    )
    segments = list(SEGMENT_COLOURS)
    present = [s for s in segments if s in set(cells["segment"])]
    zoom = alt.selection_interval(bind="scales", encodings=["x"])
    # Two columns, and the markers' legend below: side by side on one row the legends ran
    # past a phone's screen (390 px) and were cut. Fill and dash share it (same title).
    cell_legend = alt.Legend(
        orient="top",
        columns=2,
        symbolStrokeColor="#525252",
        symbolType="square",
        labelLimit=_LABEL_LIMIT,
    )
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
                legend=cell_legend,
            ),
            strokeDash=alt.StrokeDash(
                "segment:N",
                title="cell colour",
                scale=alt.Scale(domain=present, range=[SEGMENT_DASHES[s] for s in present]),
                legend=cell_legend,
            ),
            tooltip=_TOOLTIP,
        )
        .add_params(zoom)
    )
    markers = _markers(cells)
    order = [m for m in _MARKER_STYLE if m in set(markers["marker"])]
    points = (
        alt.Chart(markers)
        .mark_point(filled=True, size=marker_size, opacity=1, clip=True)
        .encode(
            x=alt.X("x:Q", scale=x_scale, axis=x_axis),
            y=y,
            shape=alt.Shape(
                "marker:N",
                title="marker",
                scale=alt.Scale(domain=order, range=[_MARKER_STYLE[m][0] for m in order]),
                legend=alt.Legend(orient="bottom", columns=2, labelLimit=_LABEL_LIMIT),
            ),
            color=alt.Color(
                "marker:N",
                title="marker",
                scale=alt.Scale(domain=order, range=[_MARKER_STYLE[m][1] for m in order]),
                legend=alt.Legend(orient="bottom", columns=2, labelLimit=_LABEL_LIMIT),
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
    # `alt.layer` makes a FacetChart only of layers sharing a row, column or facet encoding.
    return cast(alt.LayerChart, alt.layer(*layers)).properties(
        description=(
            "Episode timeline: one row per env (y), one cell per step() call (x). Episodes "
            "alternate sky-blue cells with solid outlines and yellow cells with dashed ones"
            + (
                ", a reset step is a white cell with a dotted outline"
                if "reset step" in present
                else ""
            )
            + ". Markers: "
            + ", ".join(f"{m}: {_SHAPE_NAMES[_MARKER_STYLE[m][0]]}" for m in order)
            + "."
        ),
        width="container",
        height=row * num_envs,
        autosize=alt.AutoSizeParams(type="fit-x", contains="padding"),
    )


# --- The stepper: the run, one step() call at a time ----------------------------------------------
# Auto-reset's stepper: the page's run, one `step()` call at a time.
#
# The run is the page's own (``experiments.rollout``, recorded live), so the stepper's call N is
# column N of the timeline. Each call's view is one Markdown text (`call_markdown`);
# `stepper_views` makes them all, as HTML, for `burgerbot.app.call_stepper`, which pages through
# them in the browser.

MAX_STEPPER_ENVS = 16
"""Rows the stepper's table shows; the timeline above shows every env."""
STEPPER_MAX_ROWS = 1_600
"""Table rows the stepper sends the browser at most, over all its calls (about 0.5 MB)."""


def call_title(step: int) -> str:
    """The stepper's heading for call ``step`` (0: right after the reset).

    Example:
        >>> call_title(0), call_title(3)
        ('Latest call: reset', 'Latest call: step 3 since the reset')
    """
    return "Latest call: reset" if step == 0 else f"Latest call: step {step} since the reset"


_HIT_WORDS: dict[str | None, str] = {
    "edge": "drove into the grid's edge",
    "obstacle": "hit an obstacle",
}
"""A hit, in words, by what the robot drove into (`world.blocked_by`)."""


def _hit_by(row: pd.Series) -> str | None:
    """What a hitting robot drove into, from its final observation (a hit does not move it)."""
    return world.blocked_by(*(int(row[name]) for name in FINAL_COLUMNS[:3]))


def _happened(row: pd.Series, mode: str) -> str:
    event = str(row["event"])
    if event == "reset":
        return "**auto-reset**: its episode ended on the call before; action ignored, reward 0"
    ended = _HIT_WORDS.get(_hit_by(row), "hit") if event == "hit" else None
    if event == "goal":
        ended = "reached the burger"
    if ended is None and bool(row["truncated"]):
        ended = "cut off by the step limit"
    if ended is None:
        return "moved" if event == "move" else "turned or stopped"
    final = obs_text(row[list(FINAL_COLUMNS)])
    if mode == "SAME_STEP":
        return (
            f"**{ended}: episode ends, and restarts in this call**: `obs` is already the new "
            f'start; the final observation {final} is in `infos["final_obs"]`'
        )
    if mode == "DISABLED":
        return (
            f"**{ended}: episode ends**: `obs` {final} is the final observation; nothing "
            "restarts until the page's `reset(options={'reset_mask': ...})`"
        )
    return (
        f"**{ended}: episode ends**: `obs` {final} is the final observation; the next call "
        "resets this env"
    )


def _call(run: pd.DataFrame, step: int) -> pd.DataFrame:
    """The rows of ``run`` for call ``step``, one per env."""
    rows = run[run["step"] == step]
    if rows.empty:
        raise ValueError(f"the run has no step {step}")
    return rows


def _table(rows: pd.DataFrame, mode: str, max_envs: int) -> tuple[pd.DataFrame, int]:
    shown = rows.head(max_envs)
    table = pd.DataFrame(
        {
            "env": shown["env"].to_numpy(),
            "action": shown["action"].to_numpy(),
            "obs": [obs_text(values) for values in shown[list(OBS_COLUMNS)].to_numpy()],
            "reward": [f"{r:g}" for r in shown["reward"]],
            "terminated": shown["terminated"].to_numpy(),
            "truncated": shown["truncated"].to_numpy(),
            "what happened": [_happened(row, mode) for _, row in shown.iterrows()],
        }
    )
    return table, len(rows) - len(shown)


def call_rows(run: pd.DataFrame, step: int, mode: str, max_envs: int = MAX_STEPPER_ENVS):
    """What call ``step`` of ``run`` returned, one row per env (the first ``max_envs``).

    Returns ``(table, envs left out)``; columns env, action, obs, reward, terminated,
    truncated and what happened.
    """
    return _table(_call(run, step), mode, max_envs)


def _infos_line(rows: pd.DataFrame, mode: str) -> str:
    if mode != "SAME_STEP":
        return "`infos` is `{}`: in this mode the vector env adds nothing to it."
    ended = rows.loc[rows["terminated"] | rows["truncated"], "env"].tolist()
    if not ended:
        return '`infos` is `{}`: no episode ended in this call, so there is no `"final_obs"`.'
    return (
        f'`infos["final_obs"]` holds the final observation of env{"s" if len(ended) > 1 else ""} '
        f"{', '.join(map(str, ended))} "
        f'(`infos["_final_obs"]` is True there).'
    )


def call_markdown(run: pd.DataFrame, step: int, mode: str, num_envs: int, steps: int) -> str:
    """The stepper's view of call ``step`` (0: the reset) of ``run`` in ``mode``."""
    title = "### " + call_title(step)
    if step == 0:
        robots = f"all {num_envs} robots" if num_envs > 1 else "the robot"
        reset = f"`envs.reset(seed=...)`: {robots} at the start, `{_START}`."
        return f"{title}\n\n{reset}"
    rows = _call(run, step)
    table, hidden = _table(rows, mode, MAX_STEPPER_ENVS)
    ended = int((rows["terminated"] | rows["truncated"]).sum())
    resets = int((rows["event"] == "reset").sum())
    endings = {0: "No episode ended", 1: "1 episode ended"}.get(ended, f"{ended} episodes ended")
    spent = f"{resets} env{'s' if resets > 1 else ''} spent it on an auto-reset"
    column = f" (column {step} of the timeline)" if step <= timeline_steps(num_envs, steps) else ""
    summary = (
        f"`obs, rewards, terminated, truncated, infos = envs.step(actions)`: call {step} of "
        f"{steps} in {mode} mode{column}. {endings} in this call"
        + (f"; {spent}." if resets else ".")
    )
    more = (
        f"\n\n{counted(hidden, 'more env')} {'is' if hidden == 1 else 'are'} in the timeline above."
        if hidden
        else ""
    )
    return f"{title}\n\n{summary}\n\n{markdown_table(table)}{more}\n\n{_infos_line(rows, mode)}"


def stepper_calls(num_envs: int, steps: int) -> int:
    """How many ``step()`` calls the stepper covers: all ``steps``, unless their tables
    would pass `STEPPER_MAX_ROWS` rows.

    Example:
        >>> stepper_calls(4, 40), stepper_calls(16, 2000), stepper_calls(64, 2000)
        (40, 100, 100)
    """
    return min(steps, max(1, STEPPER_MAX_ROWS // min(num_envs, MAX_STEPPER_ENVS)))


def stepper_views(run: pd.DataFrame, mode: str, num_envs: int, steps: int) -> list[str]:
    """Every call's view as HTML, the reset first, up to `stepper_calls`; the last one says
    that it is the last, and where the rest of the run is when the stepper stops early."""
    last = stepper_calls(num_envs, steps)
    texts = [call_markdown(run, step, mode, num_envs, steps) for step in range(last + 1)]
    texts[-1] += "\n\n" + stepper_end(num_envs, steps)
    return [markdown_html(text) for text in texts]


def stepper_end(num_envs: int, steps: int) -> str:
    """What the stepper's last view adds: that the run ends there, or where the rest of it is.

    Example:
        >>> stepper_end(64, 2000)
        'The stepper stops at call 100 of 2,000: the episode ends below cover the whole run.'
    """
    last = stepper_calls(num_envs, steps)
    if last == steps:
        return "That was the run's last call: raise `step() calls` above for more."
    shown = "the timeline above and " if timeline_steps(num_envs, steps) == steps else ""
    return (
        f"The stepper stops at call {last} of {steps:,}: {shown}the episode ends below cover the "
        "whole run."
    )


# --- Episode ends: every end of a run, and where its observations are -----------------------------
# The "Auto-reset" page's episode-end table: every end of a run, and where its observations are.

END_CAUSES = ("goal", "hit", "truncated")

END_COLUMNS = (
    "env",
    "step",
    "cause",
    "reward",
    "final obs",
    "final obs is in",
    "next episode's first obs",
    "returned by",
)
"""The columns of the table ``episode_ends`` makes."""


def end_cause(row: Mapping[str, Any]) -> str:
    """Why an episode ended, from its ``rollout`` row: goal, hit or truncated.

    Example:
        >>> end_cause({"event": "hit", "truncated": True})
        'hit (and truncated)'
    """
    cause = str(row["event"])
    if cause != "truncated" and row["truncated"]:
        return f"{cause} (and truncated)"  # terminated on the very step that hit max_steps
    return cause


def episode_ends(frame: pd.DataFrame, mode: str) -> pd.DataFrame:
    """One row per episode end in a ``rollout`` frame: what ended, and where to find what.

    Columns: ``env``, ``step``, ``cause`` (goal / hit / truncated), ``reward``,
    ``final obs`` (the episode's last observation), ``final obs is in`` (where the
    learner's code finds it in this mode), ``next episode's first obs`` and
    ``returned by`` (which call hands it over). NEXT_STEP's first observation is read
    from the run itself (the reset step's row); SAME_STEP's is the ending step's ``obs``;
    DISABLED's comes from the manual ``reset`` call, which always returns the start.

    Example:
        >>> from burgerbot.experiments import rollout
        >>> frame = rollout("native", num_envs=2, steps=12, seed=0)
        >>> episode_ends(frame, "NEXT_STEP")[["env", "step", "cause", "final obs"]].values.tolist()
        [[1, 12, 'hit', '[0, 2, 0, 0]']]
    """
    mode_of(mode)
    steps = int(frame["step"].max()) if len(frame) else 0
    num_envs = int(frame["env"].max()) + 1 if len(frame) else 0
    observations = frame[list(OBS_COLUMNS)].to_numpy()
    positions = np.flatnonzero((frame["terminated"] | frame["truncated"]).to_numpy())
    rows = []
    records = cast(list[dict[str, Any]], frame.iloc[positions].to_dict("records"))
    for position, row in zip(positions, records, strict=True):
        step, env = int(row["step"]), int(row["env"])
        final = obs_text(row[name] for name in FINAL_COLUMNS)
        # Plain text: a table cell shows no Markdown.
        if mode == "NEXT_STEP":
            where = f"obs[{env}] of step {step}"
            if step < steps:
                # Rows go step by step, env by env: the same env's next step is num_envs on.
                first = obs_text(observations[position + num_envs])
                returned = f"step {step + 1} (the reset step)"
            else:
                first = "not in this run"
                returned = f"step {step + 1}, after this run"
        elif mode == "SAME_STEP":
            where = f'infos["final_obs"][{env}] of step {step}'
            first = obs_text(row[name] for name in OBS_COLUMNS)
            returned = f"step {step} itself, as obs[{env}]"
        else:
            where = f"obs[{env}] of step {step}"
            first = obs_text(START_OBS)
            returned = f"reset(reset_mask) after step {step}"
        rows.append(
            {
                "env": env,
                "step": step,
                "cause": end_cause(row),
                "reward": float(row["reward"]),
                "final obs": final,
                "final obs is in": where,
                "next episode's first obs": first,
                "returned by": returned,
            }
        )
    return pd.DataFrame(rows, columns=list(END_COLUMNS))


# --- The lesson vs the installed gymnasium: one episode end in both -------------------------------
# The "Auto-reset" page's comparison: one episode end in gymnasium 0.29 and today.


def default_autoreset_mode() -> str:
    """The auto-reset mode a new ``SyncVectorEnv`` gets when none is given: ``"NEXT_STEP"``."""
    envs = SyncVectorEnv([burgerbot_factory()])
    try:
        return AutoresetMode(envs.metadata["autoreset_mode"]).name
    finally:
        envs.close()


def same_step_end_keys() -> tuple[str, ...]:
    """The ``infos`` keys on an episode end in SAME_STEP mode, checked live (sorted).

    One BurgerBot drives forward from the start, east, until it hits the obstacle at
    (0, 3) on its third step.

    Example:
        >>> same_step_end_keys()
        ('_final_info', '_final_obs', 'final_info', 'final_obs')
    """
    envs = SyncVectorEnv([burgerbot_factory()], autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        envs.reset(seed=0)
        for _ in range(3):
            _, _, terminated, truncated, infos = envs.step(np.array([0]))
    finally:
        envs.close()
    if not (terminated[0] or truncated[0]):
        raise RuntimeError("three steps forward from the start should hit the obstacle at (0, 3)")
    return tuple(sorted(infos))


# --- Sentences that follow the run: captions, the verdict, the takeaways --------------------------
# The "Auto-reset" page's sentences that depend on a run: each one follows the numbers given.
#
# Pure functions (no Streamlit): the mode captions, the lesson's verdict and the key takeaways.


def _observation_keys(keys: Sequence[str]) -> list[str]:
    """The ``infos`` keys that hold observations (not their ``_`` masks, not ``final_info``)."""
    return [key for key in keys if "obs" in key and not key.startswith("_")]


def lesson_verdict(default_mode: str, same_step_keys: Sequence[str]) -> tuple[str, str]:
    """The verdict kind (a key of ``labels.VERDICTS``) on the lesson's auto-reset claim, and why.

    The lesson (gymnasium 0.29): the ending call already returns the next episode's first
    observation, and the final one is in ``infos["final_observation"]``. Both parts are
    judged from what the installed gymnasium did: its default mode, and the ``infos`` keys
    of an episode end in SAME_STEP mode.

    Example:
        >>> lesson_verdict("NEXT_STEP", ["_final_obs", "final_info", "final_obs"])[1][-58:]
        'in `infos["final_obs"]`, not `infos["final_observation"]`.'
        >>> lesson_verdict("SAME_STEP", ["final_observation"])[0]
        'holds'
    """
    changes = []
    if default_mode != "SAME_STEP":
        changes.append(f"the default is now {default_mode}")
    if "final_observation" not in same_step_keys:
        found = " and ".join(f'`infos["{key}"]`' for key in _observation_keys(same_step_keys))
        changes.append(
            "SAME_STEP puts the final observation in "
            + (found or "no `infos` key")
            + ', not `infos["final_observation"]`'
        )
    if not changes:
        return "holds", (
            "The installed gymnasium behaves as the lesson says: SAME_STEP by default, with "
            '`infos["final_observation"]`.'
        )
    # Read after the badge "Changed since": one sentence, with no words doubled.
    return "changed", "gymnasium 1.0 (the lesson used 0.29): " + "; ".join(changes) + "."


def takeaway_bullets(
    default_mode: str, next_step_truth: str | None, same_step_keys: Sequence[str]
) -> list[str]:
    """The page's key takeaways, each from what the installed gymnasium did.

    Args:
        default_mode: The mode a new ``SyncVectorEnv`` gets.
        next_step_truth: ``EndingCalls.truth`` of a NEXT_STEP run (None: not seen).
        same_step_keys: The ``infos`` keys of an episode end in SAME_STEP mode.
    """
    bullets = [
        "A vector env restarts each sub-environment whose episode ended by itself: no "
        "`reset()` per robot."
    ]
    if next_step_truth == ENDS_AS_IN_NEXT_STEP:
        default = " (the default)" if default_mode == "NEXT_STEP" else ""
        bullets.append(
            f"NEXT_STEP{default}: the ending call returns the **final** observation; the next "
            f"call only resets (obs {_START}, reward 0.0)."
        )
    else:
        bullets.append(f"Your gymnasium's default auto-reset mode is {default_mode}.")
    if "final_observation" in same_step_keys:
        bullets.append('SAME_STEP: the final observation is in `infos["final_observation"]`.')
    else:
        keys = " and ".join(f'`infos["{k}"]`' for k in _observation_keys(same_step_keys))
        bullets.append(
            f"SAME_STEP restarts inside the ending call; the final observation is in "
            f'{keys or "no `infos` key"}, not `infos["final_observation"]`.'
        )
    return bullets
