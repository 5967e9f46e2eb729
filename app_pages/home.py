"""Home: why one environment is too slow, measured live, and what each page shows."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import measured, ui
from burgerbot.app.charts.home import speed_chart_spec
from burgerbot.app.scripts.home import speed_script
from burgerbot.app.views.home import CARDS, SPECS, speed_table

PAGE = "home"
PACKAGES = ("gymnasium", "numpy")


@st.cache_data(max_entries=8, show_spinner=False)
def measure(num_envs: int, versions: measured.Versions, generation: int, _by: str):
    # Once per server, NUM_ENVS and versions; "Measure again" moves `generation` on.
    table, record = measured.measure(lambda: speed_table(num_envs), PACKAGES, _by)
    return table, speed_chart_spec(table), record  # the chart's spec too: it costs ~0.1 s


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🍔 BurgerBot: one step() call, many robots",
    topics=["The speed problem", "Vectorised BurgerBot"],
    links=["Gymnasium vector API"],
)
st.markdown(
    """
An agent learns from **transitions**: what it saw, what it did, the reward, what it saw next.
A single environment hands back one transition per `step()` call. Methods such as PPO learn
from a *batch* of many, varied transitions per update, so waiting on one robot at a time is
slow and the batch is made of one long, correlated trajectory.

A **vector environment** runs N copies side by side: one `step()` call takes N actions and
returns N transitions, stacked into arrays whose first axis is the environment index.
"""
)

(spec,) = SPECS
num_envs = st.slider(
    "NUM_ENVS to compare with a single environment",
    min_value=spec.low,
    max_value=spec.high,
    key=frame.key[spec.key],
)
frame.settings_done()

shown = (PAGE, num_envs)
if st.button("Measure again", key="home_measure"):
    st.session_state["_home_run"] = st.session_state.get("_home_run", 0) + 1
    measured.GENERATIONS.bump(shown)
with st.spinner("Stepping BurgerBots…"):
    versions = measured.library_versions(PACKAGES)
    table, chart, record = measure(
        num_envs, versions, measured.GENERATIONS.get(shown), visit.visitor
    )

one = table[(table["num_envs"] == 1) & (table["backend"] == "sync")].iloc[0]
many_sync = table[(table["num_envs"] == num_envs) & (table["backend"] == "sync")].iloc[0]
many_native = table[(table["num_envs"] == num_envs) & (table["backend"] == "native")].iloc[0]
cols = st.columns(3)
cols[0].metric("1 env: transitions per second", f"{one.transitions_per_s:,.0f}", help="1 per call")
cols[1].metric(
    f"{num_envs:,} envs, Sync: transitions per second",
    f"{many_sync.transitions_per_s:,.0f}",
    f"{many_sync.transitions_per_s / one.transitions_per_s:.1f}x one env",
)
cols[2].metric(
    f"{num_envs:,} envs, native: transitions per second",
    f"{many_native.transitions_per_s:,.0f}",
    f"{many_native.transitions_per_s / one.transitions_per_s:.1f}x one env",
)
st.vega_lite_chart(chart, width="stretch")
st.caption(
    f"Each `step()` call returns {num_envs:,} transitions instead of 1. SyncVectorEnv still "
    "steps its copies one after another in Python, so its gain comes from fewer calls and "
    "bigger arrays; the native BurgerBotVectorEnv steps every robot with a few numpy "
    f"operations. {record.caption('Measured', visit=visit)} Every visitor sees this "
    "measurement; press *Measure again* to repeat it.",
    help=record.detail(),
)
st.dataframe(
    table[["setup", "transitions_per_call", "transitions_per_s", "seconds_per_call"]],
    hide_index=True,
    column_config={
        "transitions_per_call": "transitions per step() call",
        "transitions_per_s": st.column_config.NumberColumn("transitions per second", format="%d"),
        "seconds_per_call": st.column_config.NumberColumn("seconds per call", format="%.2e"),
    },
)
ui.code_expander(speed_script(num_envs))

st.header("What you will find here")
cards = list(CARDS.items())
for row_start in range(0, len(cards), 3):
    for col, (file, text) in zip(st.columns(3), cards[row_start : row_start + 3], strict=False):
        with col.container(border=True):
            st.page_link(f"app_pages/{file}")
            st.write(text)
