"""The "Lesson vs today" page through the router, via AppTest: claims, prediction, takeaways."""

from __future__ import annotations

import sys

import pytest
import streamlit as st
from page_apptest import open_app_page, open_expanders, prediction_checks, texts
from streamlit.testing.v1 import AppTest

from burgerbot.app import sb3_recording
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.lesson_vs_today import CLAIMS, COUNT_OPTIONS, errata, verdict
from burgerbot.app.versions import installed_version

PAGE_FILE = "app_pages/lesson_vs_today.py"
PREDICTION = "lesson_vs_today_how_many_hold"

pytestmark = pytest.mark.slow


def open_page(skip: bool = True) -> AppTest:
    """The page, by default past its prediction ("Skip, show me"), where its verdicts are."""
    app = open_app_page(PAGE_FILE, None, timeout=600, expanders=True)
    if skip:
        app.button(key=f"{PREDICTION}_skip").click().run()
        assert not app.exception, [e.value for e in app.exception]
        open_expanders(app)  # those drawn since
    return app


def is_erratum(markdown: str) -> bool:
    return "→ **today:**" in markdown


def still_true_count(app: AppTest) -> int:
    """How many claims the page marks as still true (read from what it shows)."""
    badge = VERDICTS["holds"].badge()
    return sum(m.value.startswith(badge) and not is_erratum(m.value) for m in app.markdown)


def expected_option(held: int) -> str:
    if held == 0:
        return "none"
    return "1 or 2" if held <= 2 else "3 or 4" if held <= 4 else "5 or more"


def predict(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PREDICTION}_choice").set_value(choice).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def test_page_shows_every_claim_with_a_verdict_and_its_whole_script():
    app = open_page()
    headings = [h.value for h in app.subheader]
    assert headings == [
        "Before you copy the lesson's code",
        "Every claim, checked by its script",
        *[claim.topic for claim in CLAIMS],
        "Key takeaways",
    ]
    badges = [m.value for m in app.markdown if m.value.startswith(":")]
    assert len([b for b in badges if is_erratum(b)]) == len(errata())  # one line each
    badges = [b for b in badges if not is_erratum(b)]
    assert len(badges) == len(CLAIMS)  # one verdict per claim
    scripts = [code.value for code in app.code if code.language == "python"]
    assert [s.strip() for s in scripts] == [claim.script.strip() for claim in CLAIMS]
    assert not any("-> Check" in script for script in scripts)
    shown = texts(app.markdown)
    assert "the episode's final observation" in shown and "simulated learners" in shown
    assert VERDICTS["never_valid"].badge() + " Here" in shown or "Not run here" in shown
    legend = next(m.value for m in app.markdown if m.value.startswith("Verdicts: "))
    for badge in badges:  # every verdict the page gives is in its legend
        assert badge.split("]", 1)[0] + "]" in legend, badge
    app.button(key="lesson_rerun").click().run()
    assert not app.exception and app.session_state["_lesson_run"] == 1
    assert [h.value for h in app.subheader] == headings


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page(skip=False)
    legend = next(m.value for m in app.markdown if m.value.startswith("Verdicts: "))
    shown = [m.value for m in app.markdown if m.value != legend]
    # The deciding facts: each claim's verdict (a badge) and the errata's.
    assert not any(verdict(kind).badge() in text for kind in VERDICTS for text in shown)
    assert not any("→ **today:**" in text for text in shown)
    assert [h.value for h in app.subheader] == ["Key takeaways"]  # its heading, no bullets
    assert not [m for m in app.markdown if m.value.startswith("- ")]
    app.button(key=f"{PREDICTION}_skip").click().run()
    assert still_true_count(app) + len(errata()) <= len(
        [m for m in app.markdown if m.value.startswith(":")]
    )
    assert [m for m in app.markdown if m.value.startswith("- ")]  # the takeaways


def test_a_right_and_a_wrong_prediction_are_checked_against_the_live_checks():
    truth = expected_option(still_true_count(open_page()))
    (wrong, *_) = [option for option in COUNT_OPTIONS if option != truth]
    app = predict(open_page(skip=False), truth)  # a skipped question is not scored
    assert prediction_checks(app) == [(truth, truth)]
    app = predict(app, wrong)
    assert prediction_checks(app) == [(wrong, truth)]


def test_takeaways_end_the_page_and_follow_the_verdicts():
    app = open_page()
    assert app.subheader[-1].value == "Key takeaways"
    bullets = [m.value for m in app.markdown if m.value.startswith("- ")][-1]
    assert 3 <= bullets.count("\n- ") + 1 <= 5
    assert "**Changed since**: auto-reset timing" in bullets
    assert "**True, not visible as set up**: goals doubling in 500 steps" in bullets


def test_without_sb3_the_sb3_claims_are_judged_from_the_recording_and_scored(monkeypatch):
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    app = open_page()
    try:
        app.button(key="lesson_rerun").click().run()  # not the cached run with SB3
        assert not app.exception, [e.value for e in app.exception]
        recorded = [c.value for c in app.caption if c.value.startswith("From the recorded run")]
        assert len(recorded) == sum(claim.needs_sb3 for claim in CLAIMS)
        assert sb3_recording.load().label() in recorded[0]
        assert "not installed here. Install" not in texts(app.markdown)  # nothing 'not run'
        badges = texts(app.markdown)
        assert VERDICTS["never_valid"].badge() + " Here" in badges
        assert VERDICTS["imprecise"].badge() + " With PPO's default" in badges
        # The prediction is checked, against these checks, with the recorded ones among them.
        truth = expected_option(still_true_count(app))
        wrong = next(option for option in COUNT_OPTIONS if option != truth)
        app = predict(open_page(skip=False), wrong)  # the same checks, cached
        assert prediction_checks(app) == [(wrong, truth)]
        assert "SB3 claims were judged from the recorded run" in texts(app.warning)
    finally:
        st.cache_data.clear()  # later visitors run the checks anew


def checks_caption(app: AppTest) -> tuple[str, str]:
    """When and where the checks ran, and their exact start time."""
    (caption,) = [c for c in app.caption if "on this server (" in c.value]
    return caption.value, caption.proto.help


def test_checks_are_shared_between_visitors_and_say_when_they_ran():
    def visit() -> AppTest:
        app = open_page()
        assert not app.exception, [e.value for e in app.exception]
        return app

    _, first_time = checks_caption(visit())
    second = visit()
    text, when = checks_caption(second)
    assert when == first_time
    assert text.startswith("These checks ran on this server (") and "just now" not in text
    assert f"gymnasium {installed_version('gymnasium')}" in text
    second.button(key="lesson_rerun").click().run()
    assert not second.exception
    text, new_time = checks_caption(second)
    assert new_time != first_time
    assert text.startswith("These checks ran just now, started by your visit, on this server")
    text, when = checks_caption(visit())
    assert when == new_time and "just now" not in text
