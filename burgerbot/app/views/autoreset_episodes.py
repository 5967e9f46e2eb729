"""The "Auto-reset" page's episode-end table: every end of a run, and where its observations are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from burgerbot.app.views.autoreset import (
    FINAL_COLUMNS,
    OBS_COLUMNS,
    START_OBS,
    mode_of,
    obs_text,
)

__all__ = ["END_CAUSES", "END_COLUMNS", "end_cause", "episode_ends"]

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
    for position, row in zip(positions, frame.iloc[positions].to_dict("records"), strict=True):
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
