"""The "Sync vs Async" page via AppTest: the lesson's comparison, revealed after the prediction."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from page_apptest import open_app_page, texts
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.sync_vs_async import SAME
from burgerbot.app.scripts.sync_vs_async import COMPARISON, EXERCISE_ANSWER
from burgerbot.app.slots import WORKER_BUDGET

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
    assert f"`os.cpu_count()` = **{os.cpu_count()}**" in shown
    assert f"`len(os.sched_getaffinity(0))` = **{len(os.sched_getaffinity(0))}**" in shown
    # Neither a run to start, nor a table, a metric, a verdict or the takeaways stating it.
    assert not [b for b in app.button if b.key in (f"{PAGE}_lesson", f"{PAGE}_lesson_again")]
    assert not timing_tables(app) and not app.metric
    text = texts(app.markdown) + texts(app.caption)
    assert "× as fast" not in text and "more per call" not in text
    assert "Key takeaways" in [h.value for h in app.subheader] and not takeaways_shown(app)
    # Skipping shows the run button and the takeaways; the run then states which was faster.
    click(app, f"{FASTER}_skip")
    assert takeaways_shown(app)
    assert "Run the lesson's comparison to see" in takeaway_bullets(app)[1]
    assert app.button(key=f"{PAGE}_lesson_again").disabled


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
    extra = "more per call" in markdown
    assert not extra or async_us > sync_us
    # Where Async was slower, the words say why: Sync sends nothing between processes,
    # Async pickles through pipes (observations through shared memory).
    assert extra == ("pickles each action into bytes" in markdown)
    assert extra == ("writes its observation into shared memory" in markdown)
    # ...and how much of it the pickling itself explains, measured beside the run.
    messages = app.session_state[RESULTS]["lesson"]["messages"]
    assert extra == (f"a {messages.out_bytes}-byte message out" in markdown)
    # A plain BurgerBotEnv.step loop was timed beside Sync, and the words follow its numbers.
    bookkeeping = app.session_state[RESULTS]["lesson"]["bookkeeping"]
    assert bookkeeping.num_envs == 4 and len(bookkeeping.plain_s) == len(bookkeeping.sync_s)
    assert bookkeeping.sentence() in markdown
    assert "Measured just now, started by your visit" in texts(app.caption)
    assert not app.button(key=f"{PAGE}_lesson_again").disabled
    click(app, f"{PAGE}_lesson_again")  # measured again, not replayed from the cache
    (again,) = timing_tables(app)
    assert again["create (s)"].tolist() != table["create (s)"].tolist()


def takeaway_bullets(app: AppTest) -> list[str]:
    assert [h.value for h in app.subheader][-1] == "Key takeaways"
    text = next(m.value for m in app.markdown if m.value.startswith("- `SyncVectorEnv` steps"))
    return [line[2:] for line in text.splitlines()]


def lock_in(app: AppTest, choice: str) -> None:
    app.radio(key=f"{FASTER}_choice").set_value(choice).run()
    click(app, f"{FASTER}_lock")


def test_the_prediction_is_checked_against_the_lessons_run_right_and_wrong(no_leftover_workers):
    app = open_page()
    assert not takeaways_shown(app)  # hidden until the prediction is answered
    lock_in(app, "AsyncVectorEnv")
    assert len(takeaway_bullets(app)) == 4
    assert "Run the lesson's comparison to see which is faster" in takeaway_bullets(app)[1]
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


def test_the_comparison_script_prints_each_backends_time_per_call_and_asyncs_extra(tmp_path):
    printed = assert_script_behaves(COMPARISON, tmp_path / "comparison")
    lines = printed.strip().splitlines()
    per_call = {line.split()[0]: float(line.split()[1].replace(",", "")) for line in lines[:3]}
    assert list(per_call) == ["sync", "async", "native"]
    extra = re.fullmatch(r"Async's extra time per call: (-?[\d,.]+) us \(.+ per env\)", lines[3])
    assert extra and float(extra.group(1).replace(",", "")) == pytest.approx(
        per_call["async"] - per_call["sync"], abs=0.2
    )
