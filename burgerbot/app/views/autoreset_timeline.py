"""The "Auto-reset" page's timeline data: one cell per (step, env), with its end and reset marks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from burgerbot import world
from burgerbot.app.views.autoreset import FINAL_COLUMNS, OBS_COLUMNS, mode_of, obs_text
from burgerbot.app.views.autoreset_episodes import end_cause

__all__ = [
    "READABLE_ENVS",
    "RESET_MARKERS",
    "TABLE_COLUMNS",
    "TIMELINE_MAX_CELLS",
    "timeline_cells",
    "timeline_highlight",
]

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
    cells["end"] = np.where(ended, cells["event"].astype(str), None)
    resets = is_reset if mode == "NEXT_STEP" else ended
    cells["reset"] = np.where(resets, RESET_MARKERS[mode], None)
    cells["note"] = [_row_note(row, mode) for row in cells.to_dict("records")]
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
