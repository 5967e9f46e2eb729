"""Batch shapes with FrozenLake: a batched info array takes the type of the first value the
vector env meets in a call, so an auto-reset env's int ``prob`` (1) turns the other envs'
1/3 into 0. The page says so for the call where it happens, from the envs' own infos, and
shows a script with a safe way to read such infos."""

from __future__ import annotations

import numpy as np
import pytest
from page_apptest import (
    html_text,
    live_view_html,
    open_app_page,
    open_expanders,
    skip_predictions,
    stepper_request,
)
from sentence_facts import quotes
from shown_scripts import assert_script_behaves

from burgerbot.app.logic.batch_shapes import (
    BatchRun,
    BatchSettings,
    build_vector_env,
    info_cast_sentence,
    info_casts,
)
from burgerbot.app.script_runner import printed
from burgerbot.app.scripts.batch_shapes import PROB_PITFALL

THIRD = 1 / 3


def test_info_casts_finds_the_values_an_array_changed_and_only_those():
    infos = {"prob": np.array([1, 0, 0]), "_prob": np.ones(3, bool)}
    (cast,) = info_casts(infos, [{"prob": 1}, {"prob": THIRD}, {"prob": THIRD}])
    assert (cast.key, cast.dtype, cast.first_env, cast.envs) == ("prob", "int64", 0, (1, 2))
    assert cast.own == pytest.approx((THIRD, THIRD)) and cast.stored == (0, 0)
    # The same array, every env's own value an int: nothing was changed.
    assert info_casts(infos, [{"prob": 1}, {"prob": 0}, {"prob": 0}]) == []
    # A float array keeps every value.
    floats = {"prob": np.array([THIRD, 1.0, THIRD]), "_prob": np.ones(3, bool)}
    assert info_casts(floats, [{"prob": THIRD}, {"prob": 1}, {"prob": THIRD}]) == []
    assert info_casts(infos, None) == []


@pytest.mark.parametrize("backend", ["sync", "async"])
def test_a_frozenlake_run_says_which_envs_prob_was_cut_and_why(backend):
    envs = build_vector_env(BatchSettings("FrozenLake-v1", 4, backend, 0))
    try:
        run = BatchRun(envs, seed=0)
        run.reset()
        calls = [run.step(1) for _ in range(8)]
    finally:
        envs.close()
    by_number = {call.number: call for call in calls}
    # Seed 0: env 0's episode ends at step 2, so step 3 resets it and its int 1 comes first.
    third = by_number[3]
    assert third.autoreset_envs == (0,) and third.infos["prob"].dtype == np.int64
    (cast,) = info_casts(third.infos, third.own_infos)
    assert cast.envs == (1, 2, 3) and cast.stored == (0, 0, 0)
    assert cast.own == pytest.approx((THIRD,) * 3)
    sentence = info_cast_sentence(cast, third.autoreset_envs)
    assert "envs 1, 2 and 3" in sentence and "0.333 each" in sentence and "int64" in sentence
    # Step 7 resets envs 2 and 3: env 0's float comes first, so every value is kept.
    seventh = by_number[7]
    assert seventh.autoreset_envs == (2, 3) and seventh.infos["prob"].dtype == np.float64
    assert info_casts(seventh.infos, seventh.own_infos) == []
    assert seventh.infos["prob"].tolist() == pytest.approx([THIRD, THIRD, 1, 1])


def test_the_page_explains_the_cut_values_and_its_script_shows_the_pitfall_and_the_fix(
    monkeypatch, tmp_path
):
    app = open_app_page("app_pages/batch_shapes.py", {"env": "FrozenLake-v1"}, timeout=120)
    skip_predictions(app)  # the live view waits for the questions to be answered or skipped
    try:
        for step in range(1, 4):
            stepper_request(app, "batch_shapes_live", "go", target=step)
            text = html_text(live_view_html(app))
            assert ('infos["prob"] is an int64 array here' in text) == (step == 3), step
        assert quotes(text, 1, 2, 3, 0.333, 0)  # envs 1, 2 and 3: 0.333 each, stored as 0
        open_expanders(app.run())
        (script,) = [b.value for b in app.code if b.value.strip() == PROB_PITFALL.strip()]
    finally:
        app.session_state["_batch_shapes_env_slot"].close()
    output = assert_script_behaves(script, tmp_path)
    values = printed(output)  # the pitfall's values, then the fix's
    assert (values["plain prob dtype"], values["plain prob"]) == ("int64", "[1, 0, 0, 0]")
    assert values["FloatProb prob dtype"] == "float64"
    assert values["FloatProb prob"] == "[1.0, 0.333, 0.333, 0.333]"
