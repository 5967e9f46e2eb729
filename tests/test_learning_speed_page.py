"""The "Does batching make learning faster?" page through the router, via AppTest."""

from __future__ import annotations

import json

import pytest
from page_apptest import (
    open_app_page,
    open_expanders,
    prediction_checks,
    prediction_score,
    texts,
)
from sentence_facts import bold
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.learning_speed import (
    SAMPLE_OPTIONS,
    needed_env_steps,
    sample_text,
    sample_truth,
    takeaways,
)
from burgerbot.app.scripts.learning_speed import training_script
from burgerbot.training import QLearningConfig, compare_num_envs, runs_frame, summarise_runs

PAGE_FILE = "app_pages/learning_speed.py"
KEY = {name: f"learning_speed_{name}" for name in ("ns", "steps", "seeds")}
KEY["first_seed"] = "learning_speed_tseed"
TRAIN = "learning_speed_train"
RESULTS = "When did each NUM_ENVS learn the task?"


def pid(n_small: int, n_large: int) -> str:
    return f"learning_speed_sample_{n_small}_{n_large}"


def open_page(query: dict[str, str] | None = None) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=300, expanders=True)


def chart_specs(app: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]


def asks_to_train(app: AppTest) -> bool:
    """Whether an info box asks the learner to press the training button (by its label)."""
    return app.button(key=TRAIN).label in texts(app.info)


def headers(app: AppTest) -> list[str]:
    return [h.value for h in app.header]


def test_the_page_says_what_it_assumes_first():
    app = open_page()
    assert app.title[0].value == "Does batching make learning faster?"
    assert app.markdown[0].value.startswith("This page assumes")


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page({"ns": "1,16", "steps": "2000", "seeds": "2"})
    # Nothing trains, nothing is measured, no takeaway is stated before the answer.
    assert TRAIN not in [button.key for button in app.button]
    assert RESULTS not in headers(app) and not chart_specs(app) and not app.dataframe
    assert "Key takeaways" in headers(app)
    assert takeaways()[1] not in texts(app.markdown)
    # The scripts are there from the start: they state no result.
    assert any("compare_num_envs" in c.value for c in app.code)

    app.button(key=f"{pid(1, 16)}_skip").click().run()
    assert asks_to_train(app) and takeaways()[1] in texts(app.markdown)
    app.button(key=TRAIN).click().run()
    runs = runs_frame(compare_num_envs([1, 16], seeds=[0, 1], config=QLearningConfig(2_000)))
    deciding = sample_text(needed_env_steps(runs, 1), needed_env_steps(runs, 16), 1, 16)
    assert deciding in texts(app.markdown)
    assert RESULTS in headers(app) and prediction_checks(app) == []  # skipped: no check


def test_training_runs_on_click_and_shows_curves_and_numbers():
    app = open_page()
    app.multiselect(key=KEY["ns"]).set_value([1, 8]).run()
    app.number_input(key=KEY["steps"]).set_value(2_000).run()
    app.number_input(key=KEY["seeds"]).set_value(1).run()
    app.number_input(key=KEY["first_seed"]).set_value(2).run()
    app.button(key=f"{pid(1, 8)}_skip").click().run()
    assert asks_to_train(app)
    # the one wording check of the runs caption
    assert "2 runs: NUM_ENVS 1, 8 x seeds 2..2, 2,000 env-steps each." in texts(app.caption)
    assert app.query_params["ns"] == "1,8" and app.query_params["steps"] == "2000"

    app.button(key=TRAIN).click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert "Trained just now, started by your visit" in texts(app.caption)
    assert len(chart_specs(app)) == 2  # the goal-rate view is drawn once its expander opens
    open_expanders(app)
    assert not asks_to_train(app)
    (table,) = [df.value for df in app.dataframe if "runs that learned it" in df.value.columns]
    assert table["NUM_ENVS"].tolist() == [1, 8]
    assert table["runs that learned it"].tolist() == ["1 of 1", "1 of 1"]
    specs = chart_specs(app)
    x_fields = [spec["encoding"]["x"]["field"] for spec in specs]
    assert x_fields == ["env_steps", "seconds", "env_steps"]
    markdown = texts(app.markdown)
    # one seed each: the throughput figures, and no factor (no spread to compare)
    (throughput,) = [m.value for m in app.markdown if m.value.startswith("**Throughput.**")]
    assert bold(throughput.split("\n\n")[0]) == ["Throughput."]  # figures, no factor
    # the env-steps needed, as the library's own run of the same settings gives them
    trained = compare_num_envs([1, 8], seeds=[2], config=QLearningConfig(env_steps=2_000))
    runs = runs_frame(trained)
    needed = sample_text(needed_env_steps(runs, 1), needed_env_steps(runs, 8), 1, 8)
    assert needed in markdown
    (cost,) = [i.value for i in app.info if i.value.startswith("**Where the time goes.**")]
    assert len(bold(cost)) == 4  # the heading, µs per env-step at NUM_ENVS 1 and 8, plain loop
    # The takeaways now read the training run too: one more bullet, computed from the run
    bullets = takeaways(summarise_runs(trained), runs)
    assert len(bullets) == len(takeaways()) + 1
    assert bullets[-1] in markdown
    assert training_script((1, 8), 2_000, 1, 2).strip() in texts(app.code)

    # Other settings: not trained yet. Back again: the cached results, without a click.
    app.number_input(key=KEY["seeds"]).set_value(2).run()
    assert asks_to_train(app)
    assert len(chart_specs(app)) == 0
    app.number_input(key=KEY["seeds"]).set_value(1).run()
    assert len(chart_specs(open_expanders(app))) == 3 and not app.exception


@pytest.mark.parametrize("right", [True, False])
def test_the_prediction_is_checked_against_the_live_run(right):
    runs = runs_frame(compare_num_envs([1, 16], seeds=[0, 1], config=QLearningConfig(2_000)))
    truth = sample_truth(runs, 1, 16)  # from the library, not the page
    choice = truth if right else next(o for o in SAMPLE_OPTIONS if o != truth)
    app = open_page({"ns": "1,16", "steps": "2000", "seeds": "2"})
    app.radio(key=f"{pid(1, 16)}_choice").set_value(choice).run()
    app.button(key=f"{pid(1, 16)}_lock").click().run()
    assert prediction_checks(app) == []  # locked in, not trained yet: nothing to check
    assert prediction_score(app) == (1, 0, 0)
    app.button(key=TRAIN).click().run()
    assert prediction_checks(app) == [(choice, truth)]
    assert prediction_score(app) == (1, int(right), 1)
    assert not app.exception


def test_fewer_than_two_num_envs_ask_for_more():
    app = open_page()
    app.multiselect(key=KEY["ns"]).set_value([4]).run()
    assert "NUM_ENVS" in texts(app.warning)
    assert TRAIN not in [button.key for button in app.button]
    app.multiselect(key=KEY["ns"]).set_value([]).run()
    assert "NUM_ENVS" in texts(app.warning) and not app.exception


def test_a_training_click_past_the_apps_limit_is_cut_down_and_said_so():
    # ?steps=400000 with 3 NUM_ENVS x 3 seeds: 9 runs share the limit of one click
    app = open_page({"steps": str(CAPS.max_train_env_steps)})
    assert app.number_input(key=KEY["steps"]).value == CAPS.max_train_env_steps
    per_run = CAPS.max_train_env_steps // 9
    (note,) = [i.value for i in app.info if f"{per_run:,}" in i.value]
    assert f"{CAPS.max_train_env_steps:,}" in note and "BURGERBOT" not in note
    app.button(key=f"{pid(1, 16)}_skip").click().run()
    assert f"{per_run:,} env-steps each" in texts(app.caption)  # what one click will run


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"ns": "0,999"}, "Some of `ns` lay outside 1..256: using 1,256.", ("ns", [1, 256])),
        ({"ns": "x"}, "`ns=x` is not a list of whole numbers", ("ns", [1, 4, 16])),
        ({"seeds": "99"}, "`seeds=99` is outside 1..10: using 10.", ("seeds", 10)),
    ],
)
def test_bad_query_params_show_a_note(query, note, check):
    app = open_page(query)
    assert note in texts(app.info)
    name, used = check
    widget = {"ns": app.multiselect, "seeds": app.number_input}[name](key=KEY[name])
    assert widget.value == used


def test_the_td_target_is_described_as_the_code_computes_it():
    """Finding 8: the code zeroes the next state's value on `terminated` only, so a truncated
    episode still bootstraps; the page says which flag stops it."""
    import inspect

    from burgerbot import training

    source = inspect.getsource(training)
    assert "* ~terminated" in source and "* ~truncated" not in source  # what the code does
    described = next(
        m.value for m in open_page().markdown if "*TD target*" in m.value
    )  # the expander "How the experiment works"
    assert "terminated" in described and "truncated" in described
    assert "0 after the episode ended" not in described
