"""Batch shapes: the stepper pages through calls in the browser, and a request of it reruns
only the live view (the stepper, whose calls hold their charts), as in a browser.

AppTest's own ``run()`` always runs the whole page. A browser sends the fragment's id with a
request of a component inside an ``st.fragment``, and Streamlit then runs that fragment
alone: `stepper_request` does the same through AppTest's script runner. AppTest's element
tree then holds what that run sent, the fragment's elements only (a browser keeps the rest).
AppTest runs no JavaScript: what the browser shows without asking is checked from the data
the stepper holds (the browser tier clicks the stepper itself).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from page_apptest import (
    component_data,
    html_text,
    live_heading,
    live_view_html,
    open_app_page,
    page_calls,
    rerun_fragment,
    skip_predictions,
    stepper_request,
    texts,
)
from streamlit.testing.v1 import AppTest

from burgerbot.app.call_stepper import LOW

PAGE = "app_pages/batch_shapes.py"
SLOT = "_batch_shapes_env_slot"
KEY = "batch_shapes_live"
OUTSIDE = ("settings_controls", "guess_panel", "spaces_panel")
"""Drawn by the full page only: they do not change from one step to the next."""
INSIDE = ("latest_call_panel",)
"""The live view: redrawn on every request of its stepper."""
SCRIPT_LABEL = "Code: this view as a script you can run"


@pytest.fixture
def calls() -> Iterator[Counter]:
    """How often each panel was drawn (the page defines them anew on each full run)."""
    with page_calls(PAGE, OUTSIDE + INSIDE) as counter:
        yield counter


@pytest.fixture
def app(calls) -> Iterator[AppTest]:
    # A learner who skips the questions: the live view is drawn once they are answered.
    app = skip_predictions(open_app_page(PAGE, {}, timeout=120))
    calls.clear()
    calls.update(dict.fromkeys(OUTSIDE + INSIDE, 1))  # counted from the run that shows it all
    yield app
    app.session_state[SLOT].close()


def heading(app: AppTest) -> str:
    return live_heading(app)


def headings(views: list[str]) -> list[str]:
    return [html_text(view).split("\n")[0] for view in views]


def request(app: AppTest, kind: str, reached: int | None = None, target: int = 0) -> AppTest:
    return stepper_request(app, KEY, kind, reached, target)


def test_requests_redraw_the_live_view_and_nothing_else(app, calls):
    assert all(calls[name] == 1 for name in OUTSIDE + INSIDE), calls
    request(app, "go", target=1)  # a Step once past the calls held
    assert heading(app) == "Latest call: step 1 since the reset"
    request(app, "go", target=11)  # a Step ×10 past them
    assert heading(app) == "Latest call: step 11 since the reset"
    # The live view names the STEPS for its call; the script below it stays as it was.
    assert "the script below with STEPS = 11" in html_text(live_view_html(app))
    assert not app.code and not app.expander
    assert all(calls[name] == 1 for name in OUTSIDE), calls
    assert all(calls[name] == 3 for name in INSIDE), calls
    # The run sent only the live view: the browser keeps the rest of the page as it was.
    assert not app.title and not app.number_input and not app.radio  # settings, predictions
    assert "Spaces: one env vs the batch" not in texts(app.markdown)
    assert "Key takeaways" not in texts(app.header)
    assert [t.key for t in app.toggle] == ["batch_shapes_history"]  # recent calls: on demand
    assert not app.button  # the steps are the stepper's own buttons, not Streamlit's
    data = component_data(app, KEY)
    assert [b[0] for b in data["buttons"]] == ["reset", "step", "steps", "play"]
    assert data["stepTimes"] == 10 and not data["resetHere"] and not data["disabled"]


def test_the_stepper_holds_the_next_calls_before_the_clicks_that_show_them(app):
    data = component_data(app, KEY)
    run = app.session_state[SLOT].state["run"]
    assert (data["first"], data["at"], data["more"], data["low"]) == (0, 0, True, LOW)
    assert len(data["calls"]) == 21  # the reset and the next 20 calls, taken, not shown
    assert headings(data["calls"]) == ["Latest call: reset"] + [
        f"Latest call: step {step} since the reset" for step in range(1, 21)
    ]
    assert run.steps == 0 and [c.number for c in run.ahead] == list(range(1, 21))
    # The browser showed 17 calls it held, then asked for more (fewer than LOW left).
    request(app, "more", reached=17)
    after = component_data(app, KEY)
    assert (after["first"], after["at"], after["run"]) == (17, 17, data["run"])
    assert after["serial"] != data["serial"]  # new data: the browser drops its request
    assert after["calls"][:4] == data["calls"][17:21]  # what the browser showed stays true
    assert headings(after["calls"])[-1] == "Latest call: step 37 since the reset"
    assert run.steps == 17
    # A Step ×10 past the calls held: the run takes the steps now and shows the last one.
    request(app, "go", reached=35, target=45)
    assert heading(app) == "Latest call: step 45 since the reset" and run.steps == 45
    # Reset: a new run for the browser, which starts at its reset.
    request(app, "reset")
    reset = component_data(app, KEY)
    assert reset["run"] != data["run"] and heading(app) == "Latest call: reset"
    assert reset["calls"] == data["calls"]  # the same seed: the same calls as the first time
    # Play: the server steps on a timer, from the call the browser reached.
    request(app, "play", reached=3)
    playing = component_data(app, KEY)
    assert heading(app) == "Latest call: step 4 since the reset"
    assert len(playing["calls"]) == 1 and not playing["more"]
    assert playing["disabled"] == ["step", "steps"]
    assert [b[:2] for b in playing["buttons"]][-1] == ["pause", "⏸ Pause"]


def fold_rows(view: str, name: str) -> list[list[str]]:
    """The body rows of the "Data as a table" fold ``name`` in a view's HTML, as text."""
    (fold,) = re.findall(rf'<details data-name="{name}".*?</details>', view, re.S)
    body = fold.split("<tbody>", 1)[1]
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]


def charted(env: str, view: str, observations: np.ndarray) -> None:
    """Assert that ``view`` holds its chart's data, from ``observations`` (the call's)."""
    if env == "CartPole-v1":
        rows = fold_rows(view, "poles")
        assert [float(r[1]) for r in rows] == pytest.approx(observations[:, 2], rel=1e-3)
        assert view.count('<rect class="bar"') == len(observations)
        return
    if env == "FrozenLake-v1":
        where = Counter(divmod(int(s), 4) for s in observations)
    else:
        where = Counter((int(r), int(c)) for r, c in observations[:, :2])
    rows = fold_rows(view, "cells")
    shown = {(int(r), int(c)): int(n) for r, c, _kind, n in rows if int(n)}
    assert shown == dict(where)


@pytest.mark.parametrize(
    ("env", "n"), [("FrozenLake-v1", 4), ("CartPole-v1", 4), ("BurgerBot", 64)]
)
def test_a_chart_view_is_paged_in_the_browser_too(calls, env, n):
    app = skip_predictions(open_app_page(PAGE, {"env": env, "n": str(n)}, timeout=120))
    try:
        data = component_data(app, KEY)
        run = app.session_state[SLOT].state["run"]
        # The chart is part of each call's view: the stepper holds a stretch of calls.
        assert len(data["calls"]) > LOW and data["more"] and data["low"] == LOW
        held = [run.latest, *run.ahead]
        assert len(held) == len(data["calls"]) and run.steps == 0
        for call, view in zip(held, data["calls"], strict=True):
            charted(env, view, call.observations)
        assert not app.get("vega_lite_chart") and not app.get("arrow_vega_lite_chart")
        # Past the calls held, the next stretch comes with its charts.
        request(app, "more", reached=len(held) - 2)
        after = component_data(app, KEY)
        assert after["calls"][:2] == data["calls"][-2:]
        for call, view in zip([run.latest, *run.ahead], after["calls"], strict=True):
            charted(env, view, call.observations)
    finally:
        app.session_state[SLOT].close()


def test_a_prediction_is_checked_in_a_full_run_without_touching_the_live_run(calls):
    """A learner who answered both questions (a skipped one cannot be answered later),
    steps, then changes an answer: the check is redone outside the live view."""
    app = open_app_page(PAGE, {}, timeout=120)
    try:
        shape = "batch_shapes_shape_burgerbot"
        for pid, choice in ((shape, "(k, NUM_ENVS)"), ("batch_shapes_dtype_burgerbot", "int64")):
            app.radio(key=f"{pid}_choice").set_value(choice).run()
            app.button(key=f"{pid}_lock").click().run()
        assert len(app.warning) == 1 and len(app.success) == 1  # a wrong shape, a right dtype
        for step in (1, 2):
            request(app, "go", target=step)
        # AppTest's tree now holds the live view only; the browser still shows the questions.
        app.run()
        calls.clear()
        app.radio(key=f"{shape}_choice").set_value("(NUM_ENVS, k)").run()
        app.button(key=f"{shape}_lock").click().run()  # outside the fragment
        assert not app.exception
        assert calls["guess_panel"] == 2
        assert len(app.success) == 2 and "4 observations" in app.success[0].value
        assert heading(app) == "Latest call: step 2 since the reset"  # the live run went on
        assert app.session_state[SLOT].state["run"].steps == 2  # and the check took no step
    finally:
        app.session_state[SLOT].close()


def test_play_and_pause_run_the_full_page_to_set_or_clear_the_timer(app, calls, monkeypatch):
    request(app, "play")  # the fragment asks for a full run: the timer is set there
    assert calls["settings_controls"] == 2
    assert app.session_state[SLOT].state["run"].steps == 1
    rerun_fragment(app, monkeypatch)  # what the timer does: one more step, the live view only
    assert app.session_state[SLOT].state["run"].steps == 2
    assert calls["settings_controls"] == 2
    request(app, "pause")
    assert calls["settings_controls"] == 3
    assert app.session_state[SLOT].state["playing"] is False
    assert not component_data(app, KEY)["disabled"]


def test_a_closed_env_makes_the_next_request_rebuild_it_in_a_full_run(app, calls):
    app.session_state[SLOT].close()  # e.g. closed for being idle
    request(app, "go", target=1)
    assert calls["settings_controls"] == 2
    envs = app.session_state[SLOT].env
    assert envs is not None and not envs.closed
    assert heading(app) == "Latest call: reset"


def shown_steps(app: AppTest) -> list[int]:
    """``STEPS = n`` of every script the page's last run drew."""
    return [int(n) for code in app.code for n in re.findall(r"^STEPS = (\d+)$", code.value, re.M)]


def test_the_script_is_right_whichever_call_the_stepper_shows(app):
    """The script's STEPS is the one line to change, and every call names its value: no call
    the learner steps to in the browser can leave the script saying something else."""
    assert shown_steps(app) == [0]  # the script's expander draws it, open or not
    code = next(c.value for c in app.code if "STEPS = 0" in c.value)
    assert "STEPS = N" in code  # the comment above the line says how to pick N
    app.run()  # AppTest's tree held the expander alone (a browser keeps the rest)
    for target in (3, 14, 15):
        request(app, "go", target=target)
        assert f"with STEPS = {target})" in html_text(live_view_html(app))
    app.run()
    assert shown_steps(app) == [0]  # the same script, whichever call was reached
