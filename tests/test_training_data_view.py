"""The "From batches to training data" views: tables, the prediction's truth, and every sentence
that depends on the run, fed runs going each way (hand-made with the real env, or random)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from sentence_facts import code_spans, quotes

from burgerbot.app.logic.training_data import (
    ROWS_OPTIONS,
    TrainingSettings,
    buffer_grid,
    endings,
    endings_sentence,
    mask_grid,
    reset_rows,
    resolve_settings,
    row_details,
    rows_answer,
    rows_explanation,
    seeding_demo,
    takeaways,
    target_counts,
    target_points,
    targets_chart,
    targets_grid,
    targets_sentence,
    training_run,
)
from burgerbot.app.palette import OKABE_ITO

# The hand case of test_training_data_targets.py: env 0 hits on call 3, env 1 is truncated
# (max_steps=4) on call 4 facing north at (0, 1).
HAND_ACTIONS = np.array([[0, 0], [0, 1], [0, 3], [3, 3], [3, 3], [3, 3]])
# Only turns and stops for 3 calls, with max_steps=5: no episode ends at all.
QUIET_ACTIONS = np.array([[1, 3], [2, 3], [3, 1]])


def hand_run(mode: str):
    return training_run(TrainingSettings(mode, 2, 6, 4, 0), actions=HAND_ACTIONS)


def quiet_run(mode: str):
    return training_run(TrainingSettings(mode, 2, 3, 5, 0), actions=QUIET_ACTIONS)


def test_settings_are_parsed_and_clamped_with_notes():
    settings, notes = resolve_settings({"mode": "nonsense", "n": "0", "max": "3"})
    assert settings == TrainingSettings("NEXT_STEP", 1, 10, 3, 0)
    assert len(notes) == 2


def test_the_buffer_grid_marks_ends_and_reset_rows_where_the_env_put_them():
    text, kinds = buffer_grid(hand_run("NEXT_STEP"))
    assert text.loc[3, "env 0"] == "fwd -10 ■ terminated"
    assert text.loc[4, "env 0"].startswith("✗ reset")
    assert text.loc[4, "env 1"] == "stop -0.1 ■ truncated"
    assert text.loc[5, "env 1"].startswith("✗ reset")
    assert kinds.loc[4, "env 0"] == "reset" and kinds.loc[3, "env 0"] == "ends"
    assert (kinds == "reset").sum().sum() == 2
    mask_text, _ = mask_grid(hand_run("NEXT_STEP"))
    assert mask_text["env 0"].tolist() == ["True ✓"] * 3 + ["False ✗"] + ["True ✓"] * 2
    text, kinds = buffer_grid(hand_run("SAME_STEP"))
    assert not (kinds == "reset").any().any() and (kinds == "ends").sum().sum() == 2


def test_the_masked_targets_table_drops_exactly_the_reset_rows():
    run = hand_run("NEXT_STEP")
    with_mask, _ = targets_grid(run, masked=True)
    without, _ = targets_grid(run, masked=False)
    dropped = with_mask == "— dropped"
    assert np.array_equal(dropped.to_numpy(), ~run.mask)
    assert without.loc[4, "env 0"] == "-10.80" and without.loc[3, "env 0"] == "-10.00"
    assert (with_mask.to_numpy() != without.to_numpy()).sum() == 2


def test_reset_rows_show_what_the_ignored_action_really_gives():
    rows = reset_rows(hand_run("NEXT_STEP"))
    assert rows[["step() call", "env"]].values.tolist() == [[4, 0], [5, 1]]
    # env 0 stops in front of the obstacle: -0.1, stays; target -0.1 + 0.9 * V([0, 2, 1, 0]).
    assert rows.loc[0, "that action really gives"] == "-0.1 → [0, 2, 1, 0], target -9.10"
    assert rows.loc[0, "obs (ended episode's final)"] == "[0, 2, 1, 0]"
    assert reset_rows(hand_run("SAME_STEP")).empty


def test_row_details_hold_one_row_per_cell_with_final_obs_only_from_same_step_infos():
    details = row_details(hand_run("SAME_STEP"))
    assert len(details) == 12
    finals = details[details['infos["final_obs"]'] != ""]
    assert finals[["step() call", "env"]].values.tolist() == [[3, 0], [4, 1]]
    assert (row_details(hand_run("NEXT_STEP"))['infos["final_obs"]'] == "").all()


def test_the_prediction_truth_follows_the_world_check_both_ways():
    assert rows_answer(hand_run("NEXT_STEP")) == ROWS_OPTIONS[1]
    assert rows_answer(hand_run("SAME_STEP")) == ROWS_OPTIONS[2]
    assert rows_answer(quiet_run("NEXT_STEP")) == ROWS_OPTIONS[2]
    # A run whose failing rows are its ending rows (what reading SAME_STEP's obs would give).
    run = hand_run("SAME_STEP")
    assert rows_answer(dataclasses.replace(run, real=~run.buffer.ended)) == ROWS_OPTIONS[0]
    odd = np.ones(run.mask.shape, dtype=bool)
    odd[0, 0] = False
    assert rows_answer(dataclasses.replace(run, real=odd)) is None


def test_the_explanation_follows_the_run():
    run = hand_run("NEXT_STEP")
    text = rows_explanation(run)
    failing = int((~run.real).sum())  # the rows whose check failed: the reset rows
    assert failing == int((~run.mask).sum()) == 2
    assert f"{failing} rows did not" in text
    assert "exactly these" in text and "not exactly" not in text  # the mask drops just those
    assert "[0, 0, 1, 1]" in text and quotes(text, 0.0)  # a reset row: the start, reward 0.0
    odd = run.real.copy()
    odd[0, 0] = False
    assert "not exactly these" in rows_explanation(dataclasses.replace(run, real=odd))
    assert "holds no reset row" in rows_explanation(quiet_run("NEXT_STEP"))
    same = rows_explanation(hand_run("SAME_STEP"))
    assert "every one replays" in same and "2 rows that end" in same


def test_the_targets_sentence_follows_the_run_both_ways():
    run = hand_run("NEXT_STEP")
    with_resets = targets_sentence(run)
    made_up = run.targets_without_mask[~run.mask]  # the targets at the reset rows
    assert len(set(made_up.round(2))) == 1
    assert quotes(with_resets, len(made_up), round(float(made_up[0]), 2))
    assert "reset rows" in with_resets
    none = targets_sentence(hand_run("SAME_STEP"))
    assert none.startswith("With or without the mask, the 12 targets are the same")


def test_the_mean_comparison_follows_the_numbers():
    run = hand_run("NEXT_STEP")
    plain = run.targets_without_mask
    mean_without, mean_with = plain.mean(), np.nanmean(run.targets_with_mask)
    expected = "lower than" if mean_without < mean_with else "higher than"
    assert expected in targets_sentence(run)
    # Made-up targets far above the real ones: the wording turns, and no formula is claimed.
    high = dataclasses.replace(run, targets_without_mask=np.where(run.mask, plain, 50.0))
    sentence = targets_sentence(high)
    assert "higher than" in sentence and "values +50.00" in sentence
    low = dataclasses.replace(run, targets_without_mask=np.where(run.mask, plain, -50.0))
    assert "lower than" in targets_sentence(low)


def test_endings_give_right_and_wrong_targets_per_mode():
    same = endings(hand_run("SAME_STEP"))
    table = same.table.set_index(["step() call", "env"])
    assert table.loc[(3, 0), "ended by"] == "terminated"
    assert table.loc[(3, 0), "right target"] == -10.0
    assert table.loc[(3, 0), "bootstrap after termination"] == pytest.approx(-10.0 + 0.9 * -10.0)
    assert table.loc[(4, 1), "right target"] == pytest.approx(-10.0)
    assert table.loc[(4, 1), "bootstrap from obs returned"] == pytest.approx(-10.9)
    assert (same.terminated, same.truncated, same.both) == (1, 1, 0)
    assert (same.wrong_after_termination, same.wrong_from_returned) == (1, 1)
    nxt = endings(hand_run("NEXT_STEP"))
    assert nxt.wrong_from_returned == 0 and nxt.wrong_after_termination == 1


def test_the_endings_sentence_follows_the_mode_and_the_counts():
    run = hand_run("SAME_STEP")
    counts = endings(run)
    same = endings_sentence(run, counts)
    # 1 terminated, 1 truncated; bootstrapping from the obs returned would change 1
    assert (counts.terminated, counts.truncated, counts.wrong_from_returned) == (1, 1, 1)
    assert "terminated" in same and "truncated" in same and "would change" in same
    assert quotes(same, counts.terminated, counts.truncated, counts.wrong_from_returned)
    run = hand_run("NEXT_STEP")
    assert "*is*" in endings_sentence(run, endings(run))  # NEXT_STEP: the returned obs is final
    none = quiet_run("SAME_STEP")
    assert endings_sentence(none, endings(none)).startswith("No episode ended")
    # SAME_STEP with a truncation whose returned obs happens to be the final one.
    run = hand_run("SAME_STEP")
    result = dataclasses.replace(endings(run), wrong_from_returned=0)
    assert "changes none here" in endings_sentence(run, result)


def test_takeaways_follow_the_mode_and_the_count():
    demo = seeding_demo(0)
    nxt = takeaways(hand_run("NEXT_STEP"), demo)
    assert "here 2 of 12 rows" in nxt[0] and "(here 2)" in nxt[1]
    same = takeaways(hand_run("SAME_STEP"), demo)
    assert 'infos["final_obs"][i]' in code_spans(same[0]) and "as here" in same[1]
    assert 3 <= len(nxt) <= 5
    assert "overrides seeds set in the factories" in nxt[3]


def test_the_seeding_takeaway_follows_the_seeding_demo():
    demo = seeding_demo(0)
    action = demo.action.assign(**{"same both times": [True, True]})
    bullet = takeaways(hand_run("NEXT_STEP"), dataclasses.replace(demo, action=action))[3]
    assert bullet.startswith("Check seeding on your versions")
    assert "did not alone fix" in bullet and "overrode" in bullet


def test_the_chart_counts_every_row_and_uses_okabe_ito_colours_and_shapes():
    run = hand_run("NEXT_STEP")
    points = target_points(run)
    counts = target_counts(points)
    by_batch = counts.groupby("batch")["rows"].sum()
    assert by_batch["without mask"] == 12 and by_batch["with mask"] == 10
    resets = counts[counts["row"].str.startswith("reset")]
    assert resets["batch"].tolist() == ["without mask"] and resets["rows"].tolist() == [2]
    spec = targets_chart(counts).to_dict()
    colours = spec["encoding"]["color"]["scale"]["range"]
    assert set(colours) <= set(OKABE_ITO)
    shapes = spec["encoding"]["shape"]["scale"]["range"]
    assert len(set(shapes)) == 2


def test_a_random_run_keeps_the_same_invariants():
    run = training_run(TrainingSettings("NEXT_STEP", 4, 20, 4, 7))
    assert np.array_equal(~run.mask, run.after_end)
    differs = ~np.isclose(run.targets_without_mask, run.targets_with_mask)
    assert np.array_equal(differs, ~run.mask)
    details = row_details(run)  # one row per (step() call, env), in that order
    assert len(details) == run.mask.size
    assert details[["step() call", "env"]].values.tolist()[:5] == [
        [1, 0],
        [1, 1],
        [1, 2],
        [1, 3],
        [2, 0],
    ]
