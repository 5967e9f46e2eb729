"""The "Auto-reset" logic: settings, episode ends, counts, timeline, lesson."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot.app.caps import CAPS
from burgerbot.app.logic.autoreset import (
    MODES,
    PAGE_MODES,
    RESET_MARKERS,
    SPECS,
    START_OBS,
    AutoresetSettings,
    episode_ends,
    gymnasium_version,
    mode_of,
    obs_text,
    resolve_settings,
    run_page_rollout,
    timeline_cells,
    widget_values,
)
from burgerbot.experiments import MAX_ROLLOUT_ROWS, rollout
from burgerbot.factories import burgerbot_factory

START = list(START_OBS)
OBS = ["row", "col", "heading", "sensor"]


def settings_for(mode: str = "NEXT_STEP", **changes) -> AutoresetSettings:
    values = {"n": 3, "mode": mode, "seed": 0, "steps": 30, "backend": "native"}
    settings, notes = resolve_settings(values | changes)
    assert notes == []
    return settings


def run(mode: str, num_envs: int = 3, steps: int = 30, seed: int = 0, **kwargs) -> pd.DataFrame:
    return rollout("native", num_envs, steps, seed, mode_of(mode), **kwargs)


def live_steps(mode: str, num_envs: int, steps: int, seed: int) -> list[tuple]:
    """Every step's (obs, rewards, terminated, truncated, infos) from a plain SyncVectorEnv."""
    envs = SyncVectorEnv(
        [burgerbot_factory() for _ in range(num_envs)], autoreset_mode=mode_of(mode)
    )
    results = []
    try:
        envs.reset(seed=seed)
        for actions in np.random.default_rng(seed).integers(0, 4, size=(steps, num_envs)):
            obs, rewards, terminated, truncated, infos = envs.step(actions)
            results.append((obs.copy(), rewards.copy(), terminated, truncated, infos))
            ended = terminated | truncated
            if mode == "DISABLED" and ended.any():
                envs.reset(options={"reset_mask": ended})
    finally:
        envs.close()
    return results


# --- settings -------------------------------------------------------------------------------


def test_specs_use_the_url_keys_of_the_issue_and_the_caps():
    by_key = {spec.key: spec for spec in SPECS}
    assert {"n", "mode", "seed", "steps"} <= set(by_key)
    assert by_key["mode"].choices == PAGE_MODES and by_key["mode"].default == "NEXT_STEP"
    assert set(PAGE_MODES) < set(MODES)  # DISABLED has its own page
    assert by_key["steps"].default == 30 and by_key["steps"].high == CAPS.max_steps_per_run
    assert by_key["backend"].default == "sync"
    assert set(by_key) == {"n", "mode", "seed", "steps", "backend"}  # counting has its own page


def test_resolve_settings_clamps_with_notes_and_maps_the_mode():
    settings, notes = resolve_settings(
        {"n": -4, "mode": "weird", "seed": 3, "steps": 10**9, "backend": "native"}
    )
    assert settings.num_envs == 1 and settings.mode == "NEXT_STEP"
    assert settings.steps == CAPS.max_steps_per_run and settings.backend == "native"
    assert len(notes) == 3 and any("weird" in note for note in notes)
    assert settings_for("SAME_STEP").autoreset_mode is AutoresetMode.SAME_STEP
    # DISABLED has its own page: here it is not one of the choices.
    settings, notes = resolve_settings({"mode": "DISABLED"})
    assert settings.mode == "NEXT_STEP" and "DISABLED" in notes[0]
    with pytest.raises(ValueError, match="`mode` must be one of"):
        mode_of("NextStep")


def test_resolve_settings_keeps_runs_within_what_rollout_records():
    caps = CAPS.max_steps_per_run
    settings, notes = resolve_settings({"n": 64, "steps": caps})
    assert settings.num_envs * settings.steps <= MAX_ROLLOUT_ROWS
    assert notes == [] if 64 * caps <= MAX_ROLLOUT_ROWS else len(notes) == 1


def test_widget_values_give_back_the_same_settings():
    settings = settings_for("SAME_STEP", n=5, seed=9)
    assert resolve_settings(widget_values(settings)) == (settings, [])


def test_run_page_rollout_runs_the_settings_on_either_backend():
    settings = settings_for("SAME_STEP", backend="sync")
    frame = run_page_rollout(settings)
    pd.testing.assert_frame_equal(frame, run_page_rollout(settings, "native"))
    assert len(frame) == settings.num_envs * settings.steps


# --- the event table ------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_episode_ends_lists_every_end_with_the_real_final_observation(mode):
    frame = run(mode, num_envs=3, steps=40, seed=2)
    events = episode_ends(frame, mode)
    live = live_steps(mode, 3, 40, 2)
    expected = []
    for t, (obs, rewards, terminated, truncated, infos) in enumerate(live, start=1):
        for i in np.flatnonzero(terminated | truncated):
            final = infos["final_obs"][i] if mode == "SAME_STEP" else obs[i]
            cause = "goal" if rewards[i] == 50 else "hit" if terminated[i] else "truncated"
            expected.append((int(i), t, cause, obs_text(final)))
    assert len(expected) > 3
    assert sorted(expected, key=lambda e: (e[1], e[0])) == list(
        events[["env", "step", "cause", "final obs"]].itertuples(index=False, name=None)
    )


def test_episode_ends_says_where_each_mode_puts_the_observations():
    next_step = episode_ends(run("NEXT_STEP"), "NEXT_STEP")
    same_step = episode_ends(run("SAME_STEP"), "SAME_STEP")
    disabled = episode_ends(run("DISABLED"), "DISABLED")
    first = next_step.iloc[0]
    env, step = first["env"], first["step"]
    assert first["final obs is in"] == f"obs[{env}] of step {step}"
    assert first["returned by"] == f"step {step + 1} (the reset step)"
    assert same_step.iloc[0]["final obs is in"] == f'infos["final_obs"][{env}] of step {step}'
    assert same_step.iloc[0]["returned by"] == f"step {step} itself, as obs[{env}]"
    assert disabled.iloc[0]["returned by"] == f"reset(reset_mask) after step {step}"
    for events in (next_step, same_step, disabled):
        assert (events["next episode's first obs"] == obs_text(START)).all()


def test_next_step_first_observation_is_read_from_the_reset_step():
    frame = run("NEXT_STEP", steps=60)
    events = episode_ends(frame, "NEXT_STEP")
    rows = frame.set_index(["step", "env"])
    for end in events[events["step"] < 60].itertuples():
        after = rows.loc[(end.step + 1, end.env)]
        assert after["event"] == "reset" and after["reward"] == 0.0
        assert [after[name] for name in OBS] == START
    last = episode_ends(frame[frame["step"] <= events["step"].iloc[0]], "NEXT_STEP").iloc[-1]
    assert last["next episode's first obs"] == "not in this run"


def test_truncations_and_ends_on_the_step_limit_are_named():
    frame = run("SAME_STEP", num_envs=16, steps=40, seed=1, max_steps=4)
    events = episode_ends(frame, "SAME_STEP")
    assert (events["cause"] == "truncated").any()
    both = frame[frame["terminated"] & frame["truncated"]]
    assert len(both) > 0
    assert events["cause"].str.endswith("(and truncated)").sum() == len(both)


# --- the timeline cells ---------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_timeline_cells_mark_ends_and_resets(mode):
    frame = run(mode, num_envs=4, steps=40)
    cells, shown = timeline_cells(frame, mode)
    assert shown == 40 and len(cells) == 160
    ended = frame["terminated"] | frame["truncated"]
    assert cells["end"].notna().sum() == ended.sum()
    assert set(cells["end"].dropna()) <= {"goal", "hit", "truncated"}
    resets = cells[cells["reset"].notna()]
    assert set(resets["reset"]) == {RESET_MARKERS[mode]}
    if mode == "NEXT_STEP":
        assert (resets["event"] == "reset").all() and (resets["segment"] == "reset step").all()
        assert resets["note"].str.contains("action was ignored").all()
        assert (resets["obs"] == obs_text(START)).all()
    else:
        assert len(resets) == ended.sum() and resets["end"].notna().all()
        assert (cells["segment"] != "reset step").all()
    assert cells.loc[0, "action"] in {"0 forward", "1 turn_left", "2 turn_right", "3 stop"}
    ends = cells[cells["end"].notna()]
    assert (ends["final obs"] != "").all()
    assert (cells.loc[cells["end"].isna(), "final obs"] == "").all()


def test_timeline_cells_alternate_colours_per_episode_and_cap_the_cells():
    frame = run("SAME_STEP", num_envs=5, steps=200)
    cells, shown = timeline_cells(frame, "SAME_STEP", max_cells=300)
    assert shown == 60 and len(cells) == 300
    even = cells["episode"] % 2 == 0
    assert (cells.loc[even, "segment"] == "episodes 0, 2, 4, …").all()
    assert (cells.loc[~even, "segment"] == "episodes 1, 3, 5, …").all()


# --- the lesson vs the installed gymnasium --------------------------------------------------


def test_gymnasium_version_is_read_from_the_installed_package():
    import gymnasium

    assert gymnasium_version() == gymnasium.__version__
