"""Speed breakdown through Streamlit's AppTest: the prediction hides the run until lock-in or
skip; then the race across N, the forward pass's cost and the race with a policy, from one
measurement."""

from __future__ import annotations

import re

import pytest
from page_apptest import open_app_page, open_expanders, prediction_checks, texts
from sentence_facts import quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.speed_breakdown import NO, YES

PAGE = "app_pages/speed_breakdown.py"
PID = "speed_breakdown_policy16"


def skip(app: AppTest) -> AppTest:
    app.button(key=f"{PID}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


@pytest.fixture(scope="module")
def shown() -> AppTest:
    return open_expanders(skip(open_app_page(PAGE, {}, timeout=120)))


def the_table(app: AppTest):
    """The speed chart's data as shown in its "Data as a table" expander."""
    (table,) = [df.value for df in app.dataframe if "stepping" in df.value.columns]
    return table


def test_the_page_says_what_it_assumes():
    app = open_app_page(PAGE, {}, timeout=120)
    assert "This page assumes you have done the lesson's Home and Batch shapes pages" in texts(
        app.markdown
    )


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_app_page(PAGE, {}, timeout=120)
    before = texts(app.main.markdown) + texts(app.main.caption)
    # The deciding fact: the rates with the policy, and what a batched forward pass costs.
    assert not app.get("vega_lite_chart") and not app.get("arrow_vega_lite_chart")
    assert not re.search(r"\d[\d,]* transitions/s|faster\*\*|times less", before)
    assert "With the policy choosing every action" not in before
    assert any(c.language == "python" for c in open_expanders(app).code)  # the script is there
    after = skip(app)
    text = texts(after.main.markdown)
    assert "With the policy choosing every action" in text and "transitions/s" in text
    assert "Key takeaways" in [s.value for s in after.header]
    assert after.main.markdown[-1].value.count("\n- ") == 2  # three bullets


def test_the_stories_quote_the_tables_measurement(shown):
    table = the_table(shown)
    policy = table[table["stepping"].str.startswith("a policy")]
    sync = policy.loc[(policy["setup"] == "Sync") & (policy["num_envs"] == 16)]
    plain = policy.loc[policy["setup"].str.startswith("plain")]
    text = texts(shown.main.markdown)
    story = next(line for line in text.splitlines() if "With the policy choosing" in line)
    assert quotes(story, sync["transitions_per_s"].item(), plain["transitions_per_s"].item())
    assert set(table["num_envs"]) == {1, 4, 16, 64}


@pytest.mark.parametrize("choice", [YES, NO])
def test_a_locked_in_answer_is_checked_against_the_live_run(choice, shown):
    """Either answer is checked against the live run: right, wrong, or too close to call."""
    table = the_table(shown)  # the server-wide measurement this app gets too

    def rates(setup: str, n: int) -> tuple[float, float]:
        rows = table[table["stepping"].str.startswith("a policy") & (table["setup"] == setup)]
        row = rows.loc[rows["num_envs"] == n]
        return row["slowest_repeat"].item(), row["fastest_repeat"].item()

    sync, plain = rates("Sync", 16), rates("plain loop (1 env)", 1)
    truth = YES if sync[0] > plain[1] else NO if sync[1] < plain[0] else None
    app = open_app_page(PAGE, {}, timeout=120)
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    app.button(key=f"{PID}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    # Overlapping repeats decide nothing: no verdict is scored.
    assert prediction_checks(app) == ([] if truth is None else [(choice, truth)])


def test_num_envs_joins_the_measured_sizes_and_bad_urls_give_a_note():
    app = skip(open_app_page(PAGE, {"n": "128"}, timeout=120))
    assert app.select_slider(key="speed_breakdown_n").value == 128
    assert "N = 1 to 128" in texts(app.main.markdown)
    app = open_app_page(PAGE, {"n": "abc"}, timeout=120)
    assert app.info and app.select_slider(key="speed_breakdown_n").value == 16
