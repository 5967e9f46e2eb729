"""The "Auto-reset" page's scripts, each run from a file as a learner would run it.

The page's actions as a script draws them, and the exercise's answer (the page's NEXT_STEP run:
same actions, same final observations).
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.logic.autoreset import (
    AutoresetSettings,
    episode_ends,
    resolve_settings,
    run_page_rollout,
)
from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts.autoreset import FINAL_OBS_LINE, final_obs_script
from burgerbot.experiments import random_actions


def settings_for(mode: str = "NEXT_STEP", **changes) -> AutoresetSettings:
    values = {"n": 3, "mode": mode, "seed": 0, "steps": 30, "backend": "native"}
    settings, notes = resolve_settings(values | changes)
    assert notes == []
    return settings


def test_the_snippets_actions_are_the_pages_actions():
    for seed, n, steps in [(0, 3, 30), (7, 5, 2_500), (3, 3_000, 700)]:
        page = np.concatenate(list(random_actions(seed, n, steps)))
        script = np.random.default_rng(seed).integers(0, 4, size=(steps, n))
        np.testing.assert_array_equal(page, script)


FINAL = re.compile(
    re.escape(FINAL_OBS_LINE)
    .replace(r"\{step\}", r"(\d+)")
    .replace(r"\{env\}", r"(\d+)")
    .replace(r"\{final\}", r"(\[.*\])")
)


@pytest.mark.parametrize(("num_envs", "steps", "seed"), [(4, 40, 0), (2, 120, 22)])
def test_the_exercise_answer_collects_the_final_observations_of_the_pages_table(
    num_envs, steps, seed, tmp_path
):
    out = assert_script_behaves(final_obs_script(num_envs, steps, seed), tmp_path / "exercise")
    lines = out.splitlines()
    settings = settings_for("NEXT_STEP", n=num_envs, steps=steps, seed=seed, backend="sync")
    events = episode_ends(run_page_rollout(settings), "NEXT_STEP")
    assert lines[0] == f"{len(events)} final observations" and len(events) > 0
    printed = [m.groups() for m in map(FINAL.fullmatch, lines[1:]) if m]
    expected = list(events[["step", "env", "final obs"]].astype(str).itertuples(False, None))
    assert printed == expected


def test_the_exercise_answer_runs_as_a_notebook(tmp_path):
    code = final_obs_script(2, 30, 0)
    result = run_notebook(script_notebook(code, "Collect final observations"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "final observations" in result.stdout
