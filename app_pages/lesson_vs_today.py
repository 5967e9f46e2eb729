"""The lesson vs today's libraries: each claim checked live by a script, as shown."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.panels import lesson_vs_today as panels
from burgerbot.app.views.lesson_vs_today import (
    CLAIMS,
    COUNT_OPTIONS,
    count_explanation,
    count_truth,
    run_claim,
    takeaways,
)

PAGE = "lesson_vs_today"
PACKAGES = ("gymnasium", "numpy", "stable-baselines3", "torch")
PREDICTION = f"{PAGE}_how_many_hold"


@st.cache_data(max_entries=4, show_spinner=False)
def run_all(versions: measured.Versions, generation: int, _by: str):
    # Once per server and versions; "Run every check again" moves `generation` on.
    return measured.measure(lambda: [run_claim(claim) for claim in CLAIMS], PACKAGES, _by)


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="🔍 The lesson vs today's libraries",
    intro=(
        "You will learn which of the lesson's claims still hold with the gymnasium and "
        "Stable-Baselines3 installed here, and which kind of difference each of the others is. "
        "Each claim is checked by running the whole script shown under it, on this server."
    ),
    topics=["Auto-reset", "Vectorised BurgerBot", "Stable-Baselines3", "Try it yourself"],
    links=["Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
frame.settings_done()  # no settings: the page's URL carries no query
versions = measured.library_versions(PACKAGES)
panels.verdict_key()

learning.prediction(
    PREDICTION,
    f"How many of the lesson's {len(CLAIMS)} claims below still hold, as written, with the "
    "libraries installed here?",
    COUNT_OPTIONS,
)
if st.button("Run every check again", key="lesson_rerun"):
    st.session_state["_lesson_run"] = st.session_state.get("_lesson_run", 0) + 1
    measured.GENERATIONS.bump(PAGE)
with st.spinner("Running the checks…"):
    outcomes, record = run_all(versions, measured.GENERATIONS.get(PAGE), visit.visitor)
st.caption(
    record.caption("These checks ran", visit=visit)
    + " Every visitor sees these results; press *Run every check again* to repeat them.",
    help=record.detail(),
)

for claim, outcome in zip(CLAIMS, outcomes, strict=True):
    panels.claim(claim, outcome, record)

learning.check(
    PREDICTION,
    count_truth(outcomes),
    count_explanation(CLAIMS, outcomes),
)
frame.takeaways(takeaways(CLAIMS, outcomes))
