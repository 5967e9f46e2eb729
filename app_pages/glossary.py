"""Glossary: every term the pages use, explained once; the pages link to its entries."""

from __future__ import annotations

import gymnasium
import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.glossary import LESSON, TERMS
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
CLASSES = ("SyncVectorEnv", "AsyncVectorEnv", "BurgerBotVectorEnv")
learning.prediction(
    "glossary_not_gymnasium",
    "Which of these three vector-env classes does your installed Gymnasium not have?",
    CLASSES,
)
missing = [name for name in CLASSES if not hasattr(gymnasium.vector, name)]
learning.check(
    "glossary_not_gymnasium",
    " and ".join(missing) or "none of them",
    f"Checked just now with `hasattr(gymnasium.vector, name)` on gymnasium "
    f"{gymnasium.__version__}: {', '.join(f'`{n}`' for n in missing) or 'none'} is missing. "
    "`BurgerBotVectorEnv` is this project's own class (`burgerbot.vector`), written to step "
    "all robots with numpy at once.",
)

columns = st.columns(2, gap="large")
for index, (slug, term) in enumerate(TERMS.items()):
    with columns[index * 2 // len(TERMS)]:  # the first half on the left, the rest on the right
        st.subheader(term.name, anchor=slug)
        st.markdown(term.meaning)
        if term.taught == LESSON:
            st.caption("First explained in the lesson itself.")
        else:
            st.page_link(f"app_pages/{term.taught}.py", label=None, icon="📍")

st.subheader("How the app judges the lesson's claims", anchor="verdicts")
st.markdown("\n".join(f"- {v.badge()}: {v.meaning}" for v in ALL_VERDICTS.values()))

frame.takeaways(
    after="glossary_not_gymnasium",
    bullets=[
        "An env-step is one environment's step; a `step()` call on a vector env does N of them.",
        "Terminated: the world ended the episode. Truncated: a limit cut it off.",
        "`SyncVectorEnv` and `AsyncVectorEnv` are Gymnasium's; `BurgerBotVectorEnv` is this "
        "project's.",
        "Stable-Baselines3 takes its own VecEnv classes, not Gymnasium's vector envs.",
    ],
)
