"""Skip, show me by keyboard keeps the focus on its button (issue 38). (Lock in by keyboard, on
every page: `test_browser_reveal`.)"""

from __future__ import annotations

import re

import pytest
from app_driver import AppView, planned_pages

pytestmark = pytest.mark.browser

PAGES = planned_pages()


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
    assert view.focused() == (key, "Hide the answer")
    assert "appear once you answer" not in view.main_text()  # the takeaways are shown
    view.act(lambda: view.page.keyboard.press("Enter"))
    view.assert_no_exception()
    assert view.focused() == (key, "Skip, show me")
    assert "appear once you answer" in view.main_text()
