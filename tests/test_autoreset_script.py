"""The "Auto-reset" page's scripts, each run from a file as a learner would run it.

The page's run as a script (same actions, same episode ends, same counts), the exercise's
answer, the script that checks ``infos`` at an episode end.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from shown_scripts import assert_script_behaves, run_notebook

from burgerbot.app.logic.autoreset import (
    PAGE_MODES,
    AutoresetSettings,
    check_infos_live,
    episode_ends,
    gymnasium_version,
    resolve_settings,
    run_page_rollout,
)
from burgerbot.app.notebook import script_notebook
from burgerbot.app.scripts.autoreset import (
    FINAL_OBS_LINE,
    final_obs_script,
    infos_check_output,
    infos_check_script,
    snippet_for,
)
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


END = re.compile(r"end step=(\d+) env=(\d+) cause=(\w+) final_obs=(\[.*\])")
COUNT = re.compile(r"finished episodes per env \(NUM_ENVS=(\d+), STEPS=(\d+)\): (\[.*\])")


@pytest.mark.parametrize("mode", PAGE_MODES)
@pytest.mark.parametrize("seed", [0, 11])
def test_snippet_prints_the_pages_episode_ends_and_counts(mode, seed, tmp_path):
    settings = settings_for(mode, seed=seed, n=4, steps=50)
    code = snippet_for(settings)
    lines = assert_script_behaves(code, tmp_path / "episode_ends").splitlines()
    assert lines[0] == f"gymnasium {gymnasium_version()}, autoreset_mode={mode}"

    events = episode_ends(run_page_rollout(settings), mode)
    printed = [m.groups() for m in map(END.fullmatch, lines) if m]
    assert len(printed) == len(events) > 0
    columns = ["step", "env", "cause", "final obs"]
    expected = list(events[columns].astype(str).itertuples(index=False, name=None))
    assert printed == expected

    counts = [m.groups() for m in map(COUNT.fullmatch, lines) if m]
    run = run_page_rollout(settings)
    ended = run["terminated"] | run["truncated"]
    per_env = ended.groupby(run["env"]).sum().reindex(range(4), fill_value=0).tolist()
    assert counts == [("4", "50", str(per_env))]


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


@pytest.mark.parametrize(("mode", "step"), [("NEXT_STEP", 2), ("SAME_STEP", 2), ("DISABLED", 8)])
def test_the_infos_check_script_prints_what_the_page_shows(mode, step, tmp_path):
    check = check_infos_live(4, 0, mode, step, 0)
    out = assert_script_behaves(infos_check_script(4, 0, mode, step), tmp_path / mode)
    expected = infos_check_output(
        gymnasium_version(), check.has_final_observation, check.has_final_obs, check.keys
    )
    assert out.strip() == expected
    # A SAME_STEP end has the final observation under its new key; no mode has the lesson's.
    assert check.has_final_obs == (mode == "SAME_STEP")
    assert not check.has_final_observation


def test_the_exercise_answer_runs_as_a_notebook(tmp_path):
    code = final_obs_script(2, 30, 0)
    result = run_notebook(script_notebook(code, "Collect final observations"), tmp_path)
    assert result.returncode == 0, result.stderr
    assert "final observations" in result.stdout
