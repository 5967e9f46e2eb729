"""Sweeps are capped by their step() calls as well as their env-steps (issue 24, item 5)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from page_apptest import open_app_page

from burgerbot.app.caps import CAPS, Caps, load_caps
from burgerbot.app.logic import cost_sweeps
from burgerbot.app.logic import goal_statistics as goal_scaling
from burgerbot.app.logic.goal_statistics import ScalingSettings, try_this
from burgerbot.app.timing import TimingSettings


def test_the_cap_is_read_from_its_variable():
    caps, notes = load_caps({"BURGERBOT_MAX_SWEEP_STEP_CALLS": "5_000"})
    assert caps.max_sweep_step_calls == 5_000 and not notes


def test_planned_step_calls_count_calls_not_env_steps():
    per_env = ScalingSettings((1, 4, 8), steps_per_env=500, seeds=3)
    assert per_env.planned_step_calls == 3 * 500 * 3
    total = ScalingSettings((1, 4), total_env_steps=400, seeds=2, budget="total")
    assert total.planned_step_calls == (400 + 100) * 2


def test_one_env_for_millions_of_steps_is_refused_although_its_env_steps_fit():
    # The attack: 20 million single-env calls, within the native env-step cap.
    attack = ScalingSettings((1,), steps_per_env=20_000_000, seeds=1, backend="native")
    assert attack.planned_env_steps <= CAPS.max_sweep_env_steps
    message = goal_scaling.check_budget(attack)
    assert message is not None
    assert f"{attack.planned_step_calls:,}" in message
    assert f"{CAPS.max_sweep_step_calls:,}" in message
    assert "BURGERBOT_" not in message  # the learner's text names no variable


@pytest.mark.parametrize("budget", ["per_env", "total"])
def test_goal_scaling_step_call_fixes_are_exact(budget):
    caps = Caps(max_sweep_step_calls=10_000)
    settings = ScalingSettings(
        (1, 2, 4), steps_per_env=2_000, total_env_steps=8_000, seeds=4, budget=budget
    )
    assert settings.planned_step_calls > caps.max_sweep_step_calls
    assert settings.planned_env_steps <= caps.max_sync_sweep_env_steps
    assert goal_scaling.check_budget(settings, caps) is not None
    per_seed = settings.planned_step_calls // settings.seeds
    seeds = caps.max_sweep_step_calls // per_seed
    assert goal_scaling.check_budget(replace(settings, seeds=seeds), caps) is None
    assert goal_scaling.check_budget(replace(settings, seeds=seeds + 1), caps) is not None
    if budget == "per_env":
        steps = caps.max_sweep_step_calls // (3 * settings.seeds)
        assert goal_scaling.check_budget(replace(settings, steps_per_env=steps), caps) is None
        too_many = replace(settings, steps_per_env=steps + 1)
        assert goal_scaling.check_budget(too_many, caps) is not None
    else:
        message = goal_scaling.check_budget(settings, caps)
        per_run = int(message.split("env-steps per run to ")[1].split(" ")[0].replace(",", ""))
        assert goal_scaling.check_budget(replace(settings, total_env_steps=per_run), caps) is None
        over = replace(settings, total_env_steps=int(per_run * 1.01) + 1)
        assert goal_scaling.check_budget(over, caps) is not None


def test_try_this_fits_the_step_call_cap():
    settings = ScalingSettings(goal_scaling.DEFAULT_NUM_ENVS)
    roomy = try_this(settings)
    calls_per_seed = roomy.planned_step_calls // roomy.seeds
    tight = Caps(max_sweep_step_calls=2 * calls_per_seed)
    suggestion = try_this(settings, tight)
    assert suggestion.seeds == 2
    assert goal_scaling.check_budget(suggestion, tight) is None
    assert try_this(settings, Caps(max_sweep_step_calls=calls_per_seed - 1)) is None


def test_timing_sweep_counts_every_run_of_every_backend():
    # Raised env-step caps (a local run): only the step() call cap is left to bite.
    caps = Caps(max_sync_sweep_env_steps=10**9, max_sweep_env_steps=10**9, max_sweep_step_calls=900)
    settings = TimingSettings((1, 2, 64), steps=100)  # sync 3 + async 2 + native 3 = 8 runs
    assert cost_sweeps.check_budget(settings, caps) is None
    message = cost_sweeps.check_budget(replace(settings, steps=113), caps)
    assert message is not None and "904" in message and "BURGERBOT_" not in message
    assert cost_sweeps.check_budget(replace(settings, steps=112), caps) is None


def test_goal_scaling_page_refuses_the_attack_with_the_limit_named():
    app = open_app_page(
        "app_pages/goal_statistics.py",
        {"n": "1", "steps": "20000000", "seeds": "1", "backend": "native"},
        timeout=120,
    )
    errors = [error.value for error in app.error]
    assert any(f"{CAPS.max_sweep_step_calls:,}" in error for error in errors), errors
    assert app.button(key="goal_statistics_run").disabled
