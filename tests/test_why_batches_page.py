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
from sentence_facts import bold, quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.why_batches import (
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    batch_counts_text,
    buffer_drawing,
    drawn_text,
    helps_points,
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
    """The page shows the sentences computed from the library's own buffer for these settings:
    what the picture draws, what the batch holds, and the script that fills it."""
    layout = buffer_layout(batch, n)
    frame = rollout_buffer(batch, n, seed, mode)
    markdown = texts(app.markdown)
    assert drawn_text(layout, buffer_drawing(layout)) in markdown
    assert batch_counts_text(frame["event"].value_counts(), layout.collected, mode) in markdown
    assert buffer_script(batch, n, seed, mode).strip() in texts(app.code)


def shown_text(app: AppTest) -> str:
    """Everything the page states in words, but the prediction's own options."""
    parts = [app.markdown, app.caption, app.info, app.success, app.warning, app.subheader]
    return "\n".join(texts(p) for p in parts) + "\n" + texts(app.metric)


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page()
    calls = f"{buffer_layout(2048, 4).step_calls:,}"  # the deciding fact: 512 calls
    assert calls in app.radio(key=f"{pid(2048, 4)}_choice").options  # asked, among others
    before = shown_text(app)
    assert not re.search(rf"(?<![\d,]){calls}(?![\d,])", before), before
    assert not app.metric and not chart_specs(app)
    assert not texts(app.sidebar.markdown).count(calls)  # the sidebar's topics neither
    assert "Key takeaways" in [s.value for s in app.subheader]  # the heading, no bullets
    assert takeaways(2048, 4, 512, None)[1] not in before

    app.button(key=f"{pid(2048, 4)}_skip").click().run()
    after = shown_text(app)
    assert metrics(app)["step() calls to fill the batch"] == calls
    assert helps_points(2048, 4, 512)[0] in texts(app.markdown)
    assert takeaways(2048, 4, 512, None)[1] in after
    assert prediction_checks(app) == []  # skipped: nothing to check


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page(skip=True)


def test_defaults_show_the_lessons_numbers(page):
    assert page.title[0].value == "Why batches help"
    shown = metrics(page)
    assert shown["step() calls to fill the batch"] == "512"
    assert shown["rows (env-steps) per call"] == "4"
    assert shown["buffer shape (steps, envs)"] == "(512, 4)"
    frame = rollout_buffer(2048, 4, 0, "NEXT_STEP")
    assert shown["episodes that ended in it"] == f"{int(frame['ends_episode'].sum()):,}"
    resets = int((frame["event"] == "reset").sum())
    shows_the_buffer(page, 2048, 4, 0, "NEXT_STEP")
    # the 512 calls' 2,048 rows: transitions and reset rows, counted from the run
    counts = batch_counts_text(frame["event"].value_counts(), 2048, "NEXT_STEP")
    assert bold(counts)[-2:] == [f"{resets:,}", f"{2048 - resets:,} transitions"]
    assert drawn_text(buffer_layout(2048, 4), buffer_drawing(buffer_layout(2048, 4))) == (
        "Drawn: the first 64 of 512 step() calls for all 4 envs."  # its one wording check
    )
    (heatmap,) = chart_specs(page)
    assert heatmap["layer"][0]["mark"]["type"] == "rect"
    assert not page.warning


def test_num_envs_batch_mode_and_seed_change_the_buffer(page):
    page.slider(key=KEY["n"]).set_value(16).run()
    assert metrics(page)["step() calls to fill the batch"] == "128"
    shows_the_buffer(page, 2048, 16, 0, "NEXT_STEP")
    assert page.query_params["n"] == "16"

    page.number_input(key=KEY["batch"]).set_value(1000).run()
    assert metrics(page)["buffer shape (steps, envs)"] == "(63, 16)"
    # 63 calls of 16 envs collect 1,008 rows, 8 more than the batch of 1,000
    assert any(quotes(c.value, 1000, 16, 63, 1008, 8) for c in page.caption)
    shows_the_buffer(page, 1000, 16, 0, "NEXT_STEP")

    page.radio(key=KEY["mode"]).set_value("SAME_STEP").run()
    shows_the_buffer(page, 1000, 16, 0, "SAME_STEP")
    same_step = rollout_buffer(1000, 16, 0, "SAME_STEP")["event"].value_counts()
    # moves, turns or stops, hits, goals: SAME_STEP leaves no reset rows to count
    assert same_step.get("reset", 0) == 0
    assert len(bold(batch_counts_text(same_step, 1008, "SAME_STEP"))) == 4

    page.number_input(key=KEY["bseed"]).set_value(9).run()
    frame = rollout_buffer(1000, 16, 9, "SAME_STEP")
    assert metrics(page)["episodes that ended in it"] == str(int(frame["ends_episode"].sum()))
    shows_the_buffer(page, 1000, 16, 9, "SAME_STEP")
    assert page.query_params["bseed"] == "9" and page.query_params["mode"] == "SAME_STEP"

    page.slider(key=KEY["n"]).set_value(256).run()
    shows_the_buffer(page, 1000, 256, 9, "SAME_STEP")
    assert buffer_drawing(buffer_layout(1000, 256)).drawn_envs == MAX_DRAWN_ENVS == 64
    # the clipped picture is said so, with its limits
    assert any(quotes(c.value, MAX_DRAWN_STEPS, MAX_DRAWN_ENVS) for c in page.caption)
    (heatmap,) = chart_specs(page)
    assert heatmap["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 64]
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
    assert metrics(app)["step() calls to fill the batch"] == truth

    app.radio(key=choice).set_value(truth).run()
    app.button(key=lock).click().run()
    assert prediction_checks(app) == [(truth, truth)]
    assert prediction_score(app) == (1, 1, 1)
    assert not app.exception


def test_the_key_takeaways_end_the_page_and_follow_the_batch():
    app = open_page({"n": "16", "mode": "SAME_STEP"}, skip=True)
    assert app.subheader[-1].value == "Key takeaways"
    bullets = texts(app.markdown)
    calls = buffer_layout(2048, 16).step_calls
    # SAME_STEP: no reset rows to count
    assert "\n".join(f"- {b}" for b in takeaways(2048, 16, calls, None)) in bullets
    # Other settings after that answer: the new batch shows at once, its question stays open
    app.slider(key=KEY["n"]).set_value(8).run()
    assert metrics(app)["step() calls to fill the batch"] == "256"
    assert app.button(key=f"{pid(2048, 8)}_lock").label == "Lock in"
    assert "\n".join(f"- {b}" for b in takeaways(2048, 8, 256, None)) in texts(app.markdown)
    assert not app.exception
