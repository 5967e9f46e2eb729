"""Auto-reset: every sentence that depends on a run follows its numbers, fed data each way."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from sentence_facts import bold, quotes

from burgerbot.app.logic.autoreset import (
    ENDS_AS_IN_NEXT_STEP,
    ENDS_AS_IN_THE_LESSON,
    PAGE_MODES,
    causes_sentence,
    count_finished_by_mode,
    counting_sentence,
    default_autoreset_mode,
    lesson_verdict,
    mode_captions,
    same_step_end_keys,
    takeaway_bullets,
)


def fewer_in(text: str) -> tuple[int, int]:
    """In how many envs, of how many, the counting sentence says NEXT_STEP finished fewer."""
    match = re.search(r"\(fewer in (\d+) of (\d+) envs?\)", text)
    assert match, text
    return int(match.group(1)), int(match.group(2))


def counts_frame(per_mode: dict[str, list[int]], goals=0, truncations=0) -> pd.DataFrame:
    """A long counts frame like ``count_finished_by_mode``'s, with every end a hit."""
    rows = []
    for mode, finished in per_mode.items():
        for env, n in enumerate(finished):
            g, t = (goals, truncations) if env == 0 else (0, 0)
            rows.append(
                {
                    "mode": mode,
                    "env": env,
                    "finished episodes": n,
                    "goals": g,
                    "hits": n - g - t,
                    "truncations": t,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("next_step", "same_step", "verdict", "fewer_envs"),
    [
        ([10, 12], [14, 15], ["fewer"], 2),
        ([15, 12], [14, 13], [], 1),  # as many: nothing stressed
        ([25, 20], [19, 18], ["more"], 0),
    ],
)
def test_the_counting_sentence_follows_the_totals_each_way(
    next_step, same_step, verdict, fewer_envs
):
    counts = counts_frame({"NEXT_STEP": next_step, "SAME_STEP": same_step, "DISABLED": same_step})
    text = counting_sentence(counts, 200)
    # the three totals (NEXT_STEP, SAME_STEP, DISABLED), then the verdict
    totals = [str(sum(next_step)), str(sum(same_step)), str(sum(same_step))]
    assert bold(text) == totals + verdict
    assert ("finished as many" in text) == (not verdict)
    assert fewer_in(text) == (fewer_envs, 2)
    assert ("tendency, not a rule" in text) == (sum(next_step) < sum(same_step))
    assert ("shorter by luck" in text) == (sum(next_step) >= sum(same_step))
    assert "matched" in text  # DISABLED finished what SAME_STEP did, env by env


def test_the_counting_sentence_says_when_disabled_differs_from_same_step():
    counts = counts_frame({"NEXT_STEP": [5], "SAME_STEP": [6], "DISABLED": [7]})
    text = counting_sentence(counts, 50)
    assert "matched" not in text and "not the same" in text
    assert quotes(text.split("DISABLED")[-1], 7, 6)  # DISABLED's 7 against SAME_STEP's 6
    assert fewer_in(text) == (1, 1)


def test_the_counting_sentence_on_real_runs_both_ways():
    """The issue's case: at 2 envs x 200 calls some seeds give NEXT_STEP more episodes."""
    seen = {}
    for seed in range(40):
        counts = count_finished_by_mode("native", 2, 200, seed)
        totals = counts.groupby("mode")["finished episodes"].sum()
        nxt, same = int(totals["NEXT_STEP"]), int(totals["SAME_STEP"])
        key = (nxt > same) - (nxt < same)
        seen.setdefault(key, counting_sentence(counts, 200))
        if 1 in seen and -1 in seen:
            break
    assert bold(seen[-1])[-1] == "fewer" and "tendency, not a rule" in seen[-1]
    assert bold(seen[1])[-1] == "more" and "shorter by luck" in seen[1]


def test_the_causes_sentence_follows_goals_and_truncations():
    none = causes_sentence(counts_frame({"NEXT_STEP": [3, 2]}))
    assert none.startswith("No goals") and "5 hits." in none and "step limit" not in none
    cut = causes_sentence(counts_frame({"NEXT_STEP": [3, 2]}, truncations=1))
    assert quotes(cut, 4, 1) and "step limit" in cut and not quotes(cut, 5)  # 4 hits, 1 cut
    goal = causes_sentence(counts_frame({"NEXT_STEP": [3, 2]}, goals=1))
    # the one wording check of the causes sentence
    assert not goal.startswith("No goals") and "1 goal (reward 50.0), 4 hits." in goal


def test_the_lesson_verdict_follows_what_gymnasium_did():
    kind, why = lesson_verdict(
        "NEXT_STEP", ("_final_info", "_final_obs", "final_info", "final_obs")
    )
    assert kind == "changed"
    assert "default is now NEXT_STEP" in why and 'under "final_obs"' in why
    assert "final_info" not in why  # that key holds the info dict, not the observation
    kind, why = lesson_verdict("SAME_STEP", ("final_obs",))
    assert kind == "changed" and "default is now" not in why and 'under "final_obs"' in why
    kind, why = lesson_verdict("NEXT_STEP", ("final_observation",))
    assert kind == "changed" and "default is now NEXT_STEP" in why and "SAME_STEP" not in why
    kind, _ = lesson_verdict("SAME_STEP", ("_final_observation", "final_observation"))
    assert kind == "holds"


def test_the_installed_gymnasium_gets_the_changed_verdict():
    kind, why = lesson_verdict(default_autoreset_mode(), same_step_end_keys())
    assert kind == "changed" and "final_obs" in why


def test_mode_captions_mark_the_live_default():
    captions = mode_captions(default_autoreset_mode())
    assert len(captions) == len(PAGE_MODES)
    assert captions[PAGE_MODES.index(default_autoreset_mode())].startswith("the default here")
    assert sum(c.startswith("the default here") for c in captions) == 1
    assert not any(c.startswith("the default") for c in mode_captions("none of them"))


def test_takeaways_follow_what_was_seen():
    keys = ("_final_obs", "final_info", "final_obs")
    seen = takeaway_bullets("NEXT_STEP", ENDS_AS_IN_NEXT_STEP, keys)
    assert 3 <= len(seen) <= 5
    assert seen[1].startswith("NEXT_STEP (the default): the ending call returns the **final**")
    assert '`infos["final_obs"]`, not `infos["final_observation"]`' in seen[2]
    assert "final_info" not in seen[2]
    other = takeaway_bullets("SAME_STEP", ENDS_AS_IN_THE_LESSON, ("final_observation",))
    assert other[1] == "Your gymnasium's default auto-reset mode is SAME_STEP."
    assert other[2] == 'SAME_STEP: the final observation is in `infos["final_observation"]`.'
    assert not any("DISABLED" in b for b in seen + other)
