"""The lesson vs today's libraries: each claim checked live against the installed versions."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import measured, ui
from burgerbot.app.views.lesson_vs_today import CHECKS, run_check

PAGE = "lesson_vs_today"
VERDICTS = {
    "changed": ("🔴 Changed", "error"),
    "still true": ("🟢 Still true", "success"),
    "depends": ("🟡 Depends on the machine", "warning"),
    "not run": ("⚪ Not run here", "info"),
}


PACKAGES = ("gymnasium", "numpy", "stable-baselines3", "torch")


@st.cache_data(max_entries=4, show_spinner=False)
def run_all(versions: measured.Versions, generation: int, _by: str):
    # Once per server and versions; "Run every check again" moves `generation` on.
    return measured.measure(lambda: [run_check(check) for check in CHECKS], PACKAGES, _by)


visit = measured.Visit.begin(st.session_state)
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
versions = measured.library_versions(PACKAGES)
st.dataframe(
    [{"package": p, "installed version": v or "not installed"} for p, v in versions],
    hide_index=True,
)

if st.button("Run every check again", key="lesson_rerun"):
    st.session_state["_lesson_run"] = st.session_state.get("_lesson_run", 0) + 1
    measured.GENERATIONS.bump(PAGE)
with st.spinner("Running the checks…"):
    results, record = run_all(versions, measured.GENERATIONS.get(PAGE), visit.visitor)
st.caption(
    record.caption("These checks ran", visit=visit)
    + " Every visitor sees these results; press *Run every check again* to repeat them.",
    help=record.detail(),
)

for check, result in zip(CHECKS, results, strict=True):
    st.subheader(check.topic)
    label, kind = VERDICTS[result.verdict]
    left, right = st.columns(2)
    with left.container(border=True):
        st.markdown("**What the lesson says**")
        st.write(check.lesson_says)
    with right.container(border=True):
        used = ", ".join(f"{p} {record.version(p) or 'not installed'}" for p in check.packages)
        st.markdown(f"**What happens here** ({used})")
        getattr(st, kind)(f"{label}: {result.summary}")
    with st.expander("The code that ran, and what it measured"):
        st.code(check.source, language="python")
        st.json(result.facts, expanded=False)
