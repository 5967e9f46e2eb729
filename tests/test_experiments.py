"""Tests for `burgerbot.experiments`: small runs, checked against the rules and each other."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from child_processes import worker_pids
from gymnasium.vector import AutoresetMode

from burgerbot import world
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import (
    EVENTS,
    MAX_ROLLOUT_ROWS,
    goal_scaling,
    random_actions,
    rollout,
    time_backends,
)
from burgerbot.wrappers import StepCostWrapper

MODES = list(AutoresetMode)
START_OBS = [0, 0, 1, 1]
OBS = ["row", "col", "heading", "sensor"]
FINAL = [f"final_{name}" for name in OBS]
COUNTS = ["goals", "hits", "truncations", "episodes"]


def reference_rollout(actions: np.ndarray, mode: AutoresetMode, max_steps: int) -> pd.DataFrame:
    """What a rollout must hold, worked out env by env from `world.transition` alone."""
    steps, num_envs = actions.shape
    start = (*world.START, world.START_HEADING)
    rows = []
    for env in range(num_envs):
        state, count, episode, reset_next = start, 0, 0, False
        for t in range(steps):
            row = {"step": t + 1, "env": env, "action": int(actions[t, env]), "episode": episode}
            if reset_next:  # NEXT_STEP: this call only resets; its action is ignored
                state, count, reset_next = start, 0, False
                obs = world.observe(*state)
                row |= dict(zip(OBS, obs, strict=True))
                row |= {"reward": 0.0, "terminated": False, "truncated": False}
                row |= dict.fromkeys(FINAL, pd.NA)
                rows.append(row | {"event": "reset", "autoreset": True, "manual_reset": False})
                continue
            out = world.transition(*state, actions[t, env])
            state, count = (out.row, out.col, out.heading), count + 1
            truncated = count >= max_steps
            ended = out.terminated or truncated
            event = "truncated" if truncated and not out.terminated else out.event
            obs = world.observe(*state)
            row |= {"reward": out.reward, "terminated": out.terminated, "truncated": truncated}
            row |= {"event": event, "autoreset": False, "manual_reset": False}
            row |= dict.fromkeys(FINAL, pd.NA)
            if ended:
                row |= dict(zip(FINAL, obs, strict=True))
                episode += 1
                if mode == AutoresetMode.NEXT_STEP:
                    reset_next = True
                else:
                    state, count = start, 0
                    if mode == AutoresetMode.SAME_STEP:
                        obs = world.observe(*state)
                        row["autoreset"] = True
                    else:
                        row["manual_reset"] = True
            rows.append(row | dict(zip(OBS, obs, strict=True)))
    return pd.DataFrame(rows).sort_values(["step", "env"], ignore_index=True)


def test_random_actions_are_one_reproducible_stream_in_chunks():
    chunks = list(random_actions(seed=3, num_envs=5, steps=2500))
    assert [chunk.shape for chunk in chunks] == [(1000, 5), (1000, 5), (500, 5)]
    assert all(chunk.dtype == np.int64 for chunk in chunks)
    actions = np.concatenate(chunks)
    assert set(np.unique(actions)) == {0, 1, 2, 3}
    # The chunks are exactly one draw of shape (steps, num_envs), so a run is easy to
    # reproduce by hand and a longer run starts with the actions of a shorter one.
    expected = np.random.default_rng(3).integers(0, 4, size=(2500, 5), dtype=np.int64)
    np.testing.assert_array_equal(actions, expected)
    shorter = np.concatenate(list(random_actions(seed=3, num_envs=5, steps=1200)))
    np.testing.assert_array_equal(shorter, actions[:1200])
    other_seed = np.concatenate(list(random_actions(seed=4, num_envs=5, steps=2500)))
    assert not np.array_equal(actions, other_seed)


def test_random_actions_keep_chunks_small_for_many_envs():
    chunks = random_actions(seed=0, num_envs=100_000, steps=50)
    assert next(chunks).shape == (10, 100_000)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_random_actions_reject_bad_sizes(bad):
    with pytest.raises(ValueError, match="num_envs"):
        next(random_actions(seed=0, num_envs=bad, steps=10))


def test_rollout_columns_and_dtypes():
    frame = rollout("native", num_envs=3, steps=40, seed=1)
    assert list(frame.columns) == [
        "step",
        "env",
        "action",
        *OBS,
        "reward",
        "terminated",
        "truncated",
        "event",
        "episode",
        "autoreset",
        "manual_reset",
        *FINAL,
    ]
    int_columns = ["step", "env", "action", *OBS, "episode"]
    assert all(frame[name].dtype == np.int64 for name in int_columns)
    assert frame["reward"].dtype == np.float64
    assert all(frame[name].dtype == np.bool_ for name in ["terminated", "truncated", "autoreset"])
    assert all(frame[name].dtype == "Int64" for name in FINAL)
    assert list(frame["event"].cat.categories) == list(EVENTS)
    assert len(frame) == 40 * 3
    assert frame["step"].tolist() == [t for t in range(1, 41) for _ in range(3)]
    assert frame["env"].tolist() == [0, 1, 2] * 40


@pytest.mark.parametrize("max_steps", [150, 7])
@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.name)
def test_rollout_matches_the_rules_step_by_step(mode, max_steps):
    frame = rollout(
        "native", num_envs=4, steps=300, seed=2, autoreset_mode=mode, max_steps=max_steps
    )
    actions = np.concatenate(list(random_actions(seed=2, num_envs=4, steps=300)))
    expected = reference_rollout(actions, mode, max_steps)
    got = frame.astype({"event": str, **dict.fromkeys(FINAL, object)})
    expected = expected.astype({**dict.fromkeys(FINAL, object)})[list(frame.columns)]
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)
    assert frame["event"].isin(["hit"]).any()
    if max_steps == 7:
        assert (frame["event"] == "truncated").any()
        assert (frame["terminated"] & frame["truncated"]).any()


def _ending_rows_and_next(frame: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The rows where an episode ended, and for each, that env's row on the next step."""
    by_env = frame.sort_values(["env", "step"])
    following = by_env.groupby("env").shift(-1)
    ended = (by_env["terminated"] | by_env["truncated"]) & following["step"].notna()
    return by_env[ended], following[ended]


def test_next_step_mode_resets_on_the_call_after_the_end():
    frame = rollout("sync", num_envs=4, steps=300, seed=5, max_steps=9)
    ending, after = _ending_rows_and_next(frame)
    assert len(ending) > 20
    assert (after["reward"] == 0.0).all()
    assert not after["terminated"].any() and not after["truncated"].any()
    assert after[OBS].values.tolist() == [START_OBS] * len(after)
    assert (after["event"] == "reset").all() and after["autoreset"].all()
    assert (after["episode"] == ending["episode"] + 1).all()
    # The ending row shows the final observation itself, repeated in final_*.
    assert ending[OBS].values.tolist() == ending[FINAL].astype(int).values.tolist()
    assert frame["autoreset"].sum() == (frame["event"] == "reset").sum() == len(after)
    assert not frame["manual_reset"].any()


def test_same_step_mode_resets_on_the_ending_call():
    frame = rollout("sync", num_envs=4, steps=300, seed=5, autoreset_mode="SameStep", max_steps=9)
    ended = frame[frame["terminated"] | frame["truncated"]]
    assert len(ended) > 20
    assert ended[OBS].values.tolist() == [START_OBS] * len(ended)
    assert ended["autoreset"].all() and ended["event"].isin(["hit", "goal", "truncated"]).all()
    finals = ended[FINAL].astype(int)
    # The final observations are where the episodes really ended: hits keep the robot
    # in place, so they are not the start (except a hit right at the start).
    assert (finals.values != START_OBS).any(axis=1).sum() > len(ended) // 2
    assert frame["autoreset"].sum() == len(ended)
    assert not (frame["event"] == "reset").any() and not frame["manual_reset"].any()
    assert frame.loc[~(frame["terminated"] | frame["truncated"]), FINAL].isna().all().all()


def test_disabled_mode_rollout_resets_ended_envs_itself():
    frame = rollout("sync", num_envs=4, steps=300, seed=5, autoreset_mode="Disabled", max_steps=9)
    ending, after = _ending_rows_and_next(frame)
    assert len(ending) > 20
    assert ending["manual_reset"].all()
    assert frame["manual_reset"].sum() == (frame["terminated"] | frame["truncated"]).sum()
    assert ending[OBS].values.tolist() == ending[FINAL].astype(int).values.tolist()
    # After the reset the next step starts from the start, with the action applied.
    assert (after["event"] != "reset").all() and not frame["autoreset"].any()
    assert (after["episode"] == ending["episode"] + 1).all()


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.name)
def test_rollout_is_identical_on_every_backend(mode, no_leftover_workers):
    kwargs = dict(num_envs=3, steps=60, seed=11, autoreset_mode=mode, max_steps=8)
    sync = rollout("sync", **kwargs)
    assert (sync["terminated"] | sync["truncated"]).sum() > 10
    pd.testing.assert_frame_equal(rollout("native", **kwargs), sync)
    pd.testing.assert_frame_equal(rollout("async", **kwargs), sync)


def test_rollout_is_reproducible_and_depends_on_the_seed():
    first = rollout("native", num_envs=2, steps=100, seed=7)
    pd.testing.assert_frame_equal(rollout("native", num_envs=2, steps=100, seed=7), first)
    assert not first["action"].equals(rollout("native", num_envs=2, steps=100, seed=8)["action"])


def test_rollout_refuses_huge_frames_and_bad_arguments():
    with pytest.raises(ValueError, match="200,000"):
        rollout("native", num_envs=4, steps=MAX_ROLLOUT_ROWS // 4 + 1)
    with pytest.raises(ValueError, match="backend"):
        rollout("threads", num_envs=2, steps=10)
    with pytest.raises(ValueError, match="steps"):
        rollout("sync", num_envs=2, steps=0)


def test_rollout_reports_progress():
    calls = []
    rollout("native", num_envs=2, steps=2500, progress=lambda f, m: calls.append(f))
    assert calls == [0.4, 0.8, 1.0]


@pytest.mark.parametrize("mode", MODES, ids=lambda mode: mode.name)
def test_goal_scaling_is_identical_on_sync_and_native(mode):
    kwargs = dict(steps_per_env=1500, seeds=[0, 1, 2], autoreset_mode=mode, max_steps=20)
    sync = goal_scaling([1, 3], backend="sync", **kwargs)
    native = goal_scaling([1, 3], backend="native", **kwargs)
    columns = ["num_envs", "seed", "steps_per_env", "env_steps", *COUNTS]
    pd.testing.assert_frame_equal(sync[columns], native[columns])
    assert sync["truncations"].sum() > 0


def test_goal_scaling_columns_and_consistent_counts():
    frame = goal_scaling([1, 2, 8], steps_per_env=3000, seeds=[0, 1], backend="native")
    assert list(frame.columns) == [
        "backend",
        "num_envs",
        "seed",
        "steps_per_env",
        "env_steps",
        *COUNTS,
        "seconds",
    ]
    assert frame[["num_envs", "seed"]].values.tolist() == [
        [1, 0],
        [1, 1],
        [2, 0],
        [2, 1],
        [8, 0],
        [8, 1],
    ]
    assert (frame["env_steps"] == frame["num_envs"] * 3000).all()
    # Every finished episode ended for exactly one reason (in this world every
    # termination is a hit or a goal).
    assert (frame["episodes"] == frame["goals"] + frame["hits"] + frame["truncations"]).all()
    assert (frame["seconds"] > 0).all() and (frame["backend"] == "native").all()
    # Random episodes last about 10 steps; NEXT_STEP spends one more call on each reset.
    per_episode = frame["env_steps"] / frame["episodes"]
    assert per_episode.between(7, 16).all()


def test_goal_scaling_counts_what_a_rollout_shows():
    counts = goal_scaling([3], steps_per_env=2000, seeds=[4], backend="native", max_steps=12)
    frame = rollout("native", num_envs=3, steps=2000, seed=4, max_steps=12)
    events = frame["event"].value_counts()
    row = counts.iloc[0]
    assert row["goals"] == events["goal"]
    assert row["hits"] == events["hit"]
    assert row["truncations"] == events["truncated"]
    assert row["episodes"] == (frame["terminated"] | frame["truncated"]).sum()


def test_goal_scaling_is_reproducible_and_seeds_differ():
    kwargs = dict(steps_per_env=2000, seeds=[0, 1, 2, 3], backend="native")
    first = goal_scaling([2], **kwargs)
    pd.testing.assert_frame_equal(first[COUNTS], goal_scaling([2], **kwargs)[COUNTS])
    assert first["hits"].nunique() > 1


def test_goal_scaling_with_a_fixed_total_of_env_steps():
    frame = goal_scaling([1, 3, 4], total_env_steps=1000, backend="native")
    assert frame["steps_per_env"].tolist() == [1000, 333, 250]
    assert frame["env_steps"].tolist() == [1000, 999, 1000]
    with pytest.raises(ValueError, match="exactly one"):
        goal_scaling([1], steps_per_env=10, total_env_steps=10)
    with pytest.raises(ValueError, match="exactly one"):
        goal_scaling([1])
    with pytest.raises(ValueError, match="total_env_steps"):
        goal_scaling([1, 64], total_env_steps=10)


def test_goal_scaling_finds_goals_in_a_big_native_run():
    # About 2.7e-5 goals per env-step: 4,096 x 1,000 env-steps expect about 110.
    frame = goal_scaling([4096], steps_per_env=1000, seeds=[0], backend="native")
    assert 40 <= frame["goals"].iloc[0] <= 250


def test_goal_scaling_reports_progress_up_to_one():
    calls = []
    goal_scaling(
        [1, 2],
        steps_per_env=2000,
        seeds=[0, 1],
        backend="native",
        progress=lambda fraction, message: calls.append((fraction, message)),
    )
    fractions = [fraction for fraction, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    assert pytest.approx(fractions[:5]) == [1 / 12, 2 / 12, 3 / 12, 4 / 12, 6 / 12]
    assert "NUM_ENVS=2, seed 1" in calls[-2][1]


def test_time_backends_columns_and_positive_times():
    frame = time_backends(["sync", "native"], num_envs_list=[1, 4], steps=[50, 200])
    assert list(frame.columns) == [
        "backend",
        "num_envs",
        "steps",
        "work_seconds",
        "create_s",
        "reset_s",
        "step_s",
        "close_s",
        "env_steps",
        "env_steps_per_s",
    ]
    assert len(frame) == 2 * 2 * 2
    assert frame[["backend", "num_envs", "steps"]].values.tolist()[:3] == [
        ["sync", 1, 50],
        ["sync", 1, 200],
        ["sync", 4, 50],
    ]
    times = frame[["create_s", "reset_s", "step_s", "close_s", "env_steps_per_s"]]
    assert (times > 0).all().all()
    assert (frame["env_steps"] == frame["num_envs"] * frame["steps"]).all()
    assert np.allclose(frame["env_steps_per_s"], frame["env_steps"] / frame["step_s"])


def test_time_backends_in_disabled_mode_keeps_going():
    frame = time_backends(["sync", "native"], [2], steps=300, autoreset_mode="Disabled")
    assert (frame["step_s"] > 0).all()


def test_step_cost_slows_every_sub_environment_step():
    # SAME_STEP: every call steps every env (NEXT_STEP's reset calls do not step).
    frame = time_backends(["sync"], [2], steps=20, work_seconds=0.001, autoreset_mode="SameStep")
    assert frame["step_s"].iloc[0] >= 2 * 20 * 0.001
    assert frame["work_seconds"].iloc[0] == 0.001
    with pytest.raises(ValueError, match="native"):
        time_backends(["sync", "native"], [2], steps=20, work_seconds=0.001)
    with pytest.raises(ValueError, match="work_kind"):
        time_backends(["sync"], [2], steps=20, work_seconds=0.001, work_kind="spin")
    with pytest.raises(ValueError, match="work_seconds"):
        StepCostWrapper(BurgerBotEnv(), work_seconds=-1.0)


def test_async_timing_with_step_cost_leaves_no_process(no_leftover_workers):
    frame = time_backends(["async"], [2], steps=100, work_seconds=0.0002, work_kind="sleep")
    assert frame["backend"].tolist() == ["async"] and frame["step_s"].iloc[0] > 0


class Interrupted(Exception):
    """Stands for the app stopping a run from its progress callback."""


def test_interrupted_async_run_leaves_no_process(no_leftover_workers):
    workers_seen = []
    others = worker_pids()  # children that are not this run's (a browser test's driver, say)

    def progress(fraction: float, message: str) -> None:
        workers_seen.append(len(worker_pids() - others))
        if len(workers_seen) == 2:
            raise Interrupted(message)

    with pytest.raises(Interrupted):
        goal_scaling([2], steps_per_env=5000, backend="async", progress=progress)
    assert workers_seen == [2, 2]  # the workers were running when the run was stopped


def test_goal_scaling_on_async_matches_sync(no_leftover_workers):
    kwargs = dict(steps_per_env=1500, seeds=[0, 1], max_steps=20)
    sync = goal_scaling([2], backend="sync", **kwargs)
    async_ = goal_scaling([2], backend="async", **kwargs)
    pd.testing.assert_frame_equal(async_[COUNTS], sync[COUNTS])
