"""The "Batch shapes" page's panels: settings, the guess, the step buttons and the latest call."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NoReturn

import streamlit as st
from gymnasium.vector import VectorEnv

from burgerbot.app import learning, ui
from burgerbot.app.caps import Caps
from burgerbot.app.scripts.batch_shapes import snippet_for
from burgerbot.app.slots import EnvSlot
from burgerbot.app.views.batch_shapes import (
    ENV_NAMES,
    ENVS,
    PLAY_INTERVAL_SECONDS,
    BatchSettings,
    backend_option,
)
from burgerbot.app.views.batch_shapes_guess import (
    DTYPE_OPTIONS,
    SHAPE_OPTIONS,
    dtype_explanation,
    one_observation,
    prediction_ids,
    shape_explanation,
    shape_truth,
)
from burgerbot.app.views.batch_shapes_run import BatchRun
from burgerbot.app.views.batch_shapes_tables import (
    space_type_notes,
    spaces_table,
)
from burgerbot.checks import MAX_SEED
from burgerbot.factories import BACKENDS

__all__ = [
    "actions_note",
    "call_env",
    "fail",
    "guess_panel",
    "play_one_step",
    "script_panel",
    "settings_controls",
    "spaces_panel",
    "step_controls",
]


def settings_controls(key: Mapping[str, str], settings: BatchSettings, caps: Caps) -> None:
    """Environment, NUM_ENVS and seed side by side, the backend below, and what the env is."""
    col_env, col_n, col_seed = st.columns([4, 2, 2])
    col_env.selectbox("Environment", ENV_NAMES, key=key["env"])
    col_n.number_input(
        "NUM_ENVS",
        min_value=1,
        max_value=caps.max_envs,
        step=1,
        key=key["n"],
        help=f"1 to {caps.max_envs}; Async at most {caps.max_async_envs} (one process per env).",
    )
    col_seed.number_input("Seed", min_value=0, max_value=MAX_SEED, step=1, key=key["seed"])
    st.radio(
        "Vector env class (backend)",
        BACKENDS,
        key=key["backend"],
        format_func=lambda backend: backend_option(settings.env, backend),
        horizontal=True,
        help=(
            "Sync: all copies in this process, stepped one after another. Async: one worker "
            "process per copy. native: one object that steps every copy with array operations."
        ),
    )
    st.caption(ENVS[settings.env].about)


SHAPE_HELP = "k: how many numbers one env's observation holds."

# --- The live env ------------------------------------------------------------------------------


def fail(slot: EnvSlot, message: str) -> NoReturn:
    """Show what went wrong, drop the env (the next run builds a fresh one) and stop here."""
    slot.close()
    st.error(message)
    st.stop()


def call_env(slot: EnvSlot, action: Callable[[], Any], what: str) -> None:
    """Run ``action`` on the env; if it raises (e.g. an Async worker died), close the env."""
    slot.touch()
    try:
        action()
    except Exception as exc:  # e.g. an Async worker that died
        fail(slot, f"`{what}` failed: {exc}. The env was closed; the page builds a new one.")


def _set_playing(slot: EnvSlot, on: bool) -> None:
    slot.state["playing"] = on
    slot.state["play_steps"] = 0


def step_controls(page: str, slot: EnvSlot, run: BatchRun, seed: int, caps: Caps) -> None:
    """Reset, Step once, Step xN and Play/Pause, in one row."""
    playing = bool(slot.state.get("playing"))
    # One block, not a set of columns: a click redraws this view, each element costs.
    row = st.container(horizontal=True)
    if row.button("Reset", key=f"{page}_reset", help=f"envs.reset(seed={seed})"):
        call_env(slot, run.reset, f"reset(seed={seed})")
    if row.button("Step once", key=f"{page}_step", disabled=playing):
        call_env(slot, lambda: run.step(1), "step()")
    steps_per_click = min(10, caps.max_steps_per_run)
    if row.button(f"Step ×{steps_per_click}", key=f"{page}_step10", disabled=playing):
        call_env(slot, lambda: run.step(steps_per_click), "step()")
    if playing:
        row.button("⏸ Pause", key=f"{page}_pause", on_click=_set_playing, args=(slot, False))
    else:
        row.button(
            "▶ Play",
            key=f"{page}_play",
            on_click=_set_playing,
            args=(slot, True),
            help=f"Step on its own every {PLAY_INTERVAL_SECONDS} s until paused.",
        )
    if note := slot.state.pop("play_note", None):
        st.info(note)


def actions_note() -> None:
    """Where the live view's actions come from (drawn once, above it)."""
    st.caption(
        "Actions are random: `envs.action_space.sample()`, with the action space seeded by the "
        "same seed at every reset, so the script below the live view reproduces them. So that "
        "**Step once** answers at once, the page sends the next `step()` as soon as it shows "
        "a call, and the click reveals it: you see every call the env returned, in order."
    )


def play_one_step(slot: EnvSlot, run: BatchRun, caps: Caps) -> None:
    """While playing, every run of the live view takes one step (up to the per-click cap)."""
    if slot.state.get("play_steps", 0) >= caps.max_steps_per_run:
        slot.state["playing"] = False
        slot.state["play_note"] = (
            f"Paused after {caps.max_steps_per_run} steps, this app's limit per click "
            "(raise with BURGERBOT_MAX_STEPS_PER_RUN when running locally). Press Play again "
            "to go on."
        )
        st.rerun(scope="app")
    slot.state["play_steps"] = slot.state.get("play_steps", 0) + 1
    call_env(slot, lambda: run.step(1), "step()")


# --- Predict -------------------------------------------------------------------------------------


def guess_panel(page: str, run: BatchRun, envs: VectorEnv, env: str) -> None:
    """Ask for the observation batch's shape and dtype before the live view shows them.

    Each answer is checked against the batch this run's env returned (shape and dtype are
    the same for every call of one env, so the reset's batch will do), outside the live view:
    a step click does not redo it.
    """
    observations = run.latest.observations
    single = envs.single_observation_space
    shape_id, dtype_id = prediction_ids(env)
    st.markdown(
        f"**{len(observations)} {env} envs; one observation is "
        f"{one_observation(env, single)}.** Predict, then see the batch below."
    )
    left, right = st.columns(2)
    with left:
        learning.prediction(
            shape_id, "What is `observations.shape`?", SHAPE_OPTIONS, help=SHAPE_HELP
        )
        truth = shape_truth(observations.shape, len(observations))
        if truth is not None:
            learning.check(shape_id, truth, shape_explanation(observations, single, env))
    with right:
        learning.prediction(dtype_id, "What is `observations.dtype`?", DTYPE_OPTIONS)
        learning.check(dtype_id, str(observations.dtype), dtype_explanation(observations, single))


# --- The latest call -----------------------------------------------------------------------------


def script_panel(settings: BatchSettings, steps: int) -> None:
    """The live view as a script, outside the live view: ``STEPS`` is the one line that
    follows the steps, and the live view names its value for the call it shows."""
    ui.code_expander(snippet_for(settings, steps))


def spaces_panel(envs: VectorEnv, n: int) -> None:
    """The batched and single spaces: fixed for an env, so drawn outside the live view."""
    st.markdown("**Spaces: one env vs the whole batch**")
    st.dataframe(spaces_table(envs), hide_index=True)
    st.caption(
        "`single_observation_space` and `single_action_space` describe one env. The batched "
        f"`observation_space` and `action_space` put NUM_ENVS ({n}) in front, on axis 0."
    )
    for note in space_type_notes(envs):
        st.caption(note)
