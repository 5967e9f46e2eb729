"""From batches to training data: which rows of a vector env's buffer are transitions, TD
targets with and without the mask, termination vs truncation, and seeding sub-environments."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS, counted
from burgerbot.app.logic.training_data import (
    FACTORY_SEED,
    FROM_RETURNED,
    MODES,
    ON_TERMINATION,
    RIGHT,
    ROWS_OPTIONS,
    SEEDING_ENVS,
    SPECS,
    START_VALUE,
    WHERE_FINAL,
    SeedingDemo,
    TrainingRun,
    TrainingSettings,
    buffer_grid,
    endings,
    endings_sentence,
    fmt,
    mask_grid,
    reset_rows,
    resolve_settings,
    row_details,
    rows_answer,
    rows_explanation,
    rows_question,
    seeding_demo,
    takeaways,
    target_counts,
    target_points,
    targets_chart,
    targets_grid,
    targets_sentence,
    training_run,
    widget_values,
)
from burgerbot.app.scripts.training_data import (
    BOOTSTRAP_OF,
    bootstrap_fragment,
    buffer_script,
    mask_exercise_answer,
    seeding_script,
    targets_script,
)
from burgerbot.checks import MAX_SEED
from burgerbot.targets import GAMMA

PAGE = "training_data"
HIGH = {spec.key: spec.high for spec in SPECS if hasattr(spec, "high")}
LOW = {spec.key: spec.low for spec in SPECS if hasattr(spec, "low")}


@st.cache_data(max_entries=32, show_spinner=False)
def cached_run(mode: str, num_envs: int, steps: int, max_steps: int, seed: int) -> TrainingRun:
    return training_run(TrainingSettings(mode, num_envs, steps, max_steps, seed))


@st.cache_data(max_entries=16, show_spinner=False)
def cached_seeding(seed: int) -> SeedingDemo:
    return seeding_demo(seed)


# --- The four tabs, one function each; then the page --------------------------------------
# Streamlit drawing for "From batches to training data": one function per tab.

ROWS_PID = "training_data_rows"

# Okabe-Ito tints (vermillion, sky blue): the cell text carries the same meaning (✗, ■).
_CELL_STYLE = {
    "reset": "background-color: rgba(213, 94, 0, 0.25)",
    "ends": "background-color: rgba(86, 180, 233, 0.30)",
    "transition": "",
}
_WRONG_STYLE = "background-color: rgba(213, 94, 0, 0.25)"


def _grid(text: pd.DataFrame, kinds: pd.DataFrame):
    """A (steps x envs) table whose cells are tinted by kind."""
    styles = kinds.apply(lambda column: column.map(_CELL_STYLE))
    return text.style.apply(lambda _: styles, axis=None)


def _legend(mode: str) -> None:
    reset = "✗ reset row: not a transition (tinted vermillion). " if mode == "NEXT_STEP" else ""
    st.caption(
        f"{reset}■ the episode ends on this row: a real transition (tinted blue). "
        "Cells read action and reward: fwd = forward."
    )


def buffer_tab(run: TrainingRun) -> None:
    """The buffer, its mask, the prediction's check, the script and the exercise."""
    mode = run.settings.mode
    st.markdown(
        f"Each row of this buffer is one {term_link('step-call')}, each column one "
        f"{term_link('sub-environment')}. A training algorithm wants every cell to be a "
        f"{term_link('transition')}: observation, action, reward, next observation. The "
        f"{term_link('mask')} says which cells are."
    )
    # One above the other: side by side, the buffer's column was too narrow for its cells.
    st.markdown("**The buffer** (what `step()` returned)")
    st.dataframe(_grid(*buffer_grid(run)), width="stretch")
    _legend(mode)
    st.markdown("**The mask** (`mask[t, i]`: keep this row?)")
    st.dataframe(_grid(*mask_grid(run)), width="stretch")
    truth = rows_answer(run)
    if truth is None:
        st.error("The rows that fail the world's rules fit none of the options: please report.")
    else:
        learning.check(ROWS_PID, truth, rows_explanation(run))
    with st.expander("Every row in detail (obs, action, flags, final obs, world check)"):
        st.dataframe(row_details(run), hide_index=True, width="stretch")
    ui.code_expander(
        buffer_script(run.settings),
        "Code: this buffer and its mask as a script",
        name="buffer and mask",
    )
    learning.exercise(
        "training_data_mask",
        "mask the reset rows out of a buffer",
        (
            "Collect 20 `step()` calls from 4 BurgerBots (`burgerbot_factory(max_steps=6)`) in "
            "NEXT_STEP mode, storing each row's observation, action, reward, next "
            "observation and flags in `(steps, envs)` arrays. Build the mask of real "
            "transitions and flatten only the kept rows into one training batch. Check it: "
            "no kept row may have reward 0.0 (BurgerBot never gives it), and every dropped "
            "row should be a reset (reward 0.0, next observation `[0, 0, 1, 1]`)."
        ),
        mask_exercise_answer(),
        answer_name="mask reset rows",
    )


def targets_tab(run: TrainingRun) -> None:
    """TD targets without and with the mask, side by side, and what differs."""
    st.markdown(
        f"A one-step TD target ({term_link('bootstrap', 'bootstrapping')}) is "
        f"`r + γ·(1 − terminated)·V(next obs)`, here with γ = {GAMMA} and a fixed, hand-made "
        "value function V(obs) = −(rows + columns from the robot to the burger at (6, 6)), so "
        f"V([0, 0, 1, 1]) = {fmt(START_VALUE)}. The same buffer, two ways:"
    )
    left, right = st.columns(2)
    with left:
        st.markdown("**Without the mask** (every row)")
        st.dataframe(_grid(*targets_grid(run, masked=False)), width="stretch")
    with right:
        st.markdown("**With the mask** (reset rows dropped)")
        st.dataframe(_grid(*targets_grid(run, masked=True)), width="stretch")
    st.markdown(targets_sentence(run))
    dropped = reset_rows(run)
    if len(dropped):
        st.markdown(
            "**The made-up rows.** Each pairs the ended episode's final observation with an "
            "action the env ignored, reward 0.0 and the start. What that action really does "
            "from there, by the world's rules:"
        )
        st.dataframe(dropped, hide_index=True, width="stretch")

    def targets_as_points() -> None:
        counts = target_counts(target_points(run))
        learning.chart_with_table(learning.chart_spec(targets_chart, counts), counts)

    with st.expander("Chart: the targets as points", icon="📈"):
        targets_as_points()
    ui.code_expander(
        targets_script(run.settings),
        "Code: these TD targets as a script",
        name="TD targets with and without the mask",
    )


def endings_tab(run: TrainingRun) -> None:
    """Termination vs truncation: where the final observation is, and the right target."""
    mode = run.settings.mode
    st.markdown(
        f"{term_link('terminated', 'Terminated')}: the world's rules ended the episode "
        "(a hit or the burger); nothing follows, so the target is `r`. "
        f"{term_link('truncated', 'Truncated')}: the time limit (`max_steps` = "
        f"{run.settings.max_steps}) cut it; the world would go on, so the target is "
        f"`r + γ·V(final obs)`. In {mode} mode the "
        f"{term_link('final-observation')} is {WHERE_FINAL[mode]}."
    )
    st.markdown(
        f'{VERDICTS["changed"].badge()} The lesson reads `infos["final_observation"]`: '
        "gymnasium 0.29 always reset inside the ending call and kept the final observation "
        "there. Since 1.0 the default NEXT_STEP puts none in `infos` (it is the ending call's "
        '`obs`); SAME_STEP, offered since 1.1, keeps it in `infos["final_obs"]`.'
    )
    result = endings(run)
    if len(result.table):
        wrong = {ON_TERMINATION, FROM_RETURNED}

        def tint(row: pd.Series) -> list[str]:
            return [
                _WRONG_STYLE if column in wrong and not np.isclose(row[column], row[RIGHT]) else ""
                for column in row.index
            ]

        st.dataframe(
            result.table.style.apply(tint, axis=1).format(precision=2),
            hide_index=True,
            width="stretch",
        )
        st.caption("Tinted: a wrong target that differs from the right one.")
    st.markdown(endings_sentence(run, result))
    learning.fragment_block(bootstrap_fragment(mode), of=BOOTSTRAP_OF)


def seeding_tab(seed: int, data: SeedingDemo) -> None:
    """Seeding, live: CartPole for env seeds, BurgerBot for action seeds."""
    n = SEEDING_ENVS
    st.markdown(
        f"Every {term_link('seed')} here is the page's seed s = {seed}, with {n} "
        f"sub-envs. CartPole-v1 draws its start state from its seed, so it shows env seeding; "
        "BurgerBot does not (below)."
    )
    st.markdown("**1. What `envs.reset(seed=s)` gives each sub-env.** " + data.reset_text)
    st.dataframe(data.reset, hide_index=True, width="stretch")
    st.markdown("**2. The same seed for every sub-env.** " + data.same_text)
    learning.lazy_expander(
        "The episodes, sub-env by sub-env",
        lambda: st.dataframe(data.same, hide_index=True, width="stretch"),
    )
    st.markdown(
        f"**3. A lesson-style {term_link('factory')}** whose thunk calls "
        f"`env.reset(seed={FACTORY_SEED} + i)`, then `envs.reset` as usual: " + data.factory_text
    )
    learning.lazy_expander(
        "The starts, sub-env by sub-env",
        lambda: st.dataframe(data.factory, hide_index=True, width="stretch"),
    )
    st.markdown(
        "**4. BurgerBot and its seed.** `BurgerBotEnv.reset` always puts the robot at the "
        "start and `step` uses no random numbers. Checked live: " + data.burgerbot_text
    )
    st.markdown("**5. Seeding BurgerBot's actions.** " + data.action_text)
    st.dataframe(data.action, hide_index=True, width="stretch")
    ui.code_expander(seeding_script(seed), "Code: these seeding checks as a script", name="seeding")


frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🧺 From batches to training data",
    intro=(
        "This page assumes you have done the Auto-reset page (NEXT_STEP and SAME_STEP). "
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
st.markdown(  # not a caption: its links would fail AA contrast at a caption's fade
    f"Live: {counted(settings.num_envs, 'BurgerBot')} in Gymnasium's `SyncVectorEnv` "
    f"({term_link('vector-env')}), {settings.mode} {term_link('autoreset')}, "
    f"{settings.steps} `step()` calls of random actions. Row t, column i: what call t gave "
    "env i."
)
seeding = cached_seeding(settings.seed)
learning.prediction(ROWS_PID, rows_question(settings.mode), ROWS_OPTIONS)

# The buffer answers the prediction: it appears once the learner locks in or skips. Only the
# open tab is drawn (its tables and charts cost the browser on every visit).
if learning.revealed(ROWS_PID):
    ui.lazy_tabs(
        PAGE,
        [
            ("Buffer & mask", lambda: buffer_tab(run)),
            ("TD targets", lambda: targets_tab(run)),
            ("Termination vs truncation", lambda: endings_tab(run)),
            ("Seeding", lambda: seeding_tab(settings.seed, seeding)),
        ],
    )

frame.takeaways(takeaways(run, seeding), after=ROWS_PID)
