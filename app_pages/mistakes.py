"""Shapes, dtypes and common mistakes: batched spaces and the usual errors, run live."""

from __future__ import annotations

import gymnasium
import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.panels import mistakes as panels
from burgerbot.app.panels import mistakes_async as async_panels
from burgerbot.app.scripts.mistakes import dtype_exercise, spaces_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded, WorkerBudget
from burgerbot.app.views import mistakes_sentences as sentences
from burgerbot.app.views.mistakes import MISTAKES, SPECS, SYNC_MISTAKES
from burgerbot.app.views.mistakes_spaces import spaces_table
from burgerbot.app.views.mistakes_workers import main_guard_mistake, unclosed_async_mistake

PAGE = "mistakes"
PACKAGES = ("gymnasium", "numpy")
Versions = measured.Versions


# Each result is computed once per server, settings and library versions, shared by visitors.
@st.cache_data(max_entries=8, show_spinner=False)
def spaces_rows(num_envs: int, versions: Versions, _by: str):
    return measured.measure(lambda: spaces_table(num_envs), PACKAGES, _by)


@st.cache_data(max_entries=16, show_spinner=False)
def sync_demo(key: str, num_envs: int, versions: Versions, _by: str):
    return measured.measure(lambda: SYNC_MISTAKES[key](num_envs), PACKAGES, _by)


# The Async demos are the same for every N (always 2 workers) and run only when their mistake
# is chosen: once per server until "Run again" moves `generation` on.
@st.cache_data(max_entries=1, show_spinner=False)
def async_demo(versions: Versions, generation: int, _budget: WorkerBudget, _by: str):
    return measured.measure(lambda: unclosed_async_mistake(_budget), PACKAGES, _by)


@st.cache_data(max_entries=1, show_spinner=False)
def main_guard_demo(versions: Versions, generation: int, _budget: WorkerBudget, _by: str):
    return measured.measure(lambda: main_guard_mistake(_budget), PACKAGES, _by)


ASYNC_DEMOS = {
    "async": (async_demo, async_panels.async_mistake, "rerun_async"),
    "main_guard": (main_guard_demo, async_panels.main_guard_mistake, "rerun_guard"),
}

visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Shapes, dtypes and common mistakes",
    intro=(
        "You will learn which shape and dtype each batch of a vector env has, and how to "
        "recognise and fix six common mistakes. The tables and the mistakes below ran on this "
        "server with the installed libraries: each mistake is a whole script shown with the "
        "exact error it raised, and its fixed version in the next tab."
    ),
    topics=[
        "What shape a batch has: (N, ...) and why",
        "Exercise 3: the batched dtype, int64 vs float32",
        "Common issues: the factory instead of its thunk; (N,) instead of (N, k)",
        "Actions of shape (N, 1); `final_observation` in gymnasium 1.x; closing Async; spawn",
    ],
    links=["Gymnasium spaces and batching", "Gymnasium vector API", "Auto-reset modes"],
)
n_spec, _ = SPECS
st.slider(
    n_spec.label,
    n_spec.low,
    n_spec.high,
    key=frame.key[n_spec.key],
    help="How many copies of each environment the vector envs hold.",
)
num_envs, cap_note = clamp_num_envs("sync", int(st.session_state[frame.key[n_spec.key]]))
frame.settings_done([cap_note] if cap_note else [])
versions = measured.library_versions(PACKAGES)

# --- 1. What a batch looks like -------------------------------------------------------------
st.header("1. What a batch looks like")
st.write(
    f"A {term_link('vector-env')} with N = {num_envs} copies stacks their observations along "
    f"a new first axis: row *i* belongs to {term_link('sub-environment')} *i*. The tables show "
    "what real vector envs returned after `reset` and one `step`: Gymnasium's `SyncVectorEnv` "
    "and its own batched `CartPoleVectorEnv`, and `BurgerBotVectorEnv`, this project's "
    f"{term_link('native', 'native vector env')} (not part of Gymnasium)."
)
learning.prediction(
    "mistakes_shape",
    "FrozenLake's observation is one whole number: which of its 16 squares the agent is on. "
    f"Stack N = {num_envs} FrozenLakes in a `SyncVectorEnv`: which shape does `reset` return?",
    sentences.SHAPE_OPTIONS,
)
try:
    rows, spaces_record = spaces_rows(num_envs, versions, visit.visitor)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not build the spaces table: {type(error).__name__}: {error}")
    st.stop()
panels.spaces_section(rows, num_envs)
st.caption(
    spaces_record.caption("These tables were made", visit=visit), help=spaces_record.detail()
)
learning.check(
    "mistakes_shape",
    sentences.shape_truth(rows, num_envs),
    sentences.shape_explanation(rows, num_envs),
)
learning.exercise(
    "mistakes_dtype",
    "which dtype? (the lesson's exercise 3)",
    f"Build a `SyncVectorEnv` of {num_envs} BurgerBots and one of {num_envs} CartPoles, reset "
    "both, and print each batched observation's `shape` and "
    f"{term_link('dtype')}. Is BurgerBot's `int64`? What does CartPole give, whose "
    "observation space is a `float32` `Box`? (The table above has the answer too; the script "
    "is how you would check it on your own machine.)",
    dtype_exercise(num_envs),
    answer_name="batched dtypes",
)

# --- 2. Mistakes, one at a time --------------------------------------------------------------
st.header("2. Six common mistakes, reproduced live")
st.write(
    "Pick one. ❌ is a whole script with the mistake, ✅ the fixed one; the errors are the "
    "real messages the installed libraries raised. Mistakes 1 and 2 are the lesson's own "
    "*common issues*."
)
chosen = st.segmented_control(
    "Mistake",
    list(MISTAKES),
    format_func=MISTAKES.get,
    key=frame.key["mistake"],
    required=True,
    label_visibility="collapsed",
)
st.subheader(f"Mistake {MISTAKES[chosen]}")
if chosen in SYNC_MISTAKES:
    try:
        demo, record = sync_demo(chosen, num_envs, versions, visit.visitor)
    except Exception as error:
        st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
    else:
        if chosen == "factory":
            panels.factory_mistake(demo)
        elif chosen == "scalar":
            panels.scalar_mistake(demo)
        elif chosen == "actions":
            panels.actions_mistake(demo, num_envs)
        else:
            panels.final_obs_mistake(demo, gymnasium.__version__)
        st.caption(
            record.caption(f"These scripts (N = {num_envs}) ran", visit=visit),
            help=record.detail(),
        )
else:
    run_demo, draw, button = ASYNC_DEMOS[chosen]
    result = None
    with st.spinner("Running the scripts as files, with their worker processes..."):
        try:
            result = run_demo(
                versions, measured.GENERATIONS.get((PAGE, chosen)), WORKER_BUDGET, visit.visitor
            )
        except BudgetExceeded as error:
            st.warning(str(error))
        except Exception as error:
            st.error(f"Could not run the Async scripts: {type(error).__name__}: {error}")
    if result is not None:
        demo, record = result
        draw(demo)
        st.caption(
            record.caption("These scripts ran", visit=visit)
            + " Every visitor sees this run until someone runs it again.",
            help=record.detail(),
        )
        if st.button("Run these scripts again", key=f"{PAGE}_{button}"):
            measured.GENERATIONS.bump((PAGE, chosen))
            st.rerun()

ui.code_expander(
    spaces_script(num_envs),
    label="Code: the tables of section 1 as a script you can run",
    name="batched spaces",
)
frame.takeaways(sentences.takeaways(rows, num_envs))
