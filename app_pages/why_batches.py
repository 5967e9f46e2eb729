"""Why batches help: PPO's rollout buffer filled by N envs, and a real training run per N."""

from __future__ import annotations

import inspect

import pandas as pd
import streamlit as st

from burgerbot import buffers, training
from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.panels.why_batches import (
    buffer_controls,
    buffer_panel,
    results_panel,
    training_controls,
)
from burgerbot.app.scripts.why_batches import buffer_script, training_script
from burgerbot.app.views.why_batches import SPECS, resolve_settings
from burgerbot.training import QLearningConfig

PAGE = "why_batches"
STARTED = f"_{PAGE}_started_runs"


@st.cache_data(max_entries=16, show_spinner=False)
def buffer_frame(batch_size: int, num_envs: int, seed: int, mode: str) -> pd.DataFrame:
    return buffers.rollout_buffer(batch_size, num_envs, seed, mode)


@st.cache_data(max_entries=4, show_spinner=False)
def training_results(
    num_envs_list: tuple[int, ...], env_steps: int, seeds: int, first_seed: int
) -> dict[str, pd.DataFrame]:
    # The bar lives inside the cached function: a cache hit replays it and clears it again.
    # Leaving the page raises from the bar's update, which ends the run.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=f"{message} ({fraction:.0%})")

    try:
        runs = training.compare_num_envs(
            num_envs_list,
            seeds=range(first_seed, first_seed + seeds),
            config=QLearningConfig(env_steps=env_steps),
            progress=report,
        )
    finally:
        bar.empty()
    return {
        "summary": training.summarise_runs(runs),
        "per_run": training.runs_frame(runs),
        "curves": training.curves_frame(runs),
    }


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Why batches help",
    intro=(
        "An on-policy method such as PPO works in rounds: collect a batch of transitions with "
        "the current policy, learn from the whole batch, throw it away, repeat. One environment "
        "gives one transition per `step()` call. N environments give N per call, so the same "
        "batch takes N times fewer calls. This page shows what that batch looks like, then "
        "trains a small agent with different N and measures what the batching really buys."
    ),
    topics=[
        "When vectorisation helps: PPO collects a batch per update",
        "2048 transitions: with 4 envs, 512 step() calls",
        "What batching buys (throughput) and what it does not (sample efficiency)",
        "Why the benefit is small for a tiny world like BurgerBot",
    ],
    links=["Gymnasium vector API", "Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
# Every setting, the training ones too, is resolved here so every note shows in one place.
batch, train = frame.resolve(
    lambda values: resolve_settings(values, CAPS),
    lambda resolved: {"ns": list(resolved[1].num_envs_list)},  # the multiselect wants a list
)

# --- 1. The rollout buffer -------------------------------------------------------------------
st.header("1. One batch, fewer step() calls")
buffer_controls(frame.key)
frame.settings_done()

layout = buffers.buffer_layout(batch.batch_size, batch.num_envs)
try:
    rollout = buffer_frame(batch.batch_size, batch.num_envs, batch.seed, batch.mode)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not run the rollout: {type(error).__name__}: {error}")
    st.stop()
buffer_panel(rollout, layout, batch)
st.info(
    "**Same batch, same information.** More envs do not put more transitions in a batch: "
    "they fill it in fewer `step()` calls, and the batch holds pieces of more episodes at "
    "different stages (more varied data per update). The saving is per-call work: "
    "Python overhead, and waiting for the policy network once per call instead of once per "
    "transition.\n\n"
    "In Stable-Baselines3, PPO's `n_steps` (2048 by default) counts `step()` calls *per env*: "
    "the batch is `n_steps x n_envs`. To keep 2048 transitions with 4 envs you would set "
    "`n_steps=512`.",
    icon="📦",
)
ui.code_expander(
    buffer_script(batch.batch_size, batch.num_envs, batch.seed, batch.mode),
    label="Code: this batch as a script you can run",
)

# --- 2. Training -------------------------------------------------------------------------------
st.header("2. Does batching make learning faster?")
st.write(
    "A small experiment you can run: **tabular Q-learning** on BurgerBot. The robot's state "
    "is its (row, col, heading): 7 x 7 x 4 = 196 states, 4 actions, so the whole policy is "
    "a 196 x 4 table of values. N robots step together in one `BurgerBotVectorEnv`; "
    "after every `step()` call, the table learns from all N new transitions at once "
    "(if several robots made the same move from the same state, they count as one update). "
    "Each robot explores: 1 action in 10 is random."
)
st.write(
    "After every ~100 env-steps the page follows the table's best action from the start "
    "(the *greedy policy*). BurgerBot is deterministic, so one try says whether the policy "
    "reaches the goal. A run has learned the task **reliably** from the first check after "
    "which the greedy policy reaches the goal every time."
)
training_controls(frame.key, train.num_envs_list, CAPS)

chosen = list(train.num_envs_list)
started: set = st.session_state.setdefault(STARTED, set())
if not chosen:
    st.warning("Pick at least one NUM_ENVS to train.")
else:
    st.caption(
        f"{train.runs} run{'s' if train.runs > 1 else ''}: NUM_ENVS "
        f"{', '.join(map(str, chosen))} x seeds {train.first_seed}.."
        f"{train.first_seed + train.seeds - 1}, {train.env_steps:,} env-steps each."
    )
    if st.button("Start training", key=f"{PAGE}_train", type="primary", icon="▶️"):
        try:
            training_results(*train.key)
            started.add(train.key)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Training failed: {type(error).__name__}: {error}")
    if train.key not in started:
        st.info("Press **Start training** to run the experiment with these settings.", icon="👆")

if chosen and train.key in started:
    results_panel(training_results(*train.key))

st.info(
    "BurgerBot is tiny: a step costs less than a microsecond, so most of the time goes into "
    "per-call overhead, which is exactly what batching shares out. For a neural-network "
    "method the policy runs once per call on a whole batch too, which is where the speed-up "
    "from vector envs usually comes from.",
    icon="💡",
)
with st.expander("The training code this page runs: `burgerbot.training.train_q_learning`"):
    st.code(inspect.getsource(training.train_q_learning), language="python")
if chosen:
    ui.code_expander(
        training_script(chosen, train.env_steps, train.seeds, train.first_seed),
        label="Code: this experiment as a script you can run",
    )
