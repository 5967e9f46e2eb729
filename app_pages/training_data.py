"""From batches to training data: which rows of a vector env's buffer are transitions, TD
targets with and without the mask, termination vs truncation, and seeding sub-environments."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.panels import training_data as panels
from burgerbot.app.views.training_data import (
    MODES,
    ROWS_OPTIONS,
    SPECS,
    TrainingRun,
    TrainingSettings,
    resolve_settings,
    rows_question,
    takeaways,
    training_run,
    widget_values,
)
from burgerbot.app.views.training_data_seeding import SeedingDemo, seeding_demo
from burgerbot.checks import MAX_SEED

PAGE = "training_data"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}
LOW = {spec.key: spec.low for spec in SPECS if hasattr(spec, "low")}


@st.cache_data(max_entries=32, show_spinner=False)
def cached_run(mode: str, num_envs: int, steps: int, max_steps: int, seed: int) -> TrainingRun:
    return training_run(TrainingSettings(mode, num_envs, steps, max_steps, seed))


@st.cache_data(max_entries=16, show_spinner=False)
def cached_seeding(seed: int) -> SeedingDemo:
    return seeding_demo(seed)


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🧺 From batches to training data",
    intro=(
        "You will learn which rows of a (steps × envs) buffer from a vector env are real "
        "transitions and how a mask drops the others, what a missing mask does to TD targets, "
        "when to bootstrap at an episode's end, and how sub-environments are seeded."
    ),
    topics=[
        "A (steps × envs) buffer and its mask",
        "TD targets with and without the mask",
        "Termination vs truncation: where the final observation is",
        "Seeding sub-environments and actions",
    ],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, widget_values)
col_mode, col_n, col_steps, col_max, col_seed = st.columns([3, 3, 2, 2, 2])
col_mode.selectbox(
    "Auto-reset mode",
    MODES,
    key=frame.key["mode"],
    help="NEXT_STEP, gymnasium's default since 1.0: an ended env resets on the next call. "
    "SAME_STEP (since 1.1): it resets inside the ending call.",
)
col_n.slider("NUM_ENVS", min_value=LOW["n"], max_value=HIGH["n"], key=frame.key["n"])
col_steps.number_input(
    "step() calls", min_value=LOW["steps"], max_value=HIGH["steps"], key=frame.key["steps"]
)
col_max.number_input(
    "max_steps",
    min_value=LOW["max"],
    max_value=HIGH["max"],
    key=frame.key["max"],
    help="An episode is truncated on its max_steps-th step (150 by default). Small here, "
    "so that episodes end inside a short buffer.",
)
col_seed.number_input(
    "Seed",
    min_value=0,
    max_value=MAX_SEED,
    key=frame.key["seed"],
    help="Seeds the sub-envs (`envs.reset(seed=...)`) and the random actions "
    "(`envs.action_space.seed(...)`).",
)
frame.settings_done()

run = cached_run(
    settings.mode, settings.num_envs, settings.steps, settings.max_steps, settings.seed
)
st.caption(
    f"Live: {settings.num_envs} BurgerBots in Gymnasium's `SyncVectorEnv` "
    f"({term_link('vector-env')}), {settings.mode} {term_link('autoreset')}, "
    f"{settings.steps} `step()` calls of random actions. Row t, column i: what call t gave "
    "env i."
)
seeding = cached_seeding(settings.seed)
learning.prediction(panels.ROWS_PID, rows_question(settings.mode), ROWS_OPTIONS)

# Only the open tab is drawn (its tables and charts cost the browser on every visit).
ui.lazy_tabs(
    PAGE,
    [
        ("Buffer & mask", lambda: panels.buffer_tab(run)),
        ("TD targets", lambda: panels.targets_tab(run)),
        ("Termination vs truncation", lambda: panels.endings_tab(run)),
        ("Seeding", lambda: panels.seeding_tab(settings.seed, seeding)),
    ],
)

frame.takeaways(takeaways(run, seeding))
