"""The "Auto-reset" page's sentences that depend on a run: each one follows the numbers given.

Pure functions (no Streamlit): the mode captions, the lesson's verdict, what the counting run
shows, and the key takeaways.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from burgerbot.app.views.autoreset import MODES, START_OBS, obs_text
from burgerbot.app.views.autoreset_prediction import ENDS_AS_IN_NEXT_STEP

__all__ = [
    "causes_sentence",
    "counting_sentence",
    "lesson_verdict",
    "mode_captions",
    "takeaway_bullets",
]

_START = obs_text(START_OBS)


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def mode_captions(default_mode: str) -> list[str]:
    """One caption per mode of `MODES`; the installed default (read live) is marked so.

    Example:
        >>> mode_captions("NEXT_STEP")[0]
        'the default here: restarts on the next call'
    """
    what = {
        "NEXT_STEP": "restarts on the next call",
        "SAME_STEP": "restarts inside the ending call (the lesson)",
        "DISABLED": "never restarts by itself: you reset it",
    }
    return [(f"the default here: {what[m]}" if m == default_mode else what[m]) for m in MODES]


def _observation_keys(keys: Sequence[str]) -> list[str]:
    """The ``infos`` keys that hold observations (not their ``_`` masks, not ``final_info``)."""
    return [key for key in keys if "obs" in key and not key.startswith("_")]


def lesson_verdict(default_mode: str, same_step_keys: Sequence[str]) -> tuple[str, str]:
    """The verdict kind (a key of ``labels.VERDICTS``) on the lesson's auto-reset claim, and why.

    The lesson (gymnasium 0.29): the ending call already returns the next episode's first
    observation, and the final one is in ``infos["final_observation"]``. Both parts are
    judged from what the installed gymnasium did: its default mode, and the ``infos`` keys
    of an episode end in SAME_STEP mode.

    Example:
        >>> lesson_verdict("NEXT_STEP", ["_final_obs", "final_info", "final_obs"])[1][-54:]
        'in `infos` under "final_obs", not "final_observation".'
        >>> lesson_verdict("SAME_STEP", ["final_observation"])[0]
        'holds'
    """
    changes = []
    if default_mode != "SAME_STEP":
        changes.append(
            f"the default is now {default_mode}, whose ending call returns the final "
            "observation, not the next start"
        )
    if "final_observation" not in same_step_keys:
        found = ", ".join(f'"{key}"' for key in _observation_keys(same_step_keys))
        changes.append(
            "SAME_STEP has the lesson's timing, but the final observation is in "
            + (f"`infos` under {found}" if found else "no `infos` key")
            + ', not "final_observation"'
        )
    if not changes:
        return "holds", (
            "The installed gymnasium behaves as the lesson says: SAME_STEP by default, with "
            '`infos["final_observation"]`.'
        )
    return "changed", "Changed since gymnasium 1.0: " + "; and ".join(changes) + "."


def _totals(counts: pd.DataFrame) -> pd.DataFrame:
    return counts.groupby("mode", sort=False)[
        ["finished episodes", "goals", "hits", "truncations"]
    ].sum()


def counting_sentence(counts: pd.DataFrame, count_steps: int) -> str:
    """What the counting run shows: NEXT_STEP against SAME_STEP, and DISABLED against SAME_STEP.

    ``counts`` is ``count_finished_by_mode``'s long frame (one row per mode and env). The
    comparison follows the totals both ways, and says in how many envs it held.

    Example:
        >>> counts = pd.DataFrame({
        ...     "mode": ["NEXT_STEP"] * 2 + ["SAME_STEP"] * 2 + ["DISABLED"] * 2,
        ...     "env": [0, 1] * 3, "finished episodes": [20, 25, 19, 18, 19, 18],
        ...     "goals": [0] * 6, "hits": [20, 25, 19, 18, 19, 18], "truncations": [0] * 6})
        >>> counting_sentence(counts, 200).split(". ")[1][:58]
        'This time NEXT_STEP finished **more** episodes than SAME_S'
    """
    totals = _totals(counts)["finished episodes"]
    nxt, same, disabled = (int(totals[m]) for m in ("NEXT_STEP", "SAME_STEP", "DISABLED"))
    per_env = counts.pivot(index="env", columns="mode", values="finished episodes")
    num_envs = len(per_env)
    fewer_envs = int((per_env["NEXT_STEP"] < per_env["SAME_STEP"]).sum())
    text = (
        f"In {count_steps:,} calls, NEXT_STEP finished **{nxt:,}** episodes in total, "
        f"SAME_STEP **{same:,}** and DISABLED **{disabled:,}**. "
    )
    envs = f"in {fewer_envs} of {_plural(num_envs, 'env')}"
    if nxt < same:
        text += (
            f"This time NEXT_STEP finished **fewer** episodes than SAME_STEP (fewer {envs}): it "
            "spends a call on every reset. A tendency, not a rule: after a reset the same "
            "random actions fall on other moments of the episode, so with other seeds it can "
            "finish as many or more. "
        )
    else:
        word = "as many" if nxt == same else "**more**"
        text += (
            f"This time NEXT_STEP finished {word} episodes {'as' if nxt == same else 'than'} "
            f"SAME_STEP (fewer {envs}), although it spends a call on every reset: after a reset "
            "the same random actions fall on other moments of the episode, and here its "
            "episodes were shorter by luck. "
        )
    if per_env["DISABLED"].equals(per_env["SAME_STEP"]):
        text += "DISABLED, reset by hand after each end, matched SAME_STEP in every env."
    else:
        text += (
            f"DISABLED, reset by hand after each end, finished {disabled:,} against "
            f"SAME_STEP's {same:,}: not the same episodes."
        )
    return text


def causes_sentence(counts: pd.DataFrame) -> str:
    """How the counting run's episodes ended (goal, hit, step limit), in every mode together.

    Example:
        >>> counts = pd.DataFrame({"mode": ["NEXT_STEP"], "env": [0], "finished episodes": [3],
        ...     "goals": [0], "hits": [3], "truncations": [0]})
        >>> causes_sentence(counts)[:40]
        'No goals: a robot moving at random almos'
    """
    totals = _totals(counts).sum()
    goals, hits, cut = (int(totals[c]) for c in ("goals", "hits", "truncations"))
    limit = f" and {_plural(cut, 'episode')} cut off at the step limit" if cut else ""
    if goals == 0:
        return (
            "No goals: a robot moving at random almost never finds its way to the burger. "
            f"Over the three modes: {_plural(hits, 'hit')}{limit}."
        )
    return (
        f"Over the three modes: {_plural(goals, 'goal')} (reward 50.0), "
        f"{_plural(hits, 'hit')}{limit}."
    )


def takeaway_bullets(
    default_mode: str, next_step_truth: str | None, same_step_keys: Sequence[str], error: str
) -> list[str]:
    """The page's key takeaways, each from what the installed gymnasium did.

    Args:
        default_mode: The mode a new ``SyncVectorEnv`` gets.
        next_step_truth: ``EndingCalls.truth`` of a NEXT_STEP run (None: not seen).
        same_step_keys: The ``infos`` keys of an episode end in SAME_STEP mode.
        error: What stepping an ended env raised in DISABLED mode (``"AssertionError: ..."``),
            or "" if it was not seen.
    """
    bullets = []
    if next_step_truth == ENDS_AS_IN_NEXT_STEP:
        default = " (the default)" if default_mode == "NEXT_STEP" else ""
        bullets.append(
            f"NEXT_STEP{default}: the ending call returns the **final** observation and real "
            f"reward; the next call only resets (obs {_START}, reward 0.0)."
        )
    else:
        bullets.append(f"Your gymnasium's default auto-reset mode is {default_mode}.")
    public = _observation_keys(same_step_keys)
    if "final_observation" in same_step_keys:
        bullets.append('SAME_STEP: the final observation is in `infos["final_observation"]`.')
    else:
        keys = " and ".join(f'`infos["{k}"]`' for k in public) or "no `infos` key"
        bullets.append(
            f"SAME_STEP gives the lesson's timing, but the final observation is in {keys}, "
            'not `infos["final_observation"]`.'
        )
    raised = error.split(":")[0] if error else ""
    bullets.append(
        'DISABLED: call `envs.reset(options={"reset_mask": ended})` before the next step, '
        + (f"or `step()` raises {raised}." if raised else "or stepping an ended env fails.")
    )
    bullets.append(
        "`terminated | truncated` counts finished episodes in every mode; in NEXT_STEP, keep "
        "the reset calls out of your [training data](training_data)."
    )
    return bullets
