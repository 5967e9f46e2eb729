"""The "Stable-Baselines3" page through the router, via AppTest: with and without SB3.

Tests marked ``sb3`` need the optional extra; they skip without it, except when
BURGERBOT_REQUIRE_SB3=1 (CI's second run), where a missing SB3 fails them. The page
without SB3 is tested everywhere by hiding the package from the import system.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from page_apptest import (
    open_app_page,
    open_expanders,
    setting_notes,
    tabs_text,
    texts,
)
from sentence_facts import bold, code_spans, numbers, quotes
from streamlit.testing.v1 import AppTest

from burgerbot.app import sb3_recording
from burgerbot.app.labels import VERDICTS
from burgerbot.app.logic.sb3 import (
    ACCEPTS_OPTIONS,
    GYM_NEXT_STEP,
    GYM_SAME_STEP,
    INSTALL_COMMAND,
    invalid_calls,
    recorded_agreement,
    recorded_calls,
    side_by_side,
    takeaways,
)
from burgerbot.app.script_runner import printed
from burgerbot.app.scripts import sb3 as snippets

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/sb3.py"
KEY = {name: f"sb3_{name}" for name in ("n", "steps", "seed")}
TRAIN = "sb3_train"
RECORDING = sb3_recording.load()


@pytest.fixture
def without_sb3(monkeypatch):
    """Make ``import stable_baselines3`` fail as if the package were not installed."""
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)


PREDICTION = "sb3_accepts_sync"


def open_page(query: dict[str, str] | None = None, skip: bool = True) -> AppTest:
    """The page, by default past its prediction ("Skip, show me"), where its results are."""
    app = open_app_page(PAGE_FILE, query, timeout=600, expanders=True)
    if skip:
        app.button(key=f"{PREDICTION}_skip").click().run()
        assert not app.exception, [e.value for e in app.exception]
        open_expanders(app)  # those drawn since
    return app


def first_end_table(tab: Any) -> Any:
    """The table a tab shows around the first episode end."""
    (table,) = [t.value.reset_index() for t in tab.table if "last obs" in t.value.columns]
    return table.astype(str)


def first_end_tables(app: AppTest) -> dict[str, Any]:
    """Each library's tab around the first episode end: its label and its table."""
    return {
        tab.label: first_end_table(tab)
        for tab in app.tabs
        if any("last obs" in t.value.columns for t in tab.table)
    }


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


# --- Without SB3 -------------------------------------------------------------------------------


def test_without_sb3_the_page_explains_and_runs_the_gymnasium_side(without_sb3):
    app = open_page()
    assert app.title[0].value == "Stable-Baselines3 and vector environments"
    info = texts(app.info)
    assert INSTALL_COMMAND in info and RECORDING.label() in info  # when and with which versions
    tables = list(first_end_tables(app).values())
    assert len(tables) == 2  # SAME_STEP and NEXT_STEP, no SB3 table
    assert "reset: action ignored" in tables[1]["note"].tolist()
    codes = tabs_text(app, "code")  # the lesson's calls, a tab each
    for script in (snippets.n_envs_wrong(4), snippets.ppo_fixed(4)):
        assert script.strip() in codes
    assert TRAIN not in [button.key for button in app.button]  # training is not on the path
    assert not app.metric
    # The SB3 runs, as recorded and labelled so: the lesson's calls, the comparison, PPO.
    recorded = f"(recorded on {RECORDING.recorded_on})"
    errors = tabs_text(app, "error")
    for name in ("sb3.n_envs_wrong", "sb3.gymnasium_vector_wrong"):  # each recorded error
        error = RECORDING.run(name).error
        assert f"**{error.type}** at `{error.location}` {recorded}" in errors
        assert error.headline in errors
    # The prediction's subject first: its verdict sits right under its own error's tab.
    assert [bold(e) for e in errors.split("\n") if e][:2] == [["ValueError"], ["TypeError"]]
    assert RECORDING.run("sb3.ppo_fixed").error is None and recorded in tabs_text(app, "success")
    assert RECORDING.run("sb3.ppo_fixed").output.strip() in codes


def test_without_sb3_every_control_still_works(without_sb3):
    app = open_page()
    app.slider(key=KEY["n"]).set_value(2).run()
    assert snippets.side_by_side_script(2, 30, 0).strip() in texts(app.code)  # it follows
    app.slider(key=KEY["steps"]).set_value(60).run()
    app.number_input(key=KEY["seed"]).set_value(3).run()
    result = side_by_side(2, 60, 3, with_sb3=False)
    same = result.frame[result.frame["library"].str.contains("SAME_STEP")]
    first = same[same["done"]].iloc[0]
    assert f"**Env {first['env']}, steps" in texts(app.markdown)
    assert dict(app.query_params) == {"n": "2", "steps": "60", "seed": "3"}
    assert not app.exception


@pytest.mark.parametrize(
    ("query", "note", "key", "used"),
    [
        ({"n": "abc"}, ["n=abc"], "n", 4),
        ({"steps": "1"}, ["steps=1"], "steps", 5),
        ({"seed": "-5"}, ["seed=-5"], "seed", 0),
    ],
)
def test_bad_query_params_show_a_note(without_sb3, query, note, key, used):
    app = open_page(query, skip=False)
    (said,) = setting_notes(app)  # said before the prediction, too
    assert code_spans(said) == note and numbers(said)[-1] == used
    app.button(key=f"{PREDICTION}_skip").click().run()
    widget = app.number_input(key=KEY[key]) if key == "seed" else app.slider(key=KEY[key])
    assert widget.value == used


# --- With SB3 ----------------------------------------------------------------------------------


@pytest.mark.sb3
def test_with_sb3_everything_runs_live(sb3):
    app = open_page()
    assert any(bold(c) == [sb3.__version__] for c in app.caption.values)  # live, this release
    result = side_by_side(4, 30, 0, with_sb3=True)
    assert result.agree[GYM_SAME_STEP] == result.pairs == 120  # SB3 resets like SAME_STEP
    assert result.agree[GYM_NEXT_STEP] < result.pairs
    assert f"{result.pairs} of {result.pairs} pairs matched here" in takeaway_bullets(app)
    tables = first_end_tables(app)
    assert len(tables) == 3 and len(tables["SB3 DummyVecEnv"]) > 0  # a tab per library
    errors, codes = tabs_text(app, "error"), tabs_text(app, "code")
    calls = invalid_calls(4)
    assert calls["n_envs"].error.type == "TypeError" and calls["n_envs"].error.headline in errors
    assert printed(calls["fixed"].output)["transitions per update"] == "8192"
    assert "SyncVectorEnv" in codes and calls["fixed"].output.strip() in codes
    assert TRAIN not in [button.key for button in app.button]  # training is not on the path

    app.slider(key=KEY["n"]).set_value(2).run()
    assert "SAME_STEP (60 of 60 pairs matched here)" in takeaway_bullets(app)  # it follows
    assert calls["fixed"].output.strip() in tabs_text(app, "code")  # the calls keep 4 envs


# --- The learner's path: prediction, exercise, takeaways ------------------------------------------


def predict(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PREDICTION}_choice").set_value(choice).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def takeaway_bullets(app: AppTest) -> str:
    """The page's last markdown block, under its last heading "Key takeaways"."""
    assert app.header[-1].value == "Key takeaways"
    (bullets,) = [m.value for m in app.markdown if m.value.startswith("- ")][-1:]
    return bullets


def test_nothing_gives_the_answer_away_before_lock_in_or_skip(without_sb3):
    app = open_page(skip=False)
    shown = " ".join(
        [texts(app.markdown), texts(app.caption), texts(app.info), tabs_text(app, "code")]
    )
    # The deciding fact: PPO refuses a Gymnasium vector env (a ValueError from SB3's checks).
    facts = ["ValueError", "refuse", "not a Gymnasium environment", "treats any other env"]
    facts += ["never worked", VERDICTS["never_valid"].badge()]
    for fact in facts:  # nowhere: not in the sidebar's topics either
        assert fact not in shown, fact
    assert not app.error and not app.success and not app.warning
    assert "Key takeaways" in [s.value for s in app.header]  # the heading, no bullets yet
    assert not [m for m in app.markdown if m.value.startswith("- SB3 trains")]
    app.button(key=f"{PREDICTION}_skip").click().run()
    error = RECORDING.run("sb3.gymnasium_vector_wrong").error
    assert error.type == "ValueError" and error.headline in tabs_text(app, "error")
    assert takeaway_bullets(app).startswith(f"- {takeaways(None, None, None)[0]}")


@pytest.mark.parametrize("right", [True, False])
def test_without_sb3_the_prediction_is_checked_against_the_recording(without_sb3, right):
    truth = ACCEPTS_OPTIONS[1 if RECORDING.run("sb3.gymnasium_vector_wrong").raised else 0]
    choice = truth if right else next(o for o in ACCEPTS_OPTIONS if o != truth)
    app = predict(open_page(skip=False), choice)
    verdict = app.success if right else app.warning  # the branch: right or wrong
    assert len(verdict) == 1 and not (app.warning if right else app.success)
    assert truth in verdict[0].value and choice in verdict[0].value  # both named when wrong
    assert f"recorded on {RECORDING.recorded_on}" in verdict[0].value
    expected = takeaways(
        recorded_calls(RECORDING),
        None,
        RECORDING.sb3_version,
        RECORDING.recorded_on,
        recorded_agreement(RECORDING.run("sb3.side_by_side").output),
    )
    assert takeaway_bullets(app) == "\n".join(f"- {bullet}" for bullet in expected)
    assert recorded_agreement(RECORDING.run("sb3.side_by_side").output)["SAME_STEP"] == (120, 120)


def ppo_accepts_a_sync_vector_env() -> bool:
    """Asked of the installed SB3 directly, not through the page."""
    from gymnasium.vector import SyncVectorEnv
    from stable_baselines3 import PPO

    from burgerbot.factories import burgerbot_factory

    envs = SyncVectorEnv([burgerbot_factory() for _ in range(2)])
    try:
        PPO("MlpPolicy", envs, device="cpu")
    except Exception:
        return False
    finally:
        envs.close()
    return True


@pytest.mark.sb3
def test_with_sb3_a_right_and_a_wrong_prediction_are_checked_against_the_attempt(sb3):
    truth = ACCEPTS_OPTIONS[0] if ppo_accepts_a_sync_vector_env() else ACCEPTS_OPTIONS[1]
    (wrong,) = [option for option in ACCEPTS_OPTIONS if option != truth]
    app = predict(open_page(skip=False), truth)
    assert len(app.success) == 1 and truth in app.success[0].value and not app.warning
    app = predict(app, wrong)
    assert len(app.warning) == 1 and not app.success
    assert wrong in app.warning[0].value and truth in app.warning[0].value
    expected = takeaways(invalid_calls(4), side_by_side(4, 30, 0, with_sb3=True), sb3.__version__)
    assert takeaway_bullets(app) == "\n".join(f"- {bullet}" for bullet in expected)
    assert quotes(expected[1], 4) and quotes(expected[2], 4, 2048, 8192)  # n_envs=4; per update
