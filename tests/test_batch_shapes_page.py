"""The "Batch shapes" page through the router: every control, the live env, and URL settings."""

from __future__ import annotations

import math
import os
import re
import signal
from pathlib import Path

import gymnasium as gym
import numpy as np
import pytest
from child_processes import worker_pids
from gymnasium.envs.classic_control.cartpole import CartPoleEnv
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from page_apptest import (
    component_data,
    html_text,
    live_heading,
    live_view_html,
    markdown_tables,
    open_expanders,
    page_function,
    prediction_checks,
    prediction_score,
    setting_notes,
    skip_predictions,
    stepper_request,
    texts,
)
from sentence_facts import code_spans, quotes
from streamlit.testing.v1 import AppTest

from burgerbot import BurgerBotVectorEnv
from burgerbot.app import caps
from burgerbot.app.caps import Caps
from burgerbot.app.logic.batch_shapes import BatchRun, BatchSettings, prediction_ids
from burgerbot.app.markdown import markdown_html
from burgerbot.app.slots import WORKER_BUDGET, reaper_paused
from burgerbot.factories import burgerbot_factory

ROOT = Path(__file__).resolve().parent.parent
PAGE = "app_pages/batch_shapes.py"
SLOT = "_batch_shapes_env_slot"
LIVE = "batch_shapes_live"


def open_page(*, skip: bool = True, **query: str) -> AppTest:
    """Open the page as a browser does for ``/batch_shapes?<query>``; with ``skip``, as a
    learner who skips the questions (the batch is shown once they are answered or skipped).

    The home page writes its own settings into the URL; a browser drops them when it moves
    to another page, AppTest keeps them: so the query is set just before the switch.
    """
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    app.run()
    app.query_params.clear()
    app.query_params.update(query)
    app.switch_page(PAGE)
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    if skip:
        skip_predictions(app)
    return open_expanders(app)  # the scripts are drawn once their expander is open


def rerun(app: AppTest) -> AppTest:
    """Run the page again; a new env's questions (its own pair) are skipped as they come."""
    app.run()
    assert not app.exception, [e.value for e in app.exception]
    return skip_predictions(app)


def click(app: AppTest, button: str) -> AppTest:
    """A click on the stepper's ``button`` that goes to the server: a step past the calls
    the browser holds (the calls held ahead are tested in test_batch_shapes_fragment)."""
    at = component_data(app, LIVE)["at"]
    kind, target = {
        "step": ("go", at + 1),
        "step10": ("go", at + 10),
        "reset": ("reset", 0),
        "play": ("play", 0),
        "pause": ("pause", 0),
    }[button]
    return stepper_request(app, LIVE, kind, target=target, fragment=False)


def stepper(app: AppTest) -> dict:
    """The stepper's buttons (name: label) and the ones shown but off."""
    data = component_data(app, LIVE)
    return {"buttons": {b[0]: b[1] for b in data["buttons"]}, "disabled": data["disabled"]}


def slot(app: AppTest):
    return app.session_state[SLOT]


def latest_heading(app: AppTest) -> str:
    return live_heading(app)


def live_table(app: AppTest, column: str):
    """The live view's table that has ``column`` (its cells as text), indexed by env."""
    text = markdown_text(app)
    for table in markdown_tables(text):
        if column in table.columns and "env" in table.columns:
            return table.set_index("env")
    raise AssertionError(f"no live table with a {column!r} column")


def live_markdown(app: AppTest) -> str:
    """The live view's Markdown, checked to be what the page handed the browser (as HTML)."""
    run = slot(app).state["run"]
    settings = BatchSettings(
        env=app.selectbox(key="batch_shapes_env").value,
        num_envs=int(app.number_input(key="batch_shapes_n").value),
        backend="sync",  # the view's text does not depend on the backend
        seed=int(app.number_input(key="batch_shapes_seed").value),
    )
    text = page_function(app, PAGE, "call_body")(run.latest, settings)
    assert markdown_html(text) == live_view_html(app)
    return text


def markdown_text(app: AppTest) -> str:
    """The page's Markdown elements and the live view's Markdown."""
    return "\n".join([*(m.value for m in app.markdown), live_markdown(app)])


def arrays_stated(app: AppTest) -> list[tuple[str, str]]:
    """The observations' (shape, dtype) as the live view's arrays table states them."""
    return [
        (str(row["shape"]), str(row["dtype"]))
        for table in markdown_tables(markdown_text(app))
        if "array" in table.columns
        for _, row in table.iterrows()
        if row["array"] == "observations"
    ]


def infos_text(app: AppTest) -> str:
    return "\n".join(i.value for i in app.info)


def code(app: AppTest) -> str:
    return app.code[0].value


@pytest.fixture
def app():
    app = open_page()
    yield app
    slot(app).close()


def test_first_view_shows_the_reset_batch_with_its_shape(app):
    assert app.title[0].value.startswith("Batch shapes")
    assert latest_heading(app) == "Latest call: reset"
    assert arrays_stated(app)[0] == ("(4, 4)", "int64")
    observations = live_table(app, "row")
    assert list(observations.columns) == ["row", "col", "heading", "sensor"]
    assert observations.values.tolist() == [["0", "0", "1", "1"]] * 4
    assert "**`infos`**: `{}`" in markdown_text(app)  # a reset's infos: empty
    assert "STEPS = 0" in code(app) and "SyncVectorEnv" in code(app)
    # The robots' pictures are in the live view's one Markdown body, one figure per env.
    body = markdown_text(app)
    assert body.count('<img src="data:image/png;base64,') == 4 and not app.get("image")
    assert [f'alt="env {i}"' in body for i in range(5)] == [True] * 4 + [False]
    assert not setting_notes(app)  # no notes on good settings


def test_step_once_step_x10_and_reset(app):
    click(app, "step")
    assert latest_heading(app) == "Latest call: step 1 since the reset"
    step_table = live_table(app, "action")
    assert list(step_table.columns) == ["action", "reward", "terminated", "truncated"]
    assert set(step_table["terminated"]) <= {"True", "False"}
    assert len(step_table) == 4
    assert slot(app).state["run"].steps == 1
    click(app, "step10")
    assert latest_heading(app) == "Latest call: step 11 since the reset"
    # The script's STEPS is the one line to change; the call names its value.
    assert "STEPS = 0" in code(app) and "with STEPS = 11)" in html_text(live_view_html(app, LIVE))
    click(app, "reset")
    assert latest_heading(app) == "Latest call: reset"
    assert slot(app).state["run"].steps == 0 and "STEPS = 0" in code(app)


def test_changing_num_envs_closes_the_old_env_and_builds_a_new_one(app):
    old = slot(app).env
    click(app, "step")
    app.number_input(key="batch_shapes_n").set_value(20)
    rerun(app)
    assert old.closed
    new = slot(app).env
    assert new is not old and new.num_envs == 20 and not new.closed
    assert latest_heading(app) == "Latest call: reset"  # a new env starts from its reset
    assert arrays_stated(app)[0][0] == "(20, 4)"
    assert "20 robots" in markdown_text(app)  # their grid's heading counts them
    assert "<img" not in markdown_text(app)  # a grid of counts instead of 20 pictures
    assert markdown_text(app).count('class="bb-cell"') == 49  # in the view: no server chart
    assert not app.get("vega_lite_chart") and not app.get("arrow_vega_lite_chart")
    assert len(live_table(app, "row")) == 20
    assert app.query_params["n"] == "20"


def test_switching_env_changes_shape_dtype_columns_and_infos(app):
    app.selectbox(key="batch_shapes_env").set_value("CartPole-v1")
    rerun(app)
    assert arrays_stated(app)[0] == ("(4, 4)", "float32")
    assert "pole angle" in list(live_table(app, "cart position").columns)
    assert "Pole angle per env" in markdown_text(app)
    app.selectbox(key="batch_shapes_env").set_value("FrozenLake-v1")
    rerun(app)
    assert arrays_stated(app)[0] == ("(4,)", "int64")
    assert list(live_table(app, "state").columns) == ["state"]
    click(app, "step")
    infos = live_table(app, "_prob")
    assert list(infos.columns) == ["prob", "_prob"] and set(infos["_prob"]) == {"True"}
    assert app.query_params["env"] == "FrozenLake-v1"


def test_frozenlake_native_falls_back_to_sync_with_a_note(app):
    app.selectbox(key="batch_shapes_env").set_value("FrozenLake-v1")
    app.radio(key="batch_shapes_backend").set_value("native")
    rerun(app)
    (note,) = setting_notes(app)
    assert "FrozenLake-v1" in note and "native" in note
    assert app.radio(key="batch_shapes_backend").value == "sync"
    assert isinstance(slot(app).env, SyncVectorEnv)
    app.number_input(key="batch_shapes_n").set_value(5)
    rerun(app)
    assert not setting_notes(app)  # a new choice: the old note has done its job


def test_backend_switch_to_native_and_async(app):
    app.radio(key="batch_shapes_backend").set_value("native")
    rerun(app)
    assert isinstance(slot(app).env, BurgerBotVectorEnv)
    assert "BurgerBotVectorEnv(" in code(app)
    native = slot(app).env
    app.number_input(key="batch_shapes_n").set_value(2)
    app.radio(key="batch_shapes_backend").set_value("async")
    rerun(app)
    envs = slot(app).env
    assert native.closed and isinstance(envs, AsyncVectorEnv) and envs.num_envs == 2
    click(app, "step")
    assert latest_heading(app) == "Latest call: step 1 since the reset"
    assert "AsyncVectorEnv([make_env(i) for i in range(NUM_ENVS)])" in code(app)
    processes = list(envs.processes)
    app.radio(key="batch_shapes_backend").set_value("sync")
    rerun(app)
    assert envs.closed and not any(p.is_alive() for p in processes)


def test_async_budget_exhausted_shows_its_message(app):
    WORKER_BUDGET.acquire(WORKER_BUDGET.limit)
    try:
        app.number_input(key="batch_shapes_n").set_value(2)
        app.radio(key="batch_shapes_backend").set_value("async")
        rerun(app)
        assert len(app.error) == 1 and "Async" in app.error[0].value
        assert slot(app).env is None
    finally:
        WORKER_BUDGET.release(WORKER_BUDGET.limit)
    app.radio(key="batch_shapes_backend").set_value("sync")
    rerun(app)
    assert not app.error and isinstance(slot(app).env, SyncVectorEnv)


def test_seed_change_rebuilds_and_reseeds(app):
    click(app, "step")
    first_actions = live_table(app, "action")["action"].tolist()
    old = slot(app).env
    app.number_input(key="batch_shapes_seed").set_value(5)
    rerun(app)
    assert old.closed and slot(app).key == ("BurgerBot", 4, "sync", 5)
    assert "SEED = 5" in code(app) and app.query_params["seed"] == "5"
    app.number_input(key="batch_shapes_seed").set_value(0)
    rerun(app)
    click(app, "step")
    assert live_table(app, "action")["action"].tolist() == first_actions  # same seed, same actions


def test_play_steps_on_every_run_of_the_live_view_until_paused(app):
    click(app, "play")
    assert slot(app).state["playing"] is True
    assert slot(app).state["run"].steps == 1  # the live view stepped once on this run
    assert "step" in stepper(app)["disabled"]
    assert stepper(app)["buttons"]["pause"] == "⏸ Pause"
    rerun(app)  # what the timer does: one more run of the fragment, one more step
    assert slot(app).state["run"].steps == 2
    assert latest_heading(app) == "Latest call: step 2 since the reset"
    click(app, "pause")
    assert slot(app).state["playing"] is False
    steps = slot(app).state["run"].steps
    rerun(app)
    assert slot(app).state["run"].steps == steps
    assert "step" not in stepper(app)["disabled"]


def test_play_pauses_itself_at_the_step_cap(app, monkeypatch):
    monkeypatch.setattr(caps, "CAPS", Caps(max_steps_per_run=2))
    click(app, "play")
    rerun(app)
    assert slot(app).state["run"].steps == 2
    rerun(app)  # the third automatic step would pass the cap: it pauses instead
    assert slot(app).state.get("playing") is False
    assert slot(app).state["run"].steps == 2
    assert quotes(infos_text(app), 2)  # says where it paused
    assert "BURGERBOT" not in infos_text(app)  # no internals in the learner's text


def lock_in(app: AppTest, pid: str, choice: str) -> AppTest:
    """Answer ``pid`` as a learner does (a skip would close both questions: none here)."""
    app.radio(key=f"{pid}_choice").set_value(choice).run()
    app.button(key=f"{pid}_lock").click().run()
    assert not app.exception, [e.value for e in app.exception]
    return app


def library_batch(env_id: str, n: int) -> np.ndarray:
    """The reset batch straight from gymnasium (not through the page's code)."""
    make = burgerbot_factory() if env_id == "BurgerBot" else (lambda: gym.make(env_id))
    envs = SyncVectorEnv([make for _ in range(n)])
    try:
        return envs.reset(seed=0)[0]
    finally:
        envs.close()


def option_for(shape: tuple[int, ...], n: int) -> str:
    """The shape option a batch of ``shape`` matches, worked out here from the shape alone."""
    if len(shape) == 1:
        return "(NUM_ENVS,)"
    return "(NUM_ENVS, 1)" if shape[1] == 1 else "(NUM_ENVS, k)"


@pytest.fixture
def unskipped():
    app = open_page(skip=False)
    yield app
    slot(app).close()


def test_predictions_right_and_wrong_are_checked_and_counted(unskipped):
    app = unskipped
    batch = library_batch("BurgerBot", 4)
    right_shape = option_for(batch.shape, 4)
    wrong_dtype = next(d for d in ("float32", "int32") if d != str(batch.dtype))
    lock_in(app, "batch_shapes_shape_burgerbot", right_shape)
    assert prediction_checks(app) == []  # both answers first
    lock_in(app, "batch_shapes_dtype_burgerbot", wrong_dtype)
    assert prediction_checks(app) == [(right_shape, right_shape), (wrong_dtype, str(batch.dtype))]
    assert quotes(app.success[0].value, 4)  # why: the 4 envs on axis 0
    rerun(app)  # the sidebar's score is brought up to date at the end of each full run
    assert prediction_score(app) == (2, 1, 2)


def test_a_scalar_envs_flat_batch_is_the_truth_of_its_own_question():
    app = open_page(skip=False, env="FrozenLake-v1", n="3")
    batch = library_batch("FrozenLake-v1", 3)
    truth = option_for(batch.shape, 3)
    assert truth == "(NUM_ENVS,)"
    lock_in(app, "batch_shapes_shape_frozenlake_v1", "(NUM_ENVS, 1)")
    lock_in(app, "batch_shapes_dtype_frozenlake_v1", str(batch.dtype))
    assert ("(NUM_ENVS, 1)", truth) in prediction_checks(app)
    # Why: one env's observation has shape (), so 3 observations stack to (3,).
    assert code_spans(app.warning[0].value)[:2] == ["(3,)", "()"]
    assert (str(batch.dtype), str(batch.dtype)) in prediction_checks(app)
    # Each environment has its own questions: BurgerBot's are still open.
    app.selectbox(key="batch_shapes_env").set_value("BurgerBot")
    rerun(app)
    assert not app.success and not app.warning


def test_the_backend_options_say_whose_class_native_is(app):
    radio = app.radio(key="batch_shapes_backend")
    assert "BurgerBotVectorEnv" in radio.format_func("native")
    assert "this project's" in radio.format_func("native")
    app.selectbox(key="batch_shapes_env").set_value("CartPole-v1")
    rerun(app)
    assert (
        app.radio(key="batch_shapes_backend")
        .format_func("native")
        .startswith("native: CartPoleVectorEnv (Gymnasium's")
    )


def test_takeaways_follow_the_env_and_num_envs(app):
    def bullets() -> str:
        return next(m.value for m in app.markdown if m.value.startswith("- Axis 0"))

    assert [h.value for h in app.header][-1] == "Key takeaways"
    assert quotes(bullets(), 4) and "(4, 4)" in code_spans(bullets())
    # A scalar's (N,) would answer FrozenLake's question before it is asked.
    assert "(N,)" not in code_spans(bullets()) and "(N, 1)" not in code_spans(bullets())
    app.selectbox(key="batch_shapes_env").set_value("FrozenLake-v1")
    app.number_input(key="batch_shapes_n").set_value(6)
    rerun(app)
    assert quotes(bullets(), 6) and "(4, 4)" not in code_spans(bullets())
    assert "(N, 1)" in code_spans(bullets())  # FrozenLake's scalar: its own bullet, not (N, 1)


def fold_rows(view: str, name: str) -> list[list[str]]:
    """The body rows of the "Data as a table" fold ``name`` in a view's HTML, as text."""
    (fold,) = re.findall(rf'<details data-name="{name}".*?</details>', view, re.S)
    body = fold.split("<tbody>", 1)[1]
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", body)]


def test_cartpoles_end_conditions_come_from_the_installed_gymnasium(app):
    app.selectbox(key="batch_shapes_env").set_value("CartPole-v1")
    rerun(app)
    env = CartPoleEnv()
    view = markdown_text(app)
    assert f"±{math.degrees(env.theta_threshold_radians):g}°" in view
    # The chart's data as a table is in the view, from this call's observations.
    for _ in range(2):
        observations = slot(app).state["run"].latest.observations
        rows = fold_rows(live_view_html(app), "poles")
        assert [row[0] for row in rows] == ["0", "1", "2", "3"]
        assert [float(row[1]) for row in rows] == pytest.approx(observations[:, 2], rel=1e-3)
        assert [float(row[2]) for row in rows] == pytest.approx(observations[:, 0], rel=1e-3)
        assert live_view_html(app).count('<rect class="bar"') == 4
        click(app, "step")


def test_good_url_settings_fill_the_controls():
    app = open_page(env="cartpole-v1", n="8", backend="native", seed="3")
    try:
        assert app.selectbox(key="batch_shapes_env").value == "CartPole-v1"
        assert app.number_input(key="batch_shapes_n").value == 8
        assert app.radio(key="batch_shapes_backend").value == "native"
        assert app.number_input(key="batch_shapes_seed").value == 3
        assert not setting_notes(app)
        assert slot(app).key == ("CartPole-v1", 8, "native", 3)
    finally:
        slot(app).close()


@pytest.mark.parametrize(
    ("query", "note", "num_envs"),
    [
        ({"n": "abc"}, "is not a whole number", 4),
        ({"n": "99999"}, "outside 1..1024", 1024),
        ({"backend": "async", "n": "500"}, "caps it at 8", 8),
        ({"env": "Nope"}, "is not one of BurgerBot", 4),
    ],
)
def test_bad_url_settings_give_notes_and_no_exception(query, note, num_envs):
    app = open_page(**query)
    try:
        assert note in infos_text(app)
        assert app.number_input(key="batch_shapes_n").value == num_envs
        assert slot(app).env.num_envs == num_envs
        click(app, "step")  # the note stays while the adjusted setting is in use
        assert note in infos_text(app)
    finally:
        slot(app).close()


def test_a_failing_step_shows_an_error_and_the_next_run_starts_afresh(app, monkeypatch):
    def broken_step(self, times=1):
        raise RuntimeError("worker died")

    old = slot(app).env
    monkeypatch.setattr(BatchRun, "step", broken_step)
    click(app, "step")
    assert "worker died" in app.error[0].value  # the error's own message, not a traceback
    assert old.closed and slot(app).env is None
    monkeypatch.undo()
    rerun(app)
    assert not app.error and slot(app).env is not None and not slot(app).env.closed
    assert latest_heading(app) == "Latest call: reset"


def test_shape_summary_and_recent_calls_on_demand(app):
    # Each array's shape and dtype are a table under the call's line, made from the call.
    def summary() -> dict[str, list[str]]:
        (table,) = [t for t in markdown_tables(markdown_text(app)) if "array" in t.columns]
        return {row[0]: list(row[1:3]) for row in table.astype(str).values.tolist()}

    assert summary()["observations"] == ["(4, 4)", "int64"]
    assert "rewards" not in summary()  # a reset returns no rewards
    click(app, "step")
    click(app, "step")
    assert summary()["rewards"] == ["(4,)", "float64"]
    assert "STEPS = 2" in html_text(live_view_html(app, LIVE))  # the script for this call
    assert "STEPS = 0" in code(app)

    def history():
        return [d.value for d in app.dataframe if "call" in d.value.columns]

    assert not history()  # drawn only when asked for: a click redraws the whole live view
    app.toggle(key="batch_shapes_history").set_value(True)
    rerun(app)
    (calls,) = history()
    assert calls["call"].tolist() == ["step #2", "step #1", "reset(seed=...)"]


def test_a_killed_async_worker_gives_one_message_and_a_working_env_after(app):
    app.number_input(key="batch_shapes_n").set_value(3)
    app.radio(key="batch_shapes_backend").set_value("async")
    rerun(app)
    envs = slot(app).env
    assert WORKER_BUDGET.in_use == len(worker_pids()) == 3
    with reaper_paused():  # it could close the env between the kill and the count
        os.kill(envs.processes[1].pid, signal.SIGKILL)
        envs.processes[1].join(10)
        assert WORKER_BUDGET.in_use == len(worker_pids()) == 2, "the budget counts the living"
    click(app, "step")
    messages = [m.value for m in (*app.error, *app.info) if "live run gave" not in m.value]
    assert len(messages) == 1 and "env 1" in messages[0], messages
    assert envs.closed and not any(p.is_alive() for p in envs.processes)
    assert WORKER_BUDGET.in_use == len(worker_pids())
    click(app, "step")  # the next click steps a new env
    assert not app.error and slot(app).env is not envs and not slot(app).env.closed
    assert latest_heading(app).startswith("Latest call: step")
    assert WORKER_BUDGET.in_use == len(worker_pids()) == 3


def shown_text(app: AppTest) -> str:
    """What the page shows in words and tables (the questions' options aside)."""
    tables = [d.value.to_string() for d in app.dataframe]
    elements = (app.title, app.markdown, app.caption, app.info, app.success, app.warning)
    return "\n".join([*(texts(e) for e in elements), *tables])


def has_live_view(app: AppTest) -> bool:
    try:
        component_data(app, LIVE)
    except AssertionError:
        return False
    return True


@pytest.mark.parametrize("env", ["BurgerBot", "FrozenLake-v1"])
def test_nothing_gives_the_shape_or_dtype_away_before_both_answers(env):
    """Predict, then reveal: the batch's shape and dtype (the arrays table, the spaces table,
    the live view, the takeaways) wait for both answers; one answer is not enough."""
    batch = library_batch(env, 4)
    shape, dtype = str(batch.shape), str(batch.dtype)  # the deciding facts, from gymnasium
    shape_id, dtype_id = prediction_ids(env)
    app = open_page(skip=False, env=env)
    try:
        for answer in (None, (shape_id, option_for(batch.shape, 4))):
            if answer is not None:  # the shape alone is locked in
                app.radio(key=f"{answer[0]}_choice").set_value(answer[1]).run()
                app.button(key=f"{answer[0]}_lock").click().run()
            text = shown_text(app)
            assert f"`{shape}`" not in text and shape not in text, text
            assert dtype not in text, text
            assert not has_live_view(app) and not app.dataframe
            assert not app.success and not app.warning
            assert "Key takeaways" in [s.value for s in app.header]
            assert not [m for m in app.markdown if m.value.startswith("- Axis 0")]
        app.radio(key=f"{dtype_id}_choice").set_value(dtype).run()
        app.button(key=f"{dtype_id}_lock").click().run()
        assert not app.exception
        assert prediction_checks(app) == [(option_for(batch.shape, 4),) * 2, (dtype, dtype)]
        assert has_live_view(app) and (shape, dtype) in arrays_stated(app)
        assert shape in shown_text(app)  # the spaces table
        assert [m for m in app.markdown if m.value.startswith("- Axis 0")]
    finally:
        slot(app).close()


def test_skip_shows_the_batch_with_no_verdict():
    app = open_page(skip=False)
    try:
        assert not has_live_view(app)
        app.button(key="batch_shapes_batch_burgerbot_skip").click().run()
        assert not app.exception
        assert has_live_view(app) and arrays_stated(app)[0] == ("(4, 4)", "int64")
        assert not prediction_checks(app)
        # Both questions show the run's answer, unscored, and can no longer be answered.
        gave = [i.value for i in app.info if i.value.startswith("**The live run gave: ")]
        assert [re.match(r"\*\*The live run gave: (.+?)\.\*\*", g)[1] for g in gave] == [
            "(NUM_ENVS, k)",
            "int64",
        ]
        keys = {widget.key for widget in [*app.radio, *app.button]}
        for pid in prediction_ids("BurgerBot"):
            assert {f"{pid}_choice", f"{pid}_lock"}.isdisjoint(keys)
        assert prediction_score(app) == (0, 0, 0)
        assert [m for m in app.markdown if m.value.startswith("- Axis 0")]
        # Another env asks its own questions again, with its own skip.
        app.selectbox(key="batch_shapes_env").set_value("CartPole-v1").run()
        assert not has_live_view(app) and "float32" not in shown_text(app)
        assert app.button(key="batch_shapes_batch_cartpole_v1_skip")
    finally:
        slot(app).close()


class _Turn:
    """A turn in the stepping gate as `take_ahead` sees it, a hammering tab waiting or not."""

    def __init__(self, hammering_waits: bool) -> None:
        self.waiting = hammering_waits

    def hammering_waits(self) -> bool:
        return self.waiting

    def piece_done(self) -> bool:
        return False


@pytest.mark.parametrize("hammering_waits", [False, True])
def test_calls_taken_ahead_are_fewer_while_a_hammering_tab_waits_for_the_gate(app, hammering_waits):
    take_ahead = page_function(app, PAGE, "take_ahead")
    stretch, busy = (
        page_function(app, PAGE, "latest_call_panel").__globals__[name]
        for name in ("STRETCH", "BUSY_STRETCH")
    )
    run = slot(app).state["run"]
    run.ahead.clear()
    settings = BatchSettings(
        env=app.selectbox(key="batch_shapes_env").value,
        num_envs=int(app.number_input(key="batch_shapes_n").value),
        backend="sync",  # the views' text does not depend on the backend
        seed=int(app.number_input(key="batch_shapes_seed").value),
    )
    take_ahead(slot(app), run, settings, stretch, _Turn(hammering_waits))
    assert len(run.ahead) == (busy if hammering_waits else stretch)
    assert busy >= component_data(app, LIVE)["stepTimes"]  # a Step ×10 still shows in the page
