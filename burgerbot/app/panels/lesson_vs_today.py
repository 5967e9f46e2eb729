"""Drawing blocks of "The lesson vs today's libraries": the verdict key and one claim."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, ui
from burgerbot.app.labels import VERDICTS
from burgerbot.app.measured import Measured
from burgerbot.app.views.lesson_vs_today import Claim, Outcome, verdict

__all__ = ["claim", "verdict_key"]


def verdict_key() -> None:
    """The kinds of verdict, each with its badge, linked to their meaning in the Glossary."""
    st.markdown(
        "Verdicts: "
        + " ".join(v.badge() for v in VERDICTS.values())
        + " ([what each means](glossary#verdicts))"
    )


def claim(claim: Claim, outcome: Outcome, record: Measured) -> None:
    """One claim: what the lesson says, the verdict from this run, and the script that ran."""
    st.subheader(claim.topic)
    left, right = st.columns([2, 3])
    left.markdown(f"**The lesson says:** {claim.lesson_says}")
    right.markdown(f"{verdict(outcome.kind).badge()} {outcome.summary}")
    used = ", ".join(f"{p} {record.version(p) or 'not installed'}" for p in claim.packages)

    def script_and_output() -> None:
        learning.script_block(claim.script, name=f"lesson check {claim.name}")
        if outcome.output:
            st.code(outcome.output, language="text")

    ui.lazy_expander(
        f"The script that checked it here ({used}), and what it printed",
        script_and_output,
        key=f"lesson_check_{claim.name}",
    )
