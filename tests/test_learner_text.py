"""The patterns the browser tests look for in every page's prose, each way."""

from __future__ import annotations

import pytest
from learner_text import internals


@pytest.mark.parametrize(
    "text, found",
    [
        ("Changed since Changed since gymnasium 1.0", "a doubled phrase"),
        ("spawn (start method) start method", "a doubled phrase"),
        ("Raise BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS to run more.", "an environment variable"),
        ("the page sends the next step() as soon as it shows a call", "how the page works"),
        ("Each click reruns only this part.", "how the page works"),
        ("kept in st.session_state", "Streamlit's machinery"),
        ("Write a script that steps 1 BurgerBots in NEXT_STEP mode", "a plural for one"),
    ],
)
def test_each_known_slip_is_found(text, found):
    assert [problem.split(":")[0] for problem in internals(text)][:1] == [found]


@pytest.mark.parametrize(
    "text",
    [
        "Since gymnasium 1.0 the default is NEXT_STEP: the ending call returns the final one.",
        "4 envs x 1,000 steps: Sync took 0.21 s, Async 1.9 s (about 9 times longer).",
        "Run it again: a run is random, and so are its goals.",
        "1 BurgerBot, 11 envs, 0.1 calls a second, 2.1 rows, 1 episode right.",
    ],
)
def test_plain_teaching_text_passes(text):
    assert internals(text) == []


def test_a_variable_named_in_brackets_after_its_word_is_not_a_slip():
    assert internals("**The mask** (mask[t, i]: keep this row?)") == []
