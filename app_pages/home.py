"""Home: the lesson's speed problem, measured live: one env against N envs per step() call."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, ui
from burgerbot.app.glossary import term_link
from burgerbot.app.logic.home import (
    NO,
    PREDICTION_N,
    SPECS,
    YES,
    call_story,
    envs_label,
    measure_speeds,
    per_call,
    prediction_explanation,
    prediction_truth,
    speed_takeaways,
)
from burgerbot.app.rates import metric_delta, nearest_choice
from burgerbot.app.scripts.home import speed_script

PAGE = "home"
PID = "home_sync16"
PACKAGES = ("gymnasium", "numpy")


@st.cache_data(max_entries=8, show_spinner=False)
def measure_race(num_envs: int, _by: str):
    # Once per server and NUM_ENVS; "Measure again" clears it.
    return measured.measure(lambda: measure_speeds(num_envs), PACKAGES, _by)


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    SPECS,
    title="🍔 BurgerBot: one step() call, many robots",
    intro=(
        "You will learn the problem a vector env solves, and measure, live on this server, "
        "whether Gymnasium's `SyncVectorEnv` collects experience faster than a plain loop over "
        "one BurgerBot."
    ),
    topics=["The speed problem", "SyncVectorEnv", "Vectorised BurgerBot"],
    links=["Gymnasium vector API"],
)
frame.resolve(lambda values: nearest_choice(values), lambda n: {"n": n})

st.subheader("The speed problem")
st.markdown(
    f"One env gives one {term_link('transition')} per `step()` call, and every call pays "
    "Python's overhead. A "
    f"{term_link('vector-env')} holds NUM_ENVS copies of the env: one `step()` call takes "
    "NUM_ENVS actions and returns NUM_ENVS rows, one per env. Racing here: a plain loop of "
    f"`env.step()` on one `BurgerBotEnv`, Gymnasium's {term_link('sync', '`SyncVectorEnv`')} "
    "(steps its envs one after another) and `BurgerBotVectorEnv`, this project's own "
    f"{term_link('native', 'native')} vector env, **not part of Gymnasium** (it moves all "
    "the robots with a few numpy operations)."
)
learning.prediction(
    PID,
    f"Does `SyncVectorEnv` with {PREDICTION_N} envs collect more transitions per second than "
    "a plain loop over one `BurgerBotEnv`?",
    (YES, NO),
)
num_envs, shown, again = ui.race_controls(frame, PID, "about a second")

if shown:
    if again:
        measure_race.clear(num_envs)
    with st.spinner("Stepping BurgerBots…"):
        speeds, record = measure_race(num_envs, visit.visitor)

    plain = speeds.rate("plain")
    cols = st.columns(3)
    cols[0].metric(
        "Plain loop: transitions per second",
        f"{plain.median:,.0f}",
        help="One `BurgerBotEnv`, one `env.step()` per transition, random actions, a reset "
        f"when an episode ends. Median of {len(plain.samples)} repeats; they ranged from "
        f"{plain.slowest:,.0f} to {plain.best:,.0f} per second.",
    )
    cols[0].caption(per_call(speeds, "plain").caption())
    for col, loop, name in ((cols[1], "sync", "Sync"), (cols[2], "native", "native")):
        rate = speeds.rate(loop, num_envs)
        text, arrow, colour = metric_delta(rate, plain)
        col.metric(
            f"{envs_label(num_envs)}, {name}: transitions per second",
            f"{rate.median:,.0f}",
            text,
            delta_arrow=arrow,
            delta_color=colour,
            help=f"Median of {len(rate.samples)} repeats; they ranged from {rate.slowest:,.0f} "
            f"to {rate.best:,.0f} per second. A ratio to the plain loop only when every repeat "
            "of one beat every repeat of the other.",
        )
        col.caption(per_call(speeds, loop, num_envs).caption())
    st.caption(
        f"{record.caption('Measured', visit=visit)} Shared by every visitor until "
        "*Measure again*. A row of an env being auto-reset after its episode ended is not a "
        "transition: the Auto-reset page shows why.",
        help=f"{record.detail()} Each number is the median of {len(plain.samples)} runs of "
        "20 ms (hundreds of `step()` calls each), every setup's runs taken in turns with the "
        "others'.",
    )
    learning.check(PID, prediction_truth(speeds), prediction_explanation(speeds))
    st.markdown(call_story(speeds, num_envs))
    st.page_link(
        "app_pages/speed_breakdown.py",
        label="Where batching pays: Speed breakdown",
        icon="🔬",
    )

ui.code_expander(
    speed_script(num_envs),
    "Code: the race as a script you can run",
    name="home speed race",
)
st.markdown(
    "Some of the lesson's code no longer runs as written with today's libraries; the closing "
    "page lists each case and its fix:"
)
st.page_link("app_pages/lesson_vs_today.py", label="The lesson vs today's libraries", icon="🔍")
frame.takeaways(
    [
        "One `step()` call of a vector env takes N actions and returns N rows, one per env; "
        "the row of an env being auto-reset is not a transition.",
        *(speed_takeaways(speeds) if learning.is_revealed(PID) else []),
    ],
    after=PID,
)
