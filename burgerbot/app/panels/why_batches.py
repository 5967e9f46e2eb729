"""The "Why batches help" page's panels: its controls, the rollout buffer and training results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.caps import Caps
from burgerbot.app.charts.why_batches import buffer_cells, buffer_heatmap, learning_curve
from burgerbot.app.glossary import term_link
from burgerbot.app.views.why_batches import (
    AUTORESET_CHOICES,
    BUFFER_SPECS,
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    NUM_ENVS_CHOICES,
    TRAINING_SPECS,
    BufferSettings,
    batch_counts_text,
    buffer_drawing,
    drawn_text,
    summary_table,
)
from burgerbot.app.views.why_batches_cost import cost_text
from burgerbot.app.views.why_batches_reading import comparison_text
from burgerbot.buffers import BufferLayout

__all__ = ["buffer_controls", "buffer_panel", "results_panel", "training_controls"]

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
        help="How many BurgerBots step together: each step() call collects this many transitions.",
    )
    col_batch.number_input(
        "Transitions per update",
        min_value=BUFFER_SPECS[1].low,
        max_value=BUFFER_SPECS[1].high,
        step=64,
        key=key["batch"],
        help=(
            "Transitions PPO collects before each update (its rollout). Stable-Baselines3's "
            "default is n_steps=2048 per env."
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
    m2.metric("transitions per call", f"{num_envs:,}")
    m3.metric("buffer shape (steps, envs)", f"({layout.step_calls:,}, {num_envs:,})")
    m4.metric("episodes that ended in it", f"{int(frame['ends_episode'].sum()):,}")
    if not layout.exact:
        st.caption(
            f"{batch_size:,} is not a multiple of {num_envs}: {layout.step_calls:,} calls "
            f"collect {layout.collected:,} transitions, {layout.collected - batch_size:,} more "
            "than needed. In practice you pick NUM_ENVS and the steps per env so that their "
            "product is the batch."
        )

    drawing = buffer_drawing(layout)
    st.markdown(
        f"**The {term_link('rollout')}, filled by a random BurgerBot agent.** Each box is one "
        f"{term_link('transition')}: row *t* is what the *t*-th `step()` call returned, column "
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
            "Transitions each run collects, whatever its NUM_ENVS: the same amount of "
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
    speeds = dict(zip(summary["num_envs"].astype(int), summary["env_steps_per_s"], strict=True))
    cost = cost_text(speeds, results["plain_us"])
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
                "that many transitions. Lines further left learn from fewer transitions."
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
