"""The "Goal statistics" page through the router, via AppTest, with small settings."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from page_apptest import open_app_page, open_expanders, texts
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.goal_statistics import (
    AGREEMENT_OPTIONS,
    ScalingSettings,
    agreement_answer,
    budget_reading,
    compare_backends,
    comparison_settings,
    measure_goal_rate,
    summarise,
)
from burgerbot.app.scripts.goal_statistics import snippet_for
from burgerbot.experiments import goal_scaling
from burgerbot.random_agent import goal_odds, long_run_goal_rate

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/goal_statistics.py"
PAGE = "goal_statistics"
KEY = {name: f"{PAGE}_{name}" for name in ("n", "steps", "total", "seeds", "backend", "budget")}
COUNTS = ["num_envs", "seed", "env_steps", "goals", "hits", "episodes"]
SMALL = {"n": "1,4", "steps": "300", "seeds": "2", "backend": "sync"}


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
    assert app.title[0].value == "The statistics behind goal counts"
    assert "This page assumes you have done Goal scaling" in texts(app.markdown)
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
    app = open_page({"n": "128,256", "steps": "100000", "seeds": "5", "backend": "sync"})
    message = texts(app.error)
    assert "192,000,000 env-steps" in message
    assert f"cap of {CAPS.max_sync_sweep_env_steps:,} for Sync" in message
    assert "BURGERBOT" not in message  # the limit in plain words
    fit = CAPS.max_sync_sweep_env_steps // (384 * 5)
    assert f"lower the steps per env to {fit:,} or fewer" in message
    assert app.button(key=f"{PAGE}_run").disabled
    app.radio(key=KEY["backend"]).set_value("native").run()
    assert f"cap of {CAPS.max_sweep_env_steps:,} for native" in texts(app.error)
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


PID = f"{PAGE}_agreement"


def lock_in(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    return click(app, f"{PID}_lock")


def test_nothing_gives_the_agreement_away_before_lock_in_then_the_check_runs():
    app = open_page(SMALL)
    small = comparison_settings(ScalingSettings((1, 4), 300, seeds=2))
    before = texts(app.markdown) + texts(app.caption) + texts(app.success)
    # The deciding fact (identical counts) is nowhere before the learner answers...
    assert "identical" not in before.lower() and not app.success
    assert "count exactly the same goals" not in before  # the takeaway stating it
    wrong = AGREEMENT_OPTIONS[2]
    lock_in(app, wrong)
    # ...and the quick check runs on lock-in, the prediction checked against it.
    assert small.describe(backend=False) in texts(app.caption)
    assert "All 4 runs give identical goals, hits and episodes" in texts(app.success)
    assert f"You predicted {wrong}; the live run gave {AGREEMENT_OPTIONS[0]}" in texts(app.warning)
    side = next(d.value for d in app.dataframe if "identical" in d.value.columns)
    assert side["identical"].all() and side["NUM_ENVS"].tolist() == [1, 1, 4, 4]
    markdown = texts(app.markdown)
    assert "**Sync** took" in markdown and "**native** took" in markdown
    assert app.subheader[-1].value == "Key takeaways"
    assert "count exactly the same goals" in markdown


def test_agreement_answer_follows_the_comparison_both_ways():
    same = comparison_settings(ScalingSettings((1, 2), 300, seeds=1))
    sync = goal_scaling([1, 2], same.steps_per_env, seeds=[0], backend="sync")
    native = goal_scaling([1, 2], same.steps_per_env, seeds=[0], backend="native")
    assert agreement_answer(compare_backends(sync, native)) == AGREEMENT_OPTIONS[0]
    off_by_one = native.assign(goals=native["goals"] + 1)
    assert agreement_answer(compare_backends(sync, off_by_one)) == AGREEMENT_OPTIONS[1]
    far = native.assign(goals=native["goals"] + 10)
    assert agreement_answer(compare_backends(sync, far)) == AGREEMENT_OPTIONS[2]


def test_when_both_backends_ran_the_learners_sweep_is_compared():
    app = open_page(SMALL)
    click(app, f"{PID}_skip")
    app.multiselect(key=KEY["n"]).set_value([2]).run()
    click(app, f"{PAGE}_run")
    app.radio(key=KEY["backend"]).set_value("native").run()
    click(app, f"{PAGE}_run")
    assert "All 2 runs give identical" in texts(app.success)
    assert "NUM_ENVS 2; 300 steps per env; 2 seed(s)" in texts(app.success)


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"n": "abc"}, "`n=abc` is not a list of whole numbers", ("n", [1, 2, 4, 8, 16])),
        ({"n": "0,4,99999"}, "Some of `n` lay outside 1..", ("n", [1, 4, CAPS.max_envs])),
        ({"steps": "-5"}, "`steps=-5` is outside", ("steps", 1)),
        ({"seeds": "1000"}, f"is outside 1..{CAPS.max_seeds}", ("seeds", CAPS.max_seeds)),
        ({"backend": "async"}, "`backend=async` is not one of", ("backend", "native")),
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
    settings = replace(
        ScalingSettings((4, 64), seeds=1, budget="total", backend="native"), total_env_steps=64
    )
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


def test_a_sweep_without_goals_says_how_likely_that_was():
    app = open_page({"n": "1,2", "steps": "50", "seeds": "1", "backend": "sync"})
    click(app, f"{PAGE}_run")
    assert goal_scaling([1, 2], 50, seeds=[0], backend="sync")["goals"].sum() == 0
    expected = sum(goal_odds(50, n).expected_goals for n in (1, 2))
    assert f"Worked out exactly, it expected {expected:.2f} goals in all" in texts(app.warning)
    assert "on this server (" in texts(app.caption)  # when and where the rate was measured
