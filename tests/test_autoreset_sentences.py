"""Auto-reset: every sentence that depends on a run follows its numbers, fed data each way."""

from __future__ import annotations

from burgerbot.app.logic.autoreset import (
    ENDS_AS_IN_NEXT_STEP,
    ENDS_AS_IN_THE_LESSON,
    default_autoreset_mode,
    lesson_verdict,
    same_step_end_keys,
    takeaway_bullets,
)


def test_the_lesson_verdict_follows_what_gymnasium_did():
    kind, why = lesson_verdict(
        "NEXT_STEP", ("_final_info", "_final_obs", "final_info", "final_obs")
    )
    assert kind == "changed"
    assert "default is now NEXT_STEP" in why and '`infos["final_obs"]`' in why
    assert "final_info" not in why  # that key holds the info dict, not the observation
    kind, why = lesson_verdict("SAME_STEP", ("final_obs",))
    assert kind == "changed" and "default is now" not in why and '`infos["final_obs"]`' in why
    kind, why = lesson_verdict("NEXT_STEP", ("final_observation",))
    assert kind == "changed" and "default is now NEXT_STEP" in why and "SAME_STEP" not in why
    kind, _ = lesson_verdict("SAME_STEP", ("_final_observation", "final_observation"))
    assert kind == "holds"


def test_the_installed_gymnasium_gets_the_changed_verdict():
    kind, why = lesson_verdict(default_autoreset_mode(), same_step_end_keys())
    assert kind == "changed" and "final_obs" in why


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
