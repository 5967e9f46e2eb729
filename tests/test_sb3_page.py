"""The "Stable-Baselines3" page through the router, via AppTest: with and without SB3.

Tests marked ``sb3`` need the optional extra; they skip without it, except when
BURGERBOT_REQUIRE_SB3=1 (CI's second run), where a missing SB3 fails them. The page
without SB3 is tested everywhere by hiding the package from the import system.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from page_apptest import each_tab, markdown_tables, open_app_page, tabs_text, texts
from streamlit.testing.v1 import AppTest

from burgerbot.app.logic.sb3 import ACCEPTS_OPTIONS, INSTALL_COMMAND, side_by_side
from burgerbot.app.scripts import sb3 as snippets

ROOT = Path(__file__).resolve().parent.parent
PAGE_FILE = "app_pages/sb3.py"
KEY = {name: f"sb3_{name}" for name in ("n", "steps", "seed", "ppo_envs", "ppo_steps")}
TRAIN = "sb3_train"
FIRST_END = "tabs_sb3_first_end"


@pytest.fixture
def without_sb3(monkeypatch):
    """Make ``import stable_baselines3`` fail as if the package were not installed."""
    monkeypatch.setitem(sys.modules, "stable_baselines3", None)


def open_page(query: dict[str, str] | None = None) -> AppTest:
    return open_app_page(PAGE_FILE, query, timeout=600, expanders=True)


def first_end_table(app: AppTest) -> Any:
    """The table the open tab shows around the first episode end (only that tab is drawn)."""
    tables = markdown_tables(texts(app.markdown))
    (table,) = [table for table in tables if "last obs" in table.columns]
    return table


def metrics(app: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in app.metric}


# --- Without SB3 -------------------------------------------------------------------------------


def test_without_sb3_the_page_explains_and_runs_the_gymnasium_side(without_sb3):
    app = open_page()
    assert app.title[0].value == "Stable-Baselines3 and vector environments"
    info = texts(app.info)
    assert "stable-baselines3 is not installed here" in info and INSTALL_COMMAND in info
    assert not app.success
    markdown = texts(app.markdown)
    assert "2 values: obs array (4, 4) int64, infos dict {} ✓ *live*" in markdown
    assert "only obs: array (N, 4) |" in markdown  # from the docs, not measured
    tables = [first_end_table(view) for _, view in each_tab(app, FIRST_END)]
    assert len(tables) == 2  # SAME_STEP and NEXT_STEP, no SB3 table
    assert "reset: action ignored" in tables[1]["note"].tolist()
    codes = tabs_text(app, "code")  # the lesson's calls, a tab each
    assert 'PPO("MlpPolicy", BurgerBotEnv(), n_envs=4)' in codes
    assert "model.learn(total_timesteps=4096)" in codes
    assert TRAIN not in [button.key for button in app.button]
    assert not app.error and not app.metric


def test_without_sb3_every_control_still_works(without_sb3):
    app = open_page()
    app.slider(key=KEY["n"]).set_value(2).run()
    assert "2 values: obs array (2, 4) int64" in texts(app.markdown)
    assert "`SyncVectorEnv([make_env() for _ in range(2)])`" in texts(app.markdown)
    assert "N, STEPS, SEED = 2, 30, 0" in texts(app.code)  # the side-by-side script follows
    app.slider(key=KEY["steps"]).set_value(60).run()
    app.number_input(key=KEY["seed"]).set_value(3).run()
    result = side_by_side(2, 60, 3, with_sb3=False)
    same = result.frame[result.frame["library"].str.contains("SAME_STEP")]
    first = same[same["done"]].iloc[0]
    assert f"**Env {first['env']}, steps" in texts(app.markdown)
    app.slider(key=KEY["ppo_envs"]).set_value(8).run()
    app.number_input(key=KEY["ppo_steps"]).set_value(1024).run()
    codes = texts(app.code)
    assert "n_envs=8, seed=3" in codes and "total_timesteps=1024" in codes
    assert dict(app.query_params) == {
        "n": "2",
        "steps": "60",
        "seed": "3",
        "ppo_envs": "8",
        "ppo_steps": "1024",
    }
    assert not app.exception


@pytest.mark.parametrize(
    ("query", "note", "key", "used"),
    [
        ({"n": "abc"}, "`n=abc` is not a whole number: using 4.", "n", 4),
        ({"steps": "1"}, "`steps=1` is outside 5..200: using 5.", "steps", 5),
        ({"ppo_steps": "999999"}, "is outside 512..20000: using 20000.", "ppo_steps", 20000),
        ({"ppo_envs": "0"}, "`ppo_envs=0` is outside 1..8: using 1.", "ppo_envs", 1),
    ],
)
def test_bad_query_params_show_a_note(without_sb3, query, note, key, used):
    app = open_page(query)
    assert note in texts(app.info)
    widget = app.number_input(key=KEY[key]) if key == "ppo_steps" else app.slider(key=KEY[key])
    assert widget.value == used


# --- With SB3 ----------------------------------------------------------------------------------


@pytest.mark.sb3
def test_with_sb3_everything_runs_live_and_ppo_trains(sb3):
    app = open_page({"ppo_envs": "2", "ppo_steps": "512"})
    assert f"stable-baselines3 **{sb3.__version__}** is installed" in texts(app.caption)
    markdown = texts(app.markdown)
    assert "4 values: obs array (4, 4) int64, rewards array (4,) float32" in markdown
    assert "**SAME_STEP matched SB3 on 120 of 120** (step, env) pairs: same" in markdown
    assert "**NEXT_STEP matched on 120 of 120**" not in markdown
    tables = {label: first_end_table(view) for label, view in each_tab(app, FIRST_END)}
    assert len(tables) == 3 and len(tables["SB3 DummyVecEnv"]) > 0  # a tab per library
    errors, codes = tabs_text(app, "error"), tabs_text(app, "code")
    assert "**TypeError**" in errors and "unexpected keyword argument 'n_envs'" in errors
    assert "SyncVectorEnv" in codes and "transitions per update: 8192" in codes
    assert "training time" not in metrics(app)  # PPO trains only when asked

    app.button(key=TRAIN).click().run()
    assert not app.exception, [e.value for e in app.exception]
    shown = metrics(app)
    assert shown["updates"] == "2" and shown["transitions per update"] == "256"
    assert "Following the trained policy greedily from the start" in texts(app.markdown)
    charts = [json.loads(chart.proto.spec) for chart in app.get("vega_lite_chart")]
    assert charts and charts[0]["layer"][0]["encoding"]["y"]["field"] == "return"

    app.slider(key=KEY["n"]).set_value(2).run()
    assert "**SAME_STEP matched SB3 on 60 of 60**" in texts(app.markdown)
    assert "4 values: obs array (2, 4) int64" in texts(app.markdown)
    assert "transitions per update: 8192" in tabs_text(app, "code")  # the calls keep 4 envs
    assert metrics(app)["updates"] == "2"  # the PPO run is kept for its own settings


# --- The learner's path: prediction, exercise, takeaways ------------------------------------------

PREDICTION = "sb3_accepts_sync"


def predict(app: AppTest, choice: str) -> AppTest:
    app.radio(key=f"{PREDICTION}_choice").set_value(choice).run()
    app.button(key=f"{PREDICTION}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def takeaway_bullets(app: AppTest) -> str:
    """The page's last markdown block, under its last heading "Key takeaways"."""
    assert app.subheader[-1].value == "Key takeaways"
    (bullets,) = [m.value for m in app.markdown if m.value.startswith("- ")][-1:]
    return bullets


def test_without_sb3_the_prediction_is_asked_and_says_it_cannot_be_checked(without_sb3):
    app = predict(open_page(), ACCEPTS_OPTIONS[1])
    captions = texts(app.caption)
    assert f"Locked in: **{ACCEPTS_OPTIONS[1]}**" in captions
    assert "Your prediction cannot be checked here: stable-baselines3 is not installed" in captions
    assert "Your prediction was right" not in texts(app.success)
    assert app.subheader[-1].value == "Key takeaways"
    assert "(not run here: stable-baselines3 is not installed)" in takeaway_bullets(app)


def test_the_exercise_answer_is_hidden_until_asked_for(without_sb3):
    app = open_page()
    answer = snippets.exercise_answer(4, 2048).strip()  # st.code drops the last newline
    assert answer not in [code.value.strip() for code in app.code]
    app.toggle(key="sb3_rewrite_ppo_answer").set_value(True).run()
    assert answer in [code.value.strip() for code in app.code]


def ppo_accepts_a_sync_vector_env() -> bool:
    """Asked of the installed SB3 directly, not through the page."""
    from gymnasium.vector import SyncVectorEnv
    from stable_baselines3 import PPO

    from burgerbot.factories import make_env

    envs = SyncVectorEnv([make_env() for _ in range(2)])
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
    app = predict(open_page(), truth)
    assert f"**Your prediction was right:** {truth}." in texts(app.success)
    app = predict(app, wrong)
    assert f"**You predicted {wrong}; the live run gave {truth}.**" in texts(app.warning)
    bullets = takeaway_bullets(app)
    assert f"On stable-baselines3 {sb3.__version__}: `PPO(..., n_envs=4)` raised TypeError" in (
        bullets
    )
    assert "4 envs x 2048 = 8,192 transitions per update" in bullets
    assert "like Gymnasium's SAME_STEP (120 of 120 pairs" in bullets
