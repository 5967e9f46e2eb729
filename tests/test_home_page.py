"""Home through Streamlit's AppTest: the speed problem, the prediction that hides its answer
until lock-in or skip, the live race at the chosen NUM_ENVS, and the way on."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_apptest import invites_prediction, prediction_checks, prediction_score, texts
from sentence_facts import quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.home import NO, SAME, YES

ROOT = Path(__file__).resolve().parent.parent
PID = "home_sync16"


def home_app(**query) -> AppTest:
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def skip(app: AppTest) -> AppTest:
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.fixture(scope="module")
def shown() -> AppTest:
    """One Home run at default settings, the prediction skipped, read by the tests that look."""
    return skip(home_app())


def rate(metric) -> float:
    return float(metric.value.replace(",", ""))


def page_text(app: AppTest) -> str:
    """What the main area says: its markdown, captions, metrics and feedback."""
    parts = [texts(app.main.markdown), texts(app.main.caption), texts(app.success)]
    parts += [texts(app.warning)] + [f"{m.label} {m.value} {m.proto.delta}" for m in app.metric]
    return "\n".join(parts)


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = home_app()
    before = page_text(app)
    # The deciding fact: how many transitions per second Sync and the plain loop collected.
    assert not app.metric
    assert not re.search(r"\d[\d,]* transitions/s|x the plain loop|per second: \d", before)
    assert "Key takeaways" in [s.value for s in app.subheader]
    assert "Stepping alone" not in before and "Sync was" not in before
    assert app.button(key=f"{PID}_skip")  # a visible way past the question
    after = page_text(skip(app))
    plain, sync = rate(app.metric[0]), rate(app.metric[1])
    assert quotes(after, round(plain), round(sync))
    assert "Stepping alone, Sync with 16 envs ran at" in after


def test_metrics_race_the_plain_loop_against_sync_and_native_at_num_envs(shown):
    assert [m.label for m in shown.metric] == [
        "Plain loop: transitions per second",
        "16 envs, Sync: transitions per second",
        "16 envs, native: transitions per second",
    ]
    plain = rate(shown.metric[0])
    for metric in shown.metric[1:]:
        ratio = rate(metric) / plain
        # a ratio only when the repeats do not overlap (the live run decides which)
        assert metric.proto.delta in (
            f"{ratio:.2g}x the plain loop",
            "about the same as the plain loop",
        ) or (ratio >= 10 and metric.proto.delta.endswith("x the plain loop"))


def test_each_setup_says_its_rows_per_call_and_calls_per_second_from_the_same_run(shown):
    captions = [c.value for c in shown.main.caption if "per `step()` call" in c.value]
    assert len(captions) == 3
    for caption, metric, rows in zip(captions, shown.metric, (1, 16, 16), strict=True):
        calls = float(re.search(r"([\d,]+) calls per second", caption).group(1).replace(",", ""))
        assert re.match(rf"{rows} rows? per `step\(\)` call", caption)
        if rows == 1:
            assert calls == pytest.approx(rate(metric), abs=1)
            continue
        transitions = float(re.search(r"\(([\d.]+) of them transitions", caption).group(1))
        assert 0.5 * rows < transitions < rows  # a few rows are auto-reset rows
        assert calls * transitions == pytest.approx(rate(metric), rel=0.01)


def test_native_is_said_to_be_this_projects_class_and_the_page_teaches_no_later_words(shown):
    body = texts(shown.markdown)
    assert "this project's own [native](glossary#native) vector env, **not part of Gymnasium**" in (
        body
    )
    for later in ("NEXT_STEP", "SAME_STEP", "final_obs", "DummyVecEnv", "make_vec_env", "env-step"):
        assert later not in page_text(shown), later


def test_the_errata_are_one_sentence_pointing_to_the_closing_page(shown):
    links = [Path(link.proto.page).stem for link in shown.main.get("page_link")]
    assert links == ["speed_breakdown", "lesson_vs_today"]
    (sentence,) = [m.value for m in shown.markdown if "no longer runs as written" in m.value]
    assert sentence.count(". ") == 0 and sentence.endswith(":")
    assert "→ **today:**" not in texts(shown.markdown)


def lock_in(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception
    return app


def test_the_prediction_is_checked_against_the_live_measurement_right_and_wrong():
    app = home_app()
    assert not app.metric
    lock_in(app, YES)
    plain, sync = rate(app.metric[0]), rate(app.metric[1])  # the page's own 16-env medians
    # the metric's delta carries the same verdict as the check: a ratio only when clear
    delta = app.metric[1].proto.delta
    truth = SAME if delta.startswith("about the same") else YES if sync > plain else NO
    # both answers the radio offers, whatever the live run gave (right, wrong, or too close
    # to call, which no answer matches)
    for choice in (YES, NO):
        lock_in(app, choice)
        assert prediction_checks(app) == [(choice, truth)]
        feedback = texts(app.success if choice == truth else app.warning)
        assert quotes(feedback, sync, plain)  # the explanation quotes the measured medians
    app.run()
    assert prediction_score(app) == (1, int(truth == NO), 1)
    assert not invites_prediction(app)


def test_takeaways_end_the_page_with_the_measured_ratio(shown):
    assert shown.main.subheader[-1].value == "Key takeaways"
    text = shown.main.markdown[-1].value
    bullets = text.splitlines()
    assert len(bullets) == 3 and all(b.startswith("- ") for b in bullets)
    (said,) = re.findall(r"Sync with 16 envs ran at ([\d.]+x|about the plain loop's speed)", text)
    delta = shown.metric[1].proto.delta
    # a ratio exactly when the metric gives one (the repeats do not overlap)
    assert said.endswith("x") == (not delta.startswith("about the same"))
    ratio = rate(shown.metric[1]) / rate(shown.metric[0])
    if said.endswith("x"):  # either way the sentence is checked against the metrics
        assert float(said[:-1]) == pytest.approx(ratio, rel=0.06)
    else:
        assert delta.startswith("about the same")  # no ratio claimed: the metric agrees


def test_home_measures_the_chosen_num_envs_and_mirrors_it_in_the_url():
    app = skip(home_app())
    assert app.select_slider(key="home_n").options == [
        "1",
        "2",
        "4",
        "8",
        "16",
        "32",
        "64",
        "128",
        "256",
        "512",
        "1024",
    ]
    app.select_slider(key="home_n").set_value(64).run()
    assert not app.exception and "64 envs, Sync" in app.metric[1].label
    assert app.query_params["n"] in ("64", ["64"])
    app.button(key="home_measure").click().run()
    assert not app.exception and app.session_state["_home_run"] == 1


def test_home_bad_url_values_give_a_note_not_a_traceback():
    for raw, used in [("abc", 16), ("-5", 1), ("10000000", 1024), ("<b>x</b>", 16), ("100", 128)]:
        app = home_app(n=raw)
        assert app.info and "using" in app.info[0].value
        assert app.select_slider(key="home_n").value == used


def measurement_caption(app: AppTest):
    """The caption saying when and where the numbers were measured, and its exact time."""
    (caption,) = [c for c in app.caption if "on this server (" in c.value]
    return caption.value, caption.proto.help


def test_a_measurement_is_shared_and_says_when_it_was_made_until_measured_again():
    _, first_time = measurement_caption(skip(home_app()))
    assert first_time.startswith("Started ")
    # Another visitor gets the same measurement, with its time, not "just now".
    second = skip(home_app())
    text, when = measurement_caption(second)
    assert when == first_time
    assert "just now" not in text and " ago, with Python " in text
    # The clock time, with the date once midnight has passed since the measurement.
    clock = r"(\d{4}-\d\d-\d\d )?\d\d:\d\d"
    assert re.search(rf"Measured on this server \(.+, \d+ cores?\) at {clock}", text)
    # Measure again: a new measurement, which this visitor is told they just made...
    second.button(key="home_measure").click().run()
    text, new_time = measurement_caption(second)
    assert new_time != first_time
    assert "Measured just now, started by your visit, on this server" in text
    # ...and which the next visitor gets as it is, with its time.
    text, when = measurement_caption(skip(home_app()))
    assert when == new_time and "just now" not in text
