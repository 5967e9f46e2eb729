"""Home: the lesson's speed problem, measured live: where a batch of N envs saves time."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.home import (
    NUM_ENVS,
    OPTIONS,
    REPEATS,
    TRANSITIONS,
    cost_table,
    measure_costs,
    prediction_explanation,
    prediction_truth,
    run_caption,
)
from burgerbot.app.scripts.home import speed_script

PAGE = "home"
PID = "home_batch_saves"
PACKAGES = ("gymnasium", "numpy")
# This visitor's own measurement, never another's: the check reads a run they saw start.
RUN = "_home_costs"

visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="🍔 BurgerBot: the speed problem",
    intro=(
        f"One env gives one {term_link('transition')} per `step()` call. You will measure where "
        "stepping N copies at once saves time."
    ),
    topics=["The speed problem", "SyncVectorEnv", "Vectorised BurgerBot"],
    links=["Gymnasium vector API"],
)
frame.settings_done()

st.markdown(
    f"A {term_link('vector-env')} holds N copies: one `step()` call takes N actions "
    f"and returns N rows. A {term_link('policy-network', 'policy network')} (the neural "
    "network that picks the actions) chooses them; one forward pass (one evaluation of the "
    "network) takes one observation or a whole batch. Below, a plain loop over one "
    f"`BurgerBotEnv` and {term_link('sync', '`SyncVectorEnv`')} ({NUM_ENVS} envs, stepped one "
    f"after another) each step until they have {TRANSITIONS:,} transitions."
)
learning.prediction(PID, "Where does `SyncVectorEnv` save time over the plain loop?", OPTIONS)

if learning.revealed(PID):
    again = st.button("Measure again", key=f"{PAGE}_measure")
    if again or RUN not in st.session_state:
        with st.spinner("Stepping BurgerBots…"):
            st.session_state[RUN] = measured.measure(measure_costs, PACKAGES, visit.visitor)
    costs, record = st.session_state[RUN]
    st.table(cost_table(costs))
    st.caption(
        f"{run_caption(record)} CPU ms: median of {REPEATS} repeats (range).",
        help=f"{record.caption('Measured', visit=visit)} {record.detail()} CPU time of the "
        "measuring thread, so other programs on the server barely change it; the four parts' "
        "repeats were taken in turns.",
    )
    learning.check(PID, prediction_truth(costs), prediction_explanation(costs))
    st.markdown(
        f"{VERDICTS['not_visible'].badge()} The lesson's \"speed up training with "
        '`SyncVectorEnv`": stepping a cheap env in Sync is not faster; it pays in the forward '
        "passes of a policy network picking the actions."
    )
    st.page_link("app_pages/speed_breakdown.py", label="Across N: Speed breakdown", icon="🔬")

ui.code_expander(speed_script(NUM_ENVS), "Code: this measurement", name="home costs")
st.page_link("app_pages/lesson_vs_today.py", label="What changed since the lesson", icon="🔍")
frame.takeaways(
    [
        "One `step()` call of a vector env takes N actions and returns N rows.",
        "Stepping a cheap env in `SyncVectorEnv` is not faster than a plain loop.",
        "A batch pays where one call does the work of N: one forward pass of the policy network.",
    ],
    after=PID,
)
