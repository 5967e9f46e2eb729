"""The "Why batches help" page through the router, via AppTest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from page_apptest import (
    invites_prediction,
    open_app_page,
    open_expanders,
    prediction_checks,
    prediction_score,
    texts,
)
from sentence_facts import bold, quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.why_batches import (
    MAX_DRAWN_ENVS,
    MAX_DRAWN_STEPS,
    batch_counts_text,
    buffer_drawing,
    drawn_text,
    needed_env_steps,
    sample_text,
    takeaways,
)
from burgerbot.app.scripts.why_batches import buffer_script, training_script
from burgerbot.buffers import buffer_layout, rollout_buffer
from burgerbot.training import QLearningConfig, compare_num_envs, runs_frame, summarise_runs

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


def shows_the_buffer(app: AppTest, batch: int, n: int, seed: int, mode: str) -> None:
    """The page shows the sentences computed from the library's own buffer for these settings:
    what the picture draws, what the batch holds, and the script that fills it."""
    layout = buffer_layout(batch, n)
    frame = rollout_buffer(batch, n, seed, mode)
    markdown = texts(app.markdown)
    assert drawn_text(layout, buffer_drawing(layout)) in markdown
    assert batch_counts_text(frame["event"].value_counts(), layout.collected, mode) in markdown
    assert buffer_script(batch, n, seed, mode).strip() in texts(app.code)


def asks_to_train(app: AppTest) -> bool:
    """Whether an info box asks the learner to press the training button (by its label)."""
    return app.button(key=TRAIN).label in texts(app.info)


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
    shows_the_buffer(page, 2048, 4, 0, "NEXT_STEP")
    # the 512 calls' 2,048 rows: transitions and reset rows, counted from the run
    counts = batch_counts_text(frame["event"].value_counts(), 2048, "NEXT_STEP")
    assert bold(counts)[-2:] == [f"{resets:,}", f"{2048 - resets:,} transitions"]
    assert drawn_text(buffer_layout(2048, 4), buffer_drawing(buffer_layout(2048, 4))) == (
        "Drawn: the first 64 of 512 step() calls for all 4 envs."  # its one wording check
    )
    (heatmap,) = chart_specs(page)  # no training yet, so no curves
    assert heatmap["layer"][0]["mark"]["type"] == "rect"
    assert asks_to_train(page)
    assert not page.warning


def test_num_envs_batch_mode_and_seed_change_the_buffer(page):
    page.slider(key=KEY["n"]).set_value(16).run()
    assert metrics(page)["step() calls to fill the batch"] == "128"
    shows_the_buffer(page, 2048, 16, 0, "NEXT_STEP")
    assert page.query_params["n"] == "16"

    page.number_input(key=KEY["batch"]).set_value(1000).run()
    assert metrics(page)["buffer shape (steps, envs)"] == "(63, 16)"
    # 63 calls of 16 envs collect 1,008 rows, 8 more than the batch of 1,000
    assert any(quotes(c.value, 1000, 16, 63, 1008, 8) for c in page.caption)
    shows_the_buffer(page, 1000, 16, 0, "NEXT_STEP")

    page.radio(key=KEY["mode"]).set_value("SAME_STEP").run()
    shows_the_buffer(page, 1000, 16, 0, "SAME_STEP")
    same_step = rollout_buffer(1000, 16, 0, "SAME_STEP")["event"].value_counts()
    # moves, turns or stops, hits, goals: SAME_STEP leaves no reset rows to count
    assert same_step.get("reset", 0) == 0
    assert len(bold(batch_counts_text(same_step, 1008, "SAME_STEP"))) == 4

    page.number_input(key=KEY["bseed"]).set_value(9).run()
    frame = rollout_buffer(1000, 16, 9, "SAME_STEP")
    assert metrics(page)["episodes that ended in it"] == str(int(frame["ends_episode"].sum()))
    shows_the_buffer(page, 1000, 16, 9, "SAME_STEP")
    assert page.query_params["bseed"] == "9" and page.query_params["mode"] == "SAME_STEP"

    page.slider(key=KEY["n"]).set_value(256).run()
    shows_the_buffer(page, 1000, 256, 9, "SAME_STEP")
    assert buffer_drawing(buffer_layout(1000, 256)).drawn_envs == MAX_DRAWN_ENVS == 64
    # the clipped picture is said so, with its limits
    assert any(quotes(c.value, MAX_DRAWN_STEPS, MAX_DRAWN_ENVS) for c in page.caption)
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
    assert asks_to_train(app)
    # the one wording check of the runs caption
    assert "2 runs: NUM_ENVS 1, 8 x seeds 2..2, 2,000 env-steps each." in texts(app.caption)
    assert app.query_params["ns"] == "1,8" and app.query_params["steps"] == "2000"

    app.button(key=TRAIN).click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert "Trained just now, started by your visit" in texts(app.caption)
    assert len(chart_specs(app)) == 3  # the goal-rate view is drawn once its expander opens
    open_expanders(app)
    assert not asks_to_train(app)
    (table,) = [df.value for df in app.dataframe if "runs that learned it" in df.value.columns]
    assert table["NUM_ENVS"].tolist() == [1, 8]
    assert table["runs that learned it"].tolist() == ["1 of 1", "1 of 1"]
    specs = chart_specs(app)
    x_fields = [spec["encoding"]["x"]["field"] for spec in specs[1:]]
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
    frame = rollout_buffer(2048, 4, 0, "NEXT_STEP")
    resets = int((frame["event"] == "reset").sum())
    bullets = takeaways(2048, 4, 512, resets, summarise_runs(trained), runs)
    assert len(bullets) == len(takeaways(2048, 4, 512, resets)) + 1
    assert bullets[-1] in markdown
    assert training_script((1, 8), 2_000, 1, 2).strip() in texts(app.code)

    # Other settings: not trained yet. Back again: the cached results, without a click.
    app.number_input(key=KEY["seeds"]).set_value(2).run()
    assert asks_to_train(app)
    assert len(chart_specs(app)) == 1
    app.number_input(key=KEY["seeds"]).set_value(1).run()
    assert len(chart_specs(open_expanders(app))) == 4 and not app.exception


def test_an_empty_selection_asks_for_num_envs():
    app = open_page()
    app.multiselect(key=KEY["ns"]).set_value([]).run()
    assert "NUM_ENVS" in texts(app.warning)
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
    assert invites_prediction(app) and prediction_checks(app) == []
    assert prediction_score(app) == (0, 0, 0)

    app.radio(key=choice).set_value(wrong).run()
    app.button(key=lock).click().run()
    assert prediction_checks(app) == [(wrong, truth)]
    assert prediction_score(app) == (1, 0, 1)

    app.radio(key=choice).set_value(truth).run()
    app.button(key=lock).click().run()
    assert prediction_checks(app) == [(truth, truth)]
    assert prediction_score(app) == (1, 1, 1)
    assert not app.exception


def test_the_key_takeaways_end_the_page_and_follow_the_batch():
    app = open_page({"n": "16", "mode": "SAME_STEP"})
    assert app.subheader[-1].value == "Key takeaways"
    bullets = texts(app.markdown)
    calls = buffer_layout(2048, 16).step_calls
    # SAME_STEP: no reset rows to count
    assert "\n".join(f"- {b}" for b in takeaways(2048, 16, calls, None)) in bullets
    assert not app.exception
