"""Batch shapes: what one reset() or step() call of a vector env returns for N envs at once."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.panels.batch_shapes import (
    actions_note,
    fail,
    guess_panel,
    play_one_step,
    script_panel,
    settings_controls,
    spaces_panel,
    step_controls,
)
from burgerbot.app.panels.batch_shapes_live import latest_call_panel
from burgerbot.app.slots import BudgetExceeded
from burgerbot.app.views.batch_shapes import (
    PLAY_INTERVAL_SECONDS,
    SPECS,
    BatchSettings,
    build_vector_env,
    resolve_settings,
)
from burgerbot.app.views.batch_shapes_guess import takeaways
from burgerbot.app.views.batch_shapes_run import BatchRun

PAGE = "batch_shapes"
KEPT_NOTES = f"_{PAGE}_adjust_notes"


def resolve_keeping_notes(values: Mapping[str, Any]) -> tuple[BatchSettings, list[str]]:
    """`resolve_settings`, whose notes stay while the adjusted settings stay in use.

    The widgets show the adjusted value from then on, so the next run alone would not know
    why it was adjusted.
    """
    settings, notes = resolve_settings(values)
    if notes:
        st.session_state[KEPT_NOTES] = (settings.key, notes)
        return settings, notes
    kept_key, kept_notes = st.session_state.get(KEPT_NOTES, (None, []))
    return settings, (kept_notes if kept_key == settings.key else [])


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Batch shapes: one call, N environments",
    intro=(
        f"You will learn what one `reset()` or `step()` call of a {term_link('vector-env')} "
        f"returns: NUM_ENVS {term_link('sub-environment', 'sub-environments')} answer at once, "
        "and every array has the **env index on axis 0** (`infos` is a dict of such arrays). "
        "Pick an environment, predict the shape and dtype, then step and look."
    ),
    topics=[
        "SyncVectorEnv built from zero-argument factory functions",
        "Batched observations, actions, rewards and flags",
        "observation_space vs single_observation_space",
        "(N,) batches from scalar observations",
        "dtypes: int64 vs float32",
    ],
    links=["Gymnasium vector API", "Gymnasium spaces and batching", "Auto-reset modes"],
)
# The caps apply before the widgets exist, so the widgets show the values really used.
settings = frame.resolve(
    resolve_keeping_notes,
    lambda s: {"env": s.env, "n": s.num_envs, "backend": s.backend, "seed": s.seed},
)
settings_controls(frame.key, settings, CAPS)
frame.settings_done()

# --- The vector env, kept between runs in this session's slot ----------------------------------
slot = ui.env_slot(PAGE)
if slot.idle_note:
    st.info(slot.idle_note)
starting_workers = slot.key != settings.key and settings.workers > 0
try:
    with (
        st.spinner(f"Starting {settings.workers} worker processes…")
        if starting_workers
        else contextlib.nullcontext()
    ):
        envs = slot.get(settings.key, lambda: build_vector_env(settings), settings.workers)
except BudgetExceeded as exc:
    fail(slot, str(exc))
except Exception as exc:  # a failed build must not take the page down
    fail(slot, f"Could not build the vector env: {exc}")

run: BatchRun | None = slot.state.get("run")
if run is None:
    run = BatchRun(envs, settings.seed)
    slot.state["run"] = run
    try:
        run.reset()
    except Exception as exc:
        fail(slot, f"`reset()` failed: {exc}")

# --- Predict, then step ------------------------------------------------------------------------
guess_panel(PAGE, run, envs, settings.env)
playing = bool(slot.state.get("playing"))


@st.fragment(run_every=PLAY_INTERVAL_SECONDS if playing else None)
def live_view() -> None:
    """The step and play buttons and the latest call.

    A click here reruns only this part (the settings, the guess and the spaces stay as they
    are); while playing, Streamlit also reruns it on a timer.
    """
    # The timer is set when the page runs in full: Play and Pause need a full run. So does
    # an env closed after an error or for being idle (the full page builds a new one).
    if slot.env is not envs or bool(slot.state.get("playing")) != playing:
        st.rerun(scope="app")
    step_controls(PAGE, slot, run, settings.seed, CAPS)
    if playing:
        play_one_step(slot, run, CAPS)
    latest_call_panel(
        run,
        settings,
        history_key=f"{PAGE}_history",
        view_key=f"{PAGE}_live",
        step_key=f"{PAGE}_step",
        slot=slot,
    )


actions_note()
live_view()
script_panel(settings, run.steps)
spaces_panel(envs, settings.num_envs)
frame.takeaways(
    takeaways(
        settings.env, run.latest.observations, envs.single_observation_space, envs.observation_space
    )
)
