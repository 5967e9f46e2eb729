"""Drawing blocks of the "Shapes, dtypes and common mistakes" page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from burgerbot.app.script_runner import CapturedError, ScriptRun
from burgerbot.app.views.mistakes import Demo, changed_lines, line_ranges
from burgerbot.app.views.mistakes_spaces import SpaceRow, returns_frame, spaces_frame
from burgerbot.app.views.mistakes_workers import workers_line

__all__ = [
    "async_demo",
    "dtype_exercise",
    "other_envs_outcomes",
    "show_run",
    "spaces_tables",
]


def show_run(run: ScriptRun, title: str, compare_with: ScriptRun | None = None) -> None:
    """A script as it ran: the code, what it printed, and the error it raised.

    With ``compare_with`` (the script with the mistake), say which lines differ from it.
    """
    if title:
        st.markdown(title)
    if compare_with is not None:
        lines = changed_lines(compare_with.code, run.code)
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


def spaces_tables(rows: Sequence[SpaceRow], num_envs: int) -> None:
    """Section 1: what reset/step returned, the spaces behind it, and what that means."""
    st.markdown("**What `reset` and `step` returned** (one row per environment):")
    st.dataframe(returns_frame(rows), hide_index=True, width="stretch")
    st.markdown(
        "**The spaces behind them:** one copy's space, what `batch_space` makes of it, and "
        "whether the vector env's own `observation_space` / `action_space` are the same:"
    )
    st.dataframe(spaces_frame(rows), hide_index=True, width="stretch")
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


def dtype_exercise(exercise: ScriptRun) -> None:
    """Section 2: the exercise's script, what it printed, and what the dtypes mean."""
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


def other_envs_outcomes(outcomes: Mapping[str, CapturedError | None]) -> None:
    """Mistake 3: what the same (N, 1) actions did to each other vector env."""
    for name, outcome in outcomes.items():
        if outcome is None:
            st.warning(f"{name}: no error. The wrong actions were accepted silently.", icon="⚠️")
        else:
            st.error(f"{name}: **{outcome.type}** at `{outcome.where}`", icon="🚫")
            st.code(outcome.headline, language="text", wrap_lines=True)


def async_demo(demo: Demo) -> None:
    """Mistake 5: the scripts, how many workers each left running, and why ``with`` fails."""
    runs, facts = demo.runs, demo.facts
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
