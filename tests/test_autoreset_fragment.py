"""Auto-reset: changing the counting run reruns only section 4 and the script, as in a browser.

Sections 1 to 3 (the timeline, the episode ends with the DISABLED demo, the lesson check) do
not depend on the counting settings, so a change there must not redraw them.
"""

from __future__ import annotations

from collections import Counter

import pytest
from page_apptest import counted, open_app_page, rerun_fragment, texts

from burgerbot.app.panels import autoreset as panels

PAGE = "app_pages/autoreset.py"
OUTSIDE = ("timeline", "episode_ends_table", "lesson_comparison", "disabled_demo_panel")
SMALL = {"n": "3", "steps": "20", "ck": "60"}


@pytest.fixture
def calls(monkeypatch) -> Counter:
    """How often each section was drawn."""
    counter: Counter = Counter()
    for name in (*OUTSIDE, "counting_results"):
        monkeypatch.setattr(panels, name, counted(getattr(panels, name), name, counter))
    return counter


def test_counting_controls_rerun_only_the_counting_section(calls, monkeypatch):
    app = open_app_page(PAGE, SMALL, timeout=300, expanders=True)
    # Opening the lazy expanders (as a learner clicking them) ran the page once more.
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
