"""The "Goal scaling" check that Sync and native count the same goals, hits and episodes."""

from __future__ import annotations

from dataclasses import replace

from burgerbot.app.logic.goal_scaling import (
    DEFAULT_NUM_ENVS,
    ScalingSettings,
    compare_backends,
    comparison_settings,
    run_sweep,
)


def test_comparison_settings_are_small_but_long_enough_for_goals():
    small = comparison_settings(ScalingSettings(DEFAULT_NUM_ENVS, 200_000, seeds=40))
    assert small.num_envs == (1, 2, 4, 8) and small.steps_per_env == 5_000 and small.seeds == 2
    assert small.planned_env_steps == 150_000  # about 4 goals expected
    assert comparison_settings(ScalingSettings((64, 256), 500, seeds=2)).num_envs == (16,)
    total = comparison_settings(ScalingSettings((4, 16), budget="total", backend="native"))
    assert total.budget == "per_env" and total.backend == "native"


def test_compare_backends_lines_up_each_run_and_flags_differences():
    settings = ScalingSettings((1, 4), steps_per_env=800, seeds=2)
    sync = run_sweep(settings).frame
    native = run_sweep(replace(settings, backend="native")).frame
    side = compare_backends(sync, native)
    assert len(side) == 4 and side["identical"].all()
    assert (side["episodes_sync"] == side["episodes_native"]).all()
    tampered = native.copy()
    tampered.loc[2, "hits"] += 1
    assert compare_backends(sync, tampered)["identical"].tolist() == [True, True, False, True]
