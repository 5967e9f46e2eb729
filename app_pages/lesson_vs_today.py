"""The lesson vs today's libraries: each claim checked live by a script, as shown."""

from __future__ import annotations

import streamlit as st

from burgerbot.app import learning, measured, sb3_recording, ui
from burgerbot.app.labels import ALL_VERDICTS, VERDICTS
from burgerbot.app.logic.lesson_vs_today import (
    CLAIMS,
    COUNT_OPTIONS,
    Claim,
    Outcome,
    count_explanation,
    count_truth,
    errata,
    run_claim,
    takeaways,
    verdict,
)
from burgerbot.app.measured import Measured

PAGE = "lesson_vs_today"
PACKAGES = ("gymnasium", "numpy", "stable-baselines3", "torch")
PREDICTION = f"{PAGE}_how_many_hold"
RECORDING = sb3_recording.load()


@st.cache_data(max_entries=4, show_spinner=False)
def run_all(_by: str):
    # Once per server; "Run every check again" clears it.
    return measured.measure(lambda: [run_claim(claim) for claim in CLAIMS], PACKAGES, _by)


# --- The verdict key, the errata and one claim; then the page ---
# Drawing blocks of "The lesson vs today's libraries": the verdict key and one claim.


def verdict_key() -> None:
    """Every verdict the page can give, each with its badge, linked to their meaning in the
    Glossary."""
    st.markdown(
        "Verdicts: "
        + " ".join(v.badge() for v in ALL_VERDICTS.values())
        + " ([what each means](glossary#verdicts))"
    )


def show_errata() -> None:
    """Each place the lesson does not hold as written today, in a line, with the page that
    runs it (what Home used to open with)."""
    st.subheader("Before you copy the lesson's code")
    with st.container(border=True):
        for fix in errata():
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.markdown(
                f"{VERDICTS[fix.kind].badge()} **The lesson:** {fix.problem} → **today:** "
                f"{fix.fix}.",
                help=fix.detail or None,
            )
            right.page_link(f"app_pages/{fix.page}", label=fix.link, icon="▶️")


def show_claim(claim: Claim, outcome: Outcome, record: Measured) -> None:
    """One claim: what the lesson says, the verdict from this run (or the recorded one), and
    the script that ran."""
    st.subheader(claim.topic)
    left, right = st.columns([2, 3])
    left.markdown(f"**The lesson says:** {claim.lesson_says}")
    right.markdown(f"{verdict(outcome.kind).badge()} {outcome.summary}")
    used = ", ".join(f"{p} {record.version(p) or 'not installed'}" for p in claim.packages)
    if outcome.recorded:
        right.caption(f"From the recorded run ({RECORDING.label()}): SB3 is not installed here.")
        used = f"recorded on {RECORDING.recorded_on}"

    def script_and_output() -> None:
        learning.script_block(claim.script, name=f"lesson check {claim.name}")
        if outcome.output:
            st.code(outcome.output, language="text", wrap_lines=True)

    learning.lazy_expander(
        f"The script that checked it ({used}), and what it printed",
        script_and_output,
        key=f"lesson_check_{claim.name}",
    )


visit = measured.Visit.begin(st.session_state)
frame = ui.PageFrame(
    PAGE,
    title="🔍 The lesson vs today's libraries",
    intro=(
        "The lesson was written for gymnasium 0.29. You will learn which of its claims still "
        "hold with today's gymnasium and Stable-Baselines3, and which kind of difference each "
        "of the others is; each in a line, with the page that runs it, then checked by a script."
    ),
    topics=["Auto-reset", "Vectorised BurgerBot", "Stable-Baselines3", "Try it yourself"],
    links=["Auto-reset modes", "Stable-Baselines3 vectorised envs"],
)
frame.settings_done()  # no settings: the page's URL carries no query
verdict_key()

st.markdown(
    "**The lesson's claims** (each is checked below):\n"
    + "\n".join(f"{number}. {claim.lesson_says}" for number, claim in enumerate(CLAIMS, 1))
)
learning.prediction(
    PREDICTION,
    f"How many of these {len(CLAIMS)} claims still hold, as written, with today's libraries?",
    COUNT_OPTIONS,
)
outcomes = None
if learning.revealed(PREDICTION):
    show_errata()
    st.subheader("Every claim, checked by its script")
    if st.button("Run every check again", key="lesson_rerun"):
        st.session_state["_lesson_run"] = st.session_state.get("_lesson_run", 0) + 1
        run_all.clear()
    with st.spinner("Running the checks…"):
        outcomes, record = run_all(visit.visitor)
    st.caption(
        record.caption("These checks ran", visit=visit)
        + " Every visitor sees these results; press *Run every check again* to repeat them.",
        help=record.detail(),
    )
    truth = count_truth(outcomes)
    if truth is None:
        st.caption(
            "🔮 Your prediction is not scored: some claims could not be checked here, and they "
            "could change the answer."
        )
    else:
        recorded = sum(outcome.recorded for outcome in outcomes)
        explanation = count_explanation(CLAIMS, outcomes)
        if recorded:
            explanation += f" The {recorded} SB3 claims were judged from the recorded run."
        learning.check(
            PREDICTION, truth, explanation, run="these checks" if recorded else "the live run"
        )
    for claim, outcome in zip(CLAIMS, outcomes, strict=True):
        show_claim(claim, outcome, record)

frame.takeaways(takeaways(CLAIMS, outcomes) if outcomes else [], after=PREDICTION)
