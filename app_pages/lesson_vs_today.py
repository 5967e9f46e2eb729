"""What changed since the lesson: each claim checked live by a script, in one table."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, sb3_recording, ui
from burgerbot.app.logic.lesson_vs_today import (
    CLAIMS,
    COUNT_OPTIONS,
    count_explanation,
    count_truth,
    markdown_table,
    run_claim,
    table_rows,
    takeaways,
)

PAGE = "lesson_vs_today"
PACKAGES = ("gymnasium", "numpy", "stable-baselines3", "torch")
PREDICTION = f"{PAGE}_how_many_hold"
RECORDING = sb3_recording.load()


@st.cache_data(max_entries=4, show_spinner=False)
def run_all(_by: str):
    # Once per server; "Run every check again" clears it.
    return measured.measure(lambda: [run_claim(claim) for claim in CLAIMS], PACKAGES, _by)


def scripts(outcomes) -> None:
    """One claim's script and what it printed, picked by the learner."""
    names = {claim.lesson_says: i for i, claim in enumerate(CLAIMS)}
    picked = st.selectbox("The claim", list(names), key=f"{PAGE}_script")
    claim, outcome = CLAIMS[names[picked]], outcomes[names[picked]]
    if outcome.recorded:
        st.caption(f"Recorded run ({RECORDING.label()}): SB3 is not installed here.")
    learning.script_block(claim.script, name=f"lesson check {claim.name}")
    if outcome.output:
        st.code(outcome.output, language="text", wrap_lines=True)


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="🔍 What changed since the lesson",
    intro=(
        "You will learn which lesson claims (gymnasium 0.29) still hold, and what kind "
        "of difference the others are."
    ),
    topics=["Auto-reset", "Vectorised BurgerBot", "Stable-Baselines3"],
    links=["Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
frame.settings_done()  # no settings: the page's URL carries no query
learning.prediction(
    PREDICTION,
    f"This app re-checks {len(CLAIMS)} of the lesson's claims, from the pages before. How many "
    "still hold today?",
    COUNT_OPTIONS,
)
outcomes = None
if learning.revealed(PREDICTION):
    if st.button("Check again", key="lesson_rerun"):
        run_all.clear()
    with st.spinner("Running the checks…"):
        outcomes, record = run_all(visit.visitor)
    truth = count_truth(outcomes)
    recorded = sum(outcome.recorded for outcome in outcomes)
    explanation = count_explanation(CLAIMS, outcomes)
    if recorded:
        explanation += f" The {recorded} SB3 rows come from the recorded run."
    learning.check(
        PREDICTION, truth, explanation, run="these checks" if recorded else "the live run"
    )
    st.markdown(markdown_table(table_rows(CLAIMS, outcomes)))
    versions = ", ".join(
        f"{p} {record.version(p) or 'not installed'}" for p in ("gymnasium", "stable-baselines3")
    )
    st.caption(f"Checked live: {versions}.", help=record.detail())
    learning.lazy_expander(
        "The scripts that checked each row", lambda: scripts(outcomes), key=f"{PAGE}_scripts"
    )

frame.takeaways(takeaways(CLAIMS, outcomes) if outcomes else [], after=PREDICTION)
