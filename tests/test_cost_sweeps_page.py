"""The "Cost sweeps" page via AppTest, with small settings: sweeps revealed after the prediction."""

from __future__ import annotations

import ast
import json
import os

import pytest
from page_apptest import open_app_page, prediction_checks, setting_notes, texts
from sentence_facts import bold, code_spans, quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.cost_sweeps import (
    WINS_OPTIONS,
    check_budget,
    model_cost,
    native_remark,
    prediction_truth,
    takeaways,
)
from burgerbot.app.scripts.cost_sweeps import snippet_for
from burgerbot.app.slots import WORKER_BUDGET
from burgerbot.app.timing import TimingSettings, plan, usable_cores

PAGE_FILE = "app_pages/cost_sweeps.py"
PAGE = "cost_sweeps"
KEY = {name: f"{PAGE}_{name}" for name in ("n", "steps", "work_us", "kind")}
RESULTS = f"_{PAGE}_results"
WINS = f"{PAGE}_wins"
SMALL = {"n": "1,2,16", "steps": "40", "work_us": "0"}
OPTIONS = WINS_OPTIONS


@pytest.fixture
def no_leftover_workers(no_leftover_workers):
    """conftest's check that no child process is left, plus the app's worker budget."""
    yield
    assert WORKER_BUDGET.in_use == 0


def open_page(query: dict[str, str] | None = None) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=600, expanders=True)


def click(app: AppTest, key: str) -> AppTest:
    app.button(key=key).click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def timing_tables(app: AppTest) -> list:
    return [d.value for d in app.dataframe if "steps ÷ Sync" in d.value.columns]


def takeaways_shown(app: AppTest) -> bool:
    return bool(takeaway_bullets(app))


def model_paragraphs(app: AppTest) -> list[str]:
    """The rough model's prediction, once a sweep without extra cost fed it: its bullets
    start with each kind of cost."""
    return [m.value for m in app.markdown if "\n- **busy**" in m.value]


def takeaway_bullets(app: AppTest) -> list[str]:
    """The bullets under "Key takeaways" (the page's last bulleted Markdown), once revealed."""
    blocks = [m.value for m in app.markdown if m.value.startswith("- ")]
    if not blocks or takeaways(None, None, 1)[1] not in blocks[-1]:
        return []
    return [line[2:] for line in blocks[-1].split("\n")]


def test_the_page_opens_with_what_it_assumes_and_runs_nothing_by_itself():
    app = open_page({"n": "1,2,4,8,64,256"})
    assert app.markdown[0].value.startswith("This page assumes you have done Sync vs Async.")
    shown = texts(app.caption)
    assert str(os.cpu_count()) in bold(shown)
    markdown = texts(app.markdown)
    assert f"{CAPS.max_async_envs} envs" in bold(markdown)  # Async's cap, in plain words
    # The limits are in plain words: the README names the variables.
    assert "BURGERBOT" not in markdown + shown + texts(app.error) + texts(app.info)
    assert "skips 64, 256" in shown
    assert app.query_params["n"] == "1,2,4,8,64,256"


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page()
    assert not [b for b in app.button if b.key in (f"{PAGE}_run", f"{PAGE}_run_again")]
    assert not timing_tables(app) and not app.get("vega_lite_chart")
    text = texts(app.markdown) + texts(app.caption)
    assert "speed-up" not in text and "beat Sync in every round" not in text
    assert "Key takeaways" in [h.value for h in app.header] and not takeaways_shown(app)
    click(app, f"{WINS}_skip")
    assert app.button(key=f"{PAGE}_run_again").disabled
    assert takeaway_bullets(app) == takeaways(None, None, usable_cores())  # invites a sweep


def test_a_sweep_without_cost_draws_throughput_tabulates_overheads_and_feeds_the_model(
    no_leftover_workers,
):
    app = open_page(SMALL)
    assert app.multiselect(key=KEY["n"]).value == [1, 2, 16]
    assert not model_paragraphs(app)  # no model before a sweep without cost
    click(app, f"{WINS}_skip")
    click(app, f"{PAGE}_run")
    (table,) = timing_tables(app)
    rows = list(zip(table["backend"], table["NUM_ENVS"], strict=True))
    assert rows == [
        ("Sync", 1),
        ("Async", 1),
        ("native", 1),
        ("Sync", 2),
        ("Async", 2),
        ("native", 2),
        ("Sync", 16),
        ("native", 16),
    ]
    assert "create ÷ Sync" not in table.columns and "close ÷ Sync" not in table.columns
    # The chart's title sits above its tabs, not inside the chart under them.
    assert [json.loads(c.proto.spec).get("title") for c in app.get("vega_lite_chart")] == [None]
    markdown = texts(app.markdown)
    assert "| 1 |" in markdown and "| 2 |" in markdown and "| 16 |" not in markdown
    # The remark on native's per-call cost follows the rounds' spread (native_remark).
    sweep = app.session_state[RESULTS]["sweep"]["frame"]
    remark = native_remark(sweep)
    assert remark is None or remark in markdown
    assert remark is not None or "numpy" not in markdown
    # The rough model now starts from this sweep's call costs (at NUM_ENVS 2: no 4 here).
    cost = model_cost(sweep, app.session_state[RESULTS]["sweep"]["settings"])
    (model,) = model_paragraphs(app)
    assert cost.num_envs == 2 and quotes(model, 2)
    assert quotes(model, round(cost.sync_s * 1e6), round(cost.async_s * 1e6))  # µs per call
    assert {"busy", "sleep"} <= set(bold(model))
    # A sweep without the prediction's cost does not check it.
    assert not app.success and not [w for w in app.warning if "You predicted" in w.value]
    assert not app.button(key=f"{PAGE}_run_again").disabled
    swept = app.session_state[RESULTS]["sweep"]["settings"]
    app.multiselect(key=KEY["n"]).set_value([1]).run()
    assert swept.describe() in texts(app.info)  # the results shown are the old settings'
    assert app.button(key=f"{PAGE}_run_again").disabled


def lock_in(app: AppTest, choice: str) -> None:
    app.radio(key=f"{WINS}_choice").set_value(choice).run()
    click(app, f"{WINS}_lock")


def checks(app: AppTest) -> str:
    return texts(app.success) + texts([w for w in app.warning if "You predicted" in w.value])


def test_the_prediction_is_checked_on_a_sweep_of_its_cost_right_and_wrong(no_leftover_workers):
    app = open_page({"n": "8", "steps": "20"})  # the default cost: 1,000 µs of sleep
    assert app.query_params["work_us"] == "1000" and app.query_params["kind"] == "sleep"
    assert "native is left out" in texts(app.caption)
    lock_in(app, "SyncVectorEnv")
    click(app, f"{PAGE}_run")
    last = app.session_state[RESULTS]["sweep"]
    truth, why = prediction_truth(last["frame"], last["settings"])
    if truth is None:  # the rounds overlapped: shown, not scored
        assert prediction_checks(app) == [] and why in texts(app.info)
    else:
        assert truth in OPTIONS and why in checks(app)
        assert prediction_checks(app) == [("SyncVectorEnv", truth)]
        other = next(o for o in OPTIONS if o != truth)
        for choice in (truth, other):  # either answer, checked against the same run
            lock_in(app, choice)
            assert prediction_checks(app) == [(choice, truth)]
    (table,) = timing_tables(app)
    assert list(zip(table["backend"], table["NUM_ENVS"], strict=True)) == [
        ("Sync", 8),
        ("Async", 8),
    ]
    markdown = texts(app.markdown)
    assert quotes(markdown, 1_000) and "sleep" in bold(markdown)  # the speed-up, for this cost
    assert takeaway_bullets(app) == takeaways(last["frame"], last["settings"], usable_cores())
    assert quotes(takeaway_bullets(app)[0], 1_000)  # the takeaway follows the sweep
    settings = TimingSettings((8,), 20, 1_000, "sleep")
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


def test_an_oversized_sweep_is_refused_with_what_to_lower():
    app = open_page({"n": "256,512,1024", "steps": "100000", "work_us": "0"})
    message = texts(app.error)
    too_big = TimingSettings((256, 512, 1024), 100_000, 0, "sleep")
    assert message == check_budget(too_big) and "BURGERBOT" not in message
    fit = CAPS.max_sync_sweep_env_steps // (256 + 512 + 1024)
    assert quotes(message, fit)  # the most step() calls that would fit
    click(app, f"{WINS}_skip")
    assert app.button(key=f"{PAGE}_run").disabled
    app.number_input(key=KEY["steps"]).set_value(fit).run()
    assert not app.error and not app.button(key=f"{PAGE}_run").disabled

    app = open_page({"n": "1,2,4,8", "steps": "1000", "work_us": "10000"})
    message = texts(app.error)
    assert message == check_budget(TimingSettings((1, 2, 4, 8), 1_000, 10_000, "sleep"))
    assert quotes(message, CAPS.max_timing_work_seconds)


@pytest.mark.parametrize(
    ("query", "note", "key", "used"),
    [
        ({"n": "x,y"}, "n=x,y", "n", [1, 4, 8]),
        ({"steps": "0"}, "steps=0", "steps", 1),
        ({"work_us": "-3"}, "work_us=-3", "work_us", 0),
        ({"kind": "spin"}, "kind=spin", "kind", "sleep"),
        ({"steps": "1e3"}, "steps=1e3", "steps", 100),
    ],
)
def test_bad_query_params_give_notes_not_errors(query, note, key, used):
    app = open_page(query)
    (said,) = setting_notes(app)
    assert code_spans(said)[0] == note  # the note names the setting it adjusted
    widget = {
        "n": app.multiselect,
        "steps": app.number_input,
        "work_us": app.number_input,
        "kind": app.radio,
    }[key](key=KEY[key])
    assert widget.value == used


@pytest.mark.parametrize(
    "settings",
    [
        TimingSettings((1, 4, 8), 100, 1_000, "sleep"),  # the page's defaults
        TimingSettings((1,), 1, 0, "busy"),
        TimingSettings((CAPS.max_envs,), 1, 0, "busy"),  # past Async's cap: Async runs none
        TimingSettings((CAPS.max_envs,), 1, 1, "busy"),  # with a cost: no run at all
        TimingSettings((), 1, 0, "busy"),
    ],
)
def test_the_script_parses_whatever_the_sweep_runs(settings):
    """At its defaults it once printed `RUNS = [`, a blank line and `,`: a SyntaxError."""
    code = snippet_for(settings)
    tree = ast.parse(code)
    (runs,) = [
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and node.targets[0].id == "RUNS"
    ]
    planned = {backend: list(sizes) for backend, sizes in plan(settings)[0].items()}
    assert dict(ast.literal_eval(runs)) == planned
