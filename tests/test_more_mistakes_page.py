"""The More mistakes page (a Going further page) through the router, via AppTest."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import gymnasium as gym
import pytest
from child_processes import worker_pids
from page_apptest import (
    across_tabs,
    open_app_page,
    prediction_checks,
    skip_predictions,
    tabs_text,
    texts,
)
from sentence_facts import code_spans, quotes
from shown_scripts import assert_script_behaves
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.more_mistakes import (
    ACTION_OPTIONS,
    MISTAKES,
    action_shape_mistake,
    actions_outcome,
    spaces_bullets,
    spaces_table,
    takeaways,
)
from burgerbot.app.scripts.more_mistakes import dtype_exercise

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/more_mistakes.py"
N_KEY, PICK_KEY = "more_mistakes_n", "more_mistakes_mistake"
PREDICTION = "more_mistakes_actions"
REFERENCE = "more_mistakes_reference"

# Each mistake's captured errors: the type shown in st.error, a phrase of the message in st.code.
EXPECTED_ERRORS = {
    "actions": [
        ("TypeError", "only 0-dimensional arrays"),
        ("AssertionError", "invalid"),
        ("ValueError", "must have shape"),
    ],
    "final_obs": [("KeyError", "'final_observation'")],
    "async": [
        ("KeyError", "'final_observation'"),
        ("TypeError", "does not support the context manager protocol"),
    ],
    "main_guard": [("ConnectionResetError", "Connection reset by peer")],
    "defaults": [("AttributeError", "no attribute 'metadata'")],
}


def open_page(query: dict[str, str] | None = None, *, skip: bool = True) -> AppTest:
    """The page as a learner who skips its prediction sees it (``skip``), or before that."""
    app = open_app_page(PAGE_FILE, query, timeout=300)
    return skip_predictions(app) if skip else app


def reference(app: AppTest) -> AppTest:
    """Show the reference section (the five vector envs' batches, exercise 3)."""
    app.toggle(key=REFERENCE).set_value(True).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def obs_shapes(app: AppTest) -> list[str]:
    """Each env's batched observation shape, as the reference's lines show it."""
    text = texts(reference(app).markdown)
    return re.findall(r"^- \*\*.+?\*\* in `\w+`: obs `(.+?)` `", text, re.M)


def choose(app: AppTest, mistake: str) -> AppTest:
    app.segmented_control(key=PICK_KEY).set_value(mistake).run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def python_blocks(app: AppTest) -> list[str]:
    """Every Python block, as a file would hold it (st.code drops the last newline)."""
    return [block.value.rstrip("\n") + "\n" for block in app.code if block.language == "python"]


def actions_truth(n: int = 4) -> str:
    """What a SyncVectorEnv of BurgerBots does with actions of shape (n, 1), from gymnasium."""
    return actions_outcome(action_shape_mistake(n).runs["wrong"])


@pytest.fixture(scope="module")
def page() -> AppTest:
    return open_page()


def shown_text(app: AppTest) -> str:
    """What the page shows in words (the question's options aside) and its Python blocks."""
    elements = (app.markdown, app.caption, app.info, app.success, app.warning, app.error)
    return "\n".join([*(texts(e) for e in elements), texts(app.code)])


def test_nothing_gives_the_answer_away_before_lock_in_or_skip():
    """Predict, then reveal: the (N, 1) actions' error and every script wait for the answer."""
    app = open_page(skip=False)
    truth = actions_truth()
    text = shown_text(app)
    assert "TypeError" not in text and "0-dimensional" not in text
    assert not app.code and not app.error and not app.segmented_control
    assert not app.subheader and app.header[-1].value == "Key takeaways"
    assert [r.key for r in app.radio] == [f"{PREDICTION}_choice"]  # one question, this one
    app.radio(key=f"{PREDICTION}_choice").set_value(truth).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception
    assert prediction_checks(app) == [(truth, truth)]
    assert "only 0-dimensional arrays" in texts(app.success)
    assert app.main.markdown[-1].value.startswith("- Actions go in")  # the takeaways


def test_the_page_says_what_it_assumes_and_offers_every_mistake(page):
    assert page.title[0].value == "More mistakes with vector envs"
    intro = texts(page.markdown)
    assert "assumes" in intro and "You will learn" in intro
    assert page.slider(key=N_KEY).value == 4
    assert page.segmented_control(key=PICK_KEY).value == "actions"
    assert page.segmented_control(key=PICK_KEY).options == list(MISTAKES.values())
    assert dict(page.query_params) == {"n": "4", "mistake": "actions"}
    assert [s.value for s in page.subheader] == [MISTAKES["actions"]]
    assert page.header[-1].value == "Key takeaways"
    errors = tabs_text(page, "error")
    for error_type, phrase in EXPECTED_ERRORS["actions"]:
        assert f"**{error_type}**" in errors and phrase in errors
    assert "more_mistakes_rerun_async" not in [b.key for b in page.button]  # no Async run
    assert "adjusted" not in texts(page.info)  # no settings note
    assert not page.dataframe and not page.table  # the reference: on demand
    assert obs_shapes(page) == [
        "(4, 4)",
        "(4, 4)",
        "(4,)",
        "cell (4, 2), heading (4,), sensor (4,)",
        "(4, 4)",
        "(4, 4)",
    ]
    assert not page.warning


def test_the_glossary_terms_it_owns_are_explained_on_it():
    """The Glossary says the daemon and kernel entries are first taught here: they are, in a
    plain clause beside the word."""
    app = choose(open_page(), "async")
    text = texts(app.markdown)
    assert "kernel](glossary#kernel) (the Python process behind a notebook" in text
    assert "daemon processes (children that Python ends when their parent ends)" in text


def test_the_reward_sentence_follows_the_live_dtypes(page):
    markdown = texts(reference(page).markdown)
    cartpole = gym.make_vec("CartPole-v1", num_envs=4, vectorization_mode="vector_entry_point")
    cartpole.reset(seed=0)
    rewards = cartpole.step(cartpole.action_space.sample())[1]
    cartpole.close()
    # the page's sentence is the one computed from the live table of this server...
    (sentence,) = [b for b in spaces_bullets(spaces_table(4), 4) if "CartPoleVectorEnv" in b]
    assert sentence in markdown
    # ...and names CartPoleVectorEnv's reward dtype as gymnasium returns it
    spans = code_spans(sentence)
    assert spans[spans.index("CartPoleVectorEnv") - 1] == str(rewards.dtype)


@pytest.mark.parametrize("mistake", ["final_obs", "defaults"])
def test_each_sync_mistake_opens_on_demand(mistake):
    app = choose(open_page(), mistake)
    assert [s.value for s in app.subheader] == [MISTAKES[mistake]]
    assert app.header[-1].value == "Key takeaways"
    assert app.query_params["mistake"] == mistake
    errors = tabs_text(app, "error")  # each script is in a tab, drawn once opened
    for error_type, phrase in EXPECTED_ERRORS[mistake]:
        assert f"**{error_type}**" in errors, error_type
        assert phrase in errors, phrase


@pytest.mark.slow
def test_every_python_block_of_every_mistake_runs_from_a_file(tmp_path):
    """The blocks a learner sees only after picking a mistake, each run as a file."""
    app = reference(open_page())
    blocks: dict[str, str] = {}
    for mistake in MISTAKES:
        for tab_blocks in across_tabs(choose(app, mistake), python_blocks):
            for code in tab_blocks:
                blocks.setdefault(hashlib.sha1(code.encode()).hexdigest()[:10], code)
    assert len(blocks) >= 2 * len(MISTAKES)  # a ❌ and a ✅ per mistake but one, the spaces script
    for digest, code in blocks.items():
        assert_script_behaves(code, tmp_path / digest)


@pytest.mark.slow
def test_the_async_mistake_runs_its_scripts_as_files_and_leaves_nothing():
    before = worker_pids()
    app = open_page({"mistake": "async"})
    assert app.subheader[0].value == MISTAKES["async"]
    errors = tabs_text(app, "error")
    for error_type, phrase in EXPECTED_ERRORS["async"]:
        assert f"**{error_type}**" in errors and phrase in errors
    (table,) = app.table
    assert table.value.iloc[:, 1].tolist() == ["0", "0", "0"]  # left after the file run exited
    assert table.value.iloc[:, 2].tolist() == ["2", "0", "0"]  # in a process that goes on
    markdown = texts(app.markdown)
    # the worker sentences, as computed from the three counts in the table
    assert "no script left a worker behind" in markdown  # the file runs' count, 0
    (kept,) = [line for line in markdown.splitlines() if "envs.close()" in line and "kept" in line]
    assert quotes(kept, 2, 0)  # kept 2 of its 2 workers, 0 left after envs.close()
    first = [c.proto.help for c in app.caption if c.value.startswith("These scripts ran")]
    app.button(key="more_mistakes_rerun_async").click().run()
    assert not app.exception, [e.value for e in app.exception]
    again = [c.proto.help for c in app.caption if c.value.startswith("These scripts ran")]
    assert first and again and first != again
    assert worker_pids() - before == set()


@pytest.mark.slow
def test_the_main_guard_mistake_shows_the_workers_errors():
    app = choose(open_page(), "main_guard")
    assert "**ConnectionResetError**" in texts(app.error)
    assert re.search(
        r"The worker process printed \*\*RuntimeError\*\*: .* waiting for its worker, then "
        r"stopped with \*\*ConnectionResetError\*\*",
        texts(app.markdown),
    )
    assert "obs shape: (1, 4)" in tabs_text(app, "code")


@pytest.mark.parametrize("right", [True, False])
def test_the_actions_prediction_is_checked_against_the_live_run(right):
    app = open_page({"n": "5"}, skip=False)
    truth = actions_truth(5)
    choice = truth if right else next(o for o in ACTION_OPTIONS if o != truth)
    app.radio(key=f"{PREDICTION}_choice").set_value(choice).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception
    assert prediction_checks(app) == [(choice, truth)]
    assert "only 0-dimensional arrays" in texts(app.success if right else app.warning)


def test_skip_shows_the_mistakes_without_a_verdict():
    app = open_page(skip=False)
    app.button(key=f"{PREDICTION}_skip").click().run()
    assert not app.exception
    assert "**TypeError**" in texts(app.error) and not prediction_checks(app)
    assert app.main.markdown[-1].value.startswith("- Actions go in")


def test_the_exercise_answer_is_hidden_until_asked_and_runs_from_a_file(page, tmp_path):
    reference(page)
    n = page.slider(key=N_KEY).value
    assert dtype_exercise(n) not in python_blocks(page)
    page.toggle(key="more_mistakes_dtype_answer").set_value(True).run()
    assert dtype_exercise(n) in python_blocks(page)
    out = assert_script_behaves(dtype_exercise(n), tmp_path)
    cartpole = gym.make("CartPole-v1").observation_space.dtype
    assert f"CartPole:  ({n}, 4) {cartpole}" in out
    page.toggle(key="more_mistakes_dtype_answer").set_value(False).run()


def test_takeaways_end_the_page_and_follow_the_run(page):
    assert page.header[-1].value == "Key takeaways"
    bullets = page.main.markdown[-1].value
    assert 3 <= bullets.count("\n- ") + 1 <= 5
    assert bullets == "\n".join(f"- {b}" for b in takeaways(action_shape_mistake(4).runs["wrong"]))
    assert f"(here: {actions_truth().lower()})" in bullets


def test_changing_n_updates_the_table_the_scripts_and_the_url(page):
    page.slider(key=N_KEY).set_value(7).run()
    assert not page.exception
    assert obs_shapes(page)[0] == "(7, 4)" and obs_shapes(page)[2] == "(7,)"
    assert page.query_params["n"] == "7"
    codes = texts(page.code)
    assert "N = 7\n" in codes and "N = 4\n" not in codes
    page.slider(key=N_KEY).set_value(1).run()
    assert obs_shapes(page)[0] == "(1, 4)"
    assert page.query_params["n"] == "1"


def record_captions(app: AppTest) -> list[tuple[str, str]]:
    """Each shared result's caption (when and where it ran) with its exact start time."""
    return [(c.value, c.proto.help) for c in app.caption if "on this server (" in c.value]


def test_results_are_shared_between_visitors_and_say_when_they_ran():
    first = record_captions(open_page())
    second = record_captions(open_page())
    assert [text.split(" on this server")[0] for text, _ in second] == [
        "These scripts (N = 4) ran"  # the actions mistake's, once
    ]
    assert [when for _, when in second] == [when for _, when in first]
    for text, _ in second:
        assert "just now" not in text and " ago, with Python " in text, text


@pytest.mark.parametrize(
    ("query", "note"),
    [
        ({"n": "abc"}, "`n=abc` is not a whole number: using 4."),
        ({"n": "10000"}, "`n=10000` is outside 1..64: using 64."),
        ({"mistake": "typo"}, "`mistake=typo` is not one of actions, final_obs"),
    ],
)
def test_bad_query_params_show_a_note(query, note):
    app = open_page(query)
    assert note in texts(app.info)
    assert app.query_params["n"] == str(app.slider(key=N_KEY).value)
    assert app.query_params["mistake"] == app.segmented_control(key=PICK_KEY).value


def test_a_good_query_param_is_used_silently():
    app = open_page({"n": "9", "mistake": "FINAL_OBS"})
    assert app.slider(key=N_KEY).value == 9
    assert app.segmented_control(key=PICK_KEY).value == "final_obs"
    assert obs_shapes(app)[2] == "(9,)"
    assert "adjusted" not in texts(app.info)
