"""The "From batches to training data" page's tables: (steps x envs) grids and long-form rows.

Each grid comes as two frames of the same shape: the text of every cell and its kind
(``CELL_KINDS``), which the panel colours; the text carries the meaning too (a mark per kind).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from burgerbot import world
from burgerbot.app.views.training_data import TrainingRun, fmt, obs_text
from burgerbot.targets import distance_value, td_targets, world_outcomes

__all__ = [
    "CELL_KINDS",
    "buffer_grid",
    "mask_grid",
    "reset_rows",
    "row_details",
    "target_points",
    "targets_grid",
]

CELL_KINDS = ("transition", "ends", "reset")
"""A real transition, a real transition that ends its episode, a reset row (not one)."""

_SHORT_ACTION = {0: "fwd", 1: "left", 2: "right", 3: "stop"}


def _frame(run: TrainingRun, values: np.ndarray) -> pd.DataFrame:
    steps, envs = run.buffer.shape
    return pd.DataFrame(
        values,
        index=pd.Index(range(1, steps + 1), name="step() call"),
        columns=[f"env {i}" for i in range(envs)],
    )


def _kinds(run: TrainingRun) -> np.ndarray:
    kinds = np.full(run.buffer.shape, "transition", dtype=object)
    kinds[run.buffer.ended] = "ends"
    kinds[~run.mask] = "reset"
    return kinds


def _cell(run: TrainingRun, t: int, i: int) -> str:
    buffer = run.buffer
    if not run.mask[t, i]:
        return "✗ reset: not a transition"
    text = f"{_SHORT_ACTION[int(buffer.actions[t, i])]} {buffer.rewards[t, i]:+g}"
    if buffer.terminated[t, i] and buffer.truncated[t, i]:
        return text + " ■ term.+trunc."
    if buffer.terminated[t, i]:
        return text + " ■ terminated"
    if buffer.truncated[t, i]:
        return text + " ■ truncated"
    return text


def buffer_grid(run: TrainingRun) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What each ``step()`` call gave each env: action and reward, ends marked ■, resets ✗."""
    steps, envs = run.buffer.shape
    text = np.array([[_cell(run, t, i) for i in range(envs)] for t in range(steps)], dtype=object)
    return _frame(run, text), _frame(run, _kinds(run))


def mask_grid(run: TrainingRun) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``mask[t, i]`` as True ✓ (keep) or False ✗ (drop)."""
    text = np.where(run.mask, "True ✓", "False ✗").astype(object)
    return _frame(run, text), _frame(run, _kinds(run))


def targets_grid(run: TrainingRun, masked: bool) -> tuple[pd.DataFrame, pd.DataFrame]:
    """TD targets with two decimals; with the mask, dropped rows read "— dropped"."""
    values = run.targets_with_mask if masked else run.targets_without_mask
    text = np.array([["— dropped" if np.isnan(v) else fmt(v) for v in row] for row in values])
    return _frame(run, text.astype(object)), _frame(run, _kinds(run))


def row_details(run: TrainingRun) -> pd.DataFrame:
    """Every row in long form: what went in, what came out, and whether it is a transition."""
    buffer = run.buffer
    steps, envs = buffer.shape
    records = []
    for t in range(steps):
        for i in range(envs):
            records.append(
                {
                    "step() call": t + 1,
                    "env": i,
                    "obs (acted on)": obs_text(buffer.obs[t, i]),
                    "action": world.ACTION_NAMES[int(buffer.actions[t, i])],
                    "reward": float(buffer.rewards[t, i]),
                    "terminated": bool(buffer.terminated[t, i]),
                    "truncated": bool(buffer.truncated[t, i]),
                    "obs returned": obs_text(buffer.returned_obs[t, i]),
                    'infos["final_obs"]': obs_text(buffer.next_obs[t, i])
                    if buffer.final_from_infos[t, i]
                    else "",
                    "replays under the rules": bool(run.real[t, i]),
                    "mask": bool(run.mask[t, i]),
                    "TD target (no mask)": round(float(run.targets_without_mask[t, i]), 4),
                }
            )
    return pd.DataFrame(records)


def reset_rows(run: TrainingRun) -> pd.DataFrame:
    """The rows the mask drops, next to what their action really does from their observation.

    A reset row pairs the ended episode's final observation with an action the env ignored,
    reward 0.0 and the start observation. Its target claims that is what follows; replaying
    the same action from that observation under the world's rules gives the real target.
    """
    buffer = run.buffer
    dropped = np.argwhere(~run.mask)
    if len(dropped) == 0:
        return pd.DataFrame(
            columns=["step() call", "env", "obs (ended episode's final)", "action (ignored)"]
        )
    obs = buffer.obs[~run.mask]
    actions = buffer.actions[~run.mask]
    rewards, terminated, next_obs = world_outcomes(obs, actions)
    real_targets = td_targets(rewards, terminated, next_obs)
    return pd.DataFrame(
        {
            "step() call": dropped[:, 0] + 1,
            "env": dropped[:, 1],
            "obs (ended episode's final)": [obs_text(o) for o in obs],
            "action (ignored)": [world.ACTION_NAMES[int(a)] for a in actions],
            "reward": buffer.rewards[~run.mask],
            "next obs": [obs_text(o) for o in buffer.returned_obs[~run.mask]],
            "target (no mask)": run.targets_without_mask[~run.mask].round(4),
            "that action really gives": [
                f"{r:+g} → {obs_text(o)}, target {fmt(v)}"
                for r, o, v in zip(rewards, next_obs, real_targets, strict=True)
            ],
        }
    )


def target_points(run: TrainingRun) -> pd.DataFrame:
    """Long form for the chart: one point per row and per table (without / with the mask)."""
    steps, envs = run.buffer.shape
    t, i = np.indices((steps, envs))
    kind = np.where(run.mask, "real transition", "reset row (not a transition)")
    base = pd.DataFrame(
        {
            "step() call": t.ravel() + 1,
            "env": i.ravel(),
            "row": kind.ravel(),
            "V(obs acted on)": distance_value(run.buffer.obs).ravel(),
        }
    )
    without = base.assign(batch="without mask", target=run.targets_without_mask.ravel())
    with_mask = base.assign(batch="with mask", target=run.targets_with_mask.ravel())
    points = pd.concat([without, with_mask.dropna(subset=["target"])], ignore_index=True)
    return points.round({"target": 4})
