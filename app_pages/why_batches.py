"""Why batches help: PPO's rollout buffer filled by N envs, and a real training run per N."""

from __future__ import annotations

import inspect

import pandas as pd
import streamlit as st

from burgerbot import training
from burgerbot.app import ui
from burgerbot.app.caps import CAPS
from burgerbot.app.charts.why_batches import buffer_chart_size, buffer_heatmap, learning_curve
from burgerbot.app.scripts.why_batches import buffer_script, training_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.training import (
    AUTORESET_CHOICES,
    BUFFER_SPECS,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    NUM_ENVS_CHOICES,
    TRAINING_SPECS,
    QLearningConfig,
)

PAGE = "why_batches"
SPECS = BUFFER_SPECS + TRAINING_SPECS
KEY = {spec.key: ui.widget_key(PAGE, spec) for spec in SPECS}
STARTED = f"_{PAGE}_started_runs"


@st.cache_data(max_entries=16, show_spinner=False)
def buffer_frame(batch_size: int, num_envs: int, seed: int, mode: str) -> pd.DataFrame:
    return training.rollout_buffer(batch_size, num_envs, seed, mode)


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


st.title("Why batches help")
ui.sidebar(
    topics=[
        "When vectorisation helps: PPO collects a batch per update",
        "2048 transitions: with 4 envs, 512 step() calls",
        "What batching buys (throughput) and what it does not (sample efficiency)",
        "Why the benefit is small for a tiny world like BurgerBot",
    ],
    links=["Gymnasium vector API", "Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
notes = list(ui.load_settings(PAGE, SPECS))

st.write(
    "An on-policy method such as PPO works in rounds: collect a batch of transitions with "
    "the current policy, learn from the whole batch, throw it away, repeat. One environment "
    "gives one transition per `step()` call. N environments give N per call, so the same "
    "batch takes N times fewer calls. This page shows what that batch looks like, then trains "
    "a small agent with different N and measures what the batching really buys."
)

# --- 1. The rollout buffer -------------------------------------------------------------------
st.header("1. One batch, fewer step() calls")
col_n, col_batch, col_mode, col_seed = st.columns([4, 2, 3, 2])
col_n.slider(
    "NUM_ENVS",
    BUFFER_SPECS[0].low,
    BUFFER_SPECS[0].high,
    key=KEY["n"],
    help="How many BurgerBots step together: each step() call collects this many transitions.",
)
col_batch.number_input(
    "Transitions per update",
    min_value=BUFFER_SPECS[1].low,
    max_value=BUFFER_SPECS[1].high,
    step=64,
    key=KEY["batch"],
    help="The batch size PPO learns from in one update. 2048 is a common default.",
)
col_mode.radio(
    "Auto-reset mode",
    AUTORESET_CHOICES,
    key=KEY["mode"],
    horizontal=True,
    help="NEXT_STEP is gymnasium's default. SAME_STEP resets like Stable-Baselines3 does.",
)
col_seed.number_input("Seed", min_value=0, max_value=BUFFER_SPECS[3].high, step=1, key=KEY["bseed"])
num_envs, cap_note = clamp_num_envs("native", int(st.session_state[KEY["n"]]))
if cap_note:
    notes.append(cap_note)
batch_size = int(st.session_state[KEY["batch"]])
mode = st.session_state[KEY["mode"]]
buffer_seed = int(st.session_state[KEY["bseed"]])

# --- Training settings (read here so every note shows in one place) -----------------------
ns_key = KEY["ns"]
chosen = sorted({int(n) for n in st.session_state.get(ns_key, ())})
st.session_state[ns_key] = chosen  # the multiselect wants a list
env_steps_wanted = int(st.session_state[KEY["steps"]])
seeds = int(st.session_state[KEY["seeds"]])
first_seed = int(st.session_state[KEY["tseed"]])
env_steps, train_note = training.plan_training(chosen, seeds, env_steps_wanted)
if train_note:
    notes.append(train_note)

ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)

layout = training.buffer_layout(batch_size, num_envs)
try:
    frame = buffer_frame(batch_size, num_envs, buffer_seed, mode)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not run the rollout: {type(error).__name__}: {error}")
    st.stop()

m1, m2, m3, m4 = st.columns(4)
m1.metric("step() calls to fill the batch", f"{layout.step_calls:,}")
m2.metric("transitions per call", f"{num_envs:,}")
m3.metric("buffer shape (steps, envs)", f"({layout.step_calls:,}, {num_envs:,})")
m4.metric("episodes that ended in it", f"{int(frame['ends_episode'].sum()):,}")
if not layout.exact:
    st.caption(
        f"{batch_size:,} is not a multiple of {num_envs}: {layout.step_calls:,} calls collect "
        f"{layout.collected:,} transitions, {layout.collected - batch_size:,} more than needed. "
        "In practice you pick NUM_ENVS and the steps per env so that their product is the batch."
    )

events = frame["event"].value_counts()
shown = (
    f"Drawn: the first {layout.drawn_steps:,} of {layout.step_calls:,} step() calls"
    if layout.drawn_steps < layout.step_calls
    else f"All {layout.step_calls:,} step() calls"
)
shown += (
    f" for the first {layout.drawn_envs} of {num_envs} envs."
    if layout.drawn_envs < num_envs
    else (f" for all {num_envs} envs." if num_envs > 1 else " for the single env.")
)
st.markdown(
    f"**The buffer, filled by a random BurgerBot agent.** Each small box is one transition. "
    f"Row *t* holds what the *t*-th `step()` call returned, column *i* what env *i* did. "
    f"A black line under a box means that env's episode ended there; the next box below "
    f"starts a new episode. {shown}"
)
if layout.clipped:
    st.caption(
        f"To keep the page fast the picture shows at most {MAX_DRAWN_STEPS} rows and "
        f"{MAX_DRAWN_ENVS} columns; the numbers above and below count the whole batch."
    )
chart_width, chart_height = buffer_chart_size(layout.drawn_envs, layout.drawn_steps)
st.altair_chart(
    buffer_heatmap(frame, layout.drawn_envs, layout.drawn_steps),
    width=chart_width,
    height=chart_height,
)
resets = int(events.get("reset", 0))
reset_text = (
    f" **{resets:,}** of them are NEXT_STEP reset steps (the call after an episode ends: "
    "reward 0, the action was ignored). A learner must leave those out of the update; "
    "SAME_STEP mode, like Stable-Baselines3's own vector envs, has none."
    if mode == "NEXT_STEP"
    else " SAME_STEP mode resets an env on the very call its episode ends, so every box is "
    "a real transition."
)
st.markdown(
    f"In the whole batch of {layout.collected:,} transitions: **{int(events.get('move', 0)):,}** "
    f"moves, **{int(events.get('turn_or_stop', 0)):,}** turns or stops, "
    f"**{int(events.get('hit', 0)):,}** hits, **{int(events.get('goal', 0)):,}** goals."
    + reset_text
)
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
    buffer_script(batch_size, num_envs, buffer_seed, mode),
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
t1, t2, t3, t4 = st.columns([4, 3, 2, 2])
options = sorted(set(NUM_ENVS_CHOICES) | set(chosen))
t1.multiselect(
    "NUM_ENVS to compare",
    options,
    key=ns_key,
    max_selections=TRAINING_SPECS[0].max_items,
    help="Each NUM_ENVS is trained separately with the same seeds and settings.",
)
t2.number_input(
    "Env-steps per run",
    min_value=TRAINING_SPECS[1].low,
    max_value=TRAINING_SPECS[1].high,
    step=500,
    key=KEY["steps"],
    help=(
        "Transitions each run collects, whatever its NUM_ENVS: the same amount of experience "
        f"for everyone. All runs of one click together stay under {CAPS.max_train_env_steps:,}."
    ),
)
t3.number_input("Seeds", min_value=1, max_value=TRAINING_SPECS[2].high, step=1, key=KEY["seeds"])
t4.number_input(
    "First seed", min_value=0, max_value=TRAINING_SPECS[3].high, step=1, key=KEY["tseed"]
)

settings = (tuple(chosen), env_steps, seeds, first_seed)
started: set = st.session_state.setdefault(STARTED, set())
if not chosen:
    st.warning("Pick at least one NUM_ENVS to train.")
else:
    runs_total = len(chosen) * seeds
    st.caption(
        f"{runs_total} run{'s' if runs_total > 1 else ''}: NUM_ENVS "
        f"{', '.join(map(str, chosen))} x seeds {first_seed}..{first_seed + seeds - 1}, "
        f"{env_steps:,} env-steps each."
    )
    if st.button("Start training", key=f"{PAGE}_train", type="primary", icon="▶️"):
        try:
            training_results(*settings)
            started.add(settings)
        except Exception as error:  # the page keeps working; the message says what broke
            st.error(f"Training failed: {type(error).__name__}: {error}")
    if settings not in started:
        st.info("Press **Start training** to run the experiment with these settings.", icon="👆")


def comparison_text(summary: pd.DataFrame) -> str | None:
    """What the smallest and largest NUM_ENVS that learned the task say, in numbers."""
    learned = summary[summary["reached"] > 0]
    if len(learned) < 2:
        return None
    small, large = learned.iloc[0], learned.iloc[-1]
    n_small, n_large = int(small["num_envs"]), int(large["num_envs"])
    speed = large["env_steps_per_s"] / small["env_steps_per_s"]
    steps_ratio = large["env_steps"] / small["env_steps"]
    steps_pair = f"{large['env_steps']:,.0f} vs {small['env_steps']:,.0f} env-steps"
    if steps_ratio > 1.15:
        sample = (
            f"It needed **{steps_ratio:.1f}x** the env-steps of NUM_ENVS={n_small} ({steps_pair})."
        )
    elif steps_ratio < 1 / 1.15:
        sample = (
            f"This time it needed fewer env-steps than NUM_ENVS={n_small} ({steps_pair}). "
            "With few seeds that is luck more than a rule: try more seeds."
        )
    else:
        sample = f"It needed about as many env-steps as NUM_ENVS={n_small} ({steps_pair})."
    if large["seconds"] > 0 and small["seconds"] > 0:
        clock = small["seconds"] / large["seconds"]
        clock_text = (
            f"**{clock:.1f}x less** wall-clock time"
            if clock >= 1
            else f"**{1 / clock:.1f}x more** wall-clock time"
        )
    else:
        clock_text = "too little time to measure"
    return f"""
**What batching bought here.** NUM_ENVS={n_large} collected **{speed:.1f}x** as many
env-steps per second as NUM_ENVS={n_small}: one `step()` call and one table update handle
{n_large} transitions, so the per-call cost is shared.

**What it did not buy.** {sample} Transitions collected side by side are not worth more than
transitions collected one after another; in a deterministic world where every robot starts
on the same square, many of them are repeats.

**Net effect:** NUM_ENVS={n_large} learned the task in {clock_text} than NUM_ENVS={n_small}.
"""


def show_results(results: dict[str, pd.DataFrame]) -> None:
    summary, per_run, curves = results["summary"], results["per_run"], results["curves"]
    st.subheader("When did each NUM_ENVS learn the task?")
    table = pd.DataFrame(
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
    whole = st.column_config.NumberColumn(format="%.0f")
    st.dataframe(
        table,
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
        "Medians over the seeds that learned it. *Seconds* are training time on this "
        "(shared) machine, without the greedy checks, so they change from run to run; "
        "everything else is the same every time for the same settings."
    )
    text = comparison_text(summary)
    if text:
        st.markdown(text)
    if not (summary["reached"] > 0).any():
        st.warning("No run learned the task in these env-steps. Try more env-steps per run.")

    left, right = st.columns(2)
    with left:
        st.markdown("**Per env-step** (sample efficiency)")
        st.altair_chart(learning_curve(curves, "env_steps"), width="stretch")
        st.caption(
            "Each point: the share of seeds whose greedy policy reaches the goal after that "
            "many transitions. Lines further left learn from fewer transitions."
        )
    with right:
        st.markdown("**Per second of training** (what you wait for)")
        st.altair_chart(learning_curve(curves, "seconds"), width="stretch")
        st.caption(
            "The same checks against the training time it took to get there. Lines further "
            "left learn sooner on the clock."
        )
    with st.expander("Each run, seed by seed"):
        st.dataframe(per_run, hide_index=True)
    with st.expander("Another view: how often the exploring robots themselves reach the goal"):
        st.altair_chart(learning_curve(curves, "env_steps", "goal_rate"), width="stretch")
        st.caption(
            "Share of the last 100 finished training episodes that reached the goal. It stays "
            "below 100% because 1 action in 10 is random, and a random forward can hit a wall."
        )


if chosen and settings in started:
    show_results(training_results(*settings))

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
        training_script(chosen, env_steps, seeds, first_seed),
        label="Code: this experiment as a script you can run",
    )
