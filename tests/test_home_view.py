"""Home: the live speed measurement, its chart, its script, and the page itself."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from streamlit.testing.v1 import AppTest

from burgerbot.app.charts.home import speed_chart, speed_chart_spec
from burgerbot.app.scripts.home import speed_script
from burgerbot.app.views.home import CARDS, speed_table, steps_for

ROOT = Path(__file__).resolve().parent.parent


def test_speed_table_measures_one_and_n_envs_for_both_backends():
    table = speed_table(8)
    assert table[["backend", "num_envs"]].values.tolist() == [
        ["sync", 1],
        ["native", 1],
        ["sync", 8],
        ["native", 8],
    ]
    assert (table["transitions_per_call"] == table["num_envs"]).all()
    assert (table["transitions_per_s"] > 0).all() and (table["seconds_per_call"] > 0).all()
    # transitions/s is transitions per call divided by seconds per call
    ratio = table["transitions_per_call"] / table["seconds_per_call"] / table["transitions_per_s"]
    assert ratio.between(0.999, 1.001).all()


def test_steps_for_stays_within_bounds():
    assert [steps_for(n) for n in (1, 100, 1024, 65536)] == [1000, 1000, 97, 50]


def test_chart_plots_every_setup_on_a_log_axis():
    table = speed_table(4)
    spec = speed_chart(table).to_dict()
    assert [layer["mark"]["type"] for layer in spec["layer"]] == ["circle", "text"]
    encoding = spec["layer"][0]["encoding"]
    assert encoding["x"]["field"] == "transitions_per_s"
    assert encoding["x"]["scale"]["type"] == "log"
    assert encoding["y"]["field"] == "setup"
    (dataset,) = spec["datasets"].values()
    assert [row["setup"] for row in dataset] == table["setup"].tolist()


def test_chart_spec_is_the_chart_with_its_data_inline_and_no_theme():
    table = speed_table(4)
    spec = speed_chart_spec(table)
    assert "config" not in spec
    titles = {layer["title"] for layer in spec["layer"]}
    assert titles == {"Transitions collected per second, measured on this server"}
    assert spec["layer"] == speed_chart(table).to_dict()["layer"]
    (dataset,) = spec["datasets"].values()
    assert [row["transitions_per_s"] for row in dataset] == table["transitions_per_s"].tolist()


def test_script_runs_and_reports_n_transitions_per_call():
    result = subprocess.run(
        [sys.executable, "-c", speed_script(6)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    found = re.findall(
        r"^(sync|native)\s+N=(\d+)\s+transitions per step\(\) call: (\d+)", result.stdout, re.M
    )
    assert found == [
        ("sync", "1", "1"),
        ("native", "1", "1"),
        ("sync", "6", "6"),
        ("native", "6", "6"),
    ]


def home_app(**query):
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=60)
    for key, value in query.items():
        app.query_params[key] = value
    app.run()
    return app


def test_home_measures_the_chosen_num_envs_and_mirrors_it_in_the_url():
    app = home_app()
    assert not app.exception
    assert "16 envs, Sync" in app.metric[1].label
    app.slider(key="home_n").set_value(32).run()
    assert not app.exception and "32 envs, Sync" in app.metric[1].label
    assert app.query_params["n"] in ("32", ["32"])
    app.button(key="home_measure").click().run()
    assert not app.exception and app.session_state["_home_run"] == 1


def test_home_has_a_card_for_every_other_page():
    app = home_app()
    shown = {Path(link.proto.page).stem for link in app.get("page_link")}
    assert shown == {Path(f).stem for f in CARDS}
    assert shown == {p.stem for p in (ROOT / "app_pages").glob("*.py")} - {"home"}


def test_home_bad_url_values_give_a_note_not_a_traceback():
    for raw, used in [("abc", 16), ("-5", 2), ("10000000", 1024), ("<b>x</b>", 16)]:
        app = home_app(n=raw)
        assert not app.exception
        assert app.info and "adjusted" in app.info[0].value
        assert app.slider(key="home_n").value == used


def measurement_caption(app: AppTest):
    """The caption saying when and where the numbers were measured, and its exact time."""
    (caption,) = [c for c in app.caption if "on this server (" in c.value]
    return caption.value, caption.proto.help


def test_a_measurement_is_shared_and_says_when_it_was_made_until_measured_again():
    _, first_time = measurement_caption(home_app())
    assert first_time.startswith("Started ")
    # Another visitor gets the same measurement, with its time, not "just now".
    second = home_app()
    text, when = measurement_caption(second)
    assert when == first_time
    assert "just now" not in text and " ago, with Python " in text
    assert re.search(r"Measured on this server \(.+, \d+ cores?\) at \d\d:\d\d", text)
    assert "measured on this server just now" not in text
    # Measure again: a new measurement, which this visitor is told they just made...
    second.button(key="home_measure").click().run()
    text, new_time = measurement_caption(second)
    assert new_time != first_time
    assert "Measured just now, started by your visit, on this server" in text
    # ...and which the next visitor gets as it is, with its time.
    text, when = measurement_caption(home_app())
    assert when == new_time and "just now" not in text
