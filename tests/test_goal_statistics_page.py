"""The "Goal statistics" page through the router, via AppTest, with small settings."""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from page_apptest import (
    open_app_page,
    open_expanders,
    prediction_checks,
    setting_notes,
    texts,
)
from sentence_facts import bold, code_spans, quotes
from streamlit.testing.v1 import AppTest
from streamlit.testing.v1 import app_test as app_test_module

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.goal_statistics import (
    AGREEMENT_OPTIONS,
    ScalingSettings,
    agreement_answer,
    budget_reading,
    check_budget,
    compare_backends,
    comparison_settings,
    doubling_verdict,
    measure_goal_rate,
    summarise,
    takeaways,
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
    assert quotes(four.delta, round(100 * goal_odds(500, 4).chance_of_none, 1))  # 95.6%
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
    verdict = doubling_verdict(summarise(csv))  # NUM_ENVS 4 against 8
    assert verdict and quotes(verdict, 4, 8) and verdict in texts(app.markdown)

    app.radio(key=KEY["budget"]).set_value("total").run()
    assert app.number_input(key=KEY["steps"]).disabled
    assert not app.number_input(key=KEY["total"]).disabled
    swept = ScalingSettings((4, 8), steps_per_env=250, seeds=3, backend="native")
    app.number_input(key=KEY["total"]).set_value(1_000).run()
    assert swept.describe() in texts(app.info)  # the results shown are for these settings
    click(app, f"{PAGE}_run")
    assert "previous settings" not in texts(app.info)
    table = summary(app)
    assert table["env-steps per run"].tolist() == [1000, 1000]  # 4 x 250 and 8 x 125
    # The sentence about level counts is read off this sweep's own numbers.
    csv = pd.read_csv(io.StringIO(download_text(app, media_files)))
    reading = budget_reading(summarise(csv), "total")
    assert reading == budget_reading(summarise(csv), "total") and reading in texts(app.markdown)
    assert bold(reading)[0] != bold(budget_reading(summarise(csv), "per_env"))[0]
    assert app.query_params["budget"] == "total" and app.query_params["total"] == "1000"
    assert csv["steps_per_env"].tolist() == [250, 250, 250, 125, 125, 125]


def test_the_code_expander_holds_the_script_for_the_current_settings():
    app = open_page(SMALL | {"backend": "native"})
    settings = ScalingSettings((1, 4), steps_per_env=300, seeds=2, backend="native")
    assert snippet_for(settings).strip() in [c.value.strip() for c in app.code]


def test_an_oversized_sweep_is_refused_with_what_to_lower():
    app = open_page({"n": "128,256", "steps": "100000", "seeds": "5", "backend": "sync"})
    message = texts(app.error)
    too_big = ScalingSettings((128, 256), steps_per_env=100_000, seeds=5, backend="sync")
    assert message == check_budget(too_big)
    assert "BURGERBOT" not in message  # the limit in plain words
    fit = CAPS.max_sync_sweep_env_steps // (384 * 5)
    assert quotes(message, 192_000_000, CAPS.max_sync_sweep_env_steps, fit)
    assert app.button(key=f"{PAGE}_run").disabled
    app.radio(key=KEY["backend"]).set_value("native").run()
    assert texts(app.error) == check_budget(replace(too_big, backend="native"))
    assert quotes(texts(app.error), CAPS.max_sweep_env_steps)  # native's own cap
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
    assert takeaways()[-1] not in before  # the takeaway stating it
    wrong = AGREEMENT_OPTIONS[2]
    lock_in(app, wrong)
    # ...and the quick check runs on lock-in, the prediction checked against it.
    assert small.describe(backend=False) in texts(app.caption)
    assert quotes(texts(app.success), 4)  # all 4 runs identical
    assert prediction_checks(app) == [(wrong, AGREEMENT_OPTIONS[0])]
    side = next(d.value for d in app.dataframe if "identical" in d.value.columns)
    assert side["identical"].all() and side["NUM_ENVS"].tolist() == [1, 1, 4, 4]
    markdown = texts(app.markdown)
    assert "**Sync** took" in markdown and "**native** took" in markdown
    assert app.header[-1].value == "Key takeaways"
    assert takeaways()[-1].split("`")[0] in markdown  # now stated


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
    success = texts(app.success)
    assert quotes(success, 2) and ScalingSettings((2,), 300, seeds=2).describe(False) in success


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"n": "abc"}, "n=abc", ("n", [1, 2, 4, 8, 16, 32, 64, 128, 256])),
        ({"n": "0,4,99999"}, "n", ("n", [1, 4, CAPS.max_envs])),
        ({"steps": "-5"}, "steps=-5", ("steps", 1)),
        ({"seeds": "1000"}, "seeds=1000", ("seeds", CAPS.max_seeds)),
        ({"backend": "async"}, "backend=async", ("backend", "native")),
        ({"budget": "xyz"}, "budget=xyz", ("budget", "per_env")),
        ({"colour": "red"}, "colour", ("seeds", 10)),
    ],
)
def test_bad_query_params_give_notes_not_errors(query, note, check):
    app = open_page(query)
    (said,) = setting_notes(app)
    assert note in code_spans(said) or note in said.split(": ")[-1]  # names what it adjusted
    key, value = check
    widget = {
        "n": app.multiselect,
        "steps": app.number_input,
        "seeds": app.slider,
        "backend": app.radio,
        "budget": app.radio,
    }[key](key=KEY[key])
    assert widget.value == value


def test_a_tiny_total_budget_is_raised_to_the_largest_num_envs():
    app = open_page({"n": "4,64", "budget": "total", "total": "10", "seeds": "1"}, expanders=False)
    (said,) = setting_notes(app)
    assert quotes(said, 64)  # raised to the largest NUM_ENVS
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
    none = goal_odds(50, 1).chance_of_none * goal_odds(50, 2).chance_of_none
    said = texts(app.warning)  # how many goals were expected, how likely none was: exactly
    assert quotes(said, float(f"{expected:.3g}"), float(f"{none:.3g}"))
    assert "on this server (" in texts(app.caption)  # when and where the rate was measured


def test_the_expected_table_heads_each_expectation_as_one_not_as_a_count():
    """Issue 37: 6.087301 stood under 'runs with 0 goals (of 10)', a count's header."""
    app = open_page({"n": "1,16", "seeds": "10"})
    (table,) = [d.value for d in app.dataframe if "expected goals" in d.value.columns]
    zero = [column for column in table.columns if "0 goals (of" in column]
    assert zero == ["expected runs with 0 goals (of 10)"]
    assert (table[zero[0]] % 1 != 0).any()  # a fraction of a run: an expectation
