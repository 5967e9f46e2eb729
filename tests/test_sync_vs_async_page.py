"""The "Sync vs Async" page through the router, via AppTest, with small settings."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from page_apptest import open_app_page, texts
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.sync_vs_async import SAME, TimingSettings, native_remark
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER, snippet_for
from burgerbot.app.slots import WORKER_BUDGET

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/sync_vs_async.py"
PAGE = "sync_vs_async"
KEY = {name: f"{PAGE}_{name}" for name in ("n", "steps", "work_us", "kind")}
RESULTS = f"_{PAGE}_results"
FASTER = f"{PAGE}_faster"
SMALL = {"n": "1,2,16", "steps": "40"}


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


def chart_titles(app: AppTest) -> list[str]:
    return [json.loads(c.proto.spec).get("title") for c in app.get("vega_lite_chart")]


def test_the_page_shows_the_cores_and_runs_nothing_by_itself():
    app = open_page()
    assert app.title[0].value.startswith("Sync vs Async")
    info = texts(app.info)
    assert f"`os.cpu_count()` = **{os.cpu_count()}**" in info
    assert f"`len(os.sched_getaffinity(0))` = **{len(os.sched_getaffinity(0))}**" in info
    assert not timing_tables(app) and not app.get("vega_lite_chart")
    assert app.button(key=f"{PAGE}_lesson_again").disabled
    assert app.button(key=f"{PAGE}_run_again").disabled
    caps = texts(app.markdown)
    assert f"Async runs at most **{CAPS.max_async_envs} envs**" in caps
    assert "BURGERBOT_MAX_ASYNC_ENVS" in caps and "BURGERBOT_MAX_LIVE_ASYNC_WORKERS" in caps
    assert "skips 64, 256" in texts(app.caption)
    assert app.query_params["n"] == "1,2,4,8,64,256"


def test_the_lessons_comparison_explains_asyncs_overhead(no_leftover_workers):
    app = open_page()
    click(app, f"{PAGE}_lesson")
    (table,) = timing_tables(app)
    assert table["backend"].tolist() == ["Sync", "Async", "native"]
    assert table["NUM_ENVS"].tolist() == [4, 4, 4]
    assert table["steps ÷ Sync"].iloc[0] == 1.0
    ratio = table["all steps (s)"].iloc[1] / table["all steps (s)"].iloc[0]
    assert table["steps ÷ Sync"].iloc[1] == pytest.approx(ratio)
    metrics = {m.label: m for m in app.metric}
    assert set(metrics) == {"Sync: env-steps/s", "Async: env-steps/s", "native: env-steps/s"}
    assert "than Sync" in metrics["Async: env-steps/s"].delta  # "… slower/faster than Sync"
    shown = int(metrics["Sync: env-steps/s"].value.replace(",", ""))
    assert shown == pytest.approx(table["env-steps/s"].iloc[0], abs=1)
    markdown = texts(app.markdown)
    number = r"([\d,]+(?:\.\d)?) µs"
    per_call = re.search(rf"took \*\*{number}\*\* with Sync\s+and \*\*{number}\*\*", markdown)
    assert per_call, markdown
    sync_us, async_us = (float(x.replace(",", "")) for x in per_call.groups())
    expected_sync = table["all steps (s)"].iloc[0] / 1_000 * 1e6
    assert sync_us == pytest.approx(expected_sync, abs=1)
    expected_async = table["all steps (s)"].iloc[1] / 1_000 * 1e6
    assert async_us == pytest.approx(expected_async, abs=1)
    assert ("more per call" in markdown) == (async_us > sync_us)
    assert any("When would Async win?" in e.label for e in app.expander)
    assert "**busy**" in markdown and "**sleep**" in markdown
    # A plain BurgerBotEnv.step loop was timed beside Sync, and the words follow its numbers.
    bookkeeping = app.session_state[RESULTS]["lesson"]["bookkeeping"]
    assert bookkeeping.num_envs == 4 and len(bookkeeping.plain_s) == len(bookkeeping.sync_s)
    assert bookkeeping.sentence() in markdown
    assert "Measured just now, started by your visit" in texts(app.caption)
    assert not app.button(key=f"{PAGE}_lesson_again").disabled
    click(app, f"{PAGE}_lesson_again")  # measured again, not replayed from the cache
    (again,) = timing_tables(app)
    assert again["create (s)"].tolist() != table["create (s)"].tolist()


def test_a_sweep_draws_throughput_and_tabulates_overheads(no_leftover_workers):
    app = open_page(SMALL)
    assert app.multiselect(key=KEY["n"]).value == [1, 2, 16]
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
    assert chart_titles(app) == ["How fast each backend collects env-steps"]
    markdown = texts(app.markdown)
    assert "Async's overhead per `step()` call" in markdown
    assert "| 1 |" in markdown and "| 2 |" in markdown and "| 16 |" not in markdown
    # The remark on native's per-call cost follows the rounds' spread (native_remark), not
    # one median: it shows exactly when the sweep's own rounds say native was slower at N=1.
    sweep = app.session_state["_sync_vs_async_results"]["sweep"]["frame"]
    remark = native_remark(sweep)
    assert ("every call pays for a few numpy operations" in markdown) == (remark is not None)
    assert remark is None or remark in markdown
    assert not app.button(key=f"{PAGE}_run_again").disabled
    app.multiselect(key=KEY["n"]).set_value([1]).run()
    assert "These results are for the previous settings" in texts(app.info)
    assert app.button(key=f"{PAGE}_run_again").disabled


def test_a_step_cost_compares_sync_and_async_only(no_leftover_workers):
    app = open_page(SMALL)
    app.number_input(key=KEY["work_us"]).set_value(500).run()
    app.radio(key=KEY["kind"]).set_value("sleep").run()
    app.number_input(key=KEY["steps"]).set_value(20).run()
    assert app.query_params["work_us"] == "500" and app.query_params["kind"] == "sleep"
    assert "native is left out" in texts(app.caption)
    click(app, f"{PAGE}_run")
    (table,) = timing_tables(app)
    assert list(zip(table["backend"], table["NUM_ENVS"], strict=True)) == [
        ("Sync", 1),
        ("Async", 1),
        ("Sync", 2),
        ("Async", 2),
    ]
    assert chart_titles(app)[1] == "Above 1: Async is faster. Below 1: Sync is faster."
    markdown = texts(app.markdown)
    assert "With 500 µs of sleep work per env-step" in markdown
    assert "For **sleep** the ceiling is NUM_ENVS" in markdown
    settings = TimingSettings((1, 2, 16), 20, 500, "sleep")
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


def test_an_oversized_sweep_is_refused_with_what_to_lower():
    app = open_page({"n": "256,512,1024", "steps": "100000"})
    message = texts(app.error)
    assert "too big to run here" in message and "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS" in message
    fit = CAPS.max_sync_sweep_env_steps // (256 + 512 + 1024)
    assert f"lower the step() calls per run to {fit:,} or fewer" in message
    assert app.button(key=f"{PAGE}_run").disabled
    app.number_input(key=KEY["steps"]).set_value(fit).run()
    assert not app.error and not app.button(key=f"{PAGE}_run").disabled

    app = open_page({"n": "1,2,4,8", "steps": "1000", "work_us": "10000"})
    message = texts(app.error)
    assert f"limit of {CAPS.max_timing_work_seconds} s" in message
    assert "lower the extra cost per step" in message


@pytest.mark.parametrize(
    ("query", "note", "key", "used"),
    [
        ({"n": "x,y"}, "`n=x,y` is not a list of whole numbers", "n", [1, 2, 4, 8, 64, 256]),
        ({"steps": "0"}, "`steps=0` is outside 1..", "steps", 1),
        ({"work_us": "-3"}, "`work_us=-3` is outside 0..", "work_us", 0),
        ({"kind": "spin"}, "`kind=spin` is not one of busy, sleep", "kind", "busy"),
        ({"steps": "1e3"}, "`steps=1e3` is not a whole number", "steps", 1000),
    ],
)
def test_bad_query_params_give_notes_not_errors(query, note, key, used):
    app = open_page(query)
    assert note in texts(app.info)
    widget = {
        "n": app.multiselect,
        "steps": app.number_input,
        "work_us": app.number_input,
        "kind": app.radio,
    }[key](key=KEY[key])
    assert widget.value == used


def takeaway_bullets(app: AppTest) -> list[str]:
    assert [h.value for h in app.subheader][-1] == "Key takeaways"
    text = next(m.value for m in app.markdown if m.value.startswith("- `SyncVectorEnv` steps"))
    return [line[2:] for line in text.splitlines()]


def lock_in(app: AppTest, choice: str) -> None:
    app.radio(key=f"{FASTER}_choice").set_value(choice).run()
    click(app, f"{FASTER}_lock")


def test_the_prediction_is_checked_against_the_lessons_run_right_and_wrong(no_leftover_workers):
    app = open_page()
    assert len(takeaway_bullets(app)) == 4
    assert "Run the lesson's comparison to see which is faster" in takeaway_bullets(app)[1]
    lock_in(app, "AsyncVectorEnv")
    assert not app.success and not app.warning  # nothing to check against before the run
    click(app, f"{PAGE}_lesson")
    (table,) = timing_tables(app)
    steps = table.set_index("backend")["all steps (s)"]  # medians of the rounds
    shown = texts(app.success) + texts(app.warning)
    if "Your prediction was right:** AsyncVectorEnv" in shown:
        truth = "AsyncVectorEnv"
    else:
        truth = re.search(r"the live run gave (.+?)\.\*\*", shown).group(1)
    # the verdict follows the rounds: a class only if its median was the faster one
    if truth != SAME:
        winner, loser = truth[: -len("VectorEnv")], "Async" if truth.startswith("Sync") else "Sync"
        assert steps[winner] < steps[loser]
    # the figures quoted beside the verdict are the table's (medians, as env-steps per second)
    assert f"Sync {4 * 1000 / steps['Sync']:,.0f} env-steps/s (rounds " in shown
    lock_in(app, "SyncVectorEnv")  # the other answer, checked against the same run
    right = texts(app.success)
    assert (f"Your prediction was right:** {truth}" in right) == (truth == "SyncVectorEnv")
    bullets = takeaway_bullets(app)
    if truth == SAME:
        assert "about as fast" in bullets[1]
    else:
        other = "AsyncVectorEnv" if truth == "SyncVectorEnv" else "SyncVectorEnv"
        said = re.search(rf"{truth} was ([\d.,]+)× as fast as {other}", bullets[1])
        assert said and float(said.group(1)) == pytest.approx(
            max(steps["Sync"], steps["Async"]) / min(steps["Sync"], steps["Async"]), rel=0.06
        )
    assert 4 <= len(bullets) <= 5


def test_the_exercise_answer_is_hidden_then_shown_and_runs_from_a_file(tmp_path):
    app = open_page()
    assert EXERCISE_ANSWER.strip() not in [c.value.strip() for c in app.code]
    app.toggle(key=f"{PAGE}_swap_answer").set_value(True).run()
    assert EXERCISE_ANSWER.strip() in [c.value.strip() for c in app.code]
    printed = assert_script_behaves(EXERCISE_ANSWER, tmp_path / "exercise")
    lines = printed.strip().splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["SyncVectorEnv", "AsyncVectorEnv"]
    assert re.fullmatch(r"(Sync|Async) was [\d.]+x as fast as (Async|Sync)", lines[2])


def test_native_is_named_as_this_projects_class():
    app = open_page()
    assert "`BurgerBotVectorEnv` (this project's class, not Gymnasium's)" in app.markdown[0].value
