"""The "Auto-reset" page through the router, via AppTest: every control, the URL, the demos."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from page_apptest import open_expanders, open_tab, tab_texts
from sentence_facts import bold, quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.autoreset import (
    MODES,
    TABLE_COLUMNS,
    count_finished_by_mode,
    counting_sentence,
    disabled_demo,
    episode_ends,
    gymnasium_version,
    resolve_settings,
    run_page_rollout,
    timeline_cells,
)
from burgerbot.app.scripts.autoreset import (
    disabled_fix_fragment,
    infos_check_output,
    snippet_for,
)

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/autoreset.py"
KEY = {name: f"autoreset_{name}" for name in ("n", "mode", "seed", "steps", "backend", "cn", "ck")}
# Small runs keep every rerun quick.
SMALL = {"n": "3", "steps": "20", "ck": "60"}


def open_page(query: dict[str, str] | None = None) -> AppTest:
    """Open the page as if its URL (with ``query``) was typed into the browser.

    The router's first run shows the home page, which writes its own settings into the
    URL; a browser drops them when the learner changes page, AppTest keeps them. So the
    URL is set after switching, just before the page's first run.
    """
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
    app.run()
    app.switch_page(PAGE_FILE)
    app.query_params.clear()
    for key, value in (query or {}).items():
        app.query_params[key] = value
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return open_expanders(app)  # the scripts are drawn once their expander is open


LESSON_TABS = ["Side by side", "Row by row", "Check it yourself"]


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


def backend_check(app: AppTest) -> tuple[str, int]:
    """The timeline's check against the other backend: (the vector env it names, how many
    (step, env) results it matched exactly). The caption's one wording check is in
    test_page_renders_every_section_with_the_defaults."""
    match = re.search(
        r"the same run on (\w+).*? returned exactly the same ([\d,]+)", texts(app.caption)
    )
    assert match, texts(app.caption)
    return match.group(1), int(match.group(2).replace(",", ""))


def shows_the_script(app: AppTest) -> None:
    """The page's script is the one written for the settings its widgets show."""
    settings, _ = resolve_settings(page_values(app))
    assert snippet_for(settings).strip() in texts(app.code)


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
    assert app.number_input(key=KEY["steps"]).value == 40
    assert app.number_input(key=KEY["seed"]).value == 0
    assert app.selectbox(key=KEY["backend"]).value == "sync"
    assert app.slider(key=KEY["cn"]).value == 2 and app.number_input(key=KEY["ck"]).value == 200
    headers = [h.value for h in app.header]
    assert headers[0].startswith("1.") and headers[-1].startswith("4.") and len(headers) == 4
    assert gymnasium_version() in headers[2]
    pd.testing.assert_frame_equal(events_table(app), expected_events(app))
    assert (
        "the same run on BurgerBotVectorEnv (this project's, not Gymnasium's) returned exactly "
        "the same 160" in texts(app.caption)
    )
    assert len(app.get("vega_lite_chart")) == 2
    # Each chart has its data one click away: the timeline's cells and the counts.
    assert [t.label for t in app.tabs].count("Data as a table") == 2
    settings, _ = resolve_settings(page_values(app))
    expected_cells, _ = timeline_cells(run_page_rollout(settings), settings.mode)
    shown_cells = table_with(app, "note")
    assert len(shown_cells) == 160
    pd.testing.assert_frame_equal(shown_cells, expected_cells[list(TABLE_COLUMNS)])
    assert not app.info  # no notes without URL settings
    assert backend_check(app) == ("BurgerBotVectorEnv", 4 * 40)
    shows_the_script(app)
    # The glossary is linked on first use of its terms.
    for slug in ("vector-env", "autoreset", "sub-environment", "final-observation"):
        assert f"(glossary#{slug})" in texts(app.markdown)


def test_mode_switch_changes_the_table_the_comparison_and_the_script(page):
    seen = {}
    for mode in ("SAME_STEP", "DISABLED", "NEXT_STEP"):
        page.radio(key=KEY["mode"]).set_value(mode)
        rerun(page)
        events = events_table(page)
        pd.testing.assert_frame_equal(events, expected_events(page))
        seen[mode] = events
        # The comparison's "Row by row" tab (installed version and mode) is drawn once opened.
        assert f"{gymnasium_version()}, {mode}" not in texts(page.markdown)
        markdown = tab_texts(page, "tabs_autoreset_lesson", LESSON_TABS)
        assert f"{gymnasium_version()}, {mode}" in markdown
        shows_the_script(page)
        assert page.query_params["mode"] == mode
    assert seen["SAME_STEP"]["final obs is in"].str.startswith('infos["final_obs"]').all()
    next_step = seen["NEXT_STEP"]
    inside = next_step["step"] < page_values(page)["steps"]
    assert next_step.loc[inside, "returned by"].str.endswith("(the reset step)").all()
    assert next_step.loc[~inside, "returned by"].str.endswith("after this run").all()
    assert seen["DISABLED"]["returned by"].str.startswith("reset(reset_mask)").all()
    # SAME_STEP and DISABLED walk alike; NEXT_STEP spends a call on each reset.
    same = seen["SAME_STEP"][["env", "step", "final obs"]].reset_index(drop=True)
    disabled = seen["DISABLED"][["env", "step", "final obs"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(same, disabled)


def test_live_infos_check_is_shown_for_each_mode(page):
    for mode, final_obs in (("SAME_STEP", True), ("NEXT_STEP", False)):
        page.radio(key=KEY["mode"]).set_value(mode)
        rerun(page)
        open_tab(page, "tabs_autoreset_lesson", "Check it yourself")
        (output,) = [c.value for c in page.code if c.language == "text" and "infos:" in c.value]
        # the installed gymnasium, no "final_observation" key, "final_obs" in SAME_STEP only
        expected = infos_check_output(gymnasium_version(), False, final_obs, ())
        assert output.splitlines()[:3] == expected.splitlines()[:3]
        script = texts(page.code)
        assert f"AutoresetMode.{mode}" in script
        open_tab(page, "tabs_autoreset_lesson", "Side by side")


def test_num_envs_seed_steps_and_backend_controls(page):
    page.radio(key=KEY["mode"]).set_value("NEXT_STEP")
    page.slider(key=KEY["n"]).set_value(2)
    rerun(page)
    assert set(events_table(page)["env"]) <= {0, 1}
    assert backend_check(page) == ("BurgerBotVectorEnv", 2 * 20)
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
    assert backend_check(page) == ("BurgerBotVectorEnv", 2 * 35)
    pd.testing.assert_frame_equal(events_table(page), expected_events(page))

    page.selectbox(key=KEY["backend"]).set_value("native")
    rerun(page)
    assert backend_check(page) == ("SyncVectorEnv", 2 * 35)
    pd.testing.assert_frame_equal(events_table(page), expected_events(page))
    assert page.query_params["backend"] == "native"


def test_counting_controls_change_the_counts(page):
    page.slider(key=KEY["cn"]).set_value(3)
    page.number_input(key=KEY["ck"]).set_value(90)
    rerun(page)
    values = page_values(page)
    expected = count_finished_by_mode(values["backend"], 3, 90, values["seed"])
    pd.testing.assert_frame_equal(table_with(page, "finished episodes"), expected)
    assert table_with(page, "finished episodes")["mode"].unique().tolist() == list(MODES)
    sums = expected.groupby("mode", sort=False)["finished episodes"].sum()
    sentence = counting_sentence(expected, 90)
    assert sentence in texts(page.markdown)
    assert bold(sentence)[:3] == [f"{sums[m]:,}" for m in ("NEXT_STEP", "SAME_STEP", "DISABLED")]
    shows_the_script(page)


def test_disabled_demo_shows_the_captured_errors_and_the_fix():
    app = open_page({"mode": "DISABLED", "n": "4", "steps": "20", "ck": "50"})
    run = disabled_demo(4, 0)  # the library's own run of the demo for these settings
    assert run.end_step == 2 and run.ended == (3,) and run.stepped_before_error == (0, 1, 2)
    demo = expander(app, "see the fix")
    code = texts(demo.code)
    # both vector envs raise on stepping the ended env 3 again; the page shows their errors
    assert run.sync_error.startswith("AssertionError") and run.sync_error in code
    assert run.native_error.startswith("AssertionError") and run.native_error in code
    # gymnasium's shows its internal flags (env 3's True), this project's names env [3]
    assert "_autoreset_envs" in run.sync_error and "[3]" in run.native_error
    assert disabled_fix_fragment() in code
    # envs 0, 1, 2 had taken their step-3 action before SyncVectorEnv raised
    assert quotes(texts(demo.warning), 0, 1, 2, 3)
    table = demo.dataframe[0].value
    assert table["in reset_mask"].tolist() == [False, False, False, True]
    assert table["obs returned by reset(reset_mask)"].iloc[3] == "[0, 0, 1, 1]"
    assert quotes(texts(demo.success), run.end_step + 1, 3)  # step 3 worked; env 3 went back
    # The fix is shown as a labelled fragment of the whole DISABLED script beside it.
    fragment, script = [c.value for c in demo.code if c.language == "python"]
    assert fragment.startswith("# Fragment of the DISABLED script below")
    assert fragment.split("\n", 1)[1] in script


@pytest.mark.parametrize(
    ("query", "expected_notes", "values"),
    [
        (
            {"mode": "weird", "n": "-4", "steps": "10^9"},
            ["`mode=weird` is not one of", "`n=-4` is outside", "`steps=10^9` is not a whole"],
            {"mode": "NEXT_STEP", "n": 1, "steps": 40},
        ),
        (
            {"steps": "1000000000", "n": "2", "ck": "50"},
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
    app = open_page({"mode": "SAME_STEP", "n": "3", "seed": "7", "steps": "25", "cn": "4"})
    assert not app.info
    assert app.radio(key=KEY["mode"]).value == "SAME_STEP"
    assert app.slider(key=KEY["n"]).value == 3
    assert app.number_input(key=KEY["seed"]).value == 7
    assert app.number_input(key=KEY["steps"]).value == 25
    assert app.slider(key=KEY["cn"]).value == 4
    pd.testing.assert_frame_equal(events_table(app), expected_events(app))
