"""Why batches help: PPO's rollout buffer filled by N envs, and a real training run per N."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot import buffers, training
from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS
from burgerbot.app.glossary import term_link
from burgerbot.app.panels.why_batches import (
    buffer_controls,
    buffer_panel,
    results_panel,
    training_controls,
)
from burgerbot.app.scripts.why_batches import buffer_script, q_learning_script, training_script
from burgerbot.app.views import why_batches_learn as learn
from burgerbot.app.views.why_batches import SPECS, resolve_settings
from burgerbot.app.views.why_batches_cost import plain_step_microseconds
from burgerbot.training import QLearningConfig

PAGE = "why_batches"
STARTED = f"_{PAGE}_started_runs"
PACKAGES = ("numpy", "gymnasium")


@st.cache_data(max_entries=16, show_spinner=False)
def buffer_frame(batch_size: int, num_envs: int, seed: int, mode: str) -> pd.DataFrame:
    return buffers.rollout_buffer(batch_size, num_envs, seed, mode)


@st.cache_data(max_entries=4, show_spinner=False)
def training_results(
    num_envs_list: tuple[int, ...], env_steps: int, seeds: int, first_seed: int, _by: str = ""
) -> tuple[dict, measured.Measured]:
    # The bar lives inside the cached function: a cache hit replays it and clears it again.
    # Leaving the page raises from the bar's update, which ends the run.
    bar = st.empty()

    def report(fraction: float, message: str) -> None:
        bar.progress(min(1.0, max(0.0, fraction)), text=f"{message} ({fraction:.0%})")

    def train() -> dict:
        plain_us = plain_step_microseconds()
        runs = training.compare_num_envs(
            num_envs_list,
            seeds=range(first_seed, first_seed + seeds),
            config=QLearningConfig(env_steps=env_steps),
            progress=report,
        )
        return {
            "summary": training.summarise_runs(runs),
            "per_run": training.runs_frame(runs),
            "curves": training.curves_frame(runs),
            "plain_us": plain_us,
        }

    try:
        return measured.measure(train, PACKAGES, _by)
    finally:
        bar.empty()


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Why batches help",
    intro=(
        "You will learn how many `step()` calls N environments need to fill one training "
        "batch, and what batching buys when an agent learns: more transitions per second; "
        "whether it also saves transitions, your own training run shows."
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
st.markdown(
    f"An on-policy method such as PPO collects a batch of {term_link('transition', 'transitions')}"
    f" with its current policy, learns from it, throws it away, repeats. Each "
    f"{term_link('step-call')} of a {term_link('vector-env')} gives one transition per env."
)
buffer_controls(frame.key)
frame.settings_done()

pid = learn.calls_pid(batch.batch_size, batch.num_envs)
learning.prediction(
    pid,
    learn.calls_question(batch.batch_size, batch.num_envs),
    learn.calls_options(batch.batch_size, batch.num_envs),
)
layout = buffers.buffer_layout(batch.batch_size, batch.num_envs)
try:
    rollout = buffer_frame(batch.batch_size, batch.num_envs, batch.seed, batch.mode)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not run the rollout: {type(error).__name__}: {error}")
    st.stop()
calls = int(rollout["step"].max())
buffer_panel(rollout, layout, batch)
learning.check(
    pid,
    learn.calls_truth(rollout),
    learn.calls_explanation(batch.batch_size, batch.num_envs, calls),
)
st.info(
    "**Same batch, fewer calls.** More envs do not put more transitions in a batch: they "
    "fill it in fewer `step()` calls, with pieces of more episodes at different stages. In "
    "Stable-Baselines3, PPO's `n_steps` (2048 by default) counts calls *per env*: the batch "
    "is `n_steps x n_envs`, so 2,048 transitions with 4 envs means `n_steps=512`.",
    icon="📦",
)
ui.code_expander(
    buffer_script(batch.batch_size, batch.num_envs, batch.seed, batch.mode),
    label="Code: this batch as a script you can run",
    name="the rollout buffer",
)

# --- 2. Training -------------------------------------------------------------------------------
st.header("2. Does batching make learning faster?")
st.write(
    "Tabular Q-learning on BurgerBot, once per NUM_ENVS with the same seeds: N robots step "
    f"together in one `BurgerBotVectorEnv` (this project's {term_link('native')}, not "
    "Gymnasium's), and the table learns from all N transitions after every call. A run "
    "has learned the task from the first check after which its greedy policy reaches the "
    "goal every time."
)
with st.expander("How the experiment works"):
    st.markdown(
        "- The robot's state is its (row, col, heading): 7 x 7 x 4 = 196 states, 4 actions, "
        "so the whole policy is a 196 x 4 table of values.\n"
        "- Each robot explores: 1 action in 10 is random. If several robots made the same "
        "move from the same state in one call, they count as one update (towards the mean "
        "of their targets).\n"
        "- Every round(100 ÷ N) `step()` calls (at least one: about every 100 env-steps) the "
        "page follows the table's best action from the start (the *greedy policy*). "
        "BurgerBot is deterministic, so one try says whether the policy reaches the goal.\n"
        f"- In NEXT_STEP {term_link('autoreset')} mode the call after an episode ends only "
        f"resets that robot: those rows are {term_link('mask', 'masked')} out of the update."
    )
training_controls(frame.key, train.num_envs_list, CAPS)

chosen = list(train.num_envs_list)
started: set = st.session_state.setdefault(STARTED, set())
results = None
if not chosen:
    st.warning("Pick at least one NUM_ENVS to train.")
else:
    st.caption(
        f"{train.runs} run{'s' if train.runs > 1 else ''}: NUM_ENVS "
        f"{', '.join(map(str, chosen))} x seeds {train.first_seed}.."
        f"{train.first_seed + train.seeds - 1}, {train.env_steps:,} env-steps each"
        + (
            " (rounded up to whole step() calls)."
            if any(train.env_steps % n for n in chosen)
            else "."
        )
    )
    if st.button("Start training", key=f"{PAGE}_train", type="primary", icon="▶️"):
        try:
            training_results(*train.key, _by=visit.visitor)
            started.add(train.key)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Training failed: {type(error).__name__}: {error}")
    if train.key not in started:
        st.info("Press **Start training** to run the experiment with these settings.", icon="👆")

if chosen and train.key in started:
    results, record = training_results(*train.key, _by=visit.visitor)
    results_panel(results, record.caption("Trained", visit=visit))

if chosen:

    def training_loop() -> None:
        st.caption(
            f"What `burgerbot.training.train_q_learning` does for NUM_ENVS={chosen[0]}, seed "
            f"{train.first_seed}: the same random numbers, so the same result as the page's "
            "run. Save it and run `python file.py`."
        )
        learning.script_block(
            q_learning_script(chosen[0], train.env_steps, train.first_seed),
            name="the Q-learning loop",
        )

    ui.lazy_expander("The training loop, written out (one run)", training_loop, icon="🐍")
    ui.code_expander(
        training_script(chosen, train.env_steps, train.seeds, train.first_seed),
        label="Code: this experiment as a script you can run",
        name="the training comparison",
    )

resets = int((rollout["event"] == "reset").sum()) if batch.mode == "NEXT_STEP" else None
frame.takeaways(
    learn.takeaways(
        batch.batch_size,
        batch.num_envs,
        calls,
        resets,
        None if results is None else results["summary"],
        None if results is None else results["per_run"],
    )
)
