"""The "Batch shapes" page's tables: each array a call returned, one row per env, and spaces."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from gymnasium import spaces
from gymnasium.vector import VectorEnv

from burgerbot.app.views.batch_shapes import ENVS
from burgerbot.app.views.batch_shapes_run import BatchCall, BatchRun

__all__ = [
    "MAX_TABLE_ROWS",
    "array_summary",
    "history_rows",
    "history_table",
    "infos_table",
    "observation_table",
    "short_repr",
    "space_type_notes",
    "spaces_table",
    "step_table",
]

MAX_TABLE_ROWS = 64
"""Rows shown per table; the rest are counted, not shown."""


def _head(frame: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, int]:
    return frame.head(max_rows), max(0, len(frame) - max_rows)


def observation_table(
    call: BatchCall, env: str, max_rows: int = MAX_TABLE_ROWS
) -> tuple[pd.DataFrame, int]:
    """The observation batch, one row per env, one named column per component.

    Returns the first ``max_rows`` rows and how many were left out.
    """
    obs = call.observations
    data = obs.reshape(len(obs), -1)
    frame = pd.DataFrame(data, columns=list(ENVS[env].columns))
    frame.index.name = "env"
    return _head(frame, max_rows)


def step_table(call: BatchCall, max_rows: int = MAX_TABLE_ROWS) -> tuple[pd.DataFrame, int]:
    """Actions, rewards, terminated and truncated side by side, one row per env."""
    if call.actions is None:
        raise ValueError("`call` is a reset: it has no actions, rewards or flags")
    frame = pd.DataFrame(
        {
            "action": call.actions,
            "reward": call.rewards,
            "terminated": call.terminated,
            "truncated": call.truncated,
        }
    )
    frame.index.name = "env"
    return _head(frame, max_rows)


def infos_table(
    infos: Mapping[str, Any], num_envs: int, max_rows: int = MAX_TABLE_ROWS
) -> tuple[pd.DataFrame | None, int, list[str]]:
    """Per-env info values and their ``_key`` masks as columns, one row per env.

    Returns ``(table or None when infos is empty, rows left out, keys not per-env)``.
    """
    if not infos:
        return None, 0, []
    columns: dict[str, Any] = {}
    other: list[str] = []
    for key, value in infos.items():
        if isinstance(value, np.ndarray) and value.shape[:1] == (num_envs,):
            if value.dtype == object or value.ndim > 1:
                columns[key] = [repr(v) for v in value]
            else:
                columns[key] = value
        else:
            other.append(key)
    frame = pd.DataFrame(columns, index=pd.RangeIndex(num_envs, name="env"))
    table, hidden = _head(frame, max_rows)
    return table, hidden, other


_SPACE_REPR_LIMIT = 70


def short_repr(space: spaces.Space) -> str:
    """A space's repr on one line, cut to a table cell's width."""
    text = " ".join(repr(space).split())
    if len(text) > _SPACE_REPR_LIMIT:
        text = text[: _SPACE_REPR_LIMIT - 1] + "…"
    return text


def spaces_table(envs: VectorEnv) -> pd.DataFrame:
    """The batched and single spaces: how a vector env describes one env and all of them."""
    rows = []
    for name in (
        "observation_space",
        "single_observation_space",
        "action_space",
        "single_action_space",
    ):
        space = getattr(envs, name)
        rows.append(
            {
                "attribute": f"envs.{name}",
                "repr": short_repr(space),
                "shape": str(space.shape),
                "dtype": str(space.dtype),
            }
        )
    return pd.DataFrame(rows)


def space_type_notes(envs: VectorEnv) -> list[str]:
    """Sentences for batched spaces whose type differs from the single env's space."""
    notes = []
    for what in ("observation", "action"):
        single = type(getattr(envs, f"single_{what}_space")).__name__
        batched = type(getattr(envs, f"{what}_space")).__name__
        if single != batched:
            notes.append(
                f"Batching changed the {what} space's type: one env's `{single}` becomes a "
                f"`{batched}` with NUM_ENVS on axis 0 (same bounds and dtype for each env)."
            )
    return notes


def _axis_text(env: str, num_envs: int) -> str:
    choice = ENVS[env]
    if choice.scalar_observation:
        return (
            f"axis 0: env ({num_envs}). No axis 1: each observation is one number "
            f"({choice.columns[0]})"
        )
    return f"axis 0: env ({num_envs}), axis 1: {', '.join(choice.columns)} ({len(choice.columns)})"


def array_summary(call: BatchCall, env: str) -> pd.DataFrame:
    """Shape, dtype and the meaning of each axis for every array the call returned."""
    n = len(call.observations)
    arrays = [("observations", call.observations, _axis_text(env, n))]
    if call.actions is not None:
        arrays += [
            ("actions (sent in)", call.actions, f"axis 0: env ({n}), one action each"),
            ("rewards", call.rewards, f"axis 0: env ({n}), one reward each"),
            ("terminated", call.terminated, f"axis 0: env ({n}), ended by the env's own rules?"),
            ("truncated", call.truncated, f"axis 0: env ({n}), cut off by a time limit?"),
        ]
    return pd.DataFrame(
        [
            {"array": name, "shape": str(array.shape), "dtype": str(array.dtype), "axes": axes}
            for name, array, axes in arrays
        ]
    )


def history_rows(run: BatchRun) -> list[dict[str, Any]]:
    """One dict per remembered call (newest first): what it was and a few totals.

    A reset has no rewards or flags: its dict leaves those keys out.
    """
    rows = []
    for call in reversed(run.history):
        row: dict[str, Any] = {
            "call": "reset(seed=...)" if call.kind == "reset" else f"step #{call.number}",
            "observations shape": str(call.observations.shape),
        }
        if call.rewards is not None:
            row["reward total"] = float(np.sum(call.rewards))
            row["terminated"] = int(np.sum(call.terminated))
            row["truncated"] = int(np.sum(call.truncated))
        rows.append(row)
    return rows


def history_table(run: BatchRun) -> pd.DataFrame:
    """`history_rows` as a table (a reset's missing totals are NaN)."""
    return pd.DataFrame(history_rows(run))
