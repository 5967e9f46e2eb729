"""The "Wrapping a vector env" page's scripts, run from files: they print what the page shows."""

from __future__ import annotations

import re

import pytest
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.logic.vector_wrappers import (
    check_loop,
    episodes_from_rows,
    evaluation_drift,
    infos_at_first_end,
    make_vector,
    random_actions,
    record,
    run_loop,
    wrapper_table,
)
from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts.vector_wrappers import (
    LOGGED_LINE,
    evaluation_script,
    logging_script,
    placement_script,
    table_script,
    wrong_loops_script,
)

pytestmark = pytest.mark.slow
N, STEPS, SEED = 3, 150, 5


def _truth(mode: str):
    actions = random_actions(N, STEPS, SEED)
    return episodes_from_rows(record(make_vector("sync", mode, N), actions, mode, SEED), mode)


@pytest.mark.parametrize(("backend", "mode"), [("native", "NEXT_STEP"), ("sync", "SAME_STEP")])
def test_the_logging_script_logs_every_episode_the_rows_give(backend, mode, tmp_path):
    out = assert_script_behaves(logging_script(backend, mode, N, STEPS, SEED), tmp_path)
    finished = len(_truth(mode))
    assert LOGGED_LINE.format(logged=finished, rows=finished, equal=True) in out


@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_the_wrong_loops_script_prints_what_the_page_found(mode, tmp_path):
    out = assert_script_behaves(wrong_loops_script(mode, N, STEPS, SEED), tmp_path)
    truth = _truth(mode)
    for loop, label in (("final_info", "final_info"), ("both", "both places")):
        logged, error = run_loop(loop, "sync", mode, N, STEPS, SEED)
        # with this seed only NEXT_STEP's "both places" loop meets a key it already logged
        assert bool(error) == ((mode, loop) == ("NEXT_STEP", "both")), (mode, loop, error)
        if error:
            assert f"{label} loop stopped on call" in out and "already exists" in out
        else:
            check = check_loop(loop, mode, logged, truth)
            assert f"{label} loop: {check.logged} episodes logged, {check.finished} finished" in out


def test_the_placement_script_prints_the_keys_the_page_shows(tmp_path):
    out = assert_script_behaves(placement_script("SAME_STEP", N, STEPS, SEED), tmp_path)
    for placement, label in (
        ("factory", "inside the factory"),
        ("vector", "around the vector env"),
    ):
        end = infos_at_first_end("sync", "SAME_STEP", placement, N, STEPS, SEED)
        assert f"{label}: call {end.call} ends env(s) {list(end.ended)}" in out
        assert f"{label}: call {end.call + 1}, the one after" in out
        for key in end.ending["key"]:
            assert f"  {key} = " in out


def test_the_table_script_gives_the_page_s_verdicts(tmp_path):
    out = assert_script_behaves(table_script("native", N, STEPS, SEED), tmp_path)
    table = wrapper_table("native", N, STEPS, SEED)
    printed = {
        (m.group(1), m.group(2).strip()): m.group(3)
        for m in re.finditer(
            r"^(\w+)\s+(\S+(?:, undeclared)?)\s+(accepted|warned|refused)", out, re.M
        )
    }
    assert printed == {(r.wrapper, r.mode): r.verdict for r in table.itertuples()}


def test_the_evaluation_script_prints_the_page_s_drift(tmp_path):
    out = assert_script_behaves(evaluation_script(N, STEPS, SEED), tmp_path)
    drift = evaluation_drift(N, STEPS, SEED)
    largest = drift.largest("keep updating")
    assert f"keep updating: the start's normalised value moved by up to {largest:.6f}" in out
    assert "frozen: the start's normalised value moved by up to 0.000000" in out


def test_the_logging_script_runs_as_a_notebook(tmp_path):
    code = logging_script("sync", "NEXT_STEP", N, STEPS, SEED)
    result = run_notebook(script_notebook(code, "Logging"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "equal: True" in result.stdout
