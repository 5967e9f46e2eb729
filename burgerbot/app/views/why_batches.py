"""The "Why batches help" page's logic: its URL settings, the app's limits, and its texts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.settings import ChoiceSetting, IntListSetting, IntSetting, clamp_num_envs
from burgerbot.buffers import BufferLayout

__all__ = [
    "AUTORESET_CHOICES",
    "BUFFER_SPECS",
    "MAX_DRAWN_ENVS",
    "MAX_DRAWN_STEPS",
    "NUM_ENVS_CHOICES",
    "SPECS",
    "TRAINING_SPECS",
    "BufferDrawing",
    "BufferSettings",
    "TrainingSettings",
    "batch_counts_text",
    "buffer_drawing",
    "drawn_text",
    "plan_training",
    "resolve_settings",
    "summary_table",
]

MAX_DRAWN_ENVS = 64
"""The buffer heatmap draws at most this many envs (columns)..."""

MAX_DRAWN_STEPS = 64
"""...and at most this many ``step()`` calls (rows): at most 4,096 cells in the browser."""

AUTORESET_CHOICES = ("NEXT_STEP", "SAME_STEP")

NUM_ENVS_CHOICES = (1, 2, 4, 8, 16, 32, 64)
"""NUM_ENVS values offered for the training comparison (the URL may ask for others)."""

BUFFER_SPECS = (
    IntSetting("n", "NUM_ENVS", default=4, low=1, high=256),
    IntSetting("batch", "Transitions per update (batch size)", default=2048, low=64, high=16384),
    ChoiceSetting("mode", "Auto-reset mode", default="NEXT_STEP", choices=AUTORESET_CHOICES),
    IntSetting("bseed", "Seed of the random agent", default=0, low=0, high=9999),
)

TRAINING_SPECS = (
    IntListSetting("ns", "NUM_ENVS to compare", default=(1, 4, 16), low=1, high=256, max_items=6),
    IntSetting("steps", "Env-steps per run", default=5_000, low=500, high=CAPS.max_train_env_steps),
    IntSetting("seeds", "Seeds per NUM_ENVS", default=3, low=1, high=10),
    IntSetting("tseed", "First seed", default=0, low=0, high=9999),
)

SPECS = BUFFER_SPECS + TRAINING_SPECS


# --- Settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BufferSettings:
    """The batch the first section fills: NUM_ENVS, batch size, auto-reset mode and seed."""

    num_envs: int
    batch_size: int
    mode: str
    seed: int


@dataclass(frozen=True)
class TrainingSettings:
    """The training comparison: which NUM_ENVS, env-steps per run, how many seeds from where."""

    num_envs_list: tuple[int, ...]
    env_steps: int
    seeds: int
    first_seed: int

    @property
    def key(self) -> tuple[tuple[int, ...], int, int, int]:
        """The arguments of one training click (what its results are cached under)."""
        return (self.num_envs_list, self.env_steps, self.seeds, self.first_seed)

    @property
    def runs(self) -> int:
        """Training runs one click makes: one per (NUM_ENVS, seed)."""
        return len(self.num_envs_list) * self.seeds


def plan_training(
    num_envs_list: Sequence[int], seeds: int, env_steps: int, max_total: int | None = None
) -> tuple[int, str | None]:
    """Env-steps per run so that all runs of one click stay within ``max_train_env_steps``.

    Returns the env-steps per run and a note when the cap bit.

    Example:
        >>> plan_training([1, 4, 16], seeds=3, env_steps=10_000, max_total=400_000)
        (10000, None)
        >>> plan_training([1, 4, 16], seeds=3, env_steps=50_000, max_total=400_000)[0]
        44444
    """
    max_total = CAPS.max_train_env_steps if max_total is None else max_total
    runs = max(1, len(num_envs_list)) * max(1, seeds)
    allowed = max(1, max_total // runs)
    if env_steps <= allowed:
        return env_steps, None
    return allowed, (
        f"{runs} runs x {env_steps:,} env-steps would pass this app's limit of "
        f"{max_total:,} env-steps per training click: using {allowed:,} per run "
        "(raise with BURGERBOT_MAX_TRAIN_ENV_STEPS when running locally)."
    )


def resolve_settings(
    values: Mapping[str, Any], caps: Caps = CAPS
) -> tuple[tuple[BufferSettings, TrainingSettings], list[str]]:
    """The page's values with the app's caps applied, and a note for each change made.

    NUM_ENVS of the buffer is capped like any native env; the NUM_ENVS to compare are
    sorted without repeats; the env-steps per run shrink so one click stays within
    ``caps.max_train_env_steps``.

    Example:
        >>> values = {"n": 4, "batch": 2048, "mode": "NEXT_STEP", "bseed": 0,
        ...           "ns": [16, 1, 16], "steps": 5_000, "seeds": 3, "tseed": 0}
        >>> (buffer, training), notes = resolve_settings(values)
        >>> training.num_envs_list, training.runs, notes
        ((1, 16), 6, [])
    """
    notes: list[str] = []
    num_envs, cap_note = clamp_num_envs("native", int(values["n"]), caps)
    if cap_note:
        notes.append(cap_note)
    buffer = BufferSettings(num_envs, int(values["batch"]), values["mode"], int(values["bseed"]))
    chosen = tuple(sorted({int(n) for n in values.get("ns", ())}))
    seeds = int(values["seeds"])
    env_steps, train_note = plan_training(
        chosen, seeds, int(values["steps"]), caps.max_train_env_steps
    )
    if train_note:
        notes.append(train_note)
    training = TrainingSettings(chosen, env_steps, seeds, int(values["tseed"]))
    return (buffer, training), notes


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
    reset_text = (
        f" **{resets:,}** of them are NEXT_STEP reset steps (the call after an episode ends: "
        "reward 0, the action was ignored). A learner must leave those out of the update; "
        "SAME_STEP mode, like Stable-Baselines3's own vector envs, has none."
        if mode == "NEXT_STEP"
        else " SAME_STEP mode resets an env on the very call its episode ends, so every box is "
        "a real transition."
    )
    return (
        f"In the whole batch of {collected:,} transitions: **{int(events.get('move', 0)):,}** "
        f"moves, **{int(events.get('turn_or_stop', 0)):,}** turns or stops, "
        f"**{int(events.get('hit', 0)):,}** hits, **{int(events.get('goal', 0)):,}** goals."
        + reset_text
    )


# --- Training results -------------------------------------------------------------------------


def summary_table(summary: pd.DataFrame) -> pd.DataFrame:
    """`burgerbot.training.summarise_runs`'s frame with the page's column names."""
    return pd.DataFrame(
        {
            "NUM_ENVS": summary["num_envs"],
            "runs that learned it": [
                f"{r} of {s}" for r, s in zip(summary["reached"], summary["seeds"], strict=True)
            ],
            "env-steps needed": summary["env_steps"],
            "episodes needed": summary["episodes"],
            "step() calls needed": summary["step_calls"],
            "seconds needed": summary["seconds"],
            "env-steps per second": summary["env_steps_per_s"],
        }
    )
