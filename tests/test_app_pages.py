"""Every page of the app renders through the router without an exception."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "app_pages").glob("*.py"))


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_without_exception(page):
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60)
    app.run()
    app.switch_page(page)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    assert app.title, f"{page} shows no title"


@pytest.mark.parametrize("page", PAGES)
def test_every_page_offers_the_library_download_in_the_sidebar(page):
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60)
    app.run()
    app.switch_page(page)
    app.run()
    (button,) = app.sidebar.get("download_button")
    assert button.proto.label == "Download the burgerbot library"
    assert "pip install burgerbot-0.1.0-py3-none-any.whl" in button.proto.help


def test_a_page_keeps_its_settings_when_the_learner_comes_back():
    # Streamlit forgets the state of widgets that a run did not draw: leaving a page and
    # coming back must not reset its settings to the widgets' minimum.
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60)
    app.run()
    app.switch_page("app_pages/mistakes.py").run()
    app.slider(key="mistakes_n").set_value(7).run()
    app.switch_page("app_pages/sb3.py").run()
    app.switch_page("app_pages/mistakes.py").run()
    assert not app.exception
    assert app.slider(key="mistakes_n").value == 7
    assert app.query_params.get("n") == "7"
