"""The lesson path as a beginner walks it in Chromium (issue 21): about 30 minutes of reading,
no page taller than about two screens before the learner opens anything, each term taught
before a page of the path uses it, and nothing cut off or spilling sideways at 1280 and 390 px.

The figures (words and height per page) go to `test-artifacts/browser-report.json` and are
printed, so a closing note can quote them.
"""

from __future__ import annotations

import pytest
from app_driver import AppView, planned_pages
from learner_text import internals

from burgerbot.app.glossary import taught_too_late

pytestmark = pytest.mark.browser

PAGES = planned_pages()
PATH = [page for page in PAGES if page.section == "The lesson"]
WORDS_ON_THE_PATH = 4_000  # about 30 minutes of reading and trying, at a beginner's pace
TALLEST_PAGE_PX = 1_800  # about two screens at 1280 x 900


def test_the_path_follows_the_lesson_and_ends_with_what_changed():
    stems = [page.stem for page in PATH]
    assert stems[0] == "home" and stems[-1] == "lesson_vs_today", stems
    lesson_order = [
        "home",
        "batch_shapes",
        "autoreset",
        "counting_episodes",
        "why_batches",
        "sb3",
        "goal_scaling",
    ]
    assert [stem for stem in stems if stem in lesson_order] == lesson_order
    others = {page.section for page in PAGES if page not in PATH}
    assert others == {"Going further", "Reference"}, others


def test_the_lesson_path_is_short_and_teaches_each_term_before_using_it(view: AppView, report):
    view.page.set_viewport_size({"width": 1280, "height": 900})
    words, heights, revealed, texts = {}, {}, {}, []
    for page in PATH:
        view.goto(page.url_path)
        view.assert_no_exception()
        first_load = view.main_text()
        words[page.stem] = len(first_load.split())
        heights[page.stem] = view.page.evaluate(
            "() => document.querySelector('[data-testid=\"stMainBlockContainer\"]').scrollHeight"
        )
        view.reveal()  # what the learner reads once every prediction is answered
        revealed[page.stem] = len(view.main_text().split())
        texts.append((page.stem, first_load + "\n" + view.main_text()))
    for stem in words:
        print(
            f"{stem:18s} {words[stem]:5,} words {heights[stem]:6,} px at first load, "
            f"{revealed[stem]:5,} words once revealed"
        )
    print(f"{'lesson path':18s} {sum(words.values()):5,} words at first load")
    report.record("lesson_path", "words_once_revealed", revealed)
    report.record("lesson_path", "words_at_first_load", words)
    report.record("lesson_path", "height_px_at_first_load", heights)
    report.record("lesson_path", "total_words", sum(words.values()))
    assert sum(words.values()) <= WORDS_ON_THE_PATH, words
    assert max(heights.values()) <= TALLEST_PAGE_PX, heights
    late = taught_too_late(texts)
    assert late == [], "\n".join(late)


@pytest.mark.parametrize("app_page", PAGES, ids=[page.stem for page in PAGES])
def test_nothing_is_cut_or_spills_sideways_on_a_phone(view: AppView, app_page):
    """At 390 px (a phone) on first load and once every prediction is revealed. The wide
    screen is checked by test_browser_pages, on first load and after the main interaction."""
    view.page.set_viewport_size({"width": 390, "height": 844})
    view.goto(app_page.url_path)
    view.assert_no_exception()
    assert view.sideways_overflow() <= 0
    assert view.cut_text() == []
    view.reveal()
    view.assert_no_exception()
    assert view.sideways_overflow() <= 0
    assert view.cut_text() == []


# Past every limit at once: the pages then explain the limits they applied.
OVER_THE_LIMITS = {"n": 1_000_000, "steps": 10**10, "seeds": 10_000}


@pytest.mark.parametrize("app_page", PAGES, ids=[page.stem for page in PAGES])
def test_the_learner_reads_no_internals(view: AppView, app_page):
    """No environment-variable name, no Streamlit machinery, no doubled phrase in the prose,
    with every limit passed (the notes on the limits show), every prediction revealed and
    every expander open."""
    view.goto(app_page.url_path, OVER_THE_LIMITS)
    view.assert_no_exception()
    found = internals(view.prose())
    view.reveal()
    view.open_expanders()
    view.assert_no_exception()
    assert found + internals(view.prose()) == []
