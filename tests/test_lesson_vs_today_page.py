"""The "Lesson vs today" page through the router, via AppTest: claims, prediction, takeaways."""

from __future__ import annotations

import sys

import pytest
from page_apptest import open_app_page, prediction_checks, texts
from streamlit.testing.v1 import AppTest

from burgerbot.app import measured
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.lesson_vs_today import CLAIMS, COUNT_OPTIONS
from burgerbot.app.versions import installed_version

PAGE_FILE = "app_pages/lesson_vs_today.py"
PREDICTION = "lesson_vs_today_how_many_hold"

pytestmark = pytest.mark.slow


def open_page() -> AppTest:
    return open_app_page(PAGE_FILE, None, timeout=600, expanders=True)


def still_true_count(app: AppTest) -> int:
    """How many claims the page marks as still true (read from what it shows)."""
    badge = VERDICTS["holds"].badge()
    return sum(m.value.startswith(badge) for m in app.markdown)


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
    assert headings == [claim.topic for claim in CLAIMS] + ["Key takeaways"]
    badges = [m.value for m in app.markdown if m.value.startswith(":")]
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


def test_a_right_and_a_wrong_prediction_are_checked_against_the_live_checks():
    app = open_page()
    truth = expected_option(still_true_count(app))
    (wrong, *_) = [option for option in COUNT_OPTIONS if option != truth]
    app = predict(app, truth)
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


def test_without_sb3_the_page_runs_and_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)
    app = open_page()
    try:
        app.button(key="lesson_rerun").click().run()  # not the cached run with SB3
        assert not app.exception, [e.value for e in app.exception]
        not_run = [m.value for m in app.markdown if "stable-baselines3 is not installed" in m.value]
        assert len(not_run) == sum(claim.needs_sb3 for claim in CLAIMS)
        assert "Not settled by this run:" in texts(app.markdown)
    finally:
        measured.GENERATIONS.bump("lesson_vs_today")  # later visitors run the checks anew


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
