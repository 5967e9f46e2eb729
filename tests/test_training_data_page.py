"""The "From batches to training data" page through the router, via AppTest."""

from __future__ import annotations

import numpy as np
import pytest
from page_apptest import (
    open_app_page,
    open_tab,
    prediction_checks,
    prediction_score,
    tab_texts,
)
from sentence_facts import code_spans, quotes
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.training_data import (
    ROWS_OPTIONS,
    TrainingSettings,
    seeding_demo,
    targets_sentence,
    training_run,
)
from burgerbot.targets import collect_buffer, follows_world_rules, transition_mask

pytestmark = pytest.mark.slow

PAGE_FILE = "app_pages/training_data.py"
PID = "training_data_rows"
TABS = "tabs_training_data"
LABELS = ["Buffer & mask", "TD targets", "Termination vs truncation", "Seeding"]
DEFAULTS = {"mode": "NEXT_STEP", "n": 3, "steps": 10, "max_steps": 5, "seed": 0}


def open_page(query: dict[str, str] | None = None, skip: bool = True) -> AppTest:
    """The page; with ``skip`` the learner has skipped the prediction (the results show)."""
    app = open_app_page(PAGE_FILE, query, timeout=300)
    return app.button(key=f"{PID}_skip").click().run() if skip else app


def test_nothing_gives_the_rows_answer_away_before_lock_in_or_skip():
    app = open_page(skip=False)
    assert not app.exception
    assert [tab.label for tab in app.tabs] == []
    shown = " ".join(m.value for m in [*app.markdown, *app.caption])
    assert "not a transition" not in shown and not app.dataframe
    assert "Key takeaways" in [h.value for h in app.header]
    predict(app, ROWS_OPTIONS[1])
    assert [tab.label for tab in app.tabs][:4] == LABELS
    assert prediction_checks(app)


def truth_from_the_library(mode: str, n: int, steps: int, max_steps: int, seed: int) -> str:
    """Which rows fail the world's rules, classified here independently of the page's view."""
    buffer = collect_buffer(n, steps, mode, seed, max_steps)
    failing = ~follows_world_rules(buffer)
    after_end = np.zeros_like(failing)
    after_end[1:] = buffer.ended[:-1]
    if not failing.any():
        return ROWS_OPTIONS[2]
    assert np.array_equal(failing, after_end), "the env should fail only on reset rows"
    return ROWS_OPTIONS[1]


def predict(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PID}_choice").set_value(choice).run()
    return app.button(key=f"{PID}_lock").click().run()


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def test_the_page_renders_its_intro_settings_and_four_tabs(page):
    assert page.title[0].value == "🧺 From batches to training data"
    assert "You will learn" in page.markdown[0].value
    assert [tab.label for tab in page.tabs][:4] == LABELS
    assert page.selectbox(key="training_data_mode").value == "NEXT_STEP"
    assert not page.exception


def test_the_buffer_and_mask_tables_show_the_live_run():
    page = open_page()
    buffer = collect_buffer(3, 10, "NEXT_STEP", 0, 5)
    mask = transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")
    grids = [
        df.value for df in page.dataframe if list(df.value.columns) == ["env 0", "env 1", "env 2"]
    ]
    buffer_table, mask_table = grids[0], grids[1]
    assert np.array_equal(buffer_table.map(lambda c: c.startswith("✗")).to_numpy(), ~mask)
    assert np.array_equal((mask_table == "True ✓").to_numpy(), mask)
    # The other tabs are drawn only once opened.
    assert not any((g == "— dropped").any().any() for g in grids)
    open_tab(page, TABS, "TD targets")
    grids = [
        df.value for df in page.dataframe if list(df.value.columns) == ["env 0", "env 1", "env 2"]
    ]
    # The TD targets with the mask: dropped exactly where the mask is False.
    masked = next(g for g in grids if (g == "— dropped").any().any())
    assert np.array_equal((masked == "— dropped").to_numpy(), ~mask)


def test_a_right_prediction_is_confirmed_by_the_live_run():
    app = open_page(skip=False)
    truth = truth_from_the_library(**DEFAULTS)
    predict(app, truth)
    assert prediction_checks(app) == [(truth, truth)]
    assert prediction_score(app) == (1, 1, 1)


def test_a_wrong_prediction_is_corrected_with_the_live_answer():
    app = open_page(skip=False)
    truth = truth_from_the_library(**DEFAULTS)
    wrong = next(option for option in ROWS_OPTIONS if option != truth)
    predict(app, wrong)
    assert prediction_checks(app) == [(wrong, truth)]
    assert prediction_score(app) == (1, 0, 1)


def test_same_step_mode_makes_every_row_a_transition():
    app = open_page({"mode": "same_step"}, skip=False)
    assert app.selectbox(key="training_data_mode").value == "SAME_STEP"
    truth = truth_from_the_library(**{**DEFAULTS, "mode": "SAME_STEP"})
    assert truth == ROWS_OPTIONS[2]
    predict(app, truth)
    assert prediction_checks(app) == [(truth, truth)]
    markdown = tab_texts(app, TABS, LABELS)
    # the targets sentence computed from the library's run: no reset row, so the 3 x 10
    # targets are the same with or without the mask
    run = training_run(TrainingSettings("SAME_STEP", 3, 10, 5, 0))
    sentence = targets_sentence(run)
    assert sentence in markdown and run.mask.all() and quotes(sentence, 30)
    assert 'infos["final_obs"][i]' in code_spans(markdown)


def test_the_takeaways_end_the_page_and_count_this_runs_reset_rows(page):
    assert page.header[-1].value == "Key takeaways"
    buffer = collect_buffer(3, 10, "NEXT_STEP", 0, 5)
    resets = int((~transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")).sum())
    bullets = page.main.markdown[-1].value
    assert f"(here {resets} of 30 rows)" in bullets
    assert 3 <= bullets.count("\n- ") + 1 <= 5


def test_the_other_tabs_say_what_the_run_shows():
    page = open_page()
    markdown = tab_texts(page, TABS, LABELS)
    buffer = collect_buffer(3, 10, "NEXT_STEP", 0, 5)
    resets = int((~transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")).sum())
    assert f"Without the mask, {resets} made-up targets" in markdown
    terminated = int((buffer.terminated & ~buffer.truncated).sum())
    assert f"{terminated} terminated" in markdown
    assert VERDICTS["changed"].badge() in markdown
    # the seeding tab shows the sentences of the library's live seeding checks for seed 0
    demo = seeding_demo(0)
    for text in (demo.reset_text, demo.same_text, demo.factory_text, demo.action_text):
        assert text in markdown
    # the one wording check of the BurgerBot check: it draws no random number
    assert demo.burgerbot_text in markdown and "no random number" in demo.burgerbot_text
    open_tab(page, TABS, "Termination vs truncation")
    fragments = [c.value for c in page.code if c.value.startswith("# Fragment of")]
    assert len(fragments) == 1 and "obs IS the final observation" in fragments[0]


def test_the_exercise_answer_is_hidden_until_asked_and_runs_from_a_file(tmp_path):
    app = open_page()
    before = len(app.code)
    app.toggle(key="training_data_mask_answer").set_value(True).run()
    answers = [c.value for c in app.code if "Exercise answer" in c.value]
    assert len(app.code) == before + 1 and len(answers) == 1
    assert "all checks passed" in assert_script_behaves(answers[0], tmp_path / "answer")


def test_a_changed_setting_reruns_the_buffer():
    app = open_page()
    app.slider(key="training_data_n").set_value(2).run()
    app.number_input(key="training_data_max").set_value(3).run()
    assert not app.exception
    assert app.query_params["n"] == "2" and app.query_params["max"] == "3"
    grids = [df.value for df in app.dataframe if list(df.value.columns) == ["env 0", "env 1"]]
    buffer = collect_buffer(2, 10, "NEXT_STEP", 0, 3)
    mask = transition_mask(buffer.terminated, buffer.truncated, "NEXT_STEP")
    assert np.array_equal((grids[1] == "True ✓").to_numpy(), mask)
