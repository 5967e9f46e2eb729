"""The "Why batches help" page through the router, via AppTest."""

from __future__ import annotations

import json
import re

import pytest
from page_apptest import (
    open_app_page,
    prediction_checks,
    prediction_score,
    texts,
)
from sentence_facts import quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.why_batches import (
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    buffer_drawing,
    calls_explanation,
    drawn_text,
    takeaways,
)
from burgerbot.app.scripts.why_batches import buffer_script
from burgerbot.buffers import buffer_layout, rollout_buffer

PAGE_FILE = "app_pages/why_batches.py"
KEY = {name: f"why_batches_{name}" for name in ("n", "batch", "mode", "bseed")}


def pid(batch: int, n: int) -> str:
    return f"why_batches_calls_{batch}_{n}"


def open_page(query: dict[str, str] | None = None, *, skip: bool = False) -> AppTest:
    """The page; with ``skip`` the learner has skipped its prediction (the batch is shown)."""
    app = open_app_page(PAGE_FILE, query, timeout=300, expanders=True)
    if skip:
        batch, n = int((query or {}).get("batch", 2048)), int((query or {}).get("n", 4))
        app.button(key=f"{pid(batch, n)}_skip").click().run()
        assert not app.exception, [e.value for e in app.exception]
    return app


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def chart_specs(app: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]


def shows_the_buffer(app: AppTest, batch: int, n: int, seed: int, mode: str) -> None:
    """The page shows what is computed from the library's own buffer for these settings: what
    the picture draws (its cells, one per row of the first calls), and the script that fills it."""
    layout = buffer_layout(batch, n)
    frame = rollout_buffer(batch, n, seed, mode)
    drawing = buffer_drawing(layout)
    assert drawn_text(layout, drawing) in texts(app.markdown)
    (picture,) = chart_specs(app)
    drawn = frame[(frame["step"] <= drawing.drawn_steps) & (frame["env"] < drawing.drawn_envs)]
    assert picture["encoding"]["x"]["scale"]["domain"] == list(range(drawing.drawn_envs))
    assert picture["encoding"]["y"]["scale"]["domain"] == list(range(1, drawing.drawn_steps + 1))
    assert len(drawn) == drawing.drawn_envs * drawing.drawn_steps
    assert buffer_script(batch, n, seed, mode).strip() in texts(app.code)


def shown_text(app: AppTest) -> str:
    """Everything the page states in words, but the prediction's own options."""
    parts = [app.markdown, app.caption, app.info, app.success, app.warning, app.header]
    return "\n".join(texts(p) for p in parts) + "\n" + texts(app.metric)


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page()
    calls = f"{buffer_layout(2048, 4).step_calls:,}"  # the deciding fact: 512 calls
    assert calls in app.radio(key=f"{pid(2048, 4)}_choice").options  # asked, among others
    before = shown_text(app)
    assert not re.search(rf"(?<![\d,]){calls}(?![\d,])", before), before
    assert not app.metric and not chart_specs(app)
    assert not texts(app.sidebar.markdown).count(calls)  # the sidebar's topics neither
    assert "Key takeaways" in [s.value for s in app.header]  # the heading, no bullets
    assert takeaways(2048, 4, 512, None)[1] not in before

    app.button(key=f"{pid(2048, 4)}_skip").click().run()
    after = shown_text(app)
    assert metrics(app)["step() calls"] == calls
    assert takeaways(2048, 4, 512, None)[1] in after
    assert prediction_checks(app) == []  # skipped: nothing to check


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page(skip=True)


def test_defaults_show_the_lessons_numbers(page):
    assert page.title[0].value == "Why batches help"
    shown = metrics(page)
    assert shown["step() calls"] == "512"
    assert shown["buffer shape (steps, envs)"] == "(512, 4)"
    frame = rollout_buffer(2048, 4, 0, "NEXT_STEP")
    resets = int((frame["event"] == "reset").sum())
    shows_the_buffer(page, 2048, 4, 0, "NEXT_STEP")
    # the verdict: 512 calls, and the run's reset rows (to mask out) counted from the run
    assert calls_explanation(2048, 4, 512, resets) in texts(page.info)
    assert quotes(texts(page.info), 2048, 4, 512, resets)
    assert drawn_text(buffer_layout(2048, 4), buffer_drawing(buffer_layout(2048, 4))) == (
        "the first 16 of 512 step() calls, all 4 envs"  # its one wording check
    )
    (heatmap,) = chart_specs(page)
    assert heatmap["mark"]["type"] == "point"
    assert not page.warning


def test_no_goal_count_is_shown_goal_scaling_asks_about_them(page):
    """Goal scaling (later on the path) asks a prediction about goal counts: this page gives
    no count of goals, in its text or its script's output."""
    shown = shown_text(page) + texts(page.code)
    assert not re.search(r"\d[\d,]*\*{0,2} goals?\b", shown), shown
    assert not re.search(r"goals?\W+\d", shown), shown


def test_num_envs_batch_mode_and_seed_change_the_buffer(page):
    page.slider(key=KEY["n"]).set_value(16).run()
    assert metrics(page)["step() calls"] == "128"
    shows_the_buffer(page, 2048, 16, 0, "NEXT_STEP")
    assert page.query_params["n"] == "16"

    page.number_input(key=KEY["batch"]).set_value(1000).run()
    # 63 calls of 16 envs collect 1,008 rows, 8 more than the batch of 1,000
    assert metrics(page)["buffer shape (steps, envs)"] == "(63, 16)"
    shows_the_buffer(page, 1000, 16, 0, "NEXT_STEP")

    page.radio(key=KEY["mode"]).set_value("SAME_STEP").run()
    shows_the_buffer(page, 1000, 16, 0, "SAME_STEP")
    # SAME_STEP leaves no reset rows: the takeaways count none
    assert rollout_buffer(1000, 16, 0, "SAME_STEP")["event"].ne("reset").all()
    assert "\n".join(f"- {b}" for b in takeaways(1000, 16, 63, None)) in texts(page.markdown)

    page.number_input(key=KEY["bseed"]).set_value(9).run()
    shows_the_buffer(page, 1000, 16, 9, "SAME_STEP")
    assert page.query_params["bseed"] == "9" and page.query_params["mode"] == "SAME_STEP"

    page.slider(key=KEY["n"]).set_value(256).run()
    shows_the_buffer(page, 1000, 256, 9, "SAME_STEP")
    assert buffer_drawing(buffer_layout(1000, 256)).drawn_envs == MAX_DRAWN_ENVS == 12
    # the clipped picture is said so, with its limits
    assert quotes(texts(page.markdown), 4, MAX_DRAWN_ENVS, 256)
    assert MAX_DRAWN_STEPS == 16
    assert buffer_layout(1000, 256).step_calls == 4
    assert metrics(page)["buffer shape (steps, envs)"] == "(4, 256)"
    assert not page.exception


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"n": "abc"}, "`n=abc` is not a whole number: using 4.", ("n", 4)),
        ({"n": "5000"}, "`n=5000` is outside 1..256: using 256.", ("n", 256)),
        ({"mode": "sometimes"}, "is not one of NEXT_STEP, SAME_STEP", ("mode", "NEXT_STEP")),
        ({"zzz": "1"}, "Ignored unknown URL settings: `zzz`.", ("n", 4)),
    ],
)
def test_bad_query_params_show_a_note(query, note, check):
    app = open_page(query)
    assert note in texts(app.info)
    name, used = check
    widget = {"n": app.slider, "mode": app.radio}[name](key=KEY[name])
    assert widget.value == used


def calls_keys(batch: int, n: int) -> tuple[str, str]:
    return f"{pid(batch, n)}_choice", f"{pid(batch, n)}_lock"


@pytest.mark.parametrize(("batch", "n"), [(2048, 4), (1000, 16)])
def test_the_calls_prediction_is_checked_right_and_wrong(batch, n):
    app = open_page({"n": str(n), "batch": str(batch)})
    choice, lock = calls_keys(batch, n)
    truth = f"{buffer_layout(batch, n).step_calls:,}"  # from the library, not the page
    wrong = next(option for option in app.radio(key=choice).options if option != truth)
    assert not app.metric and prediction_checks(app) == []  # the batch waits for the answer
    assert prediction_score(app) == (0, 0, 0)

    app.radio(key=choice).set_value(wrong).run()
    app.button(key=lock).click().run()
    assert prediction_checks(app) == [(wrong, truth)]
    assert prediction_score(app) == (1, 0, 1)
    assert metrics(app)["step() calls"] == truth

    app.radio(key=choice).set_value(truth).run()
    app.button(key=lock).click().run()
    assert prediction_checks(app) == [(truth, truth)]
    assert prediction_score(app) == (1, 1, 1)
    assert not app.exception


def test_the_key_takeaways_end_the_page_and_follow_the_batch():
    app = open_page({"n": "16", "mode": "SAME_STEP"}, skip=True)
    assert app.header[-1].value == "Key takeaways"
    bullets = texts(app.markdown)
    calls = buffer_layout(2048, 16).step_calls
    # SAME_STEP: no reset rows to count
    assert "\n".join(f"- {b}" for b in takeaways(2048, 16, calls, None)) in bullets
    # Other settings after that answer: the new batch shows at once, its question stays open
    app.slider(key=KEY["n"]).set_value(8).run()
    assert metrics(app)["step() calls"] == "256"
    assert app.button(key=f"{pid(2048, 8)}_lock").label == "Lock in"
    assert "\n".join(f"- {b}" for b in takeaways(2048, 8, 256, None)) in texts(app.markdown)
    assert not app.exception
