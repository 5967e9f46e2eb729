"""Opening one page of the app in AppTest, as a visitor following a link to it would."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import partial, wraps
from pathlib import Path
from typing import Any

import pytest
from streamlit.runtime.scriptrunner import RerunData
from streamlit.testing.v1 import AppTest, local_script_runner

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


def rerun_fragment(app: AppTest, monkeypatch: pytest.MonkeyPatch) -> AppTest:
    """Run ``app`` as a browser does after a widget inside the page's one fragment changed."""
    # AppTest has no public way to name its fragments; the page has exactly one.
    (fragment_id,) = app._fragment_storage._fragments
    with monkeypatch.context() as patch:
        patch.setattr(
            local_script_runner, "RerunData", partial(RerunData, fragment_id_queue=[fragment_id])
        )
        app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def counted(function: Callable[..., Any], name: str, calls: Counter) -> Callable[..., Any]:
    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        calls[name] += 1
        return function(*args, **kwargs)

    return wrapper
