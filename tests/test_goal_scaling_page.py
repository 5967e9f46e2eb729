"""The "Goal scaling" page through the router, via AppTest: predict, then reveal the lesson's
run, its verdict, and exercise 1 answered by the lesson's run repeated thousands of times."""

from __future__ import annotations

import json
import re

import pytest
from page_apptest import open_app_page, prediction_checks, prediction_score, texts
from sentence_facts import quotes
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.goal_scaling import (
    DEFAULT_RUNS,
    GOAL_OPTIONS,
    check_explanation,
    goal_bucket,
    lesson_verdict,
    max_runs,
    repeat_lesson,
    repeat_summary,
    repeat_verdict,
    run_lesson,
    takeaways,
)
from burgerbot.app.scripts.goal_scaling import exercise_answer_script, lesson_run_script
from burgerbot.random_agent import goal_odds, long_run_goal_rate

PAGE_FILE = "app_pages/goal_scaling.py"
PAGE = "goal_scaling"
PID = f"{PAGE}_goals"


def open_page(query: dict[str, str] | None = None) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=600)


def click(app: AppTest, key: str) -> AppTest:
    app.button(key=key).click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def lock_in(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    return click(app, f"{PID}_lock")


def shown(app: AppTest) -> str:
    """Everything the page says in words (markdown, captions, metrics, callouts)."""
    metrics = [f"{m.label} {m.value} {m.delta}" for m in app.metric]
    return "\n".join(
        [
            texts(app.markdown),
            texts(app.caption),
            texts(app.success),
            texts(app.warning),
            *metrics,
        ]
    )


def takeaway_block(app: AppTest) -> str:
    """The page's last bulleted Markdown: its key takeaways."""
    return [m.value for m in app.markdown if m.value.startswith("- ")][-1]


def test_nothing_gives_the_answer_away_before_lock_in():
    app = open_page()
    before = shown(app)
    lesson = run_lesson(0)
    # The deciding facts: the run's goal count, the exact expectation and the chance of none.
    assert not app.metric and not app.get("vega_lite_chart") and not app.dataframe
    assert "0.0453" not in before and "95.6%" not in before
    assert "envs × 500 steps" not in before  # the metrics' labels
    # Nothing above the prediction says how rare goals are or that one run cannot tell.
    for hint in ("rare", "one short run", "cannot", "noise", "0 goals"):
        assert hint not in before.lower(), hint
    assert "Skip, show me" in [b.label for b in app.button]
    assert "They appear once you answer the prediction" in texts(app.caption)
    lock_in(app, GOAL_OPTIONS[3])
    metrics = {m.label: m.value for m in app.metric}
    assert metrics["4 envs × 500 steps: goals"] == str(lesson.goals[4])
    assert metrics["8 envs × 500 steps: goals"] == str(lesson.goals[8])
    after = shown(app)
    assert "0.0453" in after and "95.6%" in after and "91.3%" in after
    kind, why = lesson_verdict()
    assert kind == "not_visible" and VERDICTS[kind].badge() in after and why in after
    assert app.get("vega_lite_chart")
    assert f"once per {1 / long_run_goal_rate():,.0f} env-steps" in after  # the takeaways


@pytest.mark.parametrize("seed", [0, 11])
def test_the_goal_prediction_is_checked_against_the_lessons_live_run(seed):
    app = open_page({"seed": str(seed), "runs": "10"})
    truth = goal_bucket(run_lesson(seed).goals[4])  # the library's own run, not the page's
    wrong = next(option for option in GOAL_OPTIONS if option != truth)
    lock_in(app, wrong)
    assert prediction_checks(app) == [(wrong, truth)]
    lock_in(app, truth)
    assert prediction_checks(app) == [(truth, truth)]
    assert check_explanation(run_lesson(seed)) in texts(app.success)  # this seed's run
    assert prediction_score(app) == (1, 1, 1)


def test_the_default_run_answers_exercise_1_with_the_runs_own_numbers():
    app = open_page()
    click(app, f"{PID}_skip")
    assert app.select_slider(key=f"{PAGE}_runs").value == DEFAULT_RUNS
    summary = repeat_summary(repeat_lesson(DEFAULT_RUNS, 0))
    (table,) = [d.value for d in app.dataframe if "runs with 0 goals" in d.value.columns]
    assert table["runs with 0 goals"].tolist() == summary["zero_runs"].tolist()
    assert table["with 2+"].tolist() == summary["more_runs"].tolist()
    four, eight = summary["mean_goals"]
    assert f"**{eight / four:.2f}×**" in texts(app.markdown)  # read off this run's means
    markdown = texts(app.markdown)
    doubled, verdict = repeat_verdict(summary)
    assert doubled and verdict in markdown and quotes(verdict, DEFAULT_RUNS)
    (spec,) = [json.loads(c.proto.spec) for c in app.get("vega_lite_chart")]
    marks = [layer["mark"]["type"] for layer in spec["layer"]]
    assert marks == ["rule", "tick", "point"]
    # No legend to cut off: no layer is coloured by a field (the caption names the marks).
    assert all("color" not in layer.get("encoding", {}) for layer in spec["layer"])
    assert takeaway_block(app) == "\n".join(f"- {b}" for b in takeaways(run_lesson(0), doubled))


def test_few_runs_cannot_tell_and_the_page_says_so():
    app = open_page({"runs": "1"})
    click(app, f"{PID}_skip")
    summary = repeat_summary(repeat_lesson(1, 0))
    assert summary["runs"].tolist() == [1, 1]
    markdown = texts(app.markdown)
    doubled, verdict = repeat_verdict(summary)
    assert doubled is False and verdict in markdown  # one run each: cannot tell
    assert takeaways(run_lesson(0), False)[-1] in markdown  # the takeaway follows
    app.select_slider(key=f"{PAGE}_runs").set_value(1_000).run()
    assert app.query_params["runs"] == "1000"
    assert repeat_verdict(repeat_summary(repeat_lesson(1_000, 0)))[1] in texts(app.markdown)


@pytest.mark.parametrize(
    ("query", "note", "runs"),
    [
        ({"runs": "abc"}, "`runs=abc`", DEFAULT_RUNS),
        ({"runs": "999999"}, "`runs=999999` is outside", None),
        ({"seed": "-3"}, "`seed=-3` is outside", DEFAULT_RUNS),
    ],
)
def test_bad_query_params_give_notes_not_errors(query, note, runs):
    app = open_page(query)
    assert note in texts(app.info)
    click(app, f"{PID}_skip")
    assert not app.error
    value = app.select_slider(key=f"{PAGE}_runs").value
    assert value == (runs if runs is not None else value) and value <= max_runs()


def test_the_exercise_answer_is_hidden_then_a_whole_script_printing_the_pages_figures(tmp_path):
    app = open_page({"runs": "100", "seed": "3"})
    click(app, f"{PID}_skip")
    answer = exercise_answer_script(100, 3)
    assert answer.strip() not in [c.value.strip() for c in app.code]
    app.toggle(key=f"{PAGE}_exercise_1_answer").set_value(True).run()
    assert answer.strip() in [c.value.strip() for c in app.code]
    out = assert_script_behaves(answer, tmp_path / "answer")
    lesson = run_lesson(3)
    for n in (4, 8):
        assert f"{n} envs x 500 steps = {n * 500:,} env-steps: {lesson.goals[n]} goals" in out
    summary = repeat_summary(repeat_lesson(100, 3)).set_index("num_envs")
    for n in (4, 8):
        assert f"{n} envs: {summary.loc[n, 'mean_goals']:.4f} goals per run" in out


def test_the_default_script_shows_the_doubling(tmp_path):
    out = assert_script_behaves(exercise_answer_script(), tmp_path / "answer")
    found = re.findall(
        r"(\d) envs: ([\d.]+) goals per run \(95% interval ([\d.]+) to ([\d.]+)\)", out
    )
    (_, mean4, _, high4), (_, mean8, low8, _) = found
    assert float(high4) < float(low8)  # the intervals are apart: the doubling shows
    assert 1.5 < float(mean8) / float(mean4) < 2.6
    assert "roughly double, yes" in out  # the script's verdict line
    exact = goal_odds(500, 8).expected_goals / goal_odds(500, 4).expected_goals
    assert exact == pytest.approx(2.0, abs=0.01)


@pytest.mark.parametrize("seed", [0, 4, 9])
def test_the_lesson_run_script_prints_the_pages_live_figures(seed, tmp_path):
    # Seeds 4 and 9 are rare runs that show a goal (with 4 envs, with 8): the script agrees.
    run = run_lesson(seed)
    out = assert_script_behaves(lesson_run_script(seed), tmp_path / "lesson")
    for n in (4, 8):
        assert f"{n} envs x 500 steps: {run.goals[n]} goals" in out
