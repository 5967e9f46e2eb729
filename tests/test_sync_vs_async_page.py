"""The "Sync vs Async" page via AppTest: the lesson's comparison, revealed after the prediction."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from page_apptest import open_app_page, prediction_checks, texts
from sentence_facts import bold, code_spans
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.sync_vs_async import (
    extra_per_env_rounds,
    faster_backend,
    overhead_kind,
    overhead_text,
    speed_verdict,
    takeaways,
)
from burgerbot.app.scripts.sync_vs_async import EXERCISE_ANSWER
from burgerbot.app.slots import WORKER_BUDGET
from burgerbot.app.timing import call_costs, compare_backends

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/sync_vs_async.py"
PAGE = "sync_vs_async"
RESULTS = f"_{PAGE}_results"
FASTER = f"{PAGE}_faster"


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
    return any(m.value.startswith("- `SyncVectorEnv` steps") for m in app.markdown)


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page()
    assert app.title[0].value.startswith("Sync vs Async")
    shown = texts(app.caption)
    # the cores this app may use, which the timings share with other programs
    assert bold(shown)[:1] == [str(len(os.sched_getaffinity(0)))]
    # Neither a run to start, nor a table, a verdict or the takeaways stating it.
    assert not [b for b in app.button if b.key == f"{PAGE}_lesson"]
    assert not timing_tables(app)
    text = texts(app.markdown) + texts(app.caption)
    assert "ratio of medians" not in text and "more per call" not in text
    assert "faster in every" not in text
    assert "Key takeaways" in [h.value for h in app.header] and not takeaways_shown(app)
    # Skipping shows the run button and the takeaways; the run then states which was faster.
    click(app, f"{FASTER}_skip")
    assert takeaways_shown(app)
    assert takeaway_bullets(app) == takeaways(None, None)  # inviting a run
    # one button, primary, saying what it does
    button = app.button(key=f"{PAGE}_lesson")
    assert button.label == "Run the lesson's comparison" and button.proto.type == "primary"


def test_the_lessons_comparison_explains_asyncs_overhead(no_leftover_workers):
    app = open_page()
    click(app, f"{FASTER}_skip")
    click(app, f"{PAGE}_lesson")
    (table,) = timing_tables(app)
    assert table["backend"].tolist() == ["Sync", "Async", "native"]
    # Only stepping is divided by Sync's time: Sync creates and closes in microseconds.
    assert "create ÷ Sync" not in table.columns and "close ÷ Sync" not in table.columns
    assert table["steps ÷ Sync"].iloc[0] == 1.0
    ratio = table["all steps (s)"].iloc[1] / table["all steps (s)"].iloc[0]
    assert table["steps ÷ Sync"].iloc[1] == pytest.approx(ratio)
    markdown = texts(app.markdown)
    number = r"([\d,]+(?:\.\d)?) µs"
    per_call = re.search(rf"took \*\*{number}\*\* with Sync\s+and \*\*{number}\*\*", markdown)
    assert per_call, markdown
    sync_us, async_us = (float(x.replace(",", "")) for x in per_call.groups())
    expected_sync = table["all steps (s)"].iloc[0] / 1_000 * 1e6
    assert sync_us == pytest.approx(expected_sync, abs=1)
    expected_async = table["all steps (s)"].iloc[1] / 1_000 * 1e6
    assert async_us == pytest.approx(expected_async, abs=1)
    # The words on Async's overhead are overhead_text's for this run's costs and rounds: why
    # it was slower (pipes and pickling) only where it was, and measured beside the run, how
    # much of it the pickling explains.
    lesson = app.session_state[RESULTS]["lesson"]
    bookkeeping, messages = lesson["bookkeeping"], lesson["messages"]
    cost = call_costs(lesson["frame"])[0]
    rounds = compare_backends(lesson["frame"], "async", "sync", 4)
    extra = extra_per_env_rounds(lesson["frame"], 4)
    assert overhead_text(cost, bookkeeping, rounds, extra) in markdown
    kind = overhead_kind(cost, bookkeeping, rounds, extra)
    assert kind in ("overlap", "not_slower") or async_us >= sync_us  # "more" only if slower
    said = messages.sentence(cost, extra) if kind != "overlap" else None
    assert said is None or said in markdown
    # A plain BurgerBotEnv.step loop was timed beside Sync: Async's extra is set against it.
    assert bookkeeping.num_envs == 4 and len(bookkeeping.plain_s) == len(bookkeeping.sync_s)
    assert any("Measured just now" in c.value for c in app.caption)  # live, not cached
    # The one button now measures again (still the primary action), not replayed from the cache
    button = app.button(key=f"{PAGE}_lesson")
    assert button.label == "Measure again" and button.proto.type == "primary"
    assert len([b for b in app.button if b.key and b.key.startswith(f"{PAGE}_lesson")]) == 1
    click(app, f"{PAGE}_lesson")
    (again,) = timing_tables(app)
    assert again["create (s)"].tolist() != table["create (s)"].tolist()


def takeaway_bullets(app: AppTest) -> list[str]:
    assert [h.value for h in app.header][-1] == "Key takeaways"
    text = next(m.value for m in app.markdown if m.value.startswith("- `SyncVectorEnv` steps"))
    return [line[2:] for line in text.splitlines()]


def lock_in(app: AppTest, choice: str) -> None:
    app.radio(key=f"{FASTER}_choice").set_value(choice).run()
    click(app, f"{FASTER}_lock")


def test_the_prediction_is_checked_against_the_lessons_run_right_and_wrong(no_leftover_workers):
    app = open_page()
    assert not takeaways_shown(app)  # hidden until the prediction is answered
    lock_in(app, "AsyncVectorEnv")
    assert takeaway_bullets(app) == takeaways(None, None)  # inviting a run
    assert not app.success and not app.warning  # nothing to check against before the run
    click(app, f"{PAGE}_lesson")
    (table,) = timing_tables(app)
    steps = table.set_index("backend")["all steps (s)"]  # medians of the rounds
    lesson = app.session_state[RESULTS]["lesson"]
    truth, why = speed_verdict(lesson["frame"])
    verdict, times, _ = faster_backend(lesson["frame"])
    if truth is None:  # the rounds overlap: the run cannot decide, nothing is scored
        assert verdict == "similar" and prediction_checks(app) == []
        assert why in texts(app.info) and "could not decide" in texts(app.info)
        return
    (checked,) = prediction_checks(app)
    assert checked == ("AsyncVectorEnv", truth) and why in texts(app.success) + texts(app.warning)
    # the verdict follows the rounds: a class only if its median was the faster one
    fast, slow = ("Sync", "Async") if verdict == "sync" else ("Async", "Sync")
    assert steps[fast] < steps[slow]
    assert times == pytest.approx(steps[slow] / steps[fast], rel=0.06)  # ratio of medians
    lock_in(app, "SyncVectorEnv")  # the other answer, checked against the same run
    assert prediction_checks(app) == [("SyncVectorEnv", truth)]
    assert takeaway_bullets(app) == takeaways(lesson["frame"], lesson["bookkeeping"])


def test_the_exercise_answer_is_hidden_then_shown_and_runs_from_a_file(tmp_path):
    app = open_page()
    assert EXERCISE_ANSWER.strip() not in [c.value.strip() for c in app.code]
    app.toggle(key=f"{PAGE}_swap_answer").set_value(True).run()
    assert EXERCISE_ANSWER.strip() in [c.value.strip() for c in app.code]
    printed = assert_script_behaves(EXERCISE_ANSWER, tmp_path / "exercise")
    lines = printed.strip().splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["SyncVectorEnv", "AsyncVectorEnv"]
    ranges = [re.search(r"rounds ([\d.]+) to ([\d.]+)", line).groups() for line in lines[:2]]
    (sync_low, sync_high), (async_low, async_high) = [tuple(map(float, r)) for r in ranges]
    # a ranking only when the ranges lie apart (at the printed precision), else none
    if sync_high < async_low:
        assert re.fullmatch(r"Sync was faster in every round: ratio of medians [\d.]+x", lines[2])
    elif async_high < sync_low:
        assert re.fullmatch(r"Async was faster in every round: ratio of medians [\d.]+x", lines[2])
    elif sync_high != async_low and async_high != sync_low:
        assert lines[2] == "The rounds overlap: Sync and Async could not be told apart here"


def test_native_is_named_as_this_projects_class():
    app = open_page()
    click(app, f"{FASTER}_skip")
    said = next(m.value for m in app.markdown if "BurgerBotVectorEnv" in code_spans(m.value))
    assert "not Gymnasium's" in said
