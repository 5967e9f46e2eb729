"""The "From batches to training data" page's Streamlit-free logic: its settings, its live run,
what it says of it, its tables, its chart, its episode ends and its seeding demos."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import altair as alt
import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium.vector import SyncVectorEnv

from burgerbot import world
from burgerbot.app.labels import counted
from burgerbot.app.palette import OKABE_ITO, SHAPES
from burgerbot.app.settings import ChoiceSetting, IntSetting, parse_values
from burgerbot.checks import MAX_SEED
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import burgerbot_factory
from burgerbot.targets import (
    GAMMA,
    Buffer,
    collect_buffer,
    distance_value,
    follows_world_rules,
    td_targets,
    transition_mask,
    world_outcomes,
)

__all__ = [
    "CARTPOLE",
    "CELL_KINDS",
    "FACTORY_SEED",
    "MODES",
    "ROWS_OPTIONS",
    "ROW_KINDS",
    "SEEDING_ENVS",
    "SPECS",
    "START_VALUE",
    "WHERE_FINAL",
    "BurgerBotSeedCheck",
    "Endings",
    "SeedingDemo",
    "TrainingRun",
    "TrainingSettings",
    "action_seeding",
    "action_seeding_sentence",
    "buffer_grid",
    "burgerbot_seed_check",
    "burgerbot_seed_sentence",
    "endings",
    "endings_sentence",
    "factory_reseeding",
    "factory_sentence",
    "fmt",
    "lean_policy",
    "mask_grid",
    "obs_text",
    "reset_rows",
    "reset_seeds",
    "reset_seeds_sentence",
    "resolve_settings",
    "row_details",
    "rows_answer",
    "rows_explanation",
    "rows_question",
    "same_seed_sentence",
    "same_seed_trajectories",
    "seeding_demo",
    "takeaways",
    "target_counts",
    "target_points",
    "targets_chart",
    "targets_grid",
    "targets_sentence",
    "training_run",
    "widget_values",
]


# --- Settings and the live run ---------------------------------------------------------------
# The "From batches to training data" page: its settings, its live run, what it says of it.

MODES = ("NEXT_STEP", "SAME_STEP")
"""The auto-reset modes that fill a buffer by themselves (DISABLED waits for your reset)."""

SPECS = (
    ChoiceSetting("mode", "Auto-reset mode", "NEXT_STEP", MODES),
    IntSetting("n", "NUM_ENVS", 3, 1, 8),
    IntSetting("steps", "step() calls", 10, 2, 30),
    IntSetting("max", "max_steps", 5, 1, 20),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)

START_OBS = np.array(world.START_OBSERVATION)
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
    picked, notes = parse_values(SPECS, values)
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
        one_end = ends == 1
        return (
            f"{checked} {counted(failing, 'row')} did not: {'it' if failing == 1 else 'each'} "
            f"comes on the call after an episode ended, where {what}. "
            + (
                "The mask drops exactly these rows"
                if same
                else f"The mask drops {int(resets.sum())} rows, not exactly these"
            )
            + f"; the {counted(ends, 'row')} that end{'s' * one_end} an episode "
            + ("is a real transition and stays." if one_end else "are real transitions and stay.")
        )
    failing_text = (
        "every one replays"
        if failing == 0
        else f"{counted(failing, 'row')} did not replay (unexpected)"
    )
    ending = (
        f'Taking the next observation from `infos["final_obs"]` on the {counted(ends, "row")} '
        f"that end{'s' * (ends == 1)} an episode"
        if ends
        else "No row ends an episode here, and"
    )
    return (
        f"{checked} {ending}, {failing_text}: SAME_STEP never spends a call on a reset, so the "
        "mask keeps every row."
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
        f"{'each ' * (count > 1)}{fmt(float(fake[0]))} = 0.0 + {GAMMA} × V([0, 0, 1, 1]) = "
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
    one = count == 1
    return (
        f"Without the mask, {counted(count, 'made-up target')} ({value_text}) "
        f"enter{'s' * one} the batch of {plain.size}. {'It sits' if one else 'They sit'} "
        f"{'exactly' if same_rows else 'not only'} at the reset row{'' if one else 's'}. The "
        f"batch mean is {fmt(mean_without)} without the mask, {move} {fmt(mean_with)} with it "
        f"over the {counted(int(run.mask.sum()), 'real transition')}."
    )


def takeaways(run: TrainingRun, seeding: Any) -> list[str]:
    """The page's key takeaways; all but the third follow this run and the seeding demo.

    ``seeding`` is the Seeding tab's `SeedingDemo`.
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


# --- Tables: (steps x envs) grids and long-form rows -----------------------------------------
# The "From batches to training data" page's tables: (steps x envs) grids and long-form rows.
#
# Each grid comes as two frames of the same shape: the text of every cell and its kind
# (``CELL_KINDS``), which the panel colours; the text carries the meaning too (a mark per kind).

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


# --- The chart: the batch's TD targets without and with the mask -----------------------------
# The "From batches to training data" chart: the batch's TD targets without and with the mask.

ROW_KINDS = ("real transition", "reset row (not a transition)")
"""The two kinds of buffer row, in legend order (`target_points`)."""

_KIND_COLOURS = (OKABE_ITO[3], OKABE_ITO[4])  # blue, vermillion
_KIND_SHAPES = (SHAPES[0], SHAPES[4])  # circle, cross


def target_counts(points: pd.DataFrame) -> pd.DataFrame:
    """How many rows of each kind got each TD target, per batch (the chart's data)."""
    counts = (
        points.groupby(["batch", "row", "target"], sort=False)
        .size()
        .reset_index(name="rows")
        .sort_values(["batch", "target", "row"], ascending=[False, True, True])
    )
    return counts.reset_index(drop=True)


def targets_chart(counts: pd.DataFrame) -> alt.Chart:
    """One line of points per batch: each point a TD target value, sized by how many rows got it.

    Reset rows are vermillion crosses, real transitions blue circles (shape and colour).
    """
    kind = alt.Color(
        "row:N",
        title="row",
        scale=alt.Scale(domain=list(ROW_KINDS), range=list(_KIND_COLOURS)),
        legend=alt.Legend(orient="bottom"),
    )
    return (
        alt.Chart(counts, title="TD targets in the batch: without vs with the mask")
        .mark_point(filled=True, opacity=0.85)
        .encode(
            x=alt.X("target:Q", title="TD target", scale=alt.Scale(zero=False)),
            y=alt.Y("batch:N", title=None, sort=["without mask", "with mask"]),
            color=kind,
            shape=alt.Shape(
                "row:N", scale=alt.Scale(domain=list(ROW_KINDS), range=list(_KIND_SHAPES))
            ),
            size=alt.Size("rows:Q", title="rows", scale=alt.Scale(range=[60, 600])),
            tooltip=["batch", "row", alt.Tooltip("target:Q", format=".2f"), "rows"],
        )
        .properties(
            height=140,
            description=(
                "TD target values (x) in the batch without and with the mask (y); each point's "
                "size is how many rows got that target. Blue circles are real transitions, "
                "vermillion crosses reset rows."
            ),
        )
    )


# --- Termination vs truncation: the right target at each episode end -------------------------
# Termination vs truncation on the "From batches to training data" page, from the live buffer.
#
# For every row that ends an episode: where its final observation is, the right TD target and
# the two wrong ones learners write (bootstrapping after termination too; bootstrapping from the
# observation ``step()`` returned, which SAME_STEP has already replaced by the next start).

WHERE_FINAL = {
    "NEXT_STEP": "`obs[i]` returned by the ending call",
    "SAME_STEP": '`infos["final_obs"][i]` (`obs[i]` is already the next start)',
}
"""Where each mode puts an ending row's final observation."""

RIGHT = "right target"
ON_TERMINATION = "bootstrap after termination"
FROM_RETURNED = "bootstrap from obs returned"


@dataclass(frozen=True)
class Endings:
    """The ending rows of one run, as a table, and the counts the sentences use."""

    table: pd.DataFrame
    """One row per episode end; the two "bootstrap ..." columns hold the wrong targets."""
    terminated: int
    truncated: int
    both: int
    wrong_after_termination: int
    """Ends where bootstrapping after termination changes the target."""
    wrong_from_returned: int
    """Ends where bootstrapping from the returned observation changes the target."""


def endings(run: TrainingRun) -> Endings:
    """Every episode end in the buffer with its right and wrong TD targets."""
    buffer = run.buffer
    ended = buffer.ended
    where = np.argwhere(ended)
    rewards = buffer.rewards[ended]
    terminated = buffer.terminated[ended]
    truncated = buffer.truncated[ended]
    final = buffer.next_obs[ended]
    returned = buffer.returned_obs[ended]
    right = td_targets(rewards, terminated, final)
    after_termination = td_targets(rewards, np.zeros_like(terminated), final)
    from_returned = td_targets(rewards, terminated, returned)
    how = np.where(terminated & truncated, "both", np.where(terminated, "terminated", "truncated"))
    table = pd.DataFrame(
        {
            "step() call": where[:, 0] + 1,
            "env": where[:, 1],
            "ended by": how,
            "reward": rewards,
            "final obs": [obs_text(o) for o in final],
            "obs returned": [obs_text(o) for o in returned],
            "V(final obs)": distance_value(final),
            RIGHT: right.round(4),
            ON_TERMINATION: after_termination.round(4),
            FROM_RETURNED: from_returned.round(4),
        }
    )
    return Endings(
        table=table,
        terminated=int((terminated & ~truncated).sum()),
        truncated=int((truncated & ~terminated).sum()),
        both=int((terminated & truncated).sum()),
        wrong_after_termination=int((~np.isclose(after_termination, right)).sum()),
        wrong_from_returned=int((~np.isclose(from_returned, right)).sum()),
    )


def endings_sentence(run: TrainingRun, result: Endings) -> str:
    """What the two mistakes would have changed in this buffer, from its numbers."""
    total = result.terminated + result.truncated + result.both
    if total == 0:
        return (
            "No episode ended in this buffer, so there is nothing to bootstrap: try more "
            "`step()` calls or a smaller max_steps."
        )
    parts = [
        f"This buffer holds {counted(total, 'episode end')}: {result.terminated} terminated, "
        f"{result.truncated} truncated"
        + (f", {result.both} both at once (terminated wins: no bootstrap)" if result.both else "")
        + "."
    ]
    parts.append(
        f"Bootstrapping after termination too would change {result.wrong_after_termination} "
        f"of them (adding {GAMMA} × V(final obs) where nothing follows)."
    )
    if run.settings.mode == "NEXT_STEP":
        parts.append(
            "Bootstrapping from the returned `obs` changes "
            + (str(result.wrong_from_returned) if result.wrong_from_returned else "none")
            + ": in NEXT_STEP mode it *is* the final observation."
        )
    elif result.wrong_from_returned:
        parts.append(
            f"Bootstrapping from the returned `obs` would change {result.wrong_from_returned}: "
            "on those truncated rows it is already the next episode's start "
            f"(V = {fmt(START_VALUE)}), not the final observation."
        )
    elif result.truncated:  # truncated rows bootstrap, from a final obs valued as the start
        parts.append(
            "Bootstrapping from the returned `obs` changes none here: SAME_STEP returns the "
            f"next start there, but {'the' if result.truncated == 1 else 'each'} truncated row "
            f"of this buffer ended as far from the burger as the start (V = {fmt(START_VALUE)} "
            "both ways). Other seeds show the difference."
        )
    else:
        parts.append(
            "Bootstrapping from the returned `obs` changes none here: SAME_STEP returns the "
            "next start there, but no truncated row of this buffer bootstraps from it "
            "(terminated rows do not bootstrap). Other seeds show the difference."
        )
    return " ".join(parts)


# --- Seeding sub-environments, run live ------------------------------------------------------
# Seeding sub-environments, run live: what ``envs.reset(seed=...)`` and the factories' seeds do.
#
# CartPole-v1 draws its start state from its seed, so it shows env seeding; BurgerBot draws
# nothing from its seed (`burgerbot.env.BurgerBotEnv.reset` always starts at [0, 0, 1, 1] and
# `step` uses no random numbers), so on BurgerBot only the actions are random:
# ``envs.action_space.seed``.

CARTPOLE = "CartPole-v1"
SEEDING_ENVS = 3
"""Sub-environments in every seeding demo (enough to see s, s + 1, s + 2)."""
FACTORY_SEED = 1000
"""The lesson-style factory seeds sub-env i with ``FACTORY_SEED + i`` inside its thunk."""
MAX_POLICY_STEPS = 500


def _start(seed: int | None, then_unseeded: bool = False) -> np.ndarray:
    """CartPole's start after ``reset(seed=seed)`` (and, if asked, one more plain reset)."""
    env = gym.make(CARTPOLE)
    obs, _ = env.reset(seed=seed)
    if then_unseeded:
        obs, _ = env.reset()
    env.close()
    return obs


def _cartpoles(num_envs: int, thunk: Callable[[int], Callable[[], gym.Env]] | None = None):
    fns = [thunk(i) if thunk else (lambda: gym.make(CARTPOLE)) for i in range(num_envs)]
    return SyncVectorEnv(fns)


def _text(obs: np.ndarray) -> str:
    return "[" + ", ".join(f"{v:+.4f}" for v in obs) + "]"


def reset_seeds(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """``envs.reset(seed=seed)``: is sub-env i's start the one ``reset(seed=seed + i)`` gives?"""
    envs = _cartpoles(num_envs)
    obs, _ = envs.reset(seed=seed)
    envs.close()
    rows = []
    for i in range(num_envs):
        matches = {k: bool(np.array_equal(obs[i], _start(seed + k))) for k in range(num_envs)}
        rows.append(
            {
                "sub-env": i,
                "start from envs.reset(seed=s)": _text(obs[i]),
                "same start as a single env's reset(seed=…)": ", ".join(
                    f"s + {k}" for k, same in matches.items() if same
                )
                or "none of s … s + " + str(num_envs - 1),
            }
        )
    return pd.DataFrame(rows)


def lean_policy(obs: np.ndarray) -> np.ndarray:
    """A fixed policy that reads the observation: push the cart the way the pole leans."""
    return (obs[:, 2] > 0).astype(np.int64)


def _first_episodes(seeds: int | list[int], num_envs: int) -> list[np.ndarray]:
    """Each sub-env's first episode (its observations) under `lean_policy`."""
    envs = _cartpoles(num_envs)
    obs, _ = envs.reset(seed=seeds)
    paths = [[o] for o in obs]
    done = np.zeros(num_envs, dtype=bool)
    for _ in range(MAX_POLICY_STEPS):
        obs, _, terminated, truncated, _ = envs.step(lean_policy(obs))
        for i in np.flatnonzero(~done):
            paths[i].append(obs[i])
        done |= terminated | truncated
        if done.all():
            break
    envs.close()
    return [np.array(p) for p in paths]


def same_seed_trajectories(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """One seed for every sub-env vs ``seed=s``: the first episodes under one fixed policy."""
    rows = []
    for label, seeds in (
        (f"reset(seed=[{seed}] * {num_envs})", [seed] * num_envs),
        (f"reset(seed={seed})", seed),
    ):
        paths = _first_episodes(seeds, num_envs)
        for i, path in enumerate(paths):
            rows.append(
                {
                    "call": label,
                    "sub-env": i,
                    "seed it got": seeds[i] if isinstance(seeds, list) else seed + i,
                    "episode length": len(path) - 1,
                    "identical to sub-env 0": path.shape == paths[0].shape
                    and bool(np.array_equal(path, paths[0])),
                }
            )
    return pd.DataFrame(rows)


def _lesson_factory(seed: int) -> Callable[[], gym.Env]:
    def thunk() -> gym.Env:
        env = gym.make(CARTPOLE)
        env.reset(seed=seed)
        return env

    return thunk


def factory_reseeding(seed: int, num_envs: int = SEEDING_ENVS) -> pd.DataFrame:
    """The factory seeds sub-env i with ``FACTORY_SEED + i``; then ``envs.reset`` runs.

    With ``seed=s`` every start is seed ``s + i``'s; with no seed each env goes on from the
    generator its factory seeded (the second start of seed ``FACTORY_SEED + i``).
    """
    rows = []
    for call, reset_seed in ((f"envs.reset(seed={seed})", seed), ("envs.reset()", None)):
        envs = _cartpoles(num_envs, lambda i: _lesson_factory(FACTORY_SEED + i))
        obs, _ = envs.reset(seed=reset_seed)
        envs.close()
        for i in range(num_envs):
            factory = FACTORY_SEED + i
            rows.append(
                {
                    "call after the factories": call,
                    "sub-env": i,
                    "factory's seed": factory,
                    "start": _text(obs[i]),
                    f"= reset(seed={seed} + i)": bool(np.array_equal(obs[i], _start(seed + i))),
                    "= factory seed's next start": bool(
                        np.array_equal(obs[i], _start(factory, then_unseeded=True))
                    ),
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class BurgerBotSeedCheck:
    """BurgerBot with two seeds: the starts, the same actions' trajectories, numbers drawn."""

    seeds: tuple[int, int]
    starts: tuple[str, str]
    same_trajectory: bool
    steps: int
    generator_untouched: bool
    """The env's ``np_random`` state is the same after ``steps`` steps as after reset."""


def burgerbot_seed_check(seed: int, steps: int = 50) -> BurgerBotSeedCheck:
    """Reset BurgerBot with ``seed`` and ``seed + 1``, replay the same actions on both."""
    actions = np.random.default_rng(seed).integers(0, 4, size=steps)
    starts, paths, untouched = [], [], True
    for s in (seed, seed + 1):
        env = BurgerBotEnv(max_steps=steps + 1)
        obs, _ = env.reset(seed=s)
        starts.append("[" + ", ".join(str(int(v)) for v in obs) + "]")
        state = env.np_random.bit_generator.state
        path = [obs]
        for action in actions:
            obs, _, terminated, _, _ = env.step(int(action))
            path.append(obs)
            if terminated:
                obs, _ = env.reset()
        untouched &= env.np_random.bit_generator.state == state
        paths.append(np.array(path))
    return BurgerBotSeedCheck(
        seeds=(seed, seed + 1),
        starts=(starts[0], starts[1]),
        same_trajectory=bool(np.array_equal(paths[0], paths[1])),
        steps=steps,
        generator_untouched=bool(untouched),
    )


def action_seeding(seed: int, num_envs: int = SEEDING_ENVS, calls: int = 5) -> pd.DataFrame:
    """``envs.action_space.sample()`` on BurgerBots twice, with and without ``action_space.seed``.

    Every run first calls ``envs.reset(seed=seed)``: that alone does not fix the actions.
    """
    rows = []
    for label, seeded in (
        (f"envs.action_space.seed({seed})", True),
        (f"envs.reset(seed={seed}) only", False),
    ):
        runs = []
        for _ in range(2):
            envs = SyncVectorEnv([burgerbot_factory() for _ in range(num_envs)])
            envs.reset(seed=seed)
            if seeded:
                envs.action_space.seed(seed)
            runs.append(np.array([envs.action_space.sample() for _ in range(calls)]))
            envs.close()
        rows.append(
            {
                "before sampling": label,
                "run 1: actions per step() call": str(runs[0].tolist()),
                "run 2": str(runs[1].tolist()),
                "same both times": bool(np.array_equal(runs[0], runs[1])),
            }
        )
    return pd.DataFrame(rows)


# --- What the page says about each demo (computed from the tables above) ---------------------


def reset_seeds_sentence(table: pd.DataFrame) -> str:
    """Whether sub-env i got seed s + i, as the live run shows."""
    expected = [f"s + {i}" for i in table["sub-env"]]
    got = table["same start as a single env's reset(seed=…)"].tolist()
    if got == expected:
        return (
            f"Each of the {len(table)} sub-envs started exactly where one CartPole started "
            "with `reset(seed=s + i)`: one seed for the vector env became s, s + 1, s + 2, …"
        )
    return (
        "Here the starts do not line up with s, s + 1, …: "
        + "; ".join(f"sub-env {i}: {g}" for i, g in zip(table["sub-env"], got, strict=True))
        + "."
    )


def same_seed_sentence(table: pd.DataFrame) -> str:
    """How many sub-envs repeat sub-env 0's episode, with one seed for all and with ``seed=s``."""
    parts = []
    for call, rows in table.groupby("call", sort=False):
        copies = int(rows["identical to sub-env 0"].iloc[1:].sum())
        others = len(rows) - 1
        if copies == others:
            everyone = {1: "the other sub-env replays", 2: "both other sub-envs replay"}.get(
                others, f"all {others} other sub-envs replay"
            )
            parts.append(f"with `{call}` {everyone} sub-env 0's episode")
        elif copies == 0:
            parts.append(f"with `{call}` no other sub-env repeats sub-env 0's episode")
        else:
            parts.append(f"with `{call}` {copies} of {others} repeat sub-env 0's episode")
    return (
        "Under one fixed policy that reads the observation, "
        + "; ".join(parts)
        + ". Identical sub-envs add rows to the batch but no new experience."
    )


def factory_sentence(table: pd.DataFrame, seed: int) -> str:
    """What ``envs.reset`` did to the seeds the factories set, from the live comparison."""
    parts = []
    for call, rows in table.groupby("call after the factories", sort=False):
        by_reset = bool(rows[f"= reset(seed={seed} + i)"].all())
        by_factory = bool(rows["= factory seed's next start"].all())
        if by_reset and not by_factory:
            parts.append(
                f"`{call}` re-seeded every sub-env with seed {seed} + i: the factories' seeds "
                "no longer matter"
            )
        elif by_factory and not by_reset:
            parts.append(
                f"`{call}` left the factories' generators running: each sub-env drew "
                "its next start from the seed its thunk set"
            )
        else:
            parts.append(
                f"`{call}` gave starts that match "
                + ("both" if by_reset and by_factory else "neither pattern in full")
            )
    return "; ".join(parts) + "."


def burgerbot_seed_sentence(check: BurgerBotSeedCheck) -> str:
    """What BurgerBot does with its seed, from the live check."""
    a, b = check.seeds
    if check.starts[0] == check.starts[1] and check.same_trajectory and check.generator_untouched:
        return (
            f"`reset(seed={a})` and `reset(seed={b})` both start at {check.starts[0]}; the same "
            f"{check.steps} actions give the same trajectory with either seed, and the env's "
            "`np_random` generator is in the same state after them as after the reset: "
            "BurgerBot draws no random number at all. Only the actions are random."
        )
    return (
        f"Seeds {a} and {b}: starts {check.starts[0]} and {check.starts[1]}, same trajectory "
        f"{check.same_trajectory}, generator untouched {check.generator_untouched}: this "
        "BurgerBot does draw from its seed."
    )


def action_seeding_sentence(table: pd.DataFrame) -> str:
    """Whether each way of seeding repeated the actions."""
    seeded, unseeded = (bool(v) for v in table["same both times"])
    first = "repeated" if seeded else "did not repeat"
    second = "repeated too" if unseeded else "differed between the two runs"
    return (
        f"Seeding `envs.action_space` {first} the random actions; with only "
        f"`envs.reset(seed=...)` they {second}: the reset seeds the sub-envs, not the "
        "vector env's action space."
    )


@dataclass(frozen=True)
class SeedingDemo:
    """Every seeding demo for one seed, with what the page says about each."""

    reset: pd.DataFrame
    reset_text: str
    same: pd.DataFrame
    same_text: str
    factory: pd.DataFrame
    factory_text: str
    burgerbot: BurgerBotSeedCheck
    burgerbot_text: str
    action: pd.DataFrame
    action_text: str


def seeding_demo(seed: int) -> SeedingDemo:
    """Run all the seeding demos live for ``seed`` (a few milliseconds of CartPole resets)."""
    reset, same, factory = reset_seeds(seed), same_seed_trajectories(seed), factory_reseeding(seed)
    check, action = burgerbot_seed_check(seed), action_seeding(seed)
    return SeedingDemo(
        reset=reset,
        reset_text=reset_seeds_sentence(reset),
        same=same,
        same_text=same_seed_sentence(same),
        factory=factory,
        factory_text=factory_sentence(factory, seed),
        burgerbot=check,
        burgerbot_text=burgerbot_seed_sentence(check),
        action=action,
        action_text=action_seeding_sentence(action),
    )
