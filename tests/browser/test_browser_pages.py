"""Every page of the app in a real Chromium: it loads, shows no exception box, and its main
interaction works; at load and once revealed, axe finds nothing, and nothing is cut or spills
sideways at 1280 and 390 px (charts at 760 px too). Parametrised over `streamlit_app.PAGES`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from app_driver import AppView, axe_violations, planned_pages
from interactions import MAIN_INTERACTIONS

from burgerbot.app.library_wheel import library_wheel

pytestmark = pytest.mark.browser

PAGES = planned_pages()


@pytest.fixture(params=PAGES, ids=[page.stem for page in PAGES])
def app_page(request):
    page = request.param
    return page


def test_page_loads_without_exception(view: AppView, app_page, report):
    seconds = view.goto(app_page.url_path)
    view.assert_no_exception()
    assert view.title(), f"{app_page.file} shows no title"
    view.screenshot(app_page.stem)
    assert not view.charts_past_their_column()
    assert view.sideways_overflow() <= 0
    assert view.cut_text() == []
    report.record("render_s_first_visit", app_page.stem, round(seconds, 2))
    assert not view.console_errors, view.console_errors
    assert view.headings_out_of_order() == []
    check_accessibility(view, app_page.stem, "at load", report)
    # The same page on a tablet, then a phone.
    view.page.set_viewport_size({"width": 760, "height": 900})
    assert not view.charts_past_their_column()
    on_a_phone(view)


def on_a_phone(view: AppView) -> None:
    """At 390 px nothing is cut or spills sideways, and the headings go in order (given up to
    3 s to settle after a resize: code blocks take about a second to fit the new width)."""
    view.page.set_viewport_size({"width": 390, "height": 844})
    settled = time.monotonic() + 3
    while (view.sideways_overflow() > 0 or view.cut_text()) and time.monotonic() < settled:
        time.sleep(0.2)
    assert view.sideways_overflow() <= 0
    assert view.cut_text() == []
    assert view.headings_out_of_order() == []


def test_main_interaction(view: AppView, app_page, report):
    interaction = MAIN_INTERACTIONS.get(app_page.file)
    assert interaction is not None, f"no main interaction written for {app_page.path}"
    view.goto(app_page.url_path)
    view.assert_no_exception()
    seconds = interaction(view)
    view.assert_no_exception()
    view.screenshot(f"{app_page.stem}-after-interaction")
    assert not view.charts_past_their_column()
    assert view.sideways_overflow() <= 0
    assert view.cut_text() == []
    report.record("main_interaction_s", app_page.stem, round(seconds, 2))
    assert not view.console_errors, view.console_errors
    view.reveal()  # any prediction the interaction left unanswered
    check_accessibility(view, app_page.stem, "revealed", report)
    on_a_phone(view)  # the revealed page, resized


def check_accessibility(view: AppView, stem: str, when: str, report) -> None:
    """axe-core finds nothing of the app's on the page (issue 38): WCAG 2.x A/AA and best
    practice, Streamlit's own markup excepted (`app_driver.STREAMLIT_OWN_RULES`)."""
    found = axe_violations(view.page)
    report.record(f"axe_violations_{when.replace(' ', '_')}", stem, sum(map(len, found.values())))
    assert not found, f"{stem} {when}: {found}"


def test_every_planned_page_is_routed(view: AppView):
    """The sidebar lists every page, under its planned title, in the router's order."""
    view.goto("")
    nav = view.page.locator('[data-testid="stSidebarNav"]')
    shown = nav.locator('[data-testid="stSidebarNavLink"]').all_inner_texts() if nav.count() else []
    expected = [page.title for page in PAGES]
    # Each link reads "<icon>\n\n<title>".
    assert [text.strip().splitlines()[-1] for text in shown] == expected


def test_the_sidebar_serves_the_library_wheel_built_from_this_code(view: AppView):
    """The bytes Chromium downloads are the wheel that tests/test_packaging.py installs."""
    view.goto("")
    sidebar = view.page.locator('[data-testid="stSidebar"]')
    button = sidebar.get_by_role("button", name="Download the burgerbot library")
    with view.page.expect_download() as download_info:
        button.click()
    download = download_info.value
    wheel = library_wheel()
    assert download.suggested_filename == wheel.file_name
    assert Path(download.path()).read_bytes() == wheel.data
    view.assert_no_exception()
