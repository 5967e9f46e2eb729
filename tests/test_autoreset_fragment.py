"""Auto-reset: changing the counting run reruns only section 4 and the script, as in a browser.

Sections 1 to 3 (the timeline, the episode ends, the lesson check) do not depend on the
counting settings, so a change there must not redraw them.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from page_apptest import open_app_page, open_expanders, rerun_fragment, texts

PAGE = "app_pages/autoreset.py"
PAGE_PATH = Path(__file__).resolve().parent.parent / PAGE
OUTSIDE = ("timeline", "episode_ends_table", "lesson_comparison")
SMALL = {"n": "3", "steps": "20", "ck": "60"}


@pytest.fixture
def calls() -> Iterator[Counter]:
    """How often each section was drawn: the calls of the page's functions of those names.

    They are defined by the page itself (a script, not a module to patch), so each script
    thread counts them as they are entered.
    """
    counter: Counter = Counter()
    names = {*OUTSIDE, "counting_results"}

    def trace(frame, event, arg):
        code = frame.f_code
        if code.co_name in names and Path(code.co_filename).resolve() == PAGE_PATH:
            counter[code.co_name] += 1
        # No local trace function: only the calls are seen, not the lines.

    previous = threading.gettrace()
    threading.settrace(trace)
    yield counter
    threading.settrace(previous)


def test_counting_controls_rerun_only_the_counting_section(calls, monkeypatch):
    app = open_app_page(PAGE, SMALL, timeout=300)
    assert not any(calls.values()), calls  # nothing is drawn before the prediction's reveal
    app.button(key="autoreset_next_step_skip").click().run()
    open_expanders(app)
    # Skipping drew every section; opening the lazy expanders ran the page once more.
    assert all(calls[name] == 2 for name in (*OUTSIDE, "counting_results")), calls
    calls.clear()
    app.slider(key="autoreset_cn").set_value(3)
    rerun_fragment(app, monkeypatch, "counting")
    app.number_input(key="autoreset_ck").set_value(90)
    rerun_fragment(app, monkeypatch, "counting")
    assert not any(calls[name] for name in OUTSIDE), calls
    assert calls["counting_results"] == 2
    assert "In 90 calls, NEXT_STEP finished" in texts(app.markdown)
    assert "COUNT_ENVS = 3" in texts(app.code) and "COUNT_STEPS = 90" in texts(app.code)
    assert app.query_params["cn"] == "3" and app.query_params["ck"] == "90"
    assert not app.header  # the run sent section 4's controls and results only
    # A timeline setting is outside the fragment: the whole page follows it.
    app.run()
    app.radio(key="autoreset_mode").set_value("SAME_STEP").run()
    assert calls["timeline"] == 2
    assert "MODE = AutoresetMode.SAME_STEP" in texts(app.code)
