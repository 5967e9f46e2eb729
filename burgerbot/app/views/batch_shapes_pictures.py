"""The "Batch shapes" page's picture data: where the N agents stand, and CartPole's poles."""

from __future__ import annotations

import base64
import io
import math
from functools import lru_cache
from typing import Any, NamedTuple

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium.envs.classic_control.cartpole import CartPoleEnv
from gymnasium.envs.toy_text.frozen_lake import MAPS

from burgerbot import world
from burgerbot.app.views.batch_shapes_run import BatchCall
from burgerbot.app.views.batch_shapes_tables import MAX_TABLE_ROWS

__all__ = [
    "CARTPOLE_LIMITS",
    "MAX_PICTURES",
    "PICTURE_WIDTH",
    "CartPoleLimits",
    "burgerbot_cell_counts",
    "frozenlake_cell_counts",
    "pole_angles",
    "robot_picture",
]

MAX_PICTURES = 16
"""Up to this many robots are drawn one by one; beyond it, a heatmap of all of them."""

PICTURE_WIDTH = 112
"""Pixels across one robot's picture on the page."""


class CartPoleLimits(NamedTuple):
    """When a CartPole episode ends, as the installed gymnasium defines it."""

    pole_angle: float
    """Radians: beyond ± this the pole has fallen (terminated)."""
    cart_position: float
    """Beyond ± this the cart has left the track (terminated)."""
    max_episode_steps: int | None
    """``CartPole-v1``'s time limit (truncated), from its registered spec."""

    @property
    def pole_degrees(self) -> float:
        return math.degrees(self.pole_angle)

    def sentence(self) -> str:
        """The end conditions in words.

        >>> CartPoleLimits(12 * math.pi / 180, 2.4, 500).sentence()
        'An episode ends (terminated) when the pole leans more than ±12° (±0.2094 radians) or the cart leaves ±2.4; it is cut off (truncated) after 500 steps.'
        """  # noqa: E501
        cut = (
            f"; it is cut off (truncated) after {self.max_episode_steps} steps"
            if self.max_episode_steps
            else ""
        )
        return (
            f"An episode ends (terminated) when the pole leans more than "
            f"±{self.pole_degrees:g}° (±{self.pole_angle:.4f} radians) or the cart leaves "
            f"±{self.cart_position:g}{cut}."
        )


def _cartpole_limits() -> CartPoleLimits:
    env = CartPoleEnv()
    try:
        return CartPoleLimits(
            float(env.theta_threshold_radians),
            float(env.x_threshold),
            gym.spec("CartPole-v1").max_episode_steps,
        )
    finally:
        env.close()


CARTPOLE_LIMITS = _cartpole_limits()
"""Read from the installed gymnasium's CartPole (its thresholds) and its registered spec."""


@lru_cache(maxsize=world.GRID_SIZE * world.GRID_SIZE * 4)
def robot_picture(row: int, col: int, heading: int) -> str:
    """One robot's picture as a PNG ``data:`` URL, made once per pose and server.

    There are only 7 x 7 x 4 poses. Handing the page a finished URL saves re-encoding
    each robot's picture on every step (tens of milliseconds per click).

    Example:
        >>> robot_picture(0, 0, 1).startswith("data:image/png;base64,")
        True
    """
    from PIL import Image  # Pillow comes with Streamlit; the library itself does not need it

    image = Image.fromarray(world.render_rgb(row, col, heading))
    image = image.resize((PICTURE_WIDTH, PICTURE_WIDTH), resample=Image.Resampling.BILINEAR)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def burgerbot_cell_counts(observations: np.ndarray) -> pd.DataFrame:
    """How many robots stand on each of the 49 cells, long form, with obstacles and goal marked.

    Columns: row, col, count, kind ("free", "obstacle", "goal", "start"), label.
    """
    counts = np.zeros((world.GRID_SIZE, world.GRID_SIZE), dtype=np.int64)
    np.add.at(counts, (observations[:, 0], observations[:, 1]), 1)
    rows = []
    for r in range(world.GRID_SIZE):
        for c in range(world.GRID_SIZE):
            if (r, c) in world.OBSTACLES:
                kind, mark = "obstacle", "O"
            elif (r, c) == world.GOAL:
                kind, mark = "goal", "G"
            elif (r, c) == world.START:
                kind, mark = "start", "S"
            else:
                kind, mark = "free", ""
            rows.append(_cell(r, c, int(counts[r, c]), kind, mark))
    return pd.DataFrame(rows)


def frozenlake_cell_counts(observations: np.ndarray) -> pd.DataFrame:
    """How many walkers stand on each tile of FrozenLake's 4x4 map, long form.

    Columns as :func:`burgerbot_cell_counts`; kinds "start", "frozen", "hole", "goal".
    """
    lake = MAPS["4x4"]
    size = len(lake)
    counts = np.bincount(observations.astype(np.int64), minlength=size * size)
    kinds = {"S": "start", "F": "frozen", "H": "hole", "G": "goal"}
    rows = []
    for r in range(size):
        for c in range(size):
            letter = lake[r][c]
            mark = "" if letter == "F" else letter
            rows.append(_cell(r, c, int(counts[r * size + c]), kinds[letter], mark))
    return pd.DataFrame(rows)


def _cell(row: int, col: int, count: int, kind: str, mark: str) -> dict[str, Any]:
    label = " ".join(part for part in (mark, str(count) if count else "") if part)
    return {"row": row, "col": col, "count": count, "kind": kind, "label": label}


def pole_angles(call: BatchCall, max_rows: int = MAX_TABLE_ROWS) -> pd.DataFrame:
    """CartPole's pole angle (radians) and cart position per env, first ``max_rows`` envs."""
    shown = call.observations[:max_rows].astype(np.float64)
    return pd.DataFrame(
        {"env": np.arange(len(shown)), "pole angle": shown[:, 2], "cart position": shown[:, 0]}
    )
