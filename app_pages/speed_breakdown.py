"""Speed breakdown (Going further): the plain loop, Sync and native across N, without and with a
policy network, and what one forward pass costs for a batch."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.speed_breakdown import (
    NO,
    PREDICTION_N,
    SECONDS,
    SPECS,
    YES,
    chart_frame,
    env_story,
    forward_chart,
    forward_frame,
    forward_story,
    measure_speeds,
    policy_story,
    prediction_explanation,
    prediction_truth,
    sizes_for,
    speed_chart,
    speed_takeaways,
)
from burgerbot.app.rates import nearest_choice
from burgerbot.app.scripts.speed_breakdown import speed_script

PAGE = "speed_breakdown"
PID = "speed_breakdown_policy16"
PACKAGES = ("gymnasium", "numpy")


@st.cache_data(max_entries=8, show_spinner=False)
def measure_breakdown(num_envs: int, _by: str):
    # Once per server and NUM_ENVS; "Measure again" clears it.
    return measured.measure(lambda: measure_speeds(num_envs), PACKAGES, _by)


@st.cache_data(max_entries=8, show_spinner=False)
def breakdown_chart_specs(num_envs: int, measured_at: str, _speeds):
    # Built and validated once per measurement (NUM_ENVS and its start time), not per rerun.
    return (
        forward_chart(forward_frame(_speeds.forwards)).to_dict(),
        speed_chart(chart_frame(_speeds)).to_dict(),
    )


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🔬 Speed breakdown: where batching pays",
    intro=(
        "This page assumes you have done the lesson's Home and Batch shapes pages. You will "
        "learn whether Sync can beat a plain loop on a world as cheap as BurgerBot, and where "
        "batching pays all the same: one policy forward pass for the whole batch."
    ),
    topics=["The speed problem", "SyncVectorEnv", "Vectorised BurgerBot"],
    links=["Gymnasium vector API"],
)
frame.resolve(lambda values: nearest_choice(values), lambda n: {"n": n})
st.markdown(
    "Home raced a plain loop of `env.step()` on one `BurgerBotEnv` against "
    f"{term_link('sync', '`SyncVectorEnv`')} and the {term_link('native', 'native')} "
    "`BurgerBotVectorEnv` (this project's own class, not part of Gymnasium) with random "
    "actions. Here the same race runs at several N, then again with a policy network picking "
    "every action: a small numpy MLP (4 inputs → 64 → 64 → 4 action logits, tanh, one sampled "
    "action per row). The plain loop runs it on 1 observation per step; a vector env runs it "
    f"once per call, on all N observations. A vector env returns N rows, N "
    f"{term_link('env-step', 'env-steps')}, per call; the row of an env being "
    f"{term_link('autoreset', 'auto-reset')} is no {term_link('transition')} and is not counted."
)
learning.prediction(
    PID,
    f"With the policy network picking every action, does `SyncVectorEnv` with {PREDICTION_N} "
    "envs collect more transitions per second than the plain loop?",
    (YES, NO),
)
num_envs, shown, again = ui.race_controls(frame, PID, "about two seconds")

if shown:
    if again:
        measure_breakdown.clear(num_envs)
    with st.spinner("Stepping BurgerBots…"):
        speeds, record = measure_breakdown(num_envs, visit.visitor)
        forward_spec, speed_spec = breakdown_chart_specs(num_envs, record.detail(), speeds)
    st.caption(
        f"{record.caption('Measured', visit=visit)} Shared by every visitor until *Measure again*.",
        help=f"{record.detail()} Each number is the median of 5 runs of "
        f"{SECONDS * 1000:.0f} ms (hundreds of `step()` calls each), every setup's runs taken "
        "in turns with the others'.",
    )
    learning.check(PID, prediction_truth(speeds), prediction_explanation(speeds))

    st.header("Stepping alone: the cost of a call")
    st.markdown(env_story(speeds, num_envs))

    st.header("Where batching pays: one forward pass for the whole batch")
    left, right = st.columns([3, 2])
    with left:
        learning.chart_with_table(forward_spec, forward_frame(speeds.forwards))
    right.markdown(forward_story(speeds.forwards))
    right.markdown(policy_story(speeds, num_envs))
    learning.chart_with_table(
        speed_spec,
        chart_frame(speeds),
        caption="Dashed: the plain loop's rate, for reading every N against it.",
    )

ui.code_expander(
    speed_script(sizes_for(num_envs)),
    "Code: the whole measurement as a script you can run",
    name="speed breakdown measurement",
)
frame.takeaways(
    [
        "A `step()` call of Sync steps its envs one after another in Python, then stacks their "
        "results into arrays; a native vector env moves every env with a few numpy operations.",
        *(speed_takeaways(speeds) if learning.is_revealed(PID) else []),
    ],
    after=PID,
)
