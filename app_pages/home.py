"""Home: the speed problem measured live, where batching really pays, and the way through."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.home import (
    LESSON_FIXES,
    NO,
    PATH,
    PREDICTION_N,
    SECONDS,
    SPECS,
    YES,
    chart_frame,
    env_story,
    forward_chart,
    forward_frame,
    forward_story,
    lesson_goal_fix,
    measure_speeds,
    metric_delta,
    policy_story,
    prediction_explanation,
    prediction_truth,
    sizes_for,
    speed_chart,
    speed_takeaways,
)
from burgerbot.app.scripts.home import speed_script

PAGE = "home"
PID = "home_sync16"
PACKAGES = ("gymnasium", "numpy")


@st.cache_data(max_entries=8, show_spinner=False)
def measure(num_envs: int, versions: measured.Versions, generation: int, _by: str):
    # Once per server, NUM_ENVS and versions; "Measure again" moves `generation` on.
    return measured.measure(lambda: measure_speeds(num_envs), PACKAGES, _by)


@st.cache_data(max_entries=8, show_spinner=False)
def chart_specs(num_envs: int, versions: measured.Versions, generation: int, _speeds):
    # Built and validated once per measurement (the same key as `measure`), not per rerun.
    return (
        forward_chart(forward_frame(_speeds.forwards)).to_dict(),
        speed_chart(chart_frame(_speeds)).to_dict(),
    )


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🍔 BurgerBot: one step() call, many robots",
    intro=(
        "You will learn what a vector env collects per `step()` call, whether that collects "
        "faster than a plain loop over one BurgerBot (measured here, live), and where batching "
        "really pays: one policy forward pass for the whole batch."
    ),
    topics=["The speed problem", "SyncVectorEnv", "Vectorised BurgerBot"],
    links=["Gymnasium vector API"],
)
st.subheader("Before you copy the lesson's code")
with st.container(border=True):
    for fix in [*LESSON_FIXES, lesson_goal_fix()]:
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.markdown(
            f"{VERDICTS[fix.kind].badge()} {fix.problem} → **today:** {fix.fix}.",
            help=fix.detail or None,
        )
        right.page_link(f"app_pages/{fix.page}", label=fix.link, icon="▶️")

st.subheader("The speed problem, measured here")
st.markdown(
    f"One env hands back one {term_link('transition')} per `step()` call; a "
    f"{term_link('vector-env')} takes N actions per call and returns N rows, N "
    f"{term_link('env-step', 'env-steps')} (a row of an env being "
    f"{term_link('autoreset', 'auto-reset')} is no transition). The baseline: a plain "
    "loop of `env.step()` on one `BurgerBotEnv`. Against it: Gymnasium's "
    f"{term_link('sync', '`SyncVectorEnv`')} (steps its N envs one after another) and "
    f"`BurgerBotVectorEnv`, a {term_link('native', 'native')} vector env that is **this "
    "project's own class, not part of Gymnasium** (all N robots in a few numpy operations)."
)
learning.prediction(
    PID,
    f"Does `SyncVectorEnv` with {PREDICTION_N} envs collect more transitions per second than "
    "a plain loop over one `BurgerBotEnv`?",
    (YES, NO),
)
(spec,) = SPECS
left, right = st.columns([4, 1], vertical_alignment="bottom")
num_envs = left.slider(
    "NUM_ENVS for the numbers below",
    min_value=spec.low,
    max_value=spec.high,
    key=frame.key[spec.key],
)
frame.settings_done()

shown = (PAGE, num_envs)
if right.button("Measure again", key="home_measure", icon=":material/refresh:"):
    st.session_state["_home_run"] = st.session_state.get("_home_run", 0) + 1
    measured.GENERATIONS.bump(shown)
with st.spinner("Stepping BurgerBots…"):
    versions = measured.library_versions(PACKAGES)
    speeds, record = measure(num_envs, versions, measured.GENERATIONS.get(shown), visit.visitor)
    forward_spec, speed_spec = chart_specs(
        num_envs, versions, measured.GENERATIONS.get(shown), speeds
    )

plain = speeds.rate("plain")
cols = st.columns(3)
cols[0].metric(
    "Plain loop: transitions per second",
    f"{plain.median:,.0f}",
    help="One `BurgerBotEnv`, one `env.step()` per transition, random actions, a reset when "
    f"an episode ends. Median of {len(plain.samples)} repeats; they ranged from "
    f"{plain.slowest:,.0f} to {plain.best:,.0f} per second.",
)
for col, loop, name in ((cols[1], "sync", "Sync"), (cols[2], "native", "native")):
    rate = speeds.rate(loop, num_envs)
    text, arrow, colour = metric_delta(rate, plain)
    col.metric(
        f"{num_envs:,} envs, {name}: transitions per second",
        f"{rate.median:,.0f}",
        text,
        delta_arrow=arrow,
        delta_color=colour,
        help=f"Median of {len(rate.samples)} repeats; they ranged from {rate.slowest:,.0f} to "
        f"{rate.best:,.0f} per second. Auto-reset rows, {speeds.reset_share(loop, num_envs):.1%} "
        "of the rows, are not counted. A ratio to the plain loop only when every repeat of one "
        "beat every repeat of the other.",
    )
st.caption(
    f"{record.caption('Measured', visit=visit)} Shared by every visitor until *Measure again*.",
    help=f"{record.detail()} Each number is the median of {len(plain.samples)} runs of "
    f"{SECONDS * 1000:.0f} ms (hundreds of `step()` calls each), every setup's runs taken in "
    "turns with the others'.",
)
learning.check(PID, prediction_truth(speeds), prediction_explanation(speeds))
st.markdown(env_story(speeds, num_envs))

st.subheader("Where batching pays: one forward pass for the whole batch")
st.markdown(
    "Now a policy network picks every action: a small numpy MLP (4 inputs → 64 → 64 → 4 action "
    "logits, tanh, one sampled action per row). The plain loop runs it on 1 observation per "
    "step; a vector env runs it once per call, on all N observations."
)
left, right = st.columns([3, 2])
with left:
    learning.chart_with_table(forward_spec, forward_frame(speeds.forwards))
right.markdown(forward_story(speeds.forwards))
right.markdown(policy_story(speeds, num_envs))
learning.chart_with_table(
    speed_spec,
    chart_frame(speeds),
    caption="The same measurement as the numbers above. Dashed: the plain loop's rate, "
    "for reading every N against it.",
)
ui.code_expander(
    speed_script(sizes_for(num_envs)),
    "Code: the whole measurement as a script you can run",
    name="home speed measurement",
)

st.subheader("A path through the pages")
half = (len(PATH) + 1) // 2
columns = st.columns(2)
for number, stop in enumerate(PATH, start=1):
    columns[number > half].page_link(
        f"app_pages/{stop.page}", label=f"**{number}. {stop.title}**: {stop.what}"
    )
columns[1].page_link("app_pages/glossary.py", label="Any time: the **Glossary**", icon="📖")
frame.takeaways(
    [
        "One `step()` call of a vector env takes N actions and returns N rows (env-steps), "
        "stacked along a first axis of length N; a row of an env being auto-reset is no "
        "transition.",
        *speed_takeaways(speeds),
        "Today the ending call returns the final observation; SB3 wants its own VecEnv, not "
        "Gymnasium's vector envs.",
    ]
)
