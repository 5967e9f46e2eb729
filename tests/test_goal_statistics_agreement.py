"""The "Goal statistics" check that Sync and native count the same goals, hits and episodes."""

from __future__ import annotations

from dataclasses import replace

from sentence_facts import bold, quotes

from burgerbot.app.logic.goal_statistics import (
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


def test_speed_reading_gives_a_factor_only_where_every_run_says_so():
    import pandas as pd

    from burgerbot.app.logic.goal_statistics import speed_reading

    runs = pd.DataFrame(
        {
            "num_envs": [4, 4, 4, 8, 8, 8],
            "seed": [0, 1, 2] * 2,
            "env_steps": [400] * 3 + [800] * 3,
            "seconds": [0.5, 0.6, 0.55, 0.9, 1.0, 1.1],
        }
    )
    clear = speed_reading(runs, runs.assign(seconds=[0.01, 0.015, 0.011, 0.02, 0.02, 0.03]))
    assert clear.startswith("native was faster in every run")  # the one wording check
    assert bold(clear)[-1] == "50.0×" and quotes(clear, 8, 36.7, 50.0)  # NUM_ENVS 8, its runs
    # one busy native run at NUM_ENVS 8 overlaps Sync's: no factor there, no verdict
    noisy = speed_reading(runs, runs.assign(seconds=[0.01, 0.015, 0.011, 0.02, 0.95, 0.03]))
    assert bold(noisy) == ["50.0×"] and not quotes(noisy, 33.3, 36.7) and noisy[:6] != clear[:6]
    assert "told apart" in noisy.split("NUM_ENVS 8")[1]  # the family's one wording check
    single = speed_reading(runs.iloc[[0, 3]], runs.iloc[[0, 3]].assign(seconds=[0.01, 0.02]))
    assert single not in (clear, noisy) and not quotes(single, 36.7)  # one run: no spread


def test_sweeps_run_at_different_moments_get_no_speed_factor():
    import pandas as pd

    from burgerbot.app.logic.goal_statistics import speed_reading

    runs = pd.DataFrame(
        {"num_envs": [4, 4], "seed": [0, 1], "env_steps": [400] * 2, "seconds": [0.5, 0.6]}
    )
    native = runs.assign(seconds=[0.01, 0.012])  # 50x apart: clear if taken in turns
    assert "**50.0×**" in speed_reading(runs, native)
    # The same times from two sweeps run minutes apart: no factor, no verdict
    apart = speed_reading(runs, native, interleaved=False)
    assert "×" not in apart and "faster" not in apart


def test_the_quick_check_runs_sync_and_native_in_turns_with_identical_counts(monkeypatch):
    from burgerbot.app.logic import goal_statistics as logic

    order = []
    real = logic.goal_scaling

    def recording(num_envs_list, steps, *, seeds, backend):
        order.append((num_envs_list[0], seeds[0], backend))
        return real(num_envs_list, steps, seeds=seeds, backend=backend)

    monkeypatch.setattr(logic, "goal_scaling", recording)
    small = logic.ScalingSettings((1, 2), steps_per_env=300, seeds=2)
    sync, native = logic.interleaved_check(small)
    # each run of one backend is followed by the same run of the other, the lead swapping
    assert order == [
        (1, 0, "sync"), (1, 0, "native"), (1, 1, "native"), (1, 1, "sync"),
        (2, 0, "sync"), (2, 0, "native"), (2, 1, "native"), (2, 1, "sync"),
    ]  # fmt: skip
    assert (sync.settings.backend, native.settings.backend) == ("sync", "native")
    assert bool(logic.compare_backends(sync.frame, native.frame)["identical"].all())
    assert sync.env_steps == native.env_steps == 2 * (300 + 600)
