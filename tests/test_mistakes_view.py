"""The lesson's two common issues as the installed libraries run them: captured, and from files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from shown_scripts import assert_script_behaves

from burgerbot.app.logic import mistakes as m
from burgerbot.app.scripts import expected_error
from burgerbot.app.scripts import mistakes as snippets

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("n", [1, 3, 64])
def test_factory_mistake(n):
    runs = m.lesson_issue("factory", n)
    wrong = runs["wrong"].error
    assert wrong.type == "TypeError"
    assert "make_env() missing 1 required positional argument: 'seed'" in wrong.message
    assert wrong.where.startswith("gymnasium/vector/sync_vector_env.py")
    assert m.factory_outcome(runs["wrong"]) == "TypeError when SyncVectorEnv is built"
    assert runs["fixed"].error is None
    assert runs["fixed"].values["obs.shape"] == (n, 4)


@pytest.mark.parametrize("n", [1, 4, 64])
def test_scalar_observation_mistake(n):
    runs = m.lesson_issue("scalar", n)
    wrong = runs["wrong"]
    assert wrong.values["obs.shape"] == (n,)
    assert wrong.error.type == "IndexError" and "too many indices" in wrong.error.message
    fixed = runs["fixed"]
    assert fixed.error is None
    assert fixed.values == {"obs.shape": (n, 1), "cells.shape": (n,)}


SCRIPTS = {
    ("factory", "wrong"): snippets.factory_wrong,
    ("factory", "fixed"): snippets.factory_fixed,
    ("scalar", "wrong"): snippets.scalar_obs_wrong,
    ("scalar", "fixed"): snippets.scalar_obs_fixed,
}


@pytest.mark.parametrize("key", sorted(SCRIPTS), ids="-".join)
def test_each_script_runs_from_a_file_as_shown_and_as_captured(key, tmp_path):
    """The script, saved to a file and run, prints what the page shows and stops with the
    error the page shows (the one its first line names), or none."""
    issue, which = key
    captured = m.lesson_issue(issue, 3)[which]
    assert captured.code == SCRIPTS[key](3)  # the page shows exactly what ran
    assert expected_error(captured.code) == (
        None if captured.error is None else captured.error.type
    )
    assert assert_script_behaves(captured.code, tmp_path) == captured.output


def test_the_lesson_factory_is_the_only_make_env_and_takes_a_seed():
    for code in (snippets.factory_wrong(4), snippets.factory_fixed(4)):
        assert code.count("def make_env(") == 1 and "def make_env(seed):" in code
        assert "env.reset(seed=seed)" in code and "burgerbot_factory" not in code


def test_every_script_is_formatted():
    for make in SCRIPTS.values():
        code = make(4)
        formatted = subprocess.run(
            ["ruff", "format", "--line-length", "100", "-"],
            input=code,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=True,
        ).stdout
        assert formatted == code, code
