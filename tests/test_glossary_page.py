"""The Glossary page: every term has its anchor, the prediction is checked live, takeaways."""

from __future__ import annotations

import multiprocessing

import pytest
from page_apptest import open_app_page, prediction_checks, texts

from burgerbot.app.glossary import LESSON, TERMS, term_link

PID = "glossary_start_method"


def test_every_term_is_a_heading_with_the_anchor_the_pages_link_to():
    app = open_app_page("app_pages/glossary.py", None, timeout=60)
    anchors = {h.proto.anchor for h in app.subheader}
    assert set(TERMS) <= anchors
    # The terms are h3s under an h2 of their own, never right under the page's h1.
    assert [h.value for h in app.header] == [
        "Terms",
        "How the app judges the lesson's claims",
        "Key takeaways",
    ]
    assert term_link("spawn").endswith("(glossary#spawn)")


@pytest.mark.parametrize("right", [True, False])
def test_the_prediction_is_checked_against_this_machines_start_method(right):
    truth = multiprocessing.get_all_start_methods()[0]
    choice = truth if right else next(m for m in ("fork", "spawn", "forkserver") if m != truth)
    app = open_app_page("app_pages/glossary.py", None, timeout=60)
    assert "Key takeaways" in texts(app.header) and f"'{truth}' on this" not in texts(app.markdown)
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception
    assert prediction_checks(app) == [(choice, truth)]
    assert "1 made" in texts(app.sidebar.caption)
    assert f"'{truth}' on this machine" in texts(app.markdown)


def test_each_entry_says_where_it_is_first_taught():
    app = open_app_page("app_pages/glossary.py", None, timeout=60)
    # Each link's URL path: the page's stem, empty for the default page (Home).
    links = [element.proto.page or "home" for element in app.main.get("page_link")]
    taught = [term.taught for term in TERMS.values() if term.taught != LESSON]
    assert links == taught
    lesson = sum(term.taught == LESSON for term in TERMS.values())
    assert texts(app.caption).count("First explained in the lesson itself.") == lesson
