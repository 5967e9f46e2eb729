"""Common mistakes: the lesson's two common issues, each a whole script run live beside its fix."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.mistakes import (
    FACTORY_OPTIONS,
    SPECS,
    factory_explanation,
    factory_outcome,
    lesson_runs,
    takeaways,
)
from burgerbot.app.script_runner import ScriptRun
from burgerbot.app.settings import clamp_num_envs

PAGE = "mistakes"
PREDICTION = "mistakes_factory"
PACKAGES = ("gymnasium", "numpy")


# Each result is computed once per server and settings, shared by visitors.
@st.cache_data(max_entries=16, show_spinner=False)
def issue_runs(num_envs: int, _by: str):
    return measured.measure(lambda: lesson_runs(num_envs), PACKAGES, _by)


def show_run(run: ScriptRun, *, name: str) -> None:
    """A whole script as it ran: the code (with downloads), what it printed, its error."""
    learning.script_block(run.code, name=name)
    if run.output:
        st.code(run.output, language="text", wrap_lines=True)
    if run.error is not None:
        st.error(f"{run.error.where}:\n\n`` {run.error.headline} ``", icon="🚫")


def issue(runs: dict[str, ScriptRun], key: str, title: str, wrong: str, fixed: str) -> None:
    """Common issue ``key``: its ❌ script and its ✅ fix, as tabs."""
    st.header(title)
    ui.tabs(
        [
            (f"❌ {wrong}", lambda: show_run(runs["wrong"], name=f"{key} mistake")),
            (f"✅ {fixed}", lambda: show_run(runs["fixed"], name=f"{key} fixed")),
        ]
    )


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="Common mistakes with vector envs",
    intro=(
        "You will learn to fix the lesson's two common issues: the "
        f"{term_link('factory', 'factory')} itself in a vector env's list, and a scalar "
        "observation's batch of shape `(N,)`."
    ),
    topics=[
        "Common issue 1: the factory instead of the function it returns",
        "Common issue 2: a scalar observation's batch",
    ],
    links=["Gymnasium spaces and batching", "Gymnasium vector API"],
)
(n_spec,) = SPECS
st.slider(n_spec.label, n_spec.low, n_spec.high, key=frame.key[n_spec.key])
num_envs, cap_note = clamp_num_envs("sync", int(st.session_state[frame.key[n_spec.key]]))
frame.settings_done([cap_note] if cap_note else [])

# --- Predict: the lesson's first common issue ----------------------------------------------------
learning.prediction(
    PREDICTION,
    "`SyncVectorEnv([make_env for _ in range(N)])` gives the vector env the factory "
    "`make_env(seed)` itself, not the function it returns. What happens when the script runs?",
    FACTORY_OPTIONS,
)
shown = learning.revealed(PREDICTION)
issues = {}
if shown:
    try:
        issues, record = issue_runs(num_envs, visit.visitor)
    except Exception as error:  # the page keeps working; the message says what broke
        st.error(f"Could not run the scripts: {type(error).__name__}: {error}")
    else:
        wrong = issues["factory"]["wrong"]
        learning.check(PREDICTION, factory_outcome(wrong), factory_explanation(wrong))
        issue(
            issues["factory"], "factory", "1 · The factory itself", "`make_env`", "`make_env(seed)`"
        )
        issue(
            issues["scalar"], "scalar", "2 · A scalar observation", "`obs[:, 0]`", "reshaped first"
        )
        # When, where and with which versions: one hover away, to keep the page short.
        when = record.caption("These scripts ran", visit=visit)
        st.caption("These scripts ran live on this server.", help=f"{when}\n\n{record.detail()}")
    st.markdown("**Going further:** [More mistakes](more_mistakes), after Sync vs Async.")
frame.takeaways(takeaways(issues) if shown else [], after=PREDICTION)
