"""The recorded SB3 runs that visitors without stable-baselines3 see (`sb3_recording`).

Without SB3: the recording says when and with which versions it was made, and holds exactly the
scripts the pages show today (a changed script, or changed pins in requirements-sb3.txt, fail
here until it is recorded again with ``tools/record_sb3.py``). With SB3 (marker ``sb3``): every
recorded script, run again, prints what was recorded.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

from burgerbot.app import sb3_recording
from burgerbot.app.logic import lesson_vs_today, sb3
from burgerbot.app.sb3_recording import comparable
from burgerbot.app.script_runner import run_script
from burgerbot.app.versions import installed_version

ROOT = Path(__file__).resolve().parent.parent
RECORDING = sb3_recording.load()
SCRIPTS = {**sb3.recorded_scripts(), **lesson_vs_today.recorded_scripts()}


def pinned(package: str) -> str:
    """The version requirements-sb3.txt pins ``package`` to."""
    text = (ROOT / "requirements-sb3.txt").read_text()
    (version,) = re.findall(rf"^{re.escape(package)}==(\S+)", text, re.M)
    return version


def test_the_recording_says_when_and_with_which_versions():
    assert date.fromisoformat(RECORDING.recorded_on) <= date.today()
    assert set(RECORDING.versions) == {*sb3_recording.PACKAGES, "python"}
    label = RECORDING.label()
    assert label.startswith(f"recorded on {RECORDING.recorded_on} with stable-baselines3 ")
    for package in ("stable-baselines3", "gymnasium"):
        assert f"{package} {RECORDING.versions[package]}" in label


def test_it_was_recorded_with_the_pinned_sb3_and_torch():
    assert RECORDING.versions["stable-baselines3"] == pinned("stable-baselines3")
    assert RECORDING.versions["torch"].split("+")[0] == pinned("torch")


def test_it_holds_exactly_the_scripts_the_pages_show_today():
    assert set(RECORDING.runs) == set(SCRIPTS)
    for name, code in SCRIPTS.items():
        assert RECORDING.has(name, code), f"{name} changed since it was recorded"
    # What the pages' predictions are checked against: the lesson's two calls fail.
    assert RECORDING.run("sb3.n_envs_wrong").error.type == "TypeError"
    assert RECORDING.run("sb3.gymnasium_vector_wrong").raised
    assert "transitions per update: 8192" in RECORDING.run("sb3.ppo_fixed").output


def test_a_changed_script_is_not_taken_from_the_recording():
    changed = sb3_recording.Recording(
        RECORDING.recorded_on,
        RECORDING.versions,
        {**RECORDING.runs, "sb3.ppo_fixed": RECORDING.run("sb3.n_envs_wrong")},
    )
    assert sb3.recorded_calls(changed) is None
    assert sb3.recorded_output(changed, "sb3.ppo_fixed") is None
    assert sb3.recorded_calls(RECORDING) is not None


@pytest.mark.sb3
@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_each_recorded_script_still_prints_what_was_recorded(sb3, name, monkeypatch):
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    for package in ("stable-baselines3", "gymnasium"):
        assert installed_version(package) == RECORDING.versions[package], (
            f"{package} differs from the recording: run tools/record_sb3.py"
        )
    recorded, run = RECORDING.run(name), run_script(SCRIPTS[name])
    assert comparable(run.output) == comparable(recorded.output)

    def error(result):  # what a learner reads of an error: its headline and where
        return result.error and (result.error.headline, result.error.location)

    assert error(run) == error(recorded)
