"""The "Auto-reset" page's prediction: what the ending call and the next call return in NEXT_STEP.

The answer is read from a live run: every episode end that has a call after it is sorted
into one of the `OPTIONS` by what the two calls really returned.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from burgerbot.app.views.autoreset import OBS_COLUMNS, START_OBS, obs_text

__all__ = [
    "ENDS_AS_IN_NEXT_STEP",
    "ENDS_AS_IN_THE_LESSON",
    "ENDS_WITH_A_HIDDEN_RESET",
    "ENDS_WITH_NOTHING",
    "OPTIONS",
    "EndingCalls",
    "ending_calls",
    "prediction_explanation",
    "question",
]

_START = obs_text(START_OBS)

ENDS_AS_IN_NEXT_STEP = f"end: final obs, real reward · next: {_START}, reward 0.0"
ENDS_AS_IN_THE_LESSON = f"end: {_START}, real reward · next: a normal step"
ENDS_WITH_A_HIDDEN_RESET = "end: final obs, real reward · next: a normal step"
ENDS_WITH_NOTHING = f"end: {_START}, reward 0.0 · next: a normal step"
OPTIONS = (ENDS_AS_IN_THE_LESSON, ENDS_AS_IN_NEXT_STEP, ENDS_WITH_A_HIDDEN_RESET, ENDS_WITH_NOTHING)
"""The answers offered, in the order shown."""


def question(default_mode: str) -> str:
    """The question, saying whether NEXT_STEP is the installed gymnasium's default mode."""
    default = " (your gymnasium's default)" if default_mode == "NEXT_STEP" else ""
    return (
        f"In **NEXT_STEP** mode{default}, a robot's episode ends on some `step()` call, say "
        "with a hit (reward -10). What do `obs[i]` and `rewards[i]` hold for that robot on the "
        "ending call (**end**), and on the **next** call? (A normal step uses the action.)"
    )


@dataclass(frozen=True)
class EndingCalls:
    """What the ending call and the next call returned, over every episode end of a run.

    Only ends with a call after them (same env) count. ``by_option`` maps each option of
    `OPTIONS` to how many ends looked like it.
    """

    by_option: dict[str, int]
    example: dict[str, object] | None
    """The first end: env, step, final obs, reward, the next call's action, obs and reward."""
    next_actions: tuple[int, ...]
    """The distinct actions sent on the calls after an end (sorted)."""

    @property
    def ends(self) -> int:
        return sum(self.by_option.values())

    @property
    def truth(self) -> str | None:
        """The option every end agreed on; None if no end had a call after it, or they differ."""
        seen = [option for option, count in self.by_option.items() if count]
        return seen[0] if len(seen) == 1 else None


def _option(start_on_end: bool, zero_on_end: bool, reset_next: bool) -> str:
    if start_on_end:
        return ENDS_WITH_NOTHING if zero_on_end else ENDS_AS_IN_THE_LESSON
    return ENDS_AS_IN_NEXT_STEP if reset_next else ENDS_WITH_A_HIDDEN_RESET


def ending_calls(frame: pd.DataFrame) -> EndingCalls:
    """Sort every episode end of a ``rollout`` frame into one of `OPTIONS`, from its values.

    An ending call "returns the start" when its ``obs`` is ``[0, 0, 1, 1]``; its reward is
    "real" when it is not 0.0 (BurgerBot never gives 0.0 for a step of an episode). The next
    call "is a reset" when it returns the start, reward 0.0 and both flags False.

    Example:
        >>> from burgerbot.experiments import rollout
        >>> ending_calls(rollout("native", 2, 12, seed=0)).truth  # no end has a call after it
        >>> ending_calls(rollout("native", 2, 20, seed=0)).truth == ENDS_AS_IN_NEXT_STEP
        True
    """
    if frame.empty:
        return EndingCalls({option: 0 for option in OPTIONS}, None, ())
    num_envs = int(frame["env"].max()) + 1
    obs = frame[list(OBS_COLUMNS)].to_numpy()
    rewards = frame["reward"].to_numpy()
    flags = (frame["terminated"] | frame["truncated"]).to_numpy()
    # Rows go step by step, env by env: the same env's next call is num_envs rows on.
    ends = np.flatnonzero(flags[: len(frame) - num_envs])
    after = ends + num_envs
    is_start = (obs == np.asarray(START_OBS)).all(axis=1)
    start_on_end, zero_on_end = is_start[ends], rewards[ends] == 0.0
    reset_next = is_start[after] & (rewards[after] == 0.0) & ~flags[after]
    counts = Counter(
        _option(bool(s), bool(z), bool(r))
        for s, z, r in zip(start_on_end, zero_on_end, reset_next, strict=True)
    )
    example = None
    if len(ends):
        first, next_row = int(ends[0]), int(after[0])
        example = {
            "env": int(frame["env"].iat[first]),
            "step": int(frame["step"].iat[first]),
            "obs": obs_text(obs[first]),
            "reward": float(rewards[first]),
            "next action": int(frame["action"].iat[next_row]),
            "next obs": obs_text(obs[next_row]),
            "next reward": float(rewards[next_row]),
        }
    actions = tuple(sorted({int(a) for a in frame["action"].to_numpy()[after]}))
    return EndingCalls({option: counts.get(option, 0) for option in OPTIONS}, example, actions)


def prediction_explanation(calls: EndingCalls, run_mode: str) -> str:
    """What the NEXT_STEP run showed, in words that follow its numbers.

    ``run_mode`` is the mode of the timeline above (the NEXT_STEP run is a separate one
    when it is not NEXT_STEP).
    """
    if calls.example is None:
        return "No episode ended with a call after it in this run: try more steps."
    ex = calls.example
    where = (
        "the timeline above"
        if run_mode == "NEXT_STEP"
        else "a NEXT_STEP run with your settings (switch the mode to NEXT_STEP to see it above)"
    )
    counted = (
        f"all {calls.ends:,} episode ends"
        if calls.truth is not None
        else f"{calls.ends:,} episode ends, which did not all agree"
    )
    text = (
        f"Read from {where}: {counted} with a call after them. For example env {ex['env']} "
        f"ended at step {ex['step']} with obs {ex['obs']} and reward {ex['reward']}; at step "
        f"{ex['step'] + 1} it was sent action {ex['next action']} and returned obs "
        f"{ex['next obs']} with reward {ex['next reward']}."
    )
    if calls.truth == ENDS_AS_IN_NEXT_STEP:
        moving = [a for a in calls.next_actions if a != 3]  # 3 (stop) would not move it anyway
        text += (
            " So the ending call hands you the episode's **final** observation, and the next "
            "call is spent on the reset"
            + (
                f": actions {', '.join(map(str, moving))} were sent on such calls and none "
                "moved the robot."
                if moving
                else "."
            )
            + " That call is not a step of any episode: keep it out of your "
            "[training data](training_data)."
        )
    return text
