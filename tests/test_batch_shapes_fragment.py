"""Batch shapes: a step click reruns only the live view (buttons and latest call), as in a browser.

AppTest's own ``run()`` always runs the whole page. A browser sends the fragment's id with a
click on a widget inside an ``st.fragment``, and Streamlit then runs that fragment alone:
`rerun_fragment` does the same through AppTest's script runner. AppTest's element tree then
holds what that run sent, the fragment's elements only (a browser keeps the rest).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import pytest
from page_apptest import (
    component_data,
    html_text,
    live_heading,
    live_view_html,
    open_app_page,
    open_lazy_expander,
    page_calls,
    rerun_fragment,
    texts,
)
from streamlit.testing.v1 import AppTest

PAGE = "app_pages/batch_shapes.py"
SLOT = "_batch_shapes_env_slot"
OUTSIDE = ("settings_controls", "guess_panel", "spaces_panel")
"""Drawn by the full page only: they do not change from one step to the next."""
INSIDE = ("step_controls", "latest_call_panel", "script_panel")
"""The live view: redrawn on every click of its buttons."""
SCRIPT_LABEL = "Code: this view as a script you can run"


@pytest.fixture
def calls() -> Iterator[Counter]:
    """How often each panel was drawn (the page defines them anew on each full run)."""
    with page_calls(PAGE, OUTSIDE + INSIDE) as counter:
        yield counter


@pytest.fixture
def app(calls) -> Iterator[AppTest]:
    app = open_app_page(PAGE, {}, timeout=120)
    yield app
    app.session_state[SLOT].close()


def heading(app: AppTest) -> str:
    return live_heading(app)


def test_step_clicks_redraw_the_live_view_and_nothing_else(app, calls, monkeypatch):
    assert all(calls[name] == 1 for name in OUTSIDE + INSIDE), calls
    app.button(key="batch_shapes_step").click()
    rerun_fragment(app, monkeypatch)
    assert heading(app) == "Latest call: step 1 since the reset"
    app.button(key="batch_shapes_step10").click()
    rerun_fragment(app, monkeypatch)
    assert heading(app) == "Latest call: step 11 since the reset"
    # The live view names the STEPS for its call; its script (closed) is redrawn with it.
    assert "The script below gives this call with STEPS = 11." in html_text(live_view_html(app))
    assert not app.code
    assert [e.label for e in app.expander] == [SCRIPT_LABEL]
    assert all(calls[name] == 1 for name in OUTSIDE), calls
    assert all(calls[name] == 3 for name in INSIDE), calls
    # The run sent only the live view: the browser keeps the rest of the page as it was.
    assert not app.title and not app.number_input and not app.radio  # settings, predictions
    assert "Spaces: one env vs the whole batch" not in texts(app.markdown)
    assert "Key takeaways" not in texts(app.subheader)
    assert [t.key for t in app.toggle] == ["batch_shapes_history"]  # recent calls: on demand
    assert [b.key for b in app.button] == [
        "batch_shapes_reset",
        "batch_shapes_step",
        "batch_shapes_step10",
        "batch_shapes_play",
    ]


def test_the_page_holds_the_next_call_before_the_click_that_shows_it(app, monkeypatch):
    data = component_data(app, "batch_shapes_live")
    assert data["revealOn"] == ".st-key-batch_shapes_step button"
    run = app.session_state[SLOT].state["run"]
    for step in (1, 2, 3):
        upcoming = data["next"]
        assert html_text(upcoming).startswith(f"Latest call: step {step} since the reset")
        assert run.steps == step - 1 and run.prepared.number == step  # taken, not shown
        app.button(key="batch_shapes_step").click()
        rerun_fragment(app, monkeypatch)
        data = component_data(app, "batch_shapes_live")
        assert data["now"] == upcoming  # what the click showed at once is what the run says
    app.button(key="batch_shapes_step10").click()
    rerun_fragment(app, monkeypatch)
    data = component_data(app, "batch_shapes_live")
    assert html_text(data["now"]).startswith("Latest call: step 13 since the reset")
    assert html_text(data["next"]).startswith("Latest call: step 14 since the reset")
    app.button(key="batch_shapes_reset").click()
    rerun_fragment(app, monkeypatch)
    data = component_data(app, "batch_shapes_live")
    assert html_text(data["now"]).startswith("Latest call: reset")
    assert html_text(data["next"]).startswith("Latest call: step 1 since the reset")
    app.button(key="batch_shapes_play").click()
    rerun_fragment(app, monkeypatch)  # playing: Step once is off, so nothing is prepared
    assert component_data(app, "batch_shapes_live")["next"] is None


def test_a_prediction_is_checked_in_a_full_run_without_touching_the_live_run(
    app, calls, monkeypatch
):
    for _ in range(2):
        app.button(key="batch_shapes_step").click()
        rerun_fragment(app, monkeypatch)
    # AppTest's tree now holds the live view only; the browser still shows the questions.
    app.run()
    assert calls["guess_panel"] == 2 and not app.success
    app.radio(key="batch_shapes_shape_burgerbot_choice").set_value("(NUM_ENVS, k)").run()
    app.button(key="batch_shapes_shape_burgerbot_lock").click().run()  # outside the fragment
    assert not app.exception
    assert calls["guess_panel"] == 4
    assert app.success and "4 envs on axis 0" in app.success[0].value
    assert heading(app) == "Latest call: step 2 since the reset"  # the live run went on
    assert app.session_state[SLOT].state["run"].steps == 2  # and the check took no step


def test_play_and_pause_run_the_full_page_to_set_or_clear_the_timer(app, calls, monkeypatch):
    app.button(key="batch_shapes_play").click()
    rerun_fragment(app, monkeypatch)  # the fragment asks for a full run: the timer is set there
    assert calls["settings_controls"] == 2
    assert app.session_state[SLOT].state["run"].steps == 1
    rerun_fragment(app, monkeypatch)  # what the timer does: one more step, the live view only
    assert app.session_state[SLOT].state["run"].steps == 2
    assert calls["settings_controls"] == 2
    app.button(key="batch_shapes_pause").click()
    rerun_fragment(app, monkeypatch)
    assert calls["settings_controls"] == 3
    assert app.session_state[SLOT].state["playing"] is False
    assert not app.button(key="batch_shapes_step").disabled


def test_a_closed_env_makes_the_next_click_rebuild_it_in_a_full_run(app, calls, monkeypatch):
    app.session_state[SLOT].close()  # e.g. closed for being idle
    app.button(key="batch_shapes_step").click()
    rerun_fragment(app, monkeypatch)
    assert calls["settings_controls"] == 2
    envs = app.session_state[SLOT].env
    assert envs is not None and not envs.closed
    assert heading(app) == "Latest call: reset"


def shown_steps(app: AppTest) -> list[int]:
    """``STEPS = n`` of every script the page's last run drew."""
    return [int(n) for code in app.code for n in re.findall(r"^STEPS = (\d+)$", code.value, re.M)]


def test_the_script_gives_the_call_shown_after_every_step(app, monkeypatch):
    """Opened after some steps, then left open while stepping on: STEPS is the step count."""
    for _ in range(3):
        app.button(key="batch_shapes_step").click()
        rerun_fragment(app, monkeypatch)
    open_lazy_expander(app, monkeypatch, SCRIPT_LABEL)
    assert shown_steps(app) == [3]
    # AppTest's tree now holds the expander alone (a browser keeps the rest): a full run puts
    # the buttons back, with the expander still open.
    app.run()
    assert shown_steps(app) == [3]
    for clicks, key in enumerate(["batch_shapes_step", "batch_shapes_step10", "batch_shapes_step"]):
        app.button(key=key).click()
        rerun_fragment(app, monkeypatch)
        steps = app.session_state[SLOT].state["run"].steps
        assert steps == (4, 14, 15)[clicks]
        assert heading(app) == f"Latest call: step {steps} since the reset"
        assert shown_steps(app) == [steps]
    app.button(key="batch_shapes_reset").click()
    rerun_fragment(app, monkeypatch)
    assert shown_steps(app) == [0]
