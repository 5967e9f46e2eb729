"""Opening one page of the app in AppTest, as a visitor following a link to it would."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

ROUTER = Path(__file__).resolve().parent.parent / "streamlit_app.py"


def open_app_page(page_file: str, query: dict[str, str] | None, timeout: float) -> AppTest:
    """Run the router (home page first), then switch to ``page_file`` with ``query`` as its URL.

    AppTest keeps the home page's URL settings across ``switch_page`` (a browser does not),
    so they are cleared before the page's own query is set.
    """
    app = AppTest.from_file(str(ROUTER), default_timeout=timeout)
    app.run()
    app.query_params.clear()
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.switch_page(page_file)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def texts(elements) -> str:
    """The values of some AppTest elements, one per line."""
    return "\n".join(str(e.value) for e in elements)
