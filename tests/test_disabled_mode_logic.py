"""The "DISABLED mode" logic: the live demo (both errors, what the failed call did, the fix),
the settings and the prediction's truth."""

from __future__ import annotations

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode
from hypothesis import example, given, settings
from hypothesis import strategies as st
from sentence_facts import quotes

from burgerbot.app.logic.disabled_mode import (
    OPTIONS,
    RAISES,
    SPECS,
    START_OBS,
    by_hand_sentence,
    disabled_demo,
    disabled_demo_table,
    envs_text,
    finished_by_hand_and_same_step,
    masked_reset_sentence,
    prediction_truth,
    resolve_settings,
    takeaway_bullets,
)
from burgerbot.experiments import rollout

START = list(START_OBS)
OBS = ["row", "col", "heading", "sensor"]


def run(mode: str, num_envs: int, steps: int, seed: int = 0):
    return rollout("native", num_envs, steps, seed, getattr(AutoresetMode, mode))


def test_disabled_demo_captures_both_errors_and_the_fix():
    demo = disabled_demo(4, 0)
    frame = run("DISABLED", num_envs=4, steps=demo.end_step + 1)
    first_end = frame[frame["terminated"] | frame["truncated"]]["step"].min()
    assert demo.end_step == first_end
    assert demo.sync_error.startswith("AssertionError: self._autoreset_envs=")
    assert demo.native_error.startswith("AssertionError: Sub-environments")
    assert "reset_mask" in demo.native_error
    # SyncVectorEnv had already stepped the envs before the ended one; the native env none.
    assert demo.ended == (3,) and demo.stepped_before_error == (0, 1, 2)
    assert demo.native_stepped_before_error is False
    for i in range(4):
        reset = demo.obs_after_reset[i].tolist()
        assert reset == (START if i in demo.ended else demo.obs_at_end[i].tolist())
    # The retried step is the rollout's next step (which resets by hand in the same way).
    after = frame[frame["step"] == demo.end_step + 1]
    np.testing.assert_array_equal(demo.step_after_fix["obs"], after[OBS].to_numpy())
    np.testing.assert_array_equal(demo.step_after_fix["rewards"], after["reward"].to_numpy())
    table = disabled_demo_table(demo)
    assert table["in reset_mask"].tolist() == [i in demo.ended for i in range(4)]
    assert len(table.columns) == 6


def test_disabled_demo_at_the_edge_of_its_budget():
    full = disabled_demo(2, 5)
    edge = disabled_demo(2, 5, max_calls=full.end_step)
    assert edge.end_step == full.end_step and edge.sync_error == full.sync_error
    np.testing.assert_array_equal(edge.step_after_fix["obs"], full.step_after_fix["obs"])
    nothing = disabled_demo(2, 5, max_calls=1)  # no episode can end on the first step
    assert nothing.end_step == 0 and nothing.sync_error is None
    first = disabled_demo(1, 0)  # a single env: nothing is stepped before the check fails
    assert first.ended == (0,) and first.stepped_before_error == ()
    assert disabled_demo_table(nothing).empty


def test_the_prediction_is_answered_by_the_demo():
    demo = disabled_demo(4, 0)
    assert prediction_truth(demo) == RAISES and RAISES in OPTIONS
    assert prediction_truth(disabled_demo(2, 5, max_calls=1)) is None  # nothing ended
    bullets = takeaway_bullets(demo)
    assert bullets[1].endswith("or `step()` raises AssertionError.")
    assert len(bullets) == 4  # SyncVectorEnv had stepped envs 0-2 before it raised
    assert len(takeaway_bullets(disabled_demo(1, 0))) == 3  # one env: none stepped first


def test_resolve_settings_clamps_with_notes():
    assert resolve_settings({"n": "3", "seed": "7"}) == ({"n": 3, "seed": 7}, [])
    values, notes = resolve_settings({"n": "-1", "seed": "x"})
    assert values == {"n": 1, "seed": 0} and len(notes) == 2


def test_resetting_by_hand_finishes_what_same_step_finishes():
    table = finished_by_hand_and_same_step(3, 4)
    live = run("SAME_STEP", 3, 200, 4)
    ended = (live["terminated"] | live["truncated"]).groupby(live["env"]).sum()
    assert table["SAME_STEP"].tolist() == ended.tolist() and ended.sum() > 0
    assert table["DISABLED (reset by hand)"].tolist() == ended.tolist()
    assert "the very same episodes" in by_hand_sentence(table)


def test_the_by_hand_sentence_follows_the_counts_both_ways():
    same = pd.DataFrame({"env": [0, 1], "DISABLED (reset by hand)": [2, 3], "SAME_STEP": [2, 3]})
    matched = by_hand_sentence(same)
    assert quotes(matched, 5) and not quotes(matched, 6)  # 5 in all, nothing to set against
    other = same.assign(SAME_STEP=[2, 4])
    text = by_hand_sentence(other)
    assert text != matched and text.index("5") < text.index("6")  # DISABLED's 5, SAME_STEP's 6


@settings(max_examples=30, deadline=None)
@given(
    num_envs=st.integers(SPECS[0].low, SPECS[0].high),
    seed=st.integers(SPECS[1].low, SPECS[1].high),
)
@example(num_envs=1, seed=0)  # issue 37: "the others kept their place" with no others
@example(num_envs=SPECS[0].high, seed=SPECS[1].high)
def test_the_masked_reset_sentence_speaks_of_others_only_when_there_are_some(num_envs, seed):
    demo = disabled_demo(num_envs, seed)
    sentence = masked_reset_sentence(demo)
    if demo.obs_after_reset is None:
        assert sentence == ""
        return
    after, before = np.asarray(demo.obs_after_reset), np.asarray(demo.obs_at_end)
    reset = [i for i in range(num_envs) if (after[i] == START).all()]
    assert set(demo.ended) <= set(reset)
    assert envs_text(tuple(reset)) in sentence.lower()
    others = [i for i in range(num_envs) if i not in demo.ended]
    assert ("other" in sentence) == bool(others), (num_envs, demo.ended, sentence)
    assert sentence.startswith(f"After the masked reset, step {demo.end_step + 1} worked.")
    if others:
        kept = all((after[i] == before[i]).all() for i in others)
        assert ("kept" in sentence) == kept
        assert ("others" in sentence) == (len(others) > 1 or not kept)
