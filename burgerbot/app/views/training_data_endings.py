"""Termination vs truncation on the "From batches to training data" page, from the live buffer.

For every row that ends an episode: where its final observation is, the right TD target and
the two wrong ones learners write (bootstrapping after termination too; bootstrapping from the
observation ``step()`` returned, which SAME_STEP has already replaced by the next start).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from burgerbot.app.views.training_data import START_VALUE, TrainingRun, fmt, obs_text, plural
from burgerbot.targets import GAMMA, distance_value, td_targets

__all__ = ["WHERE_FINAL", "Endings", "endings", "endings_sentence"]

WHERE_FINAL = {
    "NEXT_STEP": "`obs[i]` returned by the ending call",
    "SAME_STEP": '`infos["final_obs"][i]` (`obs[i]` is already the next start)',
}
"""Where each mode puts an ending row's final observation."""

RIGHT = "right target"
ON_TERMINATION = "bootstrap after termination"
FROM_RETURNED = "bootstrap from obs returned"


@dataclass(frozen=True)
class Endings:
    """The ending rows of one run, as a table, and the counts the sentences use."""

    table: pd.DataFrame
    """One row per episode end; the two "bootstrap ..." columns hold the wrong targets."""
    terminated: int
    truncated: int
    both: int
    wrong_after_termination: int
    """Ends where bootstrapping after termination changes the target."""
    wrong_from_returned: int
    """Ends where bootstrapping from the returned observation changes the target."""


def endings(run: TrainingRun) -> Endings:
    """Every episode end in the buffer with its right and wrong TD targets."""
    buffer = run.buffer
    ended = buffer.ended
    where = np.argwhere(ended)
    rewards = buffer.rewards[ended]
    terminated = buffer.terminated[ended]
    truncated = buffer.truncated[ended]
    final = buffer.next_obs[ended]
    returned = buffer.returned_obs[ended]
    right = td_targets(rewards, terminated, final)
    after_termination = td_targets(rewards, np.zeros_like(terminated), final)
    from_returned = td_targets(rewards, terminated, returned)
    how = np.where(terminated & truncated, "both", np.where(terminated, "terminated", "truncated"))
    table = pd.DataFrame(
        {
            "step() call": where[:, 0] + 1,
            "env": where[:, 1],
            "ended by": how,
            "reward": rewards,
            "final obs": [obs_text(o) for o in final],
            "obs returned": [obs_text(o) for o in returned],
            "V(final obs)": distance_value(final),
            RIGHT: right.round(4),
            ON_TERMINATION: after_termination.round(4),
            FROM_RETURNED: from_returned.round(4),
        }
    )
    return Endings(
        table=table,
        terminated=int((terminated & ~truncated).sum()),
        truncated=int((truncated & ~terminated).sum()),
        both=int((terminated & truncated).sum()),
        wrong_after_termination=int((~np.isclose(after_termination, right)).sum()),
        wrong_from_returned=int((~np.isclose(from_returned, right)).sum()),
    )


def endings_sentence(run: TrainingRun, result: Endings) -> str:
    """What the two mistakes would have changed in this buffer, from its numbers."""
    total = result.terminated + result.truncated + result.both
    if total == 0:
        return (
            "No episode ended in this buffer, so there is nothing to bootstrap: try more "
            "`step()` calls or a smaller max_steps."
        )
    parts = [
        f"This buffer holds {plural(total, 'episode end')}: {result.terminated} terminated, "
        f"{result.truncated} truncated"
        + (f", {result.both} both at once (terminated wins: no bootstrap)" if result.both else "")
        + "."
    ]
    parts.append(
        f"Bootstrapping after termination too would change {result.wrong_after_termination} "
        f"of them (adding {GAMMA} × V(final obs) where nothing follows)."
    )
    if run.settings.mode == "NEXT_STEP":
        parts.append(
            "Bootstrapping from the returned `obs` changes "
            + (str(result.wrong_from_returned) if result.wrong_from_returned else "none")
            + ": in NEXT_STEP mode it *is* the final observation."
        )
    elif result.wrong_from_returned:
        parts.append(
            f"Bootstrapping from the returned `obs` would change {result.wrong_from_returned}: "
            "on those truncated rows it is already the next episode's start "
            f"(V = {fmt(START_VALUE)}), not the final observation."
        )
    else:
        parts.append(
            "Bootstrapping from the returned `obs` changes none here: SAME_STEP returns the "
            "next start there, but no truncated row of this buffer bootstraps from it "
            "(terminated rows do not bootstrap). Other seeds show the difference."
        )
    return " ".join(parts)
