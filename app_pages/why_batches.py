"""Why batches help: PPO's batch filled by N envs in fewer step() calls, and when that helps."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot import buffers
from burgerbot.app import learning, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.why_batches import (
    AUTORESET_CHOICES,
    SPECS,
    BufferSettings,
    buffer_cells,
    buffer_drawing,
    buffer_heatmap,
    calls_explanation,
    calls_options,
    calls_pid,
    calls_question,
    calls_truth,
    drawn_text,
    resolve_settings,
    takeaways,
)
from burgerbot.app.scripts.why_batches import buffer_script
from burgerbot.buffers import BufferLayout

PAGE = "why_batches"
# Set once the learner has answered or skipped a question of this page: later settings show
# their batch straight away (the question for them stays open to answer).
ANSWERED = f"_{PAGE}_answered"


@st.cache_data(max_entries=16, show_spinner=False)
def buffer_frame(batch_size: int, num_envs: int, seed: int, mode: str) -> pd.DataFrame:
    return buffers.rollout_buffer(batch_size, num_envs, seed, mode)


# --- Panels -----------------------------------------------------------------------------------


def buffer_controls(key: dict[str, str]) -> None:
    """NUM_ENVS, batch size, auto-reset mode and seed of the batch, side by side."""
    col_n, col_batch, col_mode, col_seed = st.columns([4, 2, 3, 2])
    col_n.slider(
        "NUM_ENVS",
        SPECS[0].low,
        SPECS[0].high,
        key=key["n"],
        help="How many BurgerBots step together: each step() call returns this many rows.",
    )
    ui.number_setting(
        col_batch,
        "Rows per update",
        SPECS[1],
        key,
        step=64,
        help="Rows PPO collects before each update.",
    )
    col_mode.radio(
        "Auto-reset mode",
        AUTORESET_CHOICES,
        key=key["mode"],
        horizontal=True,
        help="NEXT_STEP is gymnasium's default. SAME_STEP resets like Stable-Baselines3 does.",
    )
    ui.number_setting(col_seed, "Seed", SPECS[3], key)


def buffer_panel(frame: pd.DataFrame, layout: BufferLayout, settings: BufferSettings) -> None:
    """The filled batch: its size and the first calls of the buffer as a picture (and a table)."""
    num_envs = settings.num_envs
    m1, m2 = st.columns(2)
    m1.metric("step() calls", f"{layout.step_calls:,}")
    m2.metric("buffer shape (steps, envs)", f"({layout.step_calls:,}, {num_envs:,})")
    drawing = buffer_drawing(layout)
    st.markdown(
        f"**The {term_link('rollout', 'rollout buffer')}** (random actions), "
        f"{drawn_text(layout, drawing)}:"
    )
    cells = buffer_cells(frame, drawing.drawn_envs, drawing.drawn_steps)
    learning.chart_with_table(
        learning.chart_spec(buffer_heatmap, frame, drawing.drawn_envs, drawing.drawn_steps),
        cells[["step", "env", "action", "reward", "what happened", "episode"]].rename(
            columns={"step": "step() call", "episode": "episode of this env"}
        ),
        width="content",
    )


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Why batches help",
    intro=(
        "You will learn how many `step()` calls N environments need to fill a training batch, "
        "and when that helps."
    ),
    topics=[
        "When vectorisation helps: PPO collects a batch per update",
        "How many step() calls fill a batch of 2,048 rows",
        "Off-policy methods: a replay buffer filled faster",
        "Why the benefit is small for a tiny world like BurgerBot",
    ],
    links=["Gymnasium vector API", "Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
batch = frame.resolve(lambda values: resolve_settings(values, CAPS))

st.markdown(
    f"Each {term_link('step-call')} returns one row per env: an {term_link('env-step')} (one "
    "env's result from that call)."
)
buffer_controls(frame.key)
frame.settings_done()

pid = calls_pid(batch.batch_size, batch.num_envs)
learning.prediction(
    pid,
    calls_question(batch.batch_size, batch.num_envs),
    calls_options(batch.batch_size, batch.num_envs),
)
# After a first answer (or skip) new settings show their batch at once: the learner knows
# the rule by then, and hiding the buffer on every slider move would look broken. A question
# answered or skipped itself keeps its own button (Skip, show me / Hide the answer).
asked = learning.is_revealed(pid) or learning.was_skipped(pid)
shown = learning.revealed(pid) if asked or not st.session_state.get(ANSWERED) else True
calls, resets = None, None
if shown:
    st.session_state[ANSWERED] = True
    layout = buffers.buffer_layout(batch.batch_size, batch.num_envs)
    try:
        rollout = buffer_frame(batch.batch_size, batch.num_envs, batch.seed, batch.mode)
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not run the rollout: {type(error).__name__}: {error}")
        st.stop()
    calls = int(rollout["step"].max())
    resets = int((rollout["event"] == "reset").sum()) if batch.mode == "NEXT_STEP" else None
    learning.check(
        pid,
        calls_truth(rollout),
        calls_explanation(batch.batch_size, batch.num_envs, calls, resets),
    )
    buffer_panel(rollout, layout, batch)
    # Short link labels: Streamlit cuts a long one on a phone instead of wrapping it.
    st.markdown("Stable-Baselines3 instead fixes `n_steps`, the `step()` calls per env per update.")
    st.page_link("app_pages/learning_speed.py", label="Going further: learning speed", icon="🏃")
ui.code_expander(
    buffer_script(batch.batch_size, batch.num_envs, batch.seed, batch.mode),
    label="Code: this batch as a script you can run",
    name="the rollout buffer",
)

frame.takeaways(
    [] if calls is None else takeaways(batch.batch_size, batch.num_envs, calls, resets),
    after=None if shown else pid,
)
