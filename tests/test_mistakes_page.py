"""The Common mistakes page (the lesson's two common issues) through the router, via AppTest."""

from __future__ import annotations

from pathlib import Path

import gymnasium as gym
import pytest
from page_apptest import (
    across_tabs,
    open_app_page,
    prediction_checks,
    skip_predictions,
    tabs_text,
    texts,
)
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.glossary import taught_too_late
from burgerbot.app.logic.mistakes import FACTORY_OPTIONS, lesson_runs, takeaways

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/mistakes.py"
N_KEY = "mistakes_n"
PREDICTION = "mistakes_factory"

# Each issue's captured error: its type and a phrase of its message, as st.error shows them.
EXPECTED_ERRORS = {
    "factory": ("TypeError", "make_env() missing 1 required positional argument: 'seed'"),
    "scalar": ("IndexError", "too many indices"),
}


def open_page(query: dict[str, str] | None = None, *, skip: bool = True) -> AppTest:
    """The page as a learner who skips its prediction sees it (``skip``), or before that."""
    app = open_app_page(PAGE_FILE, query, timeout=300)
    return skip_predictions(app) if skip else app


def python_blocks(app: AppTest) -> list[str]:
    """Every Python block, as a file would hold it (st.code drops the last newline)."""
    return [block.value.rstrip("\n") + "\n" for block in app.code if block.language == "python"]


def factory_truth() -> str:
    """What giving SyncVectorEnv a factory that needs a seed does, from gymnasium itself."""

    def make_env(seed):
        return lambda: gym.make("CartPole-v1")

    try:
        envs = gym.vector.SyncVectorEnv([make_env, make_env])
    except TypeError:
        return "TypeError when SyncVectorEnv is built"
    try:
        envs.reset(seed=0)
    except TypeError:
        return "TypeError at the first envs.reset()"
    finally:
        envs.close()
    return FACTORY_OPTIONS[0]


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def shown_text(app: AppTest) -> str:
    """What the page shows in words (the question's options aside) and its Python blocks."""
    elements = (app.markdown, app.caption, app.info, app.success, app.warning, app.error)
    return "\n".join([*(texts(e) for e in elements), texts(app.code)])


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    """Predict, then reveal: the factory's error, the scripts and the scalar batch's shape wait
    for the learner's answer."""
    app = open_page(skip=False)
    truth = factory_truth()
    text = shown_text(app)
    assert "TypeError" not in text and "missing 1 required" not in text
    assert "(4,)" not in text and not app.code and not app.error
    assert [s.value for s in app.header] == ["Key takeaways"]
    assert [r.key for r in app.radio] == [f"{PREDICTION}_choice"]  # one question, this one
    app.radio(key=f"{PREDICTION}_choice").set_value(truth).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception
    assert prediction_checks(app) == [(truth, truth)]
    assert "needs its `seed`" in texts(app.success)
    assert "TypeError" in texts(app.error) and "obs shape: (4,)" in tabs_text(app, "code")
    assert app.main.markdown[-1].value.startswith("- A vector env wants")  # the takeaways


def test_the_page_shows_the_lesson_issues_only_each_with_its_real_error(page):
    assert page.title[0].value == "Common mistakes with vector envs"
    assert page.slider(key=N_KEY).value == 4
    assert dict(page.query_params) == {"n": "4"}
    headers = [h.value for h in page.header]
    assert headers == ["1 · The factory itself", "2 · A scalar observation", "Key takeaways"]
    errors = texts(page.error)  # the ❌ tabs are open
    for error_type, phrase in EXPECTED_ERRORS.values():
        assert f"{error_type}: {phrase}" in errors, (error_type, errors)
    assert not page.segmented_control and not page.toggle and not page.dataframe
    # every tab is drawn: the two ❌ scripts show their error, the ✅ ones none; the fixed
    # scalar batch has shape (N, 1)
    assert len(page.error) == 2
    assert "obs shape: (4, 1)" in tabs_text(page, "code")
    assert "adjusted" not in texts(page.info) and not page.warning


def test_every_block_is_a_whole_script_with_its_real_error_and_only_one_make_env(page, tmp_path):
    """Each shown script runs from a file and stops with the error the page shows; the lesson's
    make_env(seed) is the only factory the page shows."""
    blocks = sorted({code for tab in across_tabs(page, python_blocks) for code in tab})
    assert len(blocks) == 4  # a ❌ and a ✅ per issue
    for index, code in enumerate(blocks):
        assert_script_behaves(code, tmp_path / str(index))
    codes = "\n".join(blocks)
    assert "burgerbot_factory" not in codes and "def make_env(seed):" in codes
    assert codes.count("def make_env(") == 2  # the ❌ and ✅ factory scripts, one signature


@pytest.mark.parametrize("right", [True, False])
def test_the_factory_prediction_is_checked_against_the_live_run(right):
    app = open_page({"n": "5"}, skip=False)
    truth = factory_truth()
    choice = truth if right else next(o for o in FACTORY_OPTIONS if o != truth)
    app.radio(key=f"{PREDICTION}_choice").set_value(choice).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception
    assert prediction_checks(app) == [(choice, truth)]
    assert "needs its `seed`" in texts(app.success if right else app.warning)
    assert "missing 1 required positional argument" in texts(app.error)


def test_skip_shows_the_mistakes_without_a_verdict():
    app = open_page(skip=False)
    app.button(key=f"{PREDICTION}_skip").click().run()
    assert not app.exception
    assert "TypeError" in texts(app.error) and not prediction_checks(app)
    assert app.main.markdown[-1].value.startswith("- A vector env wants")


def test_takeaways_end_the_page_and_follow_the_run(page):
    assert page.header[-1].value == "Key takeaways"
    bullets = page.main.markdown[-1].value
    assert 3 <= bullets.count("\n- ") + 1 <= 5
    assert bullets == "\n".join(f"- {b}" for b in takeaways(lesson_runs(4)))
    # the errors the lesson's two scripts raised, as gymnasium and numpy raise them
    assert f"(here: {factory_truth()})" in bullets and "raised IndexError" in bullets


def test_changing_n_updates_the_scripts_and_the_url(page):
    page.slider(key=N_KEY).set_value(7).run()
    assert not page.exception
    assert page.query_params["n"] == "7"
    codes = tabs_text(page, "code")
    assert "N = 7\n" in codes and "N = 4\n" not in codes
    assert "obs shape: (7,)" in codes and "obs shape: (7, 1)" in codes
    page.slider(key=N_KEY).set_value(4).run()


def test_it_links_the_going_further_page_and_uses_no_term_taught_later(page):
    text = "\n".join(across_tabs(page, lambda view: texts(view.markdown) + texts(view.code)))
    assert "](more_mistakes)" in text
    # Only Home and Batch shapes come before this page: nothing taught later may appear.
    assert taught_too_late([("home", ""), ("batch_shapes", ""), ("mistakes", text)]) == []


def record_captions(app: AppTest) -> list[tuple[str, str]]:
    """Each shared result's record (when and where it ran, in the caption's help) with its
    exact start time (the help's second paragraph)."""
    helps = [c.proto.help for c in app.caption if "on this server (" in c.proto.help]
    return [tuple(text.split("\n\n", 1)) for text in helps]


def test_results_are_shared_between_visitors_and_say_when_they_ran():
    first = record_captions(open_page())
    second = record_captions(open_page())
    assert [text.split(" on this server")[0] for text, _ in second] == ["These scripts ran"]
    assert [when for _, when in second] == [when for _, when in first]
    for text, _ in second:
        assert "just now" not in text and " ago, with Python " in text, text


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ({"n": "abc"}, "`n=abc` is not a whole number: using 4."),
        ({"n": "10000"}, "`n=10000` is outside 1..64: using 64."),
    ],
)
def test_bad_query_params_show_a_note(query, note):
    app = open_page(query)
    assert note in texts(app.info)
    assert app.query_params["n"] == str(app.slider(key=N_KEY).value)


def test_a_good_query_param_is_used_silently():
    app = open_page({"n": "9"})
    assert app.slider(key=N_KEY).value == 9
    assert "obs shape: (9,)" in tabs_text(app, "code")
    assert "adjusted" not in texts(app.info)
