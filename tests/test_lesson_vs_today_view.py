"""Lesson-vs-today checks: each runs, reaches the verdict its facts support, the page shows it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from burgerbot.app.versions import installed_version
from burgerbot.app.views.lesson_vs_today import CHECKS, Check, LessonCheck, run_check

ROOT = Path(__file__).resolve().parent.parent
BY_NAME = {check.run.__name__: check for check in CHECKS}


def test_autoreset_timing_reports_the_installed_next_step_behaviour():
    result = run_check(BY_NAME["autoreset_timing"])
    assert result.facts["ending"] == {"obs": [0, 0, 0, 0], "reward": -10.0, "ended": True}
    assert result.facts["next"] == {"obs": [0, 0, 1, 1], "reward": 0.0, "ended": False}
    assert result.verdict == "changed"


def test_final_observation_key_is_gone_and_final_obs_is_there():
    result = run_check(BY_NAME["final_observation_key"])
    assert result.facts["NextStep"] == []
    assert "final_obs" in result.facts["SameStep"] and "_final_obs" in result.facts["SameStep"]
    assert result.verdict == "changed"


def test_cartpole_factory_pattern_still_gives_the_lessons_shapes():
    result = run_check(BY_NAME["factory_pattern_with_cartpole"])
    assert result.facts["obs"] == "(4, 4) float32"
    assert result.facts["actions"].startswith("(4,)")
    assert result.verdict == "still true"


def test_goal_counts_are_mostly_zero_at_the_lessons_scale():
    result = run_check(BY_NAME["goal_counts_at_lesson_scale"])
    n4, n8 = result.facts["N=4"], result.facts["N=8"]
    # Expected about 0.05 and 0.1 goals per run (2.7e-5 goals per env-step).
    assert 0.0 <= n4["mean goals"] < 0.2 and 0.0 <= n8["mean goals"] < 0.3
    assert n4["runs with 0 goals"] > 0.8 and n8["runs with 0 goals"] > 0.7
    assert result.verdict == "changed"


def test_speed_claim_measures_three_rates():
    result = run_check(BY_NAME["speed_claim"])
    assert len(result.facts) == 3 and all(rate > 0 for rate in result.facts.values())
    assert result.verdict in {"still true", "depends"}


def test_an_error_inside_a_check_becomes_a_not_run_outcome():
    def broken() -> Check:
        raise RuntimeError("library changed")

    result = run_check(LessonCheck("t", "says", broken))
    assert result.verdict == "not run" and "library changed" in result.facts["error"]


def test_shown_source_is_the_code_that_runs():
    for check in CHECKS:
        if check.script is None:
            assert check.source.startswith(f"def {check.run.__name__}(")
        else:
            assert check.source == check.script() and "stable_baselines3" in check.source


SB3_CHECKS = ["sb3_n_envs", "sb3_gymnasium_vector_env", "sb3_transitions_per_update"]


@pytest.mark.parametrize("name", SB3_CHECKS)
def test_sb3_checks_say_how_to_install_when_sb3_is_missing(name, monkeypatch):
    import burgerbot.app.views.sb3

    monkeypatch.setattr(burgerbot.app.views.sb3, "sb3_available", lambda: False)
    result = run_check(BY_NAME[name])
    assert result.verdict == "not run" and "requirements-sb3.txt" in result.summary


@pytest.mark.sb3
def test_sb3_checks_run_the_lessons_calls(sb3):
    n_envs = run_check(BY_NAME["sb3_n_envs"])
    assert n_envs.verdict == "changed" and "n_envs" in n_envs.facts["error"]
    assert n_envs.facts["error"].startswith("TypeError")
    vector = run_check(BY_NAME["sb3_gymnasium_vector_env"])
    assert vector.verdict == "changed" and vector.facts["error"]
    per_update = run_check(BY_NAME["sb3_transitions_per_update"])
    assert per_update.facts["printed"]["transitions per update"] == str(4 * 2048)
    assert per_update.verdict == "changed"


def test_versions_are_detected():
    assert installed_version("gymnasium")
    assert installed_version("not-a-real-package-xyz") is None


@pytest.mark.slow
def test_page_shows_every_check_with_its_verdict():
    app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=120)
    app.run()
    app.switch_page("app_pages/lesson_vs_today.py")
    app.run()
    assert not app.exception
    assert [h.value for h in app.subheader] == [check.topic for check in CHECKS]
    shown = " ".join(box.value for box in [*app.error, *app.success, *app.warning, *app.info])
    assert "final observation" in shown and "simulated learners" in shown
    app.button(key="lesson_rerun").click().run()
    assert not app.exception and app.session_state["_lesson_run"] == 1


def checks_caption(app: AppTest) -> tuple[str, str]:
    """When and where the checks ran, and their exact start time."""
    (caption,) = [c for c in app.caption if "on this server (" in c.value]
    return caption.value, caption.proto.help


@pytest.mark.slow
def test_checks_are_shared_between_visitors_and_say_when_they_ran():
    def visit() -> AppTest:
        app = AppTest.from_file(str(ROOT / "streamlit_app.py"), default_timeout=300)
        app.switch_page("app_pages/lesson_vs_today.py")
        app.run()
        assert not app.exception, [e.value for e in app.exception]
        return app

    _, first_time = checks_caption(visit())
    second = visit()
    text, when = checks_caption(second)
    assert when == first_time
    assert text.startswith("These checks ran on this server (") and "just now" not in text
    assert f"gymnasium {installed_version('gymnasium')}" in text
    second.button(key="lesson_rerun").click().run()
    assert not second.exception
    text, new_time = checks_caption(second)
    assert new_time != first_time
    assert text.startswith("These checks ran just now, started by your visit, on this server")
    text, when = checks_caption(visit())
    assert when == new_time and "just now" not in text
