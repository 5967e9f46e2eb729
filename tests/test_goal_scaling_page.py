"""The "Goal scaling" page through the router, via AppTest, with small settings."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from page_apptest import open_app_page, open_expanders, texts
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.goal_scaling import (
    ScalingSettings,
    budget_reading,
    comparison_settings,
    goal_bucket,
    measure_goal_rate,
    run_lesson,
    summarise,
)
from burgerbot.app.scripts.goal_scaling import exercise_answer_script, snippet_for
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import goal_odds, long_run_goal_rate

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/goal_scaling.py"
PAGE = "goal_scaling"
KEY = {name: f"{PAGE}_{name}" for name in ("n", "steps", "total", "seeds", "backend", "budget")}
COUNTS = ["num_envs", "seed", "env_steps", "goals", "hits", "episodes"]
SMALL = {"n": "1,4", "steps": "300", "seeds": "2"}


def open_page(query: dict[str, str] | None = None, *, expanders: bool = True) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=600, expanders=expanders)


def click(app: AppTest, key: str) -> AppTest:
    app.button(key=key).click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def charts(app: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]


def summary(app: AppTest) -> pd.DataFrame:
    frames = [d.value for d in open_expanders(app).dataframe if "mean goals" in d.value.columns]
    assert len(frames) == 1
    return frames[0]


@pytest.fixture
def media_files(monkeypatch) -> list:
    """Every media store AppTest creates (one per run), to read download buttons' data."""
    stores = []
    original = app_test_module.MemoryMediaFileStorage

    def recording(*args, **kwargs):
        store = original(*args, **kwargs)
        stores.append(store)
        return store

    monkeypatch.setattr(app_test_module, "MemoryMediaFileStorage", recording)
    return stores


def page_downloads(app: AppTest) -> list:
    """The page's CSV download (not the library's or the scripts' .py/.ipynb downloads)."""
    return [b for b in app.get("download_button") if b.key == f"{PAGE}_download"]


def download_text(app: AppTest, stores: list) -> str:
    (button,) = page_downloads(app)
    filename = button.proto.url.rsplit("/", 1)[-1]
    return stores[-1].get_file(filename).content.decode()


def test_the_page_predicts_before_running_and_runs_nothing_by_itself():
    app = open_page()
    assert app.title[0].value.startswith("Goal scaling")
    markdown = texts(app.markdown)
    found = re.search(r"reached the goal (\d+) times", markdown)
    reference = measure_goal_rate()
    assert found and int(found.group(1)) == reference.goals  # measured live, same run
    assert f"once every {1 / long_run_goal_rate():,.0f}" in markdown  # exact
    metrics = {m.label: m for m in app.metric}
    four = metrics["4 envs × 500 steps: expected goals"]
    # the library's exact figures, the same as Home's
    assert four.value == f"{goal_odds(500, 4).expected_goals:.4f}" == "0.0453"
    assert "chance of seeing 0: 95.6%" in four.delta
    assert "Try this" in markdown and "steps per env" in markdown
    assert "Press **Run sweep**" in texts(app.info)
    assert not app.get("vega_lite_chart") and not page_downloads(app)
    assert app.query_params["n"] == "1,2,4,8,16,32,64,128,256"
    assert "2,555,000 env-steps" in texts(app.caption)
    expected = next(d.value for d in app.dataframe if "expected goals" in d.value.columns)
    assert expected["NUM_ENVS"].tolist() == [1, 2, 4, 8, 16, 32, 64, 128, 256]
    assert expected["expected goals"].tolist() == pytest.approx(
        [goal_odds(500, n).expected_goals for n in expected["NUM_ENVS"]]
    )
    assert not app.error


def test_a_sweep_shows_the_chart_the_table_and_the_csv(media_files):
    app = open_page(SMALL)
    assert app.multiselect(key=KEY["n"]).value == [1, 4]
    click(app, f"{PAGE}_run")
    expected = goal_scaling([1, 4], 300, seeds=[0, 1], backend="sync")
    table = summary(app)
    assert table["NUM_ENVS"].tolist() == [1, 4]
    assert table["env-steps per run"].tolist() == [300, 1200]
    means = expected.groupby("num_envs")["episodes"].mean().tolist()
    episodes = next(d.value for d in app.dataframe if "mean episodes" in d.value.columns)
    assert episodes["mean episodes"].tolist() == pytest.approx(means, abs=0.05)
    titles = [spec["layer"][1]["encoding"]["y"]["title"] for spec in charts(app)]
    assert titles == ["Goals reached per run", "Finished episodes per run (log scale)"]
    assert "**Goals reached per run**" in texts(app.markdown)
    markdown = texts(app.markdown)
    assert "**Sync** took" in markdown
    assert "Did goals double?" not in markdown  # no N with 2N among 1 and 4
    csv = pd.read_csv(io.StringIO(download_text(app, media_files)))
    pd.testing.assert_frame_equal(csv[COUNTS], expected[COUNTS])
    assert (csv["backend"] == "sync").all() and (csv["seconds"] > 0).all()


def test_every_control_changes_the_sweep(media_files):
    app = open_page(SMALL)
    app.multiselect(key=KEY["n"]).set_value([4, 8]).run()
    app.slider(key=KEY["seeds"]).set_value(3).run()
    app.radio(key=KEY["backend"]).set_value("native").run()
    app.number_input(key=KEY["steps"]).set_value(250).run()
    assert not app.exception
    assert dict(app.query_params) == {
        "n": "4,8",
        "steps": "250",
        "total": "20000",
        "seeds": "3",
        "backend": "native",
        "budget": "per_env",
    }
    assert app.number_input(key=KEY["total"]).disabled
    click(app, f"{PAGE}_run")
    csv = pd.read_csv(io.StringIO(download_text(app, media_files)))
    expected = goal_scaling([4, 8], 250, seeds=[0, 1, 2], backend="native")
    pd.testing.assert_frame_equal(csv[COUNTS], expected[COUNTS])
    assert (csv["backend"] == "native").all()
    assert "**native** took" in texts(app.markdown)
    assert "**Did goals double?** NUM_ENVS 4: **" in texts(app.markdown)

    app.radio(key=KEY["budget"]).set_value("total").run()
    assert app.number_input(key=KEY["steps"]).disabled
    assert not app.number_input(key=KEY["total"]).disabled
    app.number_input(key=KEY["total"]).set_value(1_000).run()
    assert "These results are for the previous settings" in texts(app.info)
    click(app, f"{PAGE}_run")
    assert "previous settings" not in texts(app.info)
    table = summary(app)
    assert table["env-steps per run"].tolist() == [1000, 1000]  # 4 x 250 and 8 x 125
    # The sentence about level counts is read off this sweep's own numbers.
    csv = pd.read_csv(io.StringIO(download_text(app, media_files)))
    reading = budget_reading(summarise(csv), "total")
    assert "**same total env-steps**" in reading and reading in texts(app.markdown)
    assert app.query_params["budget"] == "total" and app.query_params["total"] == "1000"
    assert csv["steps_per_env"].tolist() == [250, 250, 250, 125, 125, 125]


def test_the_code_expander_holds_the_script_for_the_current_settings():
    app = open_page(SMALL | {"backend": "native"})
    settings = ScalingSettings((1, 4), steps_per_env=300, seeds=2, backend="native")
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


def test_an_oversized_sweep_is_refused_with_what_to_lower():
    app = open_page({"n": "128,256", "steps": "100000", "seeds": "5"})
    message = texts(app.error)
    assert "192,000,000 env-steps" in message
    assert f"cap of {CAPS.max_sync_sweep_env_steps:,} for Sync" in message
    assert "BURGERBOT_MAX_SYNC_SWEEP_ENV_STEPS" in message
    fit = CAPS.max_sync_sweep_env_steps // (384 * 5)
    assert f"lower the steps per env to {fit:,} or fewer" in message
    assert app.button(key=f"{PAGE}_run").disabled
    app.radio(key=KEY["backend"]).set_value("native").run()
    assert "BURGERBOT_MAX_SWEEP_ENV_STEPS" in texts(app.error)
    app.slider(key=KEY["seeds"]).set_value(1).run()
    app.number_input(key=KEY["steps"]).set_value(1000).run()
    assert not app.error and not app.button(key=f"{PAGE}_run").disabled


def test_try_this_sets_up_an_experiment_where_doubling_shows():
    app = open_page()
    click(app, f"{PAGE}_try_this")
    assert app.multiselect(key=KEY["n"]).value == [4, 8]
    assert app.radio(key=KEY["backend"]).value == "native"
    assert app.radio(key=KEY["budget"]).value == "per_env"
    steps = app.number_input(key=KEY["steps"]).value
    assert goal_odds(steps, 4).expected_goals >= 20
    assert app.query_params["n"] == "4,8" and app.query_params["steps"] == str(steps)
    assert not app.error


def test_sync_and_native_agree_in_the_quick_check_and_when_both_ran():
    app = open_page(SMALL)
    small = comparison_settings(ScalingSettings((1, 4), 300, seeds=2))
    assert small.describe(backend=False) in texts(app.caption)
    click(app, f"{PAGE}_compare")
    assert "All 4 runs give identical goals, hits and episodes" in texts(app.success)
    side = next(d.value for d in app.dataframe if "identical" in d.value.columns)
    assert side["identical"].all() and side["NUM_ENVS"].tolist() == [1, 1, 4, 4]
    markdown = texts(app.markdown)
    assert "**Sync** took" in markdown and "**native** took" in markdown

    # Running the learner's own sweep on both backends compares those runs instead.
    app.multiselect(key=KEY["n"]).set_value([2]).run()
    click(app, f"{PAGE}_run")
    app.radio(key=KEY["backend"]).set_value("native").run()
    click(app, f"{PAGE}_run")
    assert not any(b.key == f"{PAGE}_compare" for b in app.button)  # no quick check needed
    assert "All 2 runs give identical" in texts(app.success)
    assert "NUM_ENVS 2; 300 steps per env; 2 seed(s)" in texts(app.success)


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"n": "abc"}, "`n=abc` is not a list of whole numbers", ("n", [1, 2, 4, 8, 16])),
        ({"n": "0,4,99999"}, "Some of `n` lay outside 1..", ("n", [1, 4, CAPS.max_envs])),
        ({"steps": "-5"}, "`steps=-5` is outside", ("steps", 1)),
        ({"seeds": "1000"}, f"is outside 1..{CAPS.max_seeds}", ("seeds", CAPS.max_seeds)),
        ({"backend": "async"}, "`backend=async` is not one of sync, native", ("backend", "sync")),
        ({"budget": "xyz"}, "`budget=xyz` is not one of", ("budget", "per_env")),
        ({"colour": "red"}, "Ignored unknown URL settings", ("seeds", 10)),
    ],
)
def test_bad_query_params_give_notes_not_errors(query, note, check):
    app = open_page(query)
    assert note in texts(app.info)
    key, value = check
    widget = {
        "n": app.multiselect,
        "steps": app.number_input,
        "seeds": app.slider,
        "backend": app.radio,
        "budget": app.radio,
    }[key](key=KEY[key])
    got = widget.value
    if key == "n" and value == [1, 2, 4, 8, 16]:
        assert got[:5] == value
    else:
        assert got == value


def test_a_tiny_total_budget_is_raised_to_the_largest_num_envs():
    app = open_page({"n": "4,64", "budget": "total", "total": "10", "seeds": "1"}, expanders=False)
    assert "at least the largest NUM_ENVS (64)" in texts(app.info)
    open_expanders(app)
    assert app.number_input(key=KEY["total"]).value == 64
    settings = replace(ScalingSettings((4, 64), seeds=1, budget="total"), total_env_steps=64)
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


# --- The learner's path: prediction, verdict, exercise, takeaways ---------------------------

PID = f"{PAGE}_goals"


@pytest.mark.parametrize("seed", [0, 11])
def test_the_goal_prediction_is_checked_against_the_lessons_live_run(seed):
    app = open_page()
    app.number_input(key=f"{PAGE}_lesson_seed").set_value(seed).run()
    truth = goal_bucket(run_lesson(seed).goals[4])  # the library's own run, not the page's
    wrong = next(option for option in app.radio(key=f"{PID}_choice").options if option != truth)
    app.radio(key=f"{PID}_choice").set_value(wrong).run()
    click(app, f"{PID}_lock")
    assert f"You predicted {wrong}; the live run gave {truth}." in texts(app.warning)
    app.radio(key=f"{PID}_choice").set_value(truth).run()
    click(app, f"{PID}_lock")
    assert f"**Your prediction was right:** {truth}." in texts(app.success)
    assert f"With seed {seed}, 4 envs x 500 steps" in texts(app.success)
    assert "Predictions: 1 made, 1 of 1 checked right" in texts(app.sidebar.caption)


def test_the_lessons_goal_claim_is_true_but_not_visible_and_the_page_ends_with_takeaways():
    app = open_page()
    markdown = texts(app.markdown)
    assert ":blue-badge[🔬 True, not visible as set up]" in markdown
    assert "both runs show 0 goals" in markdown
    assert app.subheader[-1].value == "Key takeaways"
    assert f"once per {1 / long_run_goal_rate():,.0f} env-steps" in markdown
    assert f"Your run with seed 0 gave {run_lesson(0).goals[4]}" in markdown


def test_the_exercise_answer_is_hidden_then_a_whole_script_that_answers_it(tmp_path):
    app = open_page()
    answer = exercise_answer_script()
    assert answer.strip() not in [c.value.strip() for c in app.code]
    app.toggle(key=f"{PAGE}_exercise_1_answer").set_value(True).run()
    assert answer.strip() in [c.value.strip() for c in app.code]
    out = assert_script_behaves(answer, tmp_path / "answer")
    lesson = goal_scaling([4, 8], 500, seeds=[0], backend="native")
    for n, goals in zip(lesson["num_envs"], lesson["goals"], strict=True):
        assert f"{n} envs x 500 steps = {n * 500:,} env-steps: {goals} goals" in out
    found = re.findall(
        r"(\d) envs: ([\d.]+) goals per run \(95% interval ([\d.]+) to ([\d.]+)\)", out
    )
    (_, mean4, _, high4), (_, mean8, low8, _) = found
    assert float(high4) < float(low8)  # the intervals are apart: the doubling shows
    assert 1.5 < float(mean8) / float(mean4) < 2.6
    assert "The intervals are apart: roughly double, yes" in out
    zeros = [float(z) for z in re.findall(r"showed 0 goals (\d+)% of the time", out)]
    zeros += [float(z) for z in re.findall(r"and (\d+)% with 8", out)]
    assert len(zeros) == 2 and all(z > 50 for z in zeros)


def test_a_sweep_without_goals_says_how_likely_that_was():
    app = open_page({"n": "1,2", "steps": "50", "seeds": "1"})
    click(app, f"{PAGE}_run")
    assert goal_scaling([1, 2], 50, seeds=[0], backend="sync")["goals"].sum() == 0
    expected = sum(goal_odds(50, n).expected_goals for n in (1, 2))
    assert f"Worked out exactly, it expected {expected:.2f} goals in all" in texts(app.warning)
    assert "on this server (" in texts(app.caption)  # when and where the rate was measured
