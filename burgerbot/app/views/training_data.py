"""The "From batches to training data" page: its settings, its live run, what it says of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from burgerbot.app.settings import ChoiceSetting, IntSetting
from burgerbot.checks import MAX_SEED
from burgerbot.targets import (
    GAMMA,
    Buffer,
    collect_buffer,
    distance_value,
    follows_world_rules,
    td_targets,
    transition_mask,
)

__all__ = [
    "MODES",
    "ROWS_OPTIONS",
    "SPECS",
    "START_VALUE",
    "TrainingRun",
    "TrainingSettings",
    "fmt",
    "obs_text",
    "plural",
    "resolve_settings",
    "rows_answer",
    "rows_explanation",
    "rows_question",
    "takeaways",
    "targets_sentence",
    "training_run",
    "widget_values",
]

MODES = ("NEXT_STEP", "SAME_STEP")
"""The auto-reset modes that fill a buffer by themselves (DISABLED waits for your reset)."""

SPECS = (
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", MODES),
    IntSetting("n", "NUM_ENVS", 3, 1, 8),
    IntSetting("steps", "step() calls", 10, 2, 30),
    IntSetting("max", "max_steps", 5, 1, 20),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)

START_OBS = np.array([0, 0, 1, 1])
START_VALUE = float(distance_value(START_OBS))
"""V([0, 0, 1, 1]) = -12: the start is 6 rows and 6 columns from the burger."""


@dataclass(frozen=True)
class TrainingSettings:
    """The buffer the page fills: mode, envs, ``step()`` calls, episode limit, seed."""

    mode: str
    num_envs: int
    steps: int
    max_steps: int
    seed: int


def resolve_settings(values: Mapping[str, Any]) -> tuple[TrainingSettings, list[str]]:
    """The page's values as settings, with a note for each value that had to change.

    Example:
        >>> resolve_settings({"mode": "same_step", "n": 99})[0]
        TrainingSettings(mode='SAME_STEP', num_envs=8, steps=10, max_steps=5, seed=0)
    """
    notes: list[str] = []
    picked: dict[str, Any] = {}
    for spec in SPECS:
        picked[spec.key], note = spec.parse(str(values.get(spec.key, spec.default)))
        if note:
            notes.append(note)
    settings = TrainingSettings(
        picked["mode"], picked["n"], picked["steps"], picked["max"], picked["seed"]
    )
    return settings, notes


def widget_values(settings: TrainingSettings) -> dict[str, Any]:
    """The settings by URL key, so each widget shows the value really used."""
    return {
        "mode": settings.mode,
        "n": settings.num_envs,
        "steps": settings.steps,
        "max": settings.max_steps,
        "seed": settings.seed,
    }


@dataclass(frozen=True)
class TrainingRun:
    """One live buffer and everything the page computes from it."""

    settings: TrainingSettings
    buffer: Buffer
    mask: np.ndarray
    """``transition_mask``: False on NEXT_STEP's reset rows."""
    real: np.ndarray
    """Rows that replay under the world's rules (an independent check of the mask)."""
    targets_without_mask: np.ndarray
    targets_with_mask: np.ndarray
    """NaN on the rows the mask drops."""

    @property
    def after_end(self) -> np.ndarray:
        """Rows whose env ended its episode on the row before (in the same buffer)."""
        after = np.zeros(self.buffer.shape, dtype=bool)
        after[1:] = self.buffer.ended[:-1]
        return after


def training_run(settings: TrainingSettings, actions: np.ndarray | None = None) -> TrainingRun:
    """Fill the buffer live and compute its mask, its world check and its TD targets.

    ``actions`` ``(steps, envs)`` replace the seeded random ones (tests use it).
    """
    buffer = collect_buffer(
        settings.num_envs,
        settings.steps,
        settings.mode,
        settings.seed,
        settings.max_steps,
        actions=actions,
    )
    mask = transition_mask(buffer.terminated, buffer.truncated, settings.mode)
    plain = td_targets(buffer.rewards, buffer.terminated, buffer.next_obs)
    return TrainingRun(
        settings=settings,
        buffer=buffer,
        mask=mask,
        real=follows_world_rules(buffer),
        targets_without_mask=plain,
        targets_with_mask=np.where(mask, plain, np.nan),
    )


def obs_text(values: Any) -> str:
    """An observation as numpy prints it in a list: ``[0, 0, 1, 1]``."""
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


def fmt(value: float) -> str:
    """A target or value with two decimals and its sign: ``-10.80``."""
    return f"{value:+.2f}".replace("+-", "-")


def plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


# --- The prediction --------------------------------------------------------------------------

ROWS_OPTIONS = (
    "The rows where an episode ends",
    "The rows of the step() call right after an episode ends",
    "None: every row is a transition",
)


def rows_question(mode: str) -> str:
    return f"In this buffer ({mode} mode), which rows are **not** transitions?"


def rows_answer(run: TrainingRun) -> str | None:
    """Which option the live buffer bears out, judged by replaying every row under the world's
    rules (not by the mask); None if the rows that fail fit none of the options."""
    failing = ~run.real
    if not failing.any():
        return ROWS_OPTIONS[2]
    if np.array_equal(failing, run.after_end):
        return ROWS_OPTIONS[1]
    if np.array_equal(failing, run.buffer.ended):
        return ROWS_OPTIONS[0]
    return None


def rows_explanation(run: TrainingRun) -> str:
    """Why, in words that follow this run."""
    failing = int((~run.real).sum())
    ends = int(run.buffer.ended.sum())
    total = run.mask.size
    checked = f"Each of the {total} rows was replayed under BurgerBot's rules."
    if run.settings.mode == "NEXT_STEP":
        if failing == 0:
            return (
                f"{checked} Every row replays: no episode ended before the last "
                "`step()` call, so this buffer holds no reset row. Try more calls or a "
                "smaller max_steps."
            )
        resets = ~run.mask
        looks_reset = bool(
            (run.buffer.rewards[resets] == 0.0).all()
            and (run.buffer.returned_obs[resets] == START_OBS).all()
        )
        what = (
            "the env resets, ignores the action and returns the start [0, 0, 1, 1] with "
            "reward 0.0 (a reward BurgerBot never gives)"
            if looks_reset
            else "the env resets and ignores the action"
        )
        same = np.array_equal(~run.real, resets)
        return (
            f"{checked} {plural(failing, 'row')} did not: each comes on the call after an "
            f"episode ended, where {what}. "
            + (
                "The mask drops exactly these rows"
                if same
                else f"The mask drops {int(resets.sum())} rows, not exactly these"
            )
            + f"; the {plural(ends, 'row')} that end an episode are real transitions and stay."
        )
    failing_text = (
        "every one replays"
        if failing == 0
        else f"{plural(failing, 'row')} did not replay (unexpected)"
    )
    return (
        f'{checked} Taking the next observation from `infos["final_obs"]` on the '
        f"{plural(ends, 'row')} that end an episode, {failing_text}: SAME_STEP never spends "
        "a call on a reset, so the mask keeps every row."
    )


# --- TD targets ------------------------------------------------------------------------------


def targets_sentence(run: TrainingRun) -> str:
    """What the mask changes in the TD targets of this run, from the numbers."""
    plain, masked = run.targets_without_mask, run.targets_with_mask
    differs = ~np.isclose(plain, masked, equal_nan=False)
    count = int(differs.sum())
    if count == 0:
        return (
            f"With or without the mask, the {plain.size} targets are the same: no row of this "
            "buffer is a reset row. The batch mean is "
            f"{fmt(float(np.mean(plain)))} either way."
        )
    fake = np.unique(plain[differs].round(6))
    value_text = (
        f"each {fmt(float(fake[0]))} = 0.0 + {GAMMA} × V([0, 0, 1, 1]) = "
        f"{GAMMA} × {fmt(START_VALUE)}"
        if len(fake) == 1 and np.isclose(fake[0], GAMMA * START_VALUE)
        else "values " + ", ".join(fmt(float(v)) for v in fake)
    )
    same_rows = np.array_equal(differs, ~run.mask)
    mean_with, mean_without = float(np.nanmean(masked)), float(np.mean(plain))
    if np.isclose(mean_with, mean_without):
        move = "about the same as"
    else:
        move = "lower than" if mean_without < mean_with else "higher than"
    return (
        f"Without the mask, {plural(count, 'made-up target')} ({value_text}) enter the batch "
        f"of {plain.size}. They sit {'exactly' if same_rows else 'not only'} at the reset "
        f"rows. The batch mean is {fmt(mean_without)} without the mask, {move} "
        f"{fmt(mean_with)} with it over the {int(run.mask.sum())} real transitions."
    )


def takeaways(run: TrainingRun, seeding: Any) -> list[str]:
    """The page's key takeaways; all but the third follow this run and the seeding demo.

    ``seeding`` is the Seeding tab's `training_data_seeding.SeedingDemo`.
    """
    resets = int((~run.mask).sum())
    if run.settings.mode == "NEXT_STEP":
        first = (
            "In NEXT_STEP mode the `step()` call after an episode ends is a reset, not a "
            f"transition: mask it out (here {resets} of {run.mask.size} rows)."
        )
    else:
        first = (
            "In SAME_STEP mode every row is a transition, but the next observation of an "
            'ending row is `infos["final_obs"][i]`, not `obs[i]`.'
        )
    fake = int((~np.isclose(run.targets_without_mask, run.targets_with_mask)).sum())
    second = (
        f"A missing mask gives made-up rows TD targets too (here {fake}): the loss trains on "
        "transitions that never happened."
        if fake
        else "A missing mask costs nothing when no row is a reset (as here), and silently "
        "trains on made-up transitions when one is: build the mask anyway."
    )
    return [
        first,
        second,
        "Bootstrap after truncation, target = r + γ·V(final obs); not after termination, "
        "target = r.",
        _seeding_takeaway(seeding),
    ]


def _seeding_takeaway(seeding: Any) -> str:
    spread = seeding.reset["same start as a single env's reset(seed=…)"].tolist() == [
        f"s + {i}" for i in seeding.reset["sub-env"]
    ]
    seeded_call = seeding.factory[seeding.factory["call after the factories"].str.contains("seed=")]
    by_reset = next(c for c in seeded_call.columns if c.startswith("= reset(seed="))
    overrides = bool(seeded_call[by_reset].all()) and not bool(
        seeded_call["= factory seed's next start"].any()
    )
    actions_fixed = seeding.action["same both times"].tolist() == [True, False]
    if spread and overrides and actions_fixed:
        return (
            "`envs.reset(seed=s)` seeds sub-env i with s + i and overrides seeds set in the "
            "factories; it does not seed `envs.action_space`: call `envs.action_space.seed(s)`."
        )
    return (
        "Check seeding on your versions: here `envs.reset(seed=s)` "
        + ("gave" if spread else "did not give")
        + " sub-env i seed s + i, "
        + ("overrode" if overrides else "did not override")
        + " the factories' seeds, and only `envs.action_space.seed` "
        + ("fixed" if actions_fixed else "did not alone fix")
        + " the actions."
    )
