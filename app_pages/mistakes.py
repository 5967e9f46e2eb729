"""Shapes, dtypes and common mistakes: batched spaces and the usual errors, run live."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.scripts.mistakes import spaces_script
from burgerbot.app.settings import clamp_num_envs
from burgerbot.app.slots import WORKER_BUDGET, BudgetExceeded, WorkerBudget
from burgerbot.app.views import mistakes
from burgerbot.app.views.mistakes import ASYNC_NUM_ENVS, SPECS, Run

PAGE = "mistakes"


@st.cache_data(max_entries=8, show_spinner=False)
def spaces_rows(num_envs: int) -> list[mistakes.SpaceRow]:
    return mistakes.spaces_table(num_envs)


@st.cache_data(max_entries=8, show_spinner=False)
def sync_demos(num_envs: int) -> dict[str, mistakes.Demo | Run]:
    return {
        "dtype": mistakes.dtype_exercise(num_envs),
        "factory": mistakes.factory_mistake(num_envs),
        "scalar": mistakes.scalar_obs_mistake(num_envs),
        "actions": mistakes.action_shape_mistake(num_envs),
        "final_obs": mistakes.final_obs_mistake(num_envs),
    }


@st.cache_data(max_entries=1, show_spinner=False)
def async_demo(_budget: WorkerBudget) -> mistakes.Demo:
    # The same for every N (always 2 workers), so it runs once per server until "Run again".
    return mistakes.unclosed_async_mistake(_budget)


def line_ranges(lines: list[int]) -> str:
    """[3, 4, 5, 9] -> "3-5, 9"."""
    groups: list[list[int]] = []
    for line in lines:
        if groups and line == groups[-1][-1] + 1:
            groups[-1].append(line)
        else:
            groups.append([line])
    return ", ".join(str(g[0]) if len(g) == 1 else f"{g[0]}–{g[-1]}" for g in groups)


def show_run(run: Run, title: str, compare_with: Run | None = None) -> None:
    """A script as it ran: the code, what it printed, and the error it raised.

    With ``compare_with`` (the script with the mistake), say which lines differ from it.
    """
    if title:
        st.markdown(title)
    if compare_with is not None:
        lines = mistakes.changed_lines(compare_with.code, run.code)
        if lines:
            label = "Line" if len(lines) == 1 else "Lines"
            st.caption(f"{label} {line_ranges(lines)}: what changed from ❌.")
    st.code(run.code, language="python", line_numbers=True, wrap_lines=True)
    if run.output:
        st.caption("It printed:")
        st.code(run.output, language="text", wrap_lines=True)
    if run.error is not None:
        st.error(f"It raised **{run.error.type}** at `{run.error.where}`.", icon="🚫")
        st.code(run.error.headline, language="text", wrap_lines=True)
        if len(run.error.path) > 1:
            st.caption("Call path: " + " → ".join(f"`{frame}`" for frame in run.error.path))
    else:
        st.success("It ran without an error.", icon="✅")


def workers_line(run: Run, moment: str) -> str:
    alive = run.values.get("alive_after_script", [])
    pids = ", ".join(str(pid) for pid in alive)
    return f"Worker processes of this env still running {moment}: **{len(alive)}**" + (
        f" (pids {pids})" if alive else ""
    )


st.title("Shapes, dtypes and common mistakes")
ui.sidebar(
    topics=[
        "What shape a batch has: (N, ...) and why",
        "Exercise 3: the batched dtype, int64 vs float32",
        "Common issues: the factory instead of its thunk; (N,) instead of (N, k)",
        "Actions of shape (N, 1); `final_observation` in gymnasium 1.x; closing Async",
    ],
    links=["Gymnasium spaces and batching", "Gymnasium vector API", "Auto-reset modes"],
)
notes = list(ui.load_settings(PAGE, SPECS))

st.write(
    "Everything on this page is computed right now by the installed libraries. The tables "
    "come from real vector envs, and each mistake below is a real script: the page runs it "
    "and shows the exact error it raised, then runs the fixed version beside it."
)
(n_spec,) = SPECS
st.slider(
    n_spec.label,
    n_spec.low,
    n_spec.high,
    key=ui.widget_key(PAGE, n_spec),
    help="How many copies of each environment the vector envs hold.",
)
num_envs, cap_note = clamp_num_envs("sync", int(st.session_state[ui.widget_key(PAGE, n_spec)]))
if cap_note:
    notes.append(cap_note)
ui.show_notes(notes)
ui.sync_query_params(PAGE, SPECS)

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
    rows = spaces_rows(num_envs)
except Exception as error:  # the page keeps working; the message says what broke
    st.error(f"Could not build the spaces table: {type(error).__name__}: {error}")
    rows = []
if rows:
    st.markdown("**What `reset` and `step` returned** (one row per environment):")
    st.dataframe(mistakes.returns_frame(rows), hide_index=True, width="stretch")
    st.markdown(
        "**The spaces behind them:** one copy's space, what `batch_space` makes of it, and "
        "whether the vector env's own `observation_space` / `action_space` are the same:"
    )
    st.dataframe(mistakes.spaces_frame(rows), hide_index=True, width="stretch")
    by_env = {(row.env, row.vector_env): row for row in rows}
    burgerbot = by_env[("BurgerBot", "SyncVectorEnv")]
    cartpole = by_env[("CartPole-v1", "SyncVectorEnv")]
    lake = by_env[("FrozenLake-v1", "SyncVectorEnv")]
    as_dict = by_env[("BurgerBot, Dict observation", "SyncVectorEnv")]
    agree = all(row.spaces_agree for row in rows)
    st.markdown(
        f"""
- **BurgerBot** gives `{burgerbot.obs_shape}`: {num_envs} robots (first axis), each
  `[row, col, heading, sensor]` (second axis). Batching its `MultiDiscrete` space gives a
  **`{burgerbot.space_kinds.split(" → ")[1]}`**, not a bigger MultiDiscrete.
- **CartPole** gives `{cartpole.obs_shape}` too, but as `{cartpole.obs_dtype}`.
- **FrozenLake**'s observation is a single number (which square), so its batch is
  `{lake.obs_shape}`: one number per copy and no second axis.
- A **Dict** observation is batched key by key: {
            ", ".join(f"`{key}` → `{shape}`" for key, shape in as_dict.obs_shape.items())
        }.
- Rewards are always `{burgerbot.reward_shape}` `{burgerbot.reward_dtype}`, and `terminated`
  / `truncated` are `{burgerbot.terminated_dtype}`: one per copy.
- `batch_space` and the real vector envs {"agree on every row" if agree else "**disagree**"}.
"""
    )
    with st.expander("Full repr of each batched observation space"):
        for row in rows:
            st.caption(f"{row.env} ({row.vector_env})")
            st.code(row.batched_observation_repr, language="text")

# --- 2. Exercise 3 -------------------------------------------------------------------------
st.header("2. Exercise: which dtype?")
st.write(
    "The lesson asks you to print the dtype of the batched observation for BurgerBot and "
    "for a `Box` environment such as CartPole. Here is that script, run just now:"
)
try:
    demos = sync_demos(num_envs)
except Exception as error:
    st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
    st.stop()
exercise: Run = demos["dtype"]
left, right = st.columns(2)
with left:
    st.code(exercise.code, language="python", wrap_lines=True)
with right:
    st.caption("It printed:")
    st.code(exercise.output, language="text", wrap_lines=True)
    bb_dtype = exercise.values.get("burgerbot_obs.dtype", "?")
    cp_dtype = exercise.values.get("cartpole_obs.dtype", "?")
    st.markdown(
        f"BurgerBot's batch is **{bb_dtype}** (whole numbers: grid cells, headings, sensor "
        f"levels). CartPole's is **{cp_dtype}** (positions and speeds). Neural-network "
        "libraries usually want float32, so a policy network for BurgerBot typically "
        "converts first: `obs.astype(np.float32)`."
    )

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
    shape = scalar.runs["wrong"].values.get("obs.shape")
    st.markdown(f"Batch shape: **`{shape}`**")
with fixed:
    show_run(
        scalar.runs["fixed"],
        "✅ `observation()` returns an array of shape `(2,)`",
        scalar.runs["wrong"],
    )
    shape = scalar.runs["fixed"].values.get("obs.shape")
    st.markdown(f"Batch shape: **`{shape}`**")

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
outcomes = actions.runs["elsewhere"].values.get("outcomes", {})
for name, outcome in outcomes.items():
    if outcome is None:
        st.warning(f"{name}: no error. The wrong actions were accepted silently.", icon="⚠️")
    else:
        st.error(f"{name}: **{outcome.type}** at `{outcome.where}`", icon="🚫")
        st.code(outcome.headline, language="text", wrap_lines=True)
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
        async_result: mistakes.Demo | None = async_demo(WORKER_BUDGET)
    except BudgetExceeded as error:
        st.warning(str(error))
        async_result = None
    except Exception as error:
        st.error(f"Could not run the Async demo: {type(error).__name__}: {error}")
        async_result = None
if async_result is not None:
    runs, facts = async_result.runs, async_result.facts
    wrong, fixed = st.columns(2)
    with wrong:
        show_run(runs["wrong"], "❌ `close()` only at the end")
        st.markdown(workers_line(runs["wrong"], "after the crash"))
        left_open = runs["wrong"].values.get("alive_after_close", [])
        st.markdown(f"After the page called `envs.close()`: **{len(left_open)}**")
    with fixed:
        finally_tab, closing_tab = st.tabs(["✅ try / finally", "✅ with closing(...)"])
        with finally_tab:
            show_run(runs["fixed_finally"], "", runs["wrong"])
            st.markdown(workers_line(runs["fixed_finally"], "after the crash"))
        with closing_tab:
            show_run(runs["fixed_closing"], "", runs["wrong"])
            st.markdown(workers_line(runs["fixed_closing"], "after the crash"))
        st.info(
            "The KeyError from mistake 4 is left in the fixed scripts on purpose: the fix is "
            "not about avoiding every crash, it is that a crash no longer leaves workers "
            "running.",
            icon="💡",
        )
    st.markdown("**Why not simply `with AsyncVectorEnv(...) as envs:`?**")
    code_side, answer_side = st.columns(2)
    with code_side:
        show_run(runs["with"], "")
    with answer_side:
        st.markdown(
            f"In the installed gymnasium, `AsyncVectorEnv` defines `__enter__`: "
            f"**{facts['async_has_enter']}**."
            + (
                " So a vector env cannot open a `with` block by itself. "
                "`contextlib.closing(...)` (the second ✅ tab) wraps it in one that calls "
                "`close()` at the end, or use `try`/`finally`."
                if not facts["async_has_enter"]
                else " So the `with` block works and closes the env at its end."
            )
        )
    if facts["async_has_del"]:
        st.caption(
            "Gymnasium's `AsyncVectorEnv` also stops its workers when Python deletes the "
            "object (it has a `__del__`), but only once nothing refers to it any more. After "
            "a crash the variable `envs` still refers to it (in a notebook, until you delete it "
            "or restart the kernel), which is why the workers were still running above."
        )
    if st.button("Run the Async demo again", key=f"{PAGE}_rerun_async"):
        async_demo.clear()
        st.rerun()

ui.code_expander(spaces_script(num_envs), label="Code: the spaces table as a script you can run")
