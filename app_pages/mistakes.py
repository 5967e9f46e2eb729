"""Shapes, dtypes and common mistakes: batched spaces and the usual errors, run live."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import measured, ui
from burgerbot.app.panels import mistakes as panels
from burgerbot.app.panels.mistakes import show_run
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.scripts.mistakes import spaces_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded, WorkerBudget
from burgerbot.app.views import mistakes
from burgerbot.app.views.mistakes import ASYNC_NUM_ENVS, SPECS, Demo
from burgerbot.app.views.mistakes_spaces import spaces_table
from burgerbot.app.views.mistakes_workers import unclosed_async_mistake

PAGE = "mistakes"
PACKAGES = ("gymnasium", "numpy")
Versions = measured.Versions


# Each result is computed once per server, N and library versions, and shared by visitors.
@st.cache_data(max_entries=8, show_spinner=False)
def spaces_rows(num_envs: int, versions: Versions, _by: str):
    return measured.measure(lambda: spaces_table(num_envs), PACKAGES, _by)


@st.cache_data(max_entries=8, show_spinner=False)
def sync_demos(num_envs: int, versions: Versions, _by: str):
    def run_all() -> dict[str, Demo | ScriptRun]:
        return {
            "dtype": mistakes.dtype_exercise(num_envs),
            "factory": mistakes.factory_mistake(num_envs),
            "scalar": mistakes.scalar_obs_mistake(num_envs),
            "actions": mistakes.action_shape_mistake(num_envs),
            "final_obs": mistakes.final_obs_mistake(num_envs),
        }

    return measured.measure(run_all, PACKAGES, _by)


@st.cache_data(max_entries=1, show_spinner=False)
def async_demo(versions: Versions, generation: int, _budget: WorkerBudget, _by: str):
    # The same for every N (always 2 workers): once per server until "Run again" moves
    # `generation` on.
    return measured.measure(lambda: unclosed_async_mistake(_budget), PACKAGES, _by)


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Shapes, dtypes and common mistakes",
    intro=(
        "Everything on this page is computed on this server by the installed libraries. The "
        "tables come from real vector envs, and each mistake below is a real script: the page "
        "runs it and shows the exact error it raised, then runs the fixed version beside it."
    ),
    topics=[
        "What shape a batch has: (N, ...) and why",
        "Exercise 3: the batched dtype, int64 vs float32",
        "Common issues: the factory instead of its thunk; (N,) instead of (N, k)",
        "Actions of shape (N, 1); `final_observation` in gymnasium 1.x; closing Async",
    ],
    links=["Gymnasium spaces and batching", "Gymnasium vector API", "Auto-reset modes"],
)
(n_spec,) = SPECS
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

# --- 1. The spaces table -------------------------------------------------------------------
st.header("1. What a batch looks like")
st.write(
    f"A vector env with N = {num_envs} copies stacks the copies' observations along a new "
    "first axis: row *i* belongs to copy *i*. `gymnasium.vector.utils.batch_space` predicts "
    "the batched space from one copy's space; the table checks the prediction against a "
    "real `SyncVectorEnv` (and BurgerBot's own `BurgerBotVectorEnv`) after `reset` and one "
    "`step` with sampled actions."
)
try:
    rows, spaces_record = spaces_rows(num_envs, versions, visit.visitor)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not build the spaces table: {type(error).__name__}: {error}")
    rows = []
if rows:
    panels.spaces_tables(rows, num_envs)
    st.caption(
        spaces_record.caption("These tables were made", visit=visit), help=spaces_record.detail()
    )

# --- 2. Exercise 3 -------------------------------------------------------------------------
st.header("2. Exercise: which dtype?")
st.write(
    "The lesson asks you to print the dtype of the batched observation for BurgerBot and "
    "for a `Box` environment such as CartPole. Here is that script, as it ran on this server:"
)
try:
    demos, record = sync_demos(num_envs, versions, visit.visitor)
except Exception as error:
    st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
    st.stop()
st.caption(
    record.caption(f"The scripts of sections 2 and 3 (N = {num_envs}) ran", visit=visit),
    help=record.detail(),
)
panels.dtype_exercise(demos["dtype"])

# --- 3. Mistakes ---------------------------------------------------------------------------
st.header("3. Five common mistakes, reproduced live")
st.write(
    "Each mistake is a complete script. ❌ is the script with the mistake, ✅ the fixed one. "
    "The errors are the real messages from the installed gymnasium and numpy."
)

# Mistake 1
factory = demos["factory"]
st.subheader("Mistake 1: passing the factory instead of what it returns")
st.write(
    "A *factory* such as `make_env(seed)` takes arguments and returns a function with no "
    "arguments that builds the env. The vector env calls each item of its list with no "
    "arguments, so the list must hold what `make_env(seed)` returns, not `make_env` itself."
)
wrong, fixed = st.columns(2)
with wrong:
    show_run(factory.runs["wrong"], "❌ `make_env` itself in the list")
with fixed:
    show_run(factory.runs["fixed"], "✅ `make_env(seed)` in the list", factory.runs["wrong"])
with st.expander("Variant: a factory whose arguments all have defaults gives another error"):
    st.write(
        "This project's `burgerbot.factories.make_env` has a default for every argument, so "
        "calling it with no arguments works: the vector env then receives a *function* "
        "where it expected an env, and fails on the next line."
    )
    show_run(factory.runs["defaults"], "❌ `burgerbot.factories.make_env` itself in the list")

# Mistake 2
scalar = demos["scalar"]
st.subheader("Mistake 2: a scalar observation gives a batch of shape (N,)")
st.write(
    "If each env returns one plain number, stacking N of them gives shape `(N,)`, not "
    "`(N, k)`. Code written for `(N, k)` (such as `obs[:, 0]`) then fails. Either make the "
    "env return an array of shape `(k,)`, or write the code for `(N,)` batches (FrozenLake "
    "in the table above is an env whose observation really is one number)."
)
wrong, fixed = st.columns(2)
with wrong:
    show_run(scalar.runs["wrong"], "❌ `observation()` returns an `int`")
    st.markdown(f"Batch shape: **`{scalar.runs['wrong'].values.get('obs.shape')}`**")
with fixed:
    show_run(
        scalar.runs["fixed"],
        "✅ `observation()` returns an array of shape `(2,)`",
        scalar.runs["wrong"],
    )
    st.markdown(f"Batch shape: **`{scalar.runs['fixed'].values.get('obs.shape')}`**")

# Mistake 3
actions = demos["actions"]
st.subheader("Mistake 3: actions of shape (N, 1)")
st.write(
    f"`step` wants one action per env: shape `({num_envs},)`. A policy network often "
    f"outputs `({num_envs}, 1)` instead. `SyncVectorEnv` does not check the shape: it "
    "hands row *i* (an array holding one number) to env *i*, and what happens next "
    "depends on that env."
)
wrong, fixed = st.columns(2)
with wrong:
    show_run(actions.runs["wrong"], "❌ actions of shape `(N, 1)`")
with fixed:
    show_run(actions.runs["fixed"], "✅ `actions.reshape(N)` first", actions.runs["wrong"])
st.markdown("**The same `(N, 1)` actions given to other vector envs:**")
panels.other_envs_outcomes(actions.runs["elsewhere"].values.get("outcomes", {}))
st.caption(
    "The Sync errors come from inside one sub-environment and never mention a shape; the "
    "native `BurgerBotVectorEnv` checks the whole batch and says what it expected. "
    "`envs.action_space.contains(actions)` is a cheap check before stepping."
)
with st.expander("The script that produced these results"):
    show_run(actions.runs["elsewhere"], "")

# Mistake 4
final = demos["final_obs"]
st.subheader('Mistake 4: reading `infos["final_observation"]`')
st.write(
    "Older gymnasium (0.29) put the last observation of an ending episode in "
    '`infos["final_observation"]`. Gymnasium 1.x has no such key in any auto-reset mode. '
    "In `SAME_STEP` mode the key is `final_obs` (with the mask `_final_obs`); in the default "
    "`NEXT_STEP` mode the step where the episode ends returns the last observation itself, "
    "and the *next* step does the reset."
)
wrong, fixed = st.columns(2)
with wrong:
    show_run(final.runs["wrong_same_step"], "❌ `SAME_STEP` mode, the old key")
    with st.expander("The same script in `NEXT_STEP` mode (the default)"):
        show_run(final.runs["wrong_next_step"], "")
with fixed:
    same_tab, next_tab = st.tabs(["✅ SAME_STEP: `final_obs`", "✅ NEXT_STEP: read `obs`"])
    with same_tab:
        show_run(final.runs["fixed_same_step"], "", final.runs["wrong_same_step"])
    with next_tab:
        show_run(final.runs["fixed_next_step"], "", final.runs["wrong_next_step"])

# Mistake 5
st.subheader("Mistake 5: leaving an AsyncVectorEnv open")
st.write(
    f"`AsyncVectorEnv` runs each env in its own worker process. They keep running until "
    f"`envs.close()`. If the code crashes before reaching `close()`, the workers are left "
    f"behind. This demo starts {ASYNC_NUM_ENVS} workers per script and checks each one in "
    "the operating system's process list (`/proc`) after the script stops. The page closes "
    "anything a script leaves open."
)
with st.spinner("Starting worker processes (a few seconds)..."):
    try:
        async_result, async_record = async_demo(
            versions, measured.GENERATIONS.get((PAGE, "async")), WORKER_BUDGET, visit.visitor
        )
    except BudgetExceeded as error:
        st.warning(str(error))
        async_result = None
    except Exception as error:
        st.error(f"Could not run the Async demo: {type(error).__name__}: {error}")
        async_result = None
if async_result is not None:
    panels.async_demo(async_result)
    st.caption(
        async_record.caption("This demo ran", visit=visit)
        + " Every visitor sees this run until someone runs it again.",
        help=async_record.detail(),
    )
    if st.button("Run the Async demo again", key=f"{PAGE}_rerun_async"):
        measured.GENERATIONS.bump((PAGE, "async"))
        st.rerun()

ui.code_expander(spaces_script(num_envs), label="Code: the spaces table as a script you can run")
