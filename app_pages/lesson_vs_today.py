"""The lesson vs today's libraries: each claim checked live against the installed versions."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import ui
from burgerbot.app.versions import installed_version
from burgerbot.app.views.lesson_vs_today import CHECKS, run_check

PAGE = "lesson_vs_today"
VERDICTS = {
    "changed": ("🔴 Changed", "error"),
    "still true": ("🟢 Still true", "success"),
    "depends": ("🟡 Depends on the machine", "warning"),
    "not run": ("⚪ Not run here", "info"),
}


@st.cache_data(max_entries=4, show_spinner=False)
def run_all(run: int):
    return [run_check(check) for check in CHECKS]


frame = ui.PageFrame(
    PAGE,
    title="🔍 The lesson vs today's libraries",
    intro=(
        "The lesson was written for older versions of gymnasium and Stable-Baselines3. Each "
        "claim below is checked by running the code shown, on this server, with the versions "
        "installed here:"
    ),
    topics=["Auto-reset", "Vectorised BurgerBot", "Stable-Baselines3", "Try it yourself"],
    links=["Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
frame.settings_done()  # no settings: the page's URL carries no query
packages = ["gymnasium", "numpy", "stable-baselines3", "torch"]
st.dataframe(
    [
        {"package": p, "installed version": installed_version(p) or "not installed"}
        for p in packages
    ],
    hide_index=True,
)

run = st.session_state.setdefault("_lesson_run", 0)
if st.button("Run every check again", key="lesson_rerun"):
    run = st.session_state["_lesson_run"] = run + 1
with st.spinner("Running the checks…"):
    results = run_all(run)

for check, result in zip(CHECKS, results, strict=True):
    st.subheader(check.topic)
    label, kind = VERDICTS[result.verdict]
    left, right = st.columns(2)
    with left.container(border=True):
        st.markdown("**What the lesson says**")
        st.write(check.lesson_says)
    with right.container(border=True):
        versions = ", ".join(
            f"{p} {installed_version(p) or 'not installed'}" for p in check.packages
        )
        st.markdown(f"**What happens here** ({versions})")
        getattr(st, kind)(f"{label}: {result.summary}")
    with st.expander("The code that ran, and what it measured"):
        st.code(check.source, language="python")
        st.json(result.facts, expanded=False)
