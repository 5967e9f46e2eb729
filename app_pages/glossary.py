"""Glossary: every term the pages use, explained once; the pages link to its entries."""

from __future__ import annotations

import multiprocessing

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import LESSON, TERMS, start_method_here, term_link
from burgerbot.app.labels import ALL_VERDICTS

frame = ui.PageFrame(
    "glossary",
    title="📖 Glossary",
    intro=(
        "You will find here the words the other pages use, each explained in two or three "
        "sentences, with the page that first explains it; the pages link to these entries "
        "the first time they use a term."
    ),
)
PID = "glossary_start_method"
START_METHODS = ("fork", "spawn", "forkserver")
learning.prediction(
    PID,
    "An `AsyncVectorEnv` starts one worker process per environment. Which "
    f"{term_link('spawn', 'start method')} do its workers use by default on the machine "
    "running this app?",
    START_METHODS,
)
if learning.revealed(PID):
    learning.check(
        PID,
        multiprocessing.get_all_start_methods()[0],
        start_method_here() + ' Pass `context="spawn"` to `AsyncVectorEnv` to choose one.',
    )

st.header("Terms", anchor="terms")
columns = st.columns(2, gap="large")
for index, (slug, term) in enumerate(TERMS.items()):
    with columns[index * 2 // len(TERMS)]:  # the first half on the left, the rest on the right
        st.subheader(term.name, anchor=slug)
        st.markdown(term.meaning)
        if term.taught == LESSON:
            st.caption("First explained in the lesson itself.")
        else:
            st.page_link(f"app_pages/{term.taught}.py", label=None, icon="📍")

st.header("How the app judges the lesson's claims", anchor="verdicts")
st.markdown("\n".join(f"- {v.badge()}: {v.meaning}" for v in ALL_VERDICTS.values()))

frame.takeaways(
    after=PID,
    bullets=[
        "An env-step is one environment's step; a `step()` call on a vector env does N of them.",
        "Terminated: the world ended the episode. Truncated: a limit cut it off.",
        "`SyncVectorEnv` and `AsyncVectorEnv` are Gymnasium's; `BurgerBotVectorEnv` is this "
        "project's.",
        "Stable-Baselines3 takes its own VecEnv classes, not Gymnasium's vector envs.",
        f"AsyncVectorEnv's workers start with '{multiprocessing.get_all_start_methods()[0]}' "
        "on this machine; under 'spawn' a script needs `if __name__ == \"__main__\":`.",
    ],
)
