"""Fixtures for the real-browser tests: one `streamlit run` server and one Chromium per session.

Where `/usr/bin/chromium` (or Playwright) is missing the browser tests are skipped with a
note, except in CI (``CI=true``), where they fail: CI installs Chromium and must run them.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from app_driver import (
    ARTIFACTS,
    AppView,
    Report,
    StreamlitServer,
    megabytes,
    new_context,
    require_browser,
)

from tools.browser_runs import launch_chromium

_LOADED_AT = time.time()


@pytest.fixture(scope="session")
def report() -> Report:
    """Figures measured by the tests (see ``test-artifacts/browser-report.json``)."""
    return Report()


@pytest.fixture(scope="session")
def playwright_instance() -> Iterator[Any]:
    require_browser()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="session")
def browser(playwright_instance) -> Iterator[Any]:
    chromium = launch_chromium(playwright_instance)
    yield chromium
    chromium.close()


@pytest.fixture(scope="session")
def server(browser, report) -> Iterator[StreamlitServer]:
    """The app under `streamlit run`, started once; its output goes to test-artifacts/."""
    started = time.monotonic()
    app = StreamlitServer.start(log_path=ARTIFACTS / "streamlit-server.log")
    # Cold start: process start to the first page rendered in the browser.
    context = new_context(browser)
    try:
        view = AppView(context.new_page(), app)
        view.goto("")
        view.assert_no_exception()
    finally:
        context.close()
    report.record("cold_start", "server_healthy_s", round(app.healthy_after_s, 2))
    report.record("cold_start", "first_page_rendered_s", round(time.monotonic() - started, 2))
    report.record("memory", "server_rss_after_cold_start_mb", megabytes(app.rss()))
    yield app
    app.stop()


@pytest.fixture
def context(browser) -> Iterator[Any]:
    """A fresh browser context (its own cookies, so its own Streamlit session)."""
    ctx = new_context(browser)
    yield ctx
    ctx.close()


@pytest.fixture
def view(context, server) -> AppView:
    """One tab on the app."""
    return AppView(context.new_page(), server)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    path = ARTIFACTS / "browser-report.json"
    if path.exists() and path.stat().st_mtime > _LOADED_AT:
        terminalreporter.write_sep("-", "browser test figures (test-artifacts/browser-report.json)")
        terminalreporter.write_line(path.read_text().rstrip())
