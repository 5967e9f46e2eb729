"""The "Wrapping a vector env" page's live runs: the checks find right and wrong both ways."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sentence_facts import quotes

from burgerbot.app.logic import vector_wrappers as logic
from burgerbot.app.logic.vector_wrappers import (
    OPTIONS,
    Calls,
    check_loop,
    check_wrapper,
    episodes_from_rows,
    evaluation_drift,
    infos_at_first_end,
    loop_sentence,
    make_vector,
    prediction_truth,
    random_actions,
    record,
    resolve_settings,
    run_loop,
    takeaway_bullets,
    wrapper_table,
)

N, STEPS, SEED = 4, 200, 0


def _calls(rewards, terminated) -> Calls:
    """A hand-made run of one env: its rewards and terminated flags, call by call."""
    calls = Calls(first_obs=np.zeros((1, 4), dtype=np.int64))
    for reward, ended in zip(rewards, terminated, strict=True):
        calls.obs.append(np.zeros((1, 4), dtype=np.int64))
        calls.rewards.append(np.array([reward]))
        calls.terminated.append(np.array([ended]))
        calls.truncated.append(np.array([False]))
        calls.infos.append({})
        calls.resets.append(None)
    return calls


def test_episodes_from_rows_leave_out_next_steps_reset_row_and_nothing_else():
    calls = _calls([1.0, -10.0, 0.0, 1.0, -10.0], [False, True, False, False, True])
    next_step = episodes_from_rows(calls, "NEXT_STEP")
    same_step = episodes_from_rows(calls, "SAME_STEP")
    # NEXT_STEP: call 3 is the reset row; the second episode is calls 4-5.
    assert next_step.values.tolist() == [[0, 2, -9.0, 2], [0, 5, -9.0, 2]]
    # SAME_STEP: every row is a transition, so call 3 belongs to the second episode.
    assert same_step.values.tolist() == [[0, 2, -9.0, 2], [0, 5, -9.0, 3]]


def _frame(rows):
    return pd.DataFrame(rows, columns=["env", "call", "return", "length"])


def test_check_loop_tells_right_missed_twice_and_stopped_apart():
    truth = _frame([(0, 2, -9.0, 2), (1, 3, -10.1, 3)])
    right = check_loop("x", "NEXT_STEP", truth.copy(), truth)
    assert right.right and loop_sentence(right).startswith("Right")
    missed = check_loop("x", "NEXT_STEP", truth.iloc[:1], truth)
    assert not missed.right and missed.missed.values.tolist() == [[1, 3, -10.1, 3]]
    assert quotes(loop_sentence(missed), 1, 3)  # the missed episode: env 1, ending on call 3
    twice = check_loop("x", "SAME_STEP", pd.concat([truth, truth]), truth)
    assert twice.twice == 2 and twice.missed.empty
    assert "2 counted twice" in loop_sentence(twice)
    wrong_length = check_loop("x", "SAME_STEP", _frame([(0, 2, -9.0, 3), (1, 3, -10.1, 3)]), truth)
    assert len(wrong_length.missed) == 1 and wrong_length.twice == 0
    stopped = check_loop("x", "NEXT_STEP", truth.iloc[:0], truth, error="ValueError: key")
    assert not stopped.right and "ValueError" in loop_sentence(stopped)


@pytest.mark.parametrize("backend", ["sync", "native"])
@pytest.mark.parametrize("mode", ["NEXT_STEP", "SAME_STEP"])
def test_the_right_loop_logs_each_episode_once_with_the_rows_return(backend, mode):
    truth = episodes_from_rows(
        record(make_vector(backend, mode, N), random_actions(N, STEPS, SEED), mode), mode
    )
    assert len(truth) > 20
    logged, error = run_loop("right", backend, mode, N, STEPS, SEED)
    assert error is None and check_loop("right", mode, logged, truth).right


def test_the_wrong_loops_miss_every_episode_or_count_each_twice_or_stop():
    def check(loop, mode):
        truth = episodes_from_rows(
            record(make_vector("sync", mode, N), random_actions(N, STEPS, SEED), mode), mode
        )
        return check_loop(loop, mode, *run_loop(loop, "sync", mode, N, STEPS, SEED)[:1], truth)

    missed = check("final_info", "NEXT_STEP")
    assert missed.logged == 0 and len(missed.missed) == missed.finished > 0
    assert check("final_info", "SAME_STEP").right
    twice = check("both", "SAME_STEP")
    assert twice.twice == twice.finished and twice.logged == 2 * twice.finished
    _, error = run_loop("both", "sync", "NEXT_STEP", N, STEPS, SEED)
    assert error.startswith("ValueError") and "already exists" in error


def test_infos_at_the_first_end_per_placement_and_mode():
    factory = infos_at_first_end("sync", "SAME_STEP", "factory", N, STEPS, SEED)
    vector = infos_at_first_end("sync", "SAME_STEP", "vector", N, STEPS, SEED)
    assert factory.call == vector.call and factory.ended == vector.ended
    assert 'infos["final_info"]["episode"]["r"]' in factory.ending["key"].tolist()
    assert 'infos["episode"]["r"]' in vector.ending["key"].tolist()
    assert factory.stats_at == 'infos["final_info"]["episode"]'
    assert vector.stats_at == 'infos["episode"]'
    env = factory.ended[0]
    mask = factory.ending.set_index("key").loc['infos["final_info"]["_episode"]']
    assert mask[f"env {env}"] == "True"
    next_step = infos_at_first_end("native", "NEXT_STEP", "vector", N, STEPS, SEED)
    assert set(next_step.ending["key"]) == {
        'infos["episode"]["r"]',
        'infos["episode"]["l"]',
        'infos["_episode"]',
    }
    # The call after ended nothing, so nothing in infos marks an episode there.
    assert "True" not in next_step.after.drop(columns="key").values
    with pytest.raises(ValueError, match="no sub-env factory"):
        infos_at_first_end("native", "NEXT_STEP", "factory", N, STEPS, SEED)


def test_an_empty_infos_is_told_apart_from_one_that_holds_arrays():
    assert logic._per_env({}, N).empty
    end = infos_at_first_end("sync", "SAME_STEP", "factory", N, STEPS, SEED)
    assert not end.ending.empty


@pytest.fixture(scope="module")
def tables():
    return {b: wrapper_table(b, N, STEPS, SEED) for b in ("sync", "native")}


def test_the_table_refuses_warns_and_flags_wrong_results_from_the_live_runs(tables):
    for table in tables.values():
        by = table.set_index(["wrapper", "mode"])
        assert by.loc[("NormalizeObservation", "SAME_STEP"), "verdict"] == "refused"
        assert "ValueError" in by.loc[("NormalizeObservation", "SAME_STEP"), "said"]
        assert by.loc[("RecordEpisodeStatistics", "NEXT_STEP"), "right"] == "yes"
        undeclared = by.loc[("RecordEpisodeStatistics", logic.UNDECLARED)]
        assert undeclared["verdict"] == "warned" and undeclared["right"] == "no"
        assert "autoreset_mode" in undeclared["said"]
        assert "missed" in undeclared["detail"]
        assert (by.xs("ClipReward")["right"] == "yes").all()
    sync, native = (t.set_index(["wrapper", "mode"]) for t in tables.values())
    assert sync["verdict"].equals(native["verdict"])
    # SyncVectorEnv pops reset_mask before the wrapper sees it: its DISABLED episodes are off.
    assert sync.loc[("RecordEpisodeStatistics", "DISABLED"), "right"] == "no"
    assert native.loc[("RecordEpisodeStatistics", "DISABLED"), "right"] == "yes"


def test_sync_vector_env_takes_the_reset_mask_out_of_the_callers_options():
    # Why RecordEpisodeStatistics over Sync miscounts in DISABLED (the table's "no").
    assert logic.sync_takes_the_reset_mask() is True


def test_the_prediction_s_answer_follows_the_table_s_verdict(tables):
    table = tables["native"].copy()
    assert prediction_truth(table) == OPTIONS[2]
    row = (table["wrapper"] == "NormalizeObservation") & (table["mode"] == "SAME_STEP")
    for verdict, option in (("accepted", OPTIONS[0]), ("warned", OPTIONS[1])):
        table.loc[row, "verdict"] = verdict
        assert prediction_truth(table) == option


def test_each_check_says_no_when_the_wrapper_changed_what_it_should_not(monkeypatch):
    # A TransformObservation that forgets to transform, a ClipReward that clips nothing.
    monkeypatch.setitem(logic.WRAPPERS, "TransformObservation", lambda env: env)
    monkeypatch.setitem(logic.WRAPPERS, "ClipReward", lambda env: env)
    assert check_wrapper("TransformObservation", "native", "NEXT_STEP", N, 50, SEED).right is False
    assert check_wrapper("ClipReward", "native", "NEXT_STEP", N, 50, SEED).right is False
    check = check_wrapper("DictInfoToList", "native", "SAME_STEP", N, 50, SEED)
    assert check.right is True and check.verdict == "accepted"


def test_frozen_statistics_do_not_move_during_evaluation_and_updating_ones_do():
    drift = evaluation_drift(N, STEPS, SEED)
    assert drift.largest("frozen") == 0.0
    assert drift.largest("keep updating") > 0.01
    assert drift.train_count == N * (STEPS + 1)


def test_takeaways_state_what_the_runs_found_each_way(tables):
    table = tables["sync"]
    truth = _frame([(0, 2, -9.0, 2)])
    right = [check_loop("right", m, truth, truth) for m in ("NEXT_STEP", "SAME_STEP")]
    drift = evaluation_drift(N, 50, SEED)
    bullets = "\n".join(takeaway_bullets(table, right, drift))
    assert "exactly once in NEXT_STEP and SAME_STEP" in bullets
    assert "RecordEpisodeStatistics in DISABLED" in bullets  # Sync's wrong DISABLED episodes
    wrong = [check_loop("right", "NEXT_STEP", truth.iloc[:0], truth)]
    all_right = table.assign(right="yes")
    bullets = "\n".join(takeaway_bullets(all_right, wrong, drift))
    assert "did not match the raw rows" in bullets and "Accepted is not" not in bullets


def test_settings_from_a_url_are_clamped_with_a_note():
    settings, notes = resolve_settings({"n": "0", "steps": "5000", "backend": "nope"})
    assert (settings.num_envs, settings.steps, settings.backend) == (1, 600, "sync")
    assert len(notes) == 3


def test_transform_check_counts_no_all_zero_final_observation_as_doubled():
    # Undeclared SAME_STEP: the wrapper assumes NEXT_STEP and doubles no final observation.
    # Many BurgerBot episodes end at [0, 0, 0, 0], which reads the same doubled or not: the
    # check must not count those as doubled (it said "43 of 60 left as they were").
    check = check_wrapper("TransformObservation", "native", logic.UNDECLARED, N, 150, SEED)
    left, total, zeros = (int(n) for n in re.findall(r"\d+", check.detail))
    assert check.right is False and check.verdict == "warned"
    assert (left, total, zeros) == (43, 60, 17)  # every final observation left as it was

    # Data going the other way: a wrapper that doubles every final observation is right.
    finals = np.array([[1, 2, 3, 0], [0, 0, 0, 0]])
    infos = {"final_obs": finals, "_final_obs": np.array([True, True])}
    doubled = {"final_obs": finals * 2, "_final_obs": np.array([True, True])}
    obs = np.zeros((2, 4), dtype=int)
    raw = Calls(obs, [obs], infos=[infos])
    right, _ = logic._check_transform(None, Calls(obs, [obs * 2], infos=[doubled]), raw, "")
    wrong, said = logic._check_transform(None, Calls(obs, [obs * 2], infos=[infos]), raw, "")
    assert right is True and wrong is False
    assert [int(n) for n in re.findall(r"\d+", said)] == [1, 2, 1]
