"""Counting finished episodes: the lesson's auto-reset example, run in the two modes that
restart a robot by themselves."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.counting_episodes import (
    BACKEND,
    OPTIONS,
    SPECS,
    CountingSettings,
    count_finished_by_mode,
    counting_sentence,
    counts_table,
    finished_episodes_chart,
    prediction_truth,
    question,
    resolve_settings,
    takeaway_bullets,
    widget_values,
)
from burgerbot.app.scripts.counting_episodes import counting_script
from burgerbot.app.slots import HEAVY_RUNS, ServerBusy

PAGE = "counting_episodes"
PREDICTION = f"{PAGE}_modes"
HIGH = {spec.key: spec.high for spec in SPECS}


@st.cache_data(max_entries=16, show_spinner=False)
def counts_by_mode(num_envs: int, steps: int, seed: int) -> pd.DataFrame:
    """Both modes' counts, shared by every visitor; a big run waits for a server-wide slot."""
    env_steps = CountingSettings(num_envs, steps, seed).env_steps
    label = f"Counting {num_envs} envs × {steps:,} steps in both modes: "
    with measured.progress_bar(label) as report, HEAVY_RUNS.hold(env_steps=env_steps):
        return count_finished_by_mode(BACKEND, num_envs, steps, seed, report)


# --- The page, top to bottom ---------------------------------------------------------------------
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Counting finished episodes",
    intro=(
        "The lesson's auto-reset example counts the episodes 2 CartPoles finish in 200 random "
        "steps; here 8 BurgerBots take 500, enough for a clear "
        f"answer. You will learn to count episodes from the flags a {term_link('vector-env')} "
        "returns, and whether the auto-reset mode changes the count."
    ),
    topics=["Counting finished episodes per environment", "NEXT_STEP against SAME_STEP"],
    links=["Auto-reset modes", "Gymnasium vector API"],
)
settings = frame.resolve(resolve_settings, widget_values)
col_n, col_steps, col_seed = st.columns([3, 2, 2])
col_n.slider("NUM_ENVS", min_value=1, max_value=HIGH["n"], key=frame.key["n"])
col_steps.number_input(
    "step() calls",
    min_value=1,
    max_value=HIGH["steps"],
    step=50,
    key=frame.key["steps"],
    help=f"At most {HIGH['steps']:,} per run on this app.",
)
col_seed.number_input("Seed", min_value=0, max_value=HIGH["seed"], step=1, key=frame.key["seed"])
frame.settings_done()

learning.prediction(PREDICTION, question(settings), OPTIONS)
counts = None
if learning.revealed(PREDICTION):
    try:
        counts = counts_by_mode(settings.num_envs, settings.steps, settings.seed)
    except ServerBusy as busy:
        st.warning(str(busy), icon="⏳")
    except Exception as error:  # show it; the page keeps working
        st.error(f"The counting run failed: {type(error).__name__}: {error}")
if counts is not None:
    learning.chart_with_table(
        learning.chart_spec(finished_episodes_chart, counts), counts_table(counts)
    )
    learning.check(PREDICTION, prediction_truth(counts), counting_sentence(counts))
    ui.code_expander(
        counting_script(settings),
        "Code: this count as a script you can run",
        name="counting finished episodes",
    )
    # Short link labels: Streamlit cuts a long one on a phone instead of wrapping it.
    st.markdown("To log each episode's return and length with a wrapper, in every mode:")
    st.page_link("app_pages/vector_wrappers.py", label="Wrapping a vector env", icon="🧩")
frame.takeaways(takeaway_bullets(counts), after=PREDICTION)
