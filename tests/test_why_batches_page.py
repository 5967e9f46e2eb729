"""The "Why batches help" page through the router, via AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_apptest import open_app_page, open_expanders, texts
from streamlit.testing.v1 import AppTest

from burgerbot.buffers import buffer_layout, rollout_buffer

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/why_batches.py"
KEY = {
    name: f"why_batches_{name}" for name in ("n", "batch", "mode", "bseed", "ns", "steps", "seeds")
}
KEY["first_seed"] = "why_batches_tseed"
TRAIN = "why_batches_train"


def open_page(query: dict[str, str] | None = None) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=300, expanders=True)


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


def chart_specs(app: AppTest) -> list[dict]:
    return [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def test_defaults_show_the_lessons_numbers(page):
    assert page.title[0].value == "Why batches help"
    shown = metrics(page)
    assert shown["step() calls to fill the batch"] == "512"
    assert shown["rows (env-steps) per call"] == "4"
    assert shown["buffer shape (steps, envs)"] == "(512, 4)"
    frame = rollout_buffer(2048, 4, 0, "NEXT_STEP")
    assert shown["episodes that ended in it"] == f"{int(frame['ends_episode'].sum()):,}"
    resets = int((frame["event"] == "reset").sum())
    assert f"**{resets:,}** of them are NEXT_STEP reset rows" in texts(page.markdown)
    # the 512 calls' 2,048 rows: transitions and reset rows, counted from the run
    assert f"the batch holds **{2048 - resets:,} transitions**" in texts(page.markdown)
    assert "the first 64 of 512 step() calls for all 4 envs" in texts(page.markdown)
    (heatmap,) = chart_specs(page)  # no training yet, so no curves
    assert heatmap["layer"][0]["mark"]["type"] == "rect"
    assert "Press **Start training**" in texts(page.info)
    assert "BATCH, N, SEED = 2048, 4, 0" in texts(page.code)
    assert not page.warning


def test_num_envs_batch_mode_and_seed_change_the_buffer(page):
    page.slider(key=KEY["n"]).set_value(16).run()
    assert metrics(page)["step() calls to fill the batch"] == "128"
    assert "the first 64 of 128 step() calls for all 16 envs." in texts(page.markdown)
    assert page.query_params["n"] == "16"

    page.number_input(key=KEY["batch"]).set_value(1000).run()
    assert metrics(page)["buffer shape (steps, envs)"] == "(63, 16)"
    assert "collect 1,008 rows, 8 more than needed" in texts(page.caption)

    page.radio(key=KEY["mode"]).set_value("SAME_STEP").run()
    assert "SAME_STEP mode resets an env on the very call" in texts(page.markdown)
    assert "autoreset_mode=AutoresetMode.SAME_STEP" in texts(page.code)

    page.number_input(key=KEY["bseed"]).set_value(9).run()
    frame = rollout_buffer(1000, 16, 9, "SAME_STEP")
    assert metrics(page)["episodes that ended in it"] == str(int(frame["ends_episode"].sum()))
    assert "BATCH, N, SEED = 1000, 16, 9" in texts(page.code)
    assert page.query_params["bseed"] == "9" and page.query_params["mode"] == "SAME_STEP"

    page.slider(key=KEY["n"]).set_value(256).run()
    assert "for the first 64 of 256 envs" in texts(page.markdown)
    assert "at most 64 rows and 64 columns" in texts(page.caption)
    (heatmap,) = chart_specs(page)
    assert heatmap["layer"][0]["encoding"]["x"]["scale"]["domain"] == [0, 64]
    assert buffer_layout(1000, 256).step_calls == 4
    assert metrics(page)["buffer shape (steps, envs)"] == "(4, 256)"
    assert not page.exception


def test_training_runs_on_click_and_shows_curves_and_numbers():
    app = open_page()
    app.multiselect(key=KEY["ns"]).set_value([1, 8]).run()
    app.number_input(key=KEY["steps"]).set_value(2_000).run()
    app.number_input(key=KEY["seeds"]).set_value(1).run()
    app.number_input(key=KEY["first_seed"]).set_value(2).run()
    assert "Press **Start training**" in texts(app.info)
    assert "2 runs: NUM_ENVS 1, 8 x seeds 2..2, 2,000 env-steps each." in texts(app.caption)
    assert app.query_params["ns"] == "1,8" and app.query_params["steps"] == "2000"

    app.button(key=TRAIN).click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert "Trained just now, started by your visit" in texts(app.caption)
    assert len(chart_specs(app)) == 3  # the goal-rate view is drawn once its expander opens
    open_expanders(app)
    assert "Press **Start training**" not in texts(app.info)
    (table,) = [df.value for df in app.dataframe if "runs that learned it" in df.value.columns]
    assert table["NUM_ENVS"].tolist() == [1, 8]
    assert table["runs that learned it"].tolist() == ["1 of 1", "1 of 1"]
    specs = chart_specs(app)
    x_fields = [spec["encoding"]["x"]["field"] for spec in specs[1:]]
    assert x_fields == ["env_steps", "seconds", "env_steps"]
    markdown = texts(app.markdown)
    # one seed each: the figures, and no factor (no spread to compare)
    assert "**Throughput.** NUM_ENVS=8: " in markdown and "no spread to compare" in markdown
    assert "**Env-steps needed to learn**" in markdown and "NUM_ENVS=1 needed" in markdown
    assert "**Where the time goes.** Per [env-step]" in texts(app.info)
    # The takeaways now read the training run too.
    assert "In your run" in texts(app.markdown)
    assert "compare_num_envs(\n    [1, 8],\n    seeds=range(2, 3)" in texts(app.code)

    # Other settings: not trained yet. Back again: the cached results, without a click.
    app.number_input(key=KEY["seeds"]).set_value(2).run()
    assert "Press **Start training**" in texts(app.info)
    assert len(chart_specs(app)) == 1
    app.number_input(key=KEY["seeds"]).set_value(1).run()
    assert len(chart_specs(open_expanders(app))) == 4 and not app.exception


def test_an_empty_selection_asks_for_num_envs():
    app = open_page()
    app.multiselect(key=KEY["ns"]).set_value([]).run()
    assert "Pick at least one NUM_ENVS to train." in texts(app.warning)
    assert TRAIN not in [button.key for button in app.button]
    assert not app.exception


@pytest.mark.parametrize(
    ("query", "note", "check"),
    [
        ({"n": "abc"}, "`n=abc` is not a whole number: using 4.", ("n", 4)),
        ({"n": "5000"}, "`n=5000` is outside 1..256: using 256.", ("n", 256)),
        ({"mode": "sometimes"}, "is not one of NEXT_STEP, SAME_STEP", ("mode", "NEXT_STEP")),
        ({"ns": "0,999"}, "Some of `ns` lay outside 1..256: using 1,256.", ("ns", [1, 256])),
        ({"ns": "x"}, "`ns=x` is not a list of whole numbers", ("ns", [1, 4, 16])),
        ({"steps": "400000"}, "BURGERBOT_MAX_TRAIN_ENV_STEPS", ("steps", 400_000)),
        ({"seeds": "99"}, "`seeds=99` is outside 1..10: using 10.", ("seeds", 10)),
        ({"zzz": "1"}, "Ignored unknown URL settings: `zzz`.", ("n", 4)),
    ],
)
def test_bad_query_params_show_a_note(query, note, check):
    app = open_page(query)
    assert note in texts(app.info)
    name, used = check
    widget = {
        "n": app.slider,
        "mode": app.radio,
        "ns": app.multiselect,
        "steps": app.number_input,
        "seeds": app.number_input,
    }[name](key=KEY[name])
    assert widget.value == used


def calls_keys(batch: int, n: int) -> tuple[str, str]:
    pid = f"why_batches_calls_{batch}_{n}"
    return f"{pid}_choice", f"{pid}_lock"


@pytest.mark.parametrize(("batch", "n"), [(2048, 4), (1000, 16)])
def test_the_calls_prediction_is_checked_right_and_wrong(batch, n):
    app = open_page({"n": str(n), "batch": str(batch)})
    choice, lock = calls_keys(batch, n)
    truth = f"{buffer_layout(batch, n).step_calls:,}"  # from the library, not the page
    wrong = next(option for option in app.radio(key=choice).options if option != truth)
    assert "Lock in a prediction above" in texts(app.caption)

    app.radio(key=choice).set_value(wrong).run()
    app.button(key=lock).click().run()
    assert f"You predicted {wrong}; the live run gave {truth}." in texts(app.warning)
    assert "Predictions: 1 made, 0 of 1 checked right" in texts(app.sidebar.caption)

    app.radio(key=choice).set_value(truth).run()
    app.button(key=lock).click().run()
    assert f"**Your prediction was right:** {truth}." in texts(app.success)
    assert "Predictions: 1 made, 1 of 1 checked right" in texts(app.sidebar.caption)
    assert not app.exception


def test_the_key_takeaways_end_the_page_and_follow_the_batch():
    app = open_page({"n": "16", "mode": "SAME_STEP"})
    assert app.subheader[-1].value == "Key takeaways"
    bullets = texts(app.markdown)
    calls = buffer_layout(2048, 16).step_calls
    assert f"2,048 with 16 envs took {calls}." in bullets
    assert "SAME_STEP mode" in bullets
    assert not app.exception
