"""The "Auto-reset" page through the router, via AppTest: every control, the URL, the demos."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from page_apptest import open_expanders, setting_notes
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.autoreset import (
    TABLE_COLUMNS,
    episode_ends,
    question,
    resolve_settings,
    run_page_rollout,
    timeline_cells,
)

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/autoreset.py"
PREDICTION = "autoreset_next_step"
KEY = {name: f"autoreset_{name}" for name in ("n", "mode", "seed", "steps", "backend")}
# Small runs keep every rerun quick.
SMALL = {"n": "3", "steps": "20"}


def open_page(query: dict[str, str] | None = None, *, reveal: bool = True) -> AppTest:
    """Open the page as if its URL (with ``query``) was typed into the browser.

    The router's first run shows the home page, which writes its own settings into the
    URL; a browser drops them when the learner changes page, AppTest keeps them. So the
    URL is set after switching, just before the page's first run. With ``reveal`` the
    learner then clicks "Skip, show me" (the results appear only after the prediction).
    """
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    app.run()
    app.switch_page(PAGE_FILE)
    app.query_params.clear()
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    if reveal:
        app.button(key=f"{PREDICTION}_skip").click().run()
        assert not app.exception, [e.value for e in app.exception]
    return open_expanders(app)  # the scripts are drawn once their expander is open


def rerun(app: AppTest) -> AppTest:
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def page_values(app: AppTest) -> dict:
    return {name: app.session_state[key] for name, key in KEY.items()}


def expected_events(app: AppTest) -> pd.DataFrame:
    """What the library computes for the settings the page shows."""
    settings, _ = resolve_settings(page_values(app))
    return episode_ends(run_page_rollout(settings), settings.mode)


def table_with(app: AppTest, column: str, within=None) -> pd.DataFrame:
    """The one dataframe (of the page, or of ``within``) that has ``column``."""
    (table,) = [d.value for d in (within or app).dataframe if column in d.value]
    return table


def events_table(app: AppTest) -> pd.DataFrame:
    # The list's expander is labelled with the count: new settings may close it again.
    return table_with(open_expanders(app), "final obs is in")


def expander(app: AppTest, label_part: str):
    (found,) = [e for e in app.expander if label_part in e.label]
    return found


def backends_agree(app: AppTest) -> bool:
    """Whether the page found the other backend's run the very same (it shows an error if not)."""
    return "returned different results" not in texts(app.error)


def notes(app: AppTest) -> str:
    return texts(app.info)


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page(SMALL)


def test_page_renders_every_section_with_the_defaults():
    app = open_page()
    assert app.title[0].value.startswith("Auto-reset")
    assert app.radio(key=KEY["mode"]).value == "NEXT_STEP"
    assert app.slider(key=KEY["n"]).value == 4
    assert app.number_input(key=KEY["steps"]).value == 30
    assert app.number_input(key=KEY["seed"]).value == 2
    assert app.selectbox(key=KEY["backend"]).value == "sync"
    assert len(app.header) == 3  # two sections and the takeaways
    pd.testing.assert_frame_equal(events_table(app), expected_events(app))
    assert len(app.get("vega_lite_chart")) == 1
    # The timeline has its data one click away: its cells.
    assert [e.label for e in app.expander].count("Data as a table") == 1
    settings, _ = resolve_settings(page_values(app))
    expected_cells, _ = timeline_cells(run_page_rollout(settings), settings.mode)
    shown_cells = table_with(app, "note")
    assert len(shown_cells) == 4 * 30
    pd.testing.assert_frame_equal(shown_cells, expected_cells[list(TABLE_COLUMNS)])
    assert not setting_notes(app)  # no notes without URL settings
    assert backends_agree(app)
    # The glossary is linked on first use of its terms.
    for slug in ("vector-env", "autoreset", "sub-environment"):
        assert f"(glossary#{slug})" in texts(app.markdown)


def test_the_default_run_finishes_fewer_episodes_in_next_step_as_counting_finds():
    """Pages agree: the default run, in either mode, does not pull against the next page's
    scored answer (NEXT_STEP finishes fewer)."""
    settings, _ = resolve_settings({})
    ended = {}
    for mode in ("NEXT_STEP", "SAME_STEP"):
        run = run_page_rollout(resolve_settings({"mode": mode})[0])
        ended[mode] = len(episode_ends(run, mode))
    assert ended["NEXT_STEP"] < ended["SAME_STEP"], ended


def test_mode_switch_changes_the_table(page):
    seen = {}
    for mode in ("SAME_STEP", "NEXT_STEP"):
        page.radio(key=KEY["mode"]).set_value(mode)
        rerun(page)
        events = events_table(page)
        pd.testing.assert_frame_equal(events, expected_events(page))
        seen[mode] = events
        assert page.query_params["mode"] == mode
    assert seen["SAME_STEP"]["final obs is in"].str.startswith('infos["final_obs"]').all()
    next_step = seen["NEXT_STEP"]
    inside = next_step["step"] < page_values(page)["steps"]
    assert next_step.loc[inside, "returned by"].str.endswith("(the reset step)").all()
    assert next_step.loc[~inside, "returned by"].str.endswith("after this run").all()
    # The same actions up to the first end: both modes see it at the same step, env and obs.
    columns = ["env", "step", "final obs"]
    first = [seen[m].sort_values(["step", "env"])[columns].iloc[0].tolist() for m in seen]
    assert first[0] == first[1]


def test_num_envs_seed_steps_and_backend_controls(page):
    page.radio(key=KEY["mode"]).set_value("NEXT_STEP")
    page.slider(key=KEY["n"]).set_value(2)
    rerun(page)
    assert set(events_table(page)["env"]) <= {0, 1}
    assert backends_agree(page)
    assert page.query_params["n"] == "2"

    before = events_table(page)
    page.number_input(key=KEY["seed"]).set_value(5)
    rerun(page)
    after = events_table(page)
    assert not after.equals(before)
    pd.testing.assert_frame_equal(after, expected_events(page))

    page.number_input(key=KEY["steps"]).set_value(35)
    rerun(page)
    assert events_table(page)["step"].max() <= 35
    assert backends_agree(page)
    pd.testing.assert_frame_equal(events_table(page), expected_events(page))

    page.selectbox(key=KEY["backend"]).set_value("native")
    rerun(page)
    assert backends_agree(page)
    pd.testing.assert_frame_equal(events_table(page), expected_events(page))
    assert page.query_params["backend"] == "native"


@pytest.mark.parametrize(
    ("query", "expected_notes", "values"),
    [
        (
            {"mode": "weird", "n": "-4", "steps": "10^9"},
            ["`mode=weird` is not one of", "`n=-4` is outside", "`steps=10^9` is not a whole"],
            {"mode": "NEXT_STEP", "n": 1, "steps": 30},
        ),
        (
            {"steps": "1000000000", "n": "2"},
            [f"`steps=1000000000` is outside 1..{CAPS.max_steps_per_run}"],
            {"steps": CAPS.max_steps_per_run, "n": 2},
        ),
        (
            {"seed": "abc", "backend": "async", "zzz": "1", **SMALL},
            ["`seed=abc`", "async", "zzz"],
            {},
        ),
    ],
)
def test_bad_query_params_give_notes_not_exceptions(query, expected_notes, values):
    app = open_page(query)
    shown = notes(app)
    for note in expected_notes:
        assert note in shown
    for name, value in values.items():
        assert app.session_state[KEY[name]] == value


def test_good_query_params_set_the_widgets_without_notes():
    app = open_page({"mode": "SAME_STEP", "n": "3", "seed": "7", "steps": "25"})
    assert not setting_notes(app)
    assert app.radio(key=KEY["mode"]).value == "SAME_STEP"
    assert app.slider(key=KEY["n"]).value == 3
    assert app.number_input(key=KEY["seed"]).value == 7
    assert app.number_input(key=KEY["steps"]).value == 25
    pd.testing.assert_frame_equal(events_table(app), expected_events(app))


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    app = open_page(SMALL, reveal=False)
    # The deciding fact: the call after an end returns the start with reward 0.0. Neither the
    # timeline, the stepper, the episode ends, the verdict nor the takeaways are drawn yet.
    assert not app.get("vega_lite_chart") and not app.dataframe
    assert [h.value for h in app.header] == ["Key takeaways"]  # no section yet, its heading
    shown = texts(app.markdown) + texts(app.caption)
    assert "reward 0.0" not in shown  # (the options say it, as every option's guess)
    assert "Changed since" not in shown and "Latest call" not in shown
    app.button(key=f"{PREDICTION}_skip").click().run()
    assert not app.exception, [e.value for e in app.exception]
    assert len(app.get("vega_lite_chart")) == 1 and len(app.header) == 3
    assert "Changed since" in texts(app.markdown)
    takeaways = texts(app.markdown)
    assert "the next call only resets (obs [0, 0, 1, 1], reward 0.0)" in takeaways


def test_nothing_above_the_prediction_says_what_next_steps_ending_call_does():
    """Issue 36: the paragraph above the question told the answer. Before the learner acts,
    no text but the question itself (and its options) describes NEXT_STEP's ending call or
    the call after it, nor what either mode does."""
    app = open_page(SMALL, reveal=False)
    shown = texts(app.markdown) + texts(app.caption) + texts(app.info)
    shown = shown.replace(question("NEXT_STEP"), "")
    radio = app.radio(key=KEY["mode"])
    assert not any(getattr(radio.proto, "captions", []))  # the modes carry no description
    telling_words = ("call after", "next call", "restarts on", "restarts inside", "ending call")
    for telling in (*telling_words, "final observation is"):
        assert telling not in shown, telling
