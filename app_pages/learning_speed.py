"""Does batching make learning faster? Tabular Q-learning once per NUM_ENVS, same seeds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from burgerbot import training
from burgerbot.app import learning, measured, ui
from burgerbot.app.caps import CAPS, Caps
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.learning_speed import (
    NUM_ENVS_CHOICES,
    SAMPLE_OPTIONS,
    SPECS,
    comparison_text,
    cost_text,
    env_steps_per_s,
    learning_curve,
    plain_step_microseconds,
    resolve_settings,
    sample_explanation,
    sample_pid,
    sample_question,
    sample_truth,
    summary_table,
    takeaways,
)
from burgerbot.app.scripts.learning_speed import q_learning_script, training_script
from burgerbot.training import QLearningConfig

PAGE = "learning_speed"
STARTED = f"_{PAGE}_started_runs"
PACKAGES = ("numpy", "gymnasium")


@st.cache_data(max_entries=4, show_spinner=False)
def training_results(
    num_envs_list: tuple[int, ...], env_steps: int, seeds: int, first_seed: int, _by: str = ""
) -> tuple[dict, measured.Measured]:
    with measured.progress_bar() as report:

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

        return measured.measure(train, PACKAGES, _by)


# --- Panels -----------------------------------------------------------------------------------

CURVE_COLUMNS = {
    "num_envs": "NUM_ENVS",
    "env_steps": "env-steps",
    "step_calls": "step() calls",
    "seconds": "seconds (mean)",
    "reaches_goal": "share of seeds whose greedy policy reaches the goal",
    "greedy_return": "greedy return (mean)",
    "goal_rate": "training episodes at goal (last 100, mean)",
}


def training_controls(key: Mapping[str, str], chosen: tuple[int, ...], caps: Caps) -> None:
    """NUM_ENVS to compare, env-steps per run, seeds and first seed, side by side."""
    t1, t2, t3, t4 = st.columns([4, 3, 2, 2])
    t1.multiselect(
        "NUM_ENVS to compare",
        sorted(set(NUM_ENVS_CHOICES) | set(chosen)),
        key=key["ns"],
        max_selections=SPECS[0].max_items,
        help="Each NUM_ENVS is trained separately with the same seeds and settings.",
    )
    ui.number_setting(
        t2,
        "Env-steps per run",
        SPECS[1],
        key,
        step=500,
        help=(
            "Env-steps (rows, reset rows included) each run collects, whatever its NUM_ENVS: "
            "the same amount of experience for everyone. All runs of one click together stay "
            f"under {caps.max_train_env_steps:,}."
        ),
    )
    ui.number_setting(t3, "Seeds", SPECS[2], key)
    ui.number_setting(t4, "First seed", SPECS[3], key)


def results_panel(results: Mapping[str, Any], measured_caption: str) -> None:
    """When each NUM_ENVS learned the task: the table, what it says, and the learning curves.

    ``results`` holds the training frames (``summary``, ``per_run``, ``curves``) and
    ``plain_us``, a plain env's microseconds per step measured just before training.
    """
    summary, per_run, curves = results["summary"], results["per_run"], results["curves"]
    st.header("When did each NUM_ENVS learn the task?")
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
    learning.lazy_expander("Each run, seed by seed", lambda: st.dataframe(per_run, hide_index=True))
    learning.lazy_expander(
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
    title="Does batching make learning faster?",
    intro=(
        "This page assumes you have walked the lesson up to *Why batches help*: a vector env "
        "returns N env-steps per `step()` call. You will learn what batching buys an agent "
        "that learns: more env-steps per second, and whether it also needs fewer of them."
    ),
    topics=[
        "What batching buys (throughput) and what it does not (sample efficiency)",
        "Tabular Q-learning with N robots stepping together",
        "Comparing seeds, not single runs",
    ],
    links=["Gymnasium vector API", "Auto-reset modes"],
)
# Every setting is resolved here so every note shows in one place.
train = frame.resolve(
    lambda values: resolve_settings(values, CAPS),
    lambda resolved: {"ns": list(resolved.num_envs_list)},  # the multiselect wants a list
)

st.write(
    "Tabular Q-learning on BurgerBot, once per NUM_ENVS with the same seeds: N robots step "
    f"together in one `BurgerBotVectorEnv` (this project's {term_link('native')}, not "
    "Gymnasium's), and one table of action values learns from the call's transitions (its N "
    "rows less any reset rows) after every call. A run has learned the task from the first "
    "check after which its best actions lead to the goal every time."
)
with st.expander("How the experiment works: Q-learning, TD targets, greedy policy"):
    st.markdown(
        "- The robot's state is its (row, col, heading): 7 x 7 x 4 = 196 states, 4 actions, "
        "so the whole policy is a 196 x 4 table of values: how much reward an action is "
        "expected to bring from a state.\n"
        "- After each call every value of a (state, action) the robots just tried moves "
        "halfway towards its *TD target*: the reward received plus 0.95 x the best value of "
        "the next state, counted as 0 only when the episode *terminated* (a hit or the goal): "
        "an episode cut off by the time limit (truncated) still counts its next state's "
        "value, since the robot could have gone on.\n"
        "- Each robot explores: 1 action in 10 is random. If several robots made the same "
        "move from the same state in one call, they count as one update (towards the mean "
        "of their targets).\n"
        "- Every round(100 ÷ N) `step()` calls (at least one: about every 100 env-steps) the "
        "run follows the table's best action from the start (the *greedy policy*). "
        "BurgerBot is deterministic, so one try says whether the policy reaches the goal.\n"
        f"- In NEXT_STEP {term_link('autoreset')} mode the call after an episode ends only "
        f"resets that robot: those rows are {term_link('mask', 'masked')} out of the update.\n"
        "- *Sample efficiency* is how few env-steps a method needs to learn; *throughput* is "
        "how many env-steps it collects per second. Batching is meant to raise the second."
    )
training_controls(frame.key, train.num_envs_list, CAPS)
frame.settings_done()

chosen = list(train.num_envs_list)
pid = None
results = None
if len(chosen) < 2:
    st.warning("Pick at least two NUM_ENVS to compare.")
else:
    n_small, n_large = chosen[0], chosen[-1]
    pid = sample_pid(n_small, n_large)
    learning.prediction(pid, sample_question(n_small, n_large, train.env_steps), SAMPLE_OPTIONS)
    if learning.revealed(pid):
        started: set = st.session_state.setdefault(STARTED, set())
        st.caption(
            f"{train.runs} runs: NUM_ENVS {', '.join(map(str, chosen))} x seeds "
            f"{train.first_seed}..{train.first_seed + train.seeds - 1}, "
            f"{train.env_steps:,} env-steps each"
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
        if train.key in started:
            results, record = training_results(*train.key, _by=visit.visitor)
            per_run = results["per_run"]
            learning.check(
                pid,
                sample_truth(per_run, n_small, n_large),
                sample_explanation(per_run, n_small, n_large),
            )
            results_panel(results, record.caption("Trained", visit=visit))
        else:
            st.info(
                "Press **Start training** to run the experiment with these settings.", icon="👆"
            )

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

    with st.expander("The training loop, written out (one run)", icon="🐍"):
        training_loop()
    ui.code_expander(
        training_script(chosen, train.env_steps, train.seeds, train.first_seed),
        label="Code: this experiment as a script you can run",
        name="the training comparison",
    )

frame.takeaways(
    takeaways(
        None if results is None else results["summary"],
        None if results is None else results["per_run"],
    ),
    after=pid,
)
