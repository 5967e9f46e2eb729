"""Why batches help: PPO's rollout buffer filled by N envs, and a real training run per N."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot import buffers, training
from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.why_batches import (
    AUTORESET_CHOICES,
    BUFFER_SPECS,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    NUM_ENVS_CHOICES,
    SPECS,
    TRAINING_SPECS,
    BufferSettings,
    batch_counts_text,
    buffer_cells,
    buffer_drawing,
    buffer_heatmap,
    calls_explanation,
    calls_options,
    calls_pid,
    calls_question,
    calls_truth,
    comparison_text,
    cost_text,
    drawn_text,
    env_steps_per_s,
    learning_curve,
    plain_step_microseconds,
    resolve_settings,
    summary_table,
    takeaways,
)
from burgerbot.app.scripts.why_batches import buffer_script, q_learning_script, training_script
from burgerbot.buffers import BufferLayout
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


# --- panels/why_batches.py ---
# The "Why batches help" page's panels: its controls, the rollout buffer and training results.

CURVE_COLUMNS = {
    "num_envs": "NUM_ENVS",
    "env_steps": "env-steps",
    "step_calls": "step() calls",
    "seconds": "seconds (mean)",
    "reaches_goal": "share of seeds whose greedy policy reaches the goal",
    "greedy_return": "greedy return (mean)",
    "goal_rate": "training episodes at goal (last 100, mean)",
}


def buffer_controls(key: Mapping[str, str]) -> None:
    """NUM_ENVS, batch size, auto-reset mode and seed of the batch, side by side."""
    col_n, col_batch, col_mode, col_seed = st.columns([4, 2, 3, 2])
    col_n.slider(
        "NUM_ENVS",
        BUFFER_SPECS[0].low,
        BUFFER_SPECS[0].high,
        key=key["n"],
        help="How many BurgerBots step together: each step() call returns this many rows.",
    )
    col_batch.number_input(
        "Rows per update",
        min_value=BUFFER_SPECS[1].low,
        max_value=BUFFER_SPECS[1].high,
        step=64,
        key=key["batch"],
        help=(
            "Rows PPO collects before each update (its rollout; with SB3's own vector envs "
            "every row is a transition). Stable-Baselines3's default is n_steps=2048 per env."
        ),
    )
    col_mode.radio(
        "Auto-reset mode",
        AUTORESET_CHOICES,
        key=key["mode"],
        horizontal=True,
        help="NEXT_STEP is gymnasium's default. SAME_STEP resets like Stable-Baselines3 does.",
    )
    col_seed.number_input(
        "Seed", min_value=0, max_value=BUFFER_SPECS[3].high, step=1, key=key["bseed"]
    )


def buffer_panel(frame: pd.DataFrame, layout: BufferLayout, settings: BufferSettings) -> None:
    """The filled batch: its counts, the buffer as a heatmap (and a table), what is in it."""
    num_envs, batch_size = settings.num_envs, settings.batch_size
    m1, m2, m3, m4 = st.columns(4)
    m1.metric("step() calls to fill the batch", f"{layout.step_calls:,}")
    m2.metric("rows (env-steps) per call", f"{num_envs:,}")
    m3.metric("buffer shape (steps, envs)", f"({layout.step_calls:,}, {num_envs:,})")
    m4.metric("episodes that ended in it", f"{int(frame['ends_episode'].sum()):,}")
    if not layout.exact:
        st.caption(
            f"{batch_size:,} is not a multiple of {num_envs}: {layout.step_calls:,} calls "
            f"collect {layout.collected:,} rows, {layout.collected - batch_size:,} more "
            "than needed. In practice you pick NUM_ENVS and the steps per env so that their "
            "product is the batch."
        )

    drawing = buffer_drawing(layout)
    st.markdown(
        f"**The {term_link('rollout')}, filled by a random BurgerBot agent.** Each box is one "
        f"{term_link('env-step')}, a transition unless it is a reset row: row *t* is what the "
        "*t*-th `step()` call returned, column "
        f"*i* what env *i* did. A black line under a box: that env's episode ended there. "
        f"{drawn_text(layout, drawing)}"
    )
    if drawing.clipped:
        st.caption(
            f"To keep the page fast the picture shows at most {MAX_DRAWN_STEPS} rows and "
            f"{MAX_DRAWN_ENVS} columns; the numbers above and below count the whole batch."
        )
    cells = buffer_cells(frame, drawing.drawn_envs, drawing.drawn_steps)
    learning.chart_with_table(
        learning.chart_spec(buffer_heatmap, frame, drawing.drawn_envs, drawing.drawn_steps),
        cells[["step", "env", "action", "reward", "what happened", "episode"]].rename(
            columns={"step": "step() call", "episode": "episode of this env"}
        ),
    )
    st.markdown(batch_counts_text(frame["event"].value_counts(), layout.collected, settings.mode))


def training_controls(key: Mapping[str, str], chosen: tuple[int, ...], caps: Caps) -> None:
    """NUM_ENVS to compare, env-steps per run, seeds and first seed, side by side."""
    t1, t2, t3, t4 = st.columns([4, 3, 2, 2])
    t1.multiselect(
        "NUM_ENVS to compare",
        sorted(set(NUM_ENVS_CHOICES) | set(chosen)),
        key=key["ns"],
        max_selections=TRAINING_SPECS[0].max_items,
        help="Each NUM_ENVS is trained separately with the same seeds and settings.",
    )
    t2.number_input(
        "Env-steps per run",
        min_value=TRAINING_SPECS[1].low,
        max_value=TRAINING_SPECS[1].high,
        step=500,
        key=key["steps"],
        help=(
            "Env-steps (rows, reset rows included) each run collects, whatever its NUM_ENVS: "
            "the same amount of "
            "experience for everyone. All runs of one click together stay under "
            f"{caps.max_train_env_steps:,}."
        ),
    )
    t3.number_input(
        "Seeds", min_value=1, max_value=TRAINING_SPECS[2].high, step=1, key=key["seeds"]
    )
    t4.number_input(
        "First seed", min_value=0, max_value=TRAINING_SPECS[3].high, step=1, key=key["tseed"]
    )


def results_panel(results: Mapping[str, Any], measured_caption: str) -> None:
    """When each NUM_ENVS learned the task: the table, what it says, and the learning curves.

    ``results`` holds the training frames (``summary``, ``per_run``, ``curves``) and
    ``plain_us``, a plain env's microseconds per step measured just before training.
    """
    summary, per_run, curves = results["summary"], results["per_run"], results["curves"]
    st.subheader("When did each NUM_ENVS learn the task?")
    whole = st.column_config.NumberColumn(format="%.0f")
    st.dataframe(
        summary_table(summary),
        hide_index=True,
        column_config={
            "env-steps needed": whole,
            "episodes needed": whole,
            "step() calls needed": whole,
            "seconds needed": st.column_config.NumberColumn(format="%.3f"),
            "env-steps per second": whole,
        },
    )
    st.caption(
        "Medians over the seeds that learned it. *Seconds* are training time on this shared "
        "machine, without the greedy checks, so they change from run to run; everything else "
        f"is the same every time for the same settings. {measured_caption}"
    )
    text = comparison_text(summary, per_run)
    if text:
        st.markdown(text)
    if not (summary["reached"] > 0).any():
        st.warning("No run learned the task in these env-steps. Try more env-steps per run.")
    cost = cost_text(env_steps_per_s(per_run), results["plain_us"])
    if cost:
        st.info(f"**Where the time goes.** {cost}", icon="💡")

    table = curves.rename(columns=CURVE_COLUMNS)
    left, right = st.columns(2)
    with left:
        st.markdown("**Per env-step** (sample efficiency)")
        learning.chart_with_table(
            learning.chart_spec(learning_curve, curves, "env_steps"),
            table,
            caption=(
                "Each point: the share of seeds whose greedy policy reaches the goal after "
                "that many env-steps. Lines further left learn from fewer env-steps."
            ),
        )
    with right:
        st.markdown("**Per second of training** (what you wait for)")
        learning.chart_with_table(
            learning.chart_spec(learning_curve, curves, "seconds"),
            table,
            caption="The same checks against the training time it took to get there.",
        )
    # Drawn only while open (a dataframe or a chart costs the browser on every visit).
    ui.lazy_expander("Each run, seed by seed", lambda: st.dataframe(per_run, hide_index=True))
    ui.lazy_expander(
        "Another view: how often the exploring robots themselves reach the goal",
        lambda: learning.chart_with_table(
            learning.chart_spec(learning_curve, curves, "env_steps", "goal_rate"),
            table,
            caption=(
                "Share of the last 100 finished training episodes that reached the goal. It "
                "stays below 100% because 1 action in 10 is random, and a random forward can "
                "hit a wall."
            ),
        ),
    )


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
    f"{term_link('step-call')} of a {term_link('vector-env')} gives one row per env, one "
    f"{term_link('env-step')}: a transition, unless that env is being "
    f"{term_link('autoreset', 'auto-reset')}."
)
buffer_controls(frame.key)
frame.settings_done()

pid = calls_pid(batch.batch_size, batch.num_envs)
learning.prediction(
    pid,
    calls_question(batch.batch_size, batch.num_envs),
    calls_options(batch.batch_size, batch.num_envs),
)
layout = buffers.buffer_layout(batch.batch_size, batch.num_envs)
try:
    rollout = buffer_frame(batch.batch_size, batch.num_envs, batch.seed, batch.mode)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not run the rollout: {type(error).__name__}: {error}")
    st.stop()
calls = int(rollout["step"].max())
resets = int((rollout["event"] == "reset").sum()) if batch.mode == "NEXT_STEP" else None
buffer_panel(rollout, layout, batch)
learning.check(
    pid,
    calls_truth(rollout),
    calls_explanation(batch.batch_size, batch.num_envs, calls, resets),
)
st.info(
    "**Same batch, fewer calls.** More envs do not put more rows in a batch: they "
    "fill it in fewer `step()` calls, with pieces of more episodes at different stages. In "
    "Stable-Baselines3, PPO's `n_steps` (2048 by default) counts calls *per env*: the batch "
    "is `n_steps x n_envs`, so 2,048 rows with 4 envs means `n_steps=512`.",
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
    "Gymnasium's), and the table learns from the call's transitions (its N rows less any "
    "reset rows) after every call. A run "
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

frame.takeaways(
    takeaways(
        batch.batch_size,
        batch.num_envs,
        calls,
        resets,
        None if results is None else results["summary"],
        None if results is None else results["per_run"],
    )
)
