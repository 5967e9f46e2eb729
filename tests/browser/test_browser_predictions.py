"""On every page, a learner answers the page's first prediction in a real Chromium: the answer
locks in, the sidebar counts it, and where the live run has already given the answer the page
says whether it was right. Parametrised over `streamlit_app.PAGES`."""

from __future__ import annotations

import re

import pytest
from app_driver import AppView, planned_pages

pytestmark = pytest.mark.browser

PAGES = planned_pages()


def focused(view: AppView) -> tuple[str, str] | None:
    """The Streamlit key of the element holding the keyboard's focus, and its text."""
    found = view.page.evaluate(
        """() => {
            const element = document.activeElement;
            const keyed = element && element.closest('[class*="st-key-"]');
            if (!keyed) return null;
            return [keyed.className.match(/st-key-(\\S+)/)[1], element.innerText.trim()];
        }"""
    )
    return None if found is None else (found[0], found[1])


@pytest.mark.parametrize("app_page", PAGES, ids=[page.stem for page in PAGES])
def test_a_learner_answers_the_pages_first_prediction(view: AppView, app_page):
    view.goto(app_page.url_path)
    view.assert_no_exception()
    sidebar = view.page.locator('[data-testid="stSidebar"]')
    assert "Predictions: none yet" in sidebar.inner_text()
    box = view.page.locator('[class*="st-key-prediction_"]').first
    assert box.count(), f"{app_page.file} asks for no prediction"
    assert "Predict first" in box.inner_text()
    options = box.locator('[role="radiogroup"] label')
    assert options.count() >= 2
    view.act(options.first.click)
    lock = box.get_by_role("button", name="Lock in")
    assert lock.is_enabled()
    lock.focus()  # by keyboard: focus stays on the button, which now offers to change it
    view.act(lambda: view.page.keyboard.press("Enter"))
    view.assert_no_exception()
    assert "Locked in:" in box.inner_text()
    assert focused(view) == (box.get_attribute("class").split("st-key-prediction_")[1].split()[0]
                             + "_lock", "Change it")  # fmt: skip
    score = sidebar.inner_text()
    assert re.search(r"Predictions: 1 made, [01] of [01] checked right", score), score
    text = view.main_text()
    # a verdict on the page exactly when the sidebar counts the prediction as checked
    checked = "of 1 checked right" in score
    assert checked == ("Your prediction was right" in text or "You predicted" in text), score
    assert "Key takeaways" in text


# A plain skip; one skip for two questions (Batch shapes); a page that shows new settings at
# once after a first answer (Why batches help).
SKIP_PAGES = [page for page in PAGES if page.stem in ("home", "batch_shapes", "why_batches")]


@pytest.mark.parametrize("app_page", SKIP_PAGES, ids=[page.stem for page in SKIP_PAGES])
def test_skip_by_keyboard_keeps_the_focus_on_its_button(view: AppView, app_page):
    """Enter on "Skip, show me" shows the answer and the focus stays on the same button, now
    "Hide the answer"; Enter again hides the answer, the focus still there."""
    view.goto(app_page.url_path)
    view.assert_no_exception()
    skip = view.page.locator('[class*="st-key-"][class*="_skip"] button').first
    keyed = skip.locator("xpath=ancestor::*[contains(@class, 'st-key-')][1]")
    key = re.search(r"st-key-(\S+)", keyed.get_attribute("class") or "").group(1)
    hidden = view.main_text()
    assert "Key takeaways" in hidden and "appear once you answer" in hidden
    skip.focus()
    view.act(lambda: view.page.keyboard.press("Enter"))
    view.assert_no_exception()
    assert focused(view) == (key, "Hide the answer")
    assert "appear once you answer" not in view.main_text()  # the takeaways are shown
    view.act(lambda: view.page.keyboard.press("Enter"))
    view.assert_no_exception()
    assert focused(view) == (key, "Skip, show me")
    assert "appear once you answer" in view.main_text()
