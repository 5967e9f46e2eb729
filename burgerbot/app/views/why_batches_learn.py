"""The "Why batches help" page's prediction and key takeaways, computed from its runs."""

from __future__ import annotations

import math

import pandas as pd

from burgerbot.app.views.why_batches_reading import needed_env_steps

__all__ = [
    "calls_explanation",
    "calls_options",
    "calls_pid",
    "calls_question",
    "calls_truth",
    "takeaways",
]


def calls_pid(batch_size: int, num_envs: int) -> str:
    """The prediction's id: a new question for each (batch, NUM_ENVS), so a locked answer
    always belongs to the numbers it was given for.

    >>> calls_pid(2048, 4)
    'why_batches_calls_2048_4'
    """
    return f"why_batches_calls_{batch_size}_{num_envs}"


def calls_question(batch_size: int, num_envs: int) -> str:
    return (
        f"PPO wants **{batch_size:,} transitions** per update. With **{num_envs} env"
        f"{'s' if num_envs != 1 else ''}**, how many `step()` calls fill the batch?"
    )


def calls_options(batch_size: int, num_envs: int) -> list[str]:
    """Four answers, smallest first: the right one (batch ÷ N, rounded up) and likely slips.

    Example:
        >>> calls_options(2048, 4)
        ['4', '512', '2,048', '8,192']
        >>> calls_options(2048, 1)
        ['1', '1,024', '2,048', '4,096']
    """
    right = math.ceil(batch_size / num_envs)
    candidates = [right, batch_size, batch_size * num_envs, num_envs, batch_size // 2]
    candidates += [2 * batch_size, right + 1]
    distinct = list(dict.fromkeys(c for c in candidates if c >= 1))[:4]
    return [f"{c:,}" for c in sorted(distinct)]


def calls_truth(rollout: pd.DataFrame) -> str:
    """The ``step()`` calls the live run made to fill its batch (its last ``step`` number)."""
    return f"{int(rollout['step'].max()):,}"


def calls_explanation(batch_size: int, num_envs: int, calls: int) -> str:
    """Why the live run needed ``calls`` step() calls."""
    text = (
        f"Each `step()` call returns one transition per env, {num_envs} per call, so "
        f"{batch_size:,} transitions take ⌈{batch_size:,} ÷ {num_envs}⌉ = {calls:,} calls."
    )
    if calls * num_envs != batch_size:
        text += f" The last call overshoots: {calls * num_envs - batch_size:,} extra."
    return text


def takeaways(
    batch_size: int,
    num_envs: int,
    calls: int,
    resets: int | None,
    summary: pd.DataFrame | None = None,
    per_run: pd.DataFrame | None = None,
) -> list[str]:
    """The page's key takeaways; those about the runs are computed from them.

    ``resets`` is the NEXT_STEP reset steps of the batch (None in SAME_STEP mode);
    ``summary`` and ``per_run`` the training results, if the learner trained.
    """
    bullets = [
        f"N envs fill a batch of B transitions in ⌈B ÷ N⌉ `step()` calls: {batch_size:,} with "
        f"{num_envs} env{'s' if num_envs != 1 else ''} took {calls:,}.",
        "Stable-Baselines3's `n_steps` counts calls *per env*: a rollout holds "
        "`n_steps × n_envs` transitions.",
    ]
    if resets is not None:
        bullets.append(
            f"In NEXT_STEP mode the call after an episode ends only resets that env: "
            f"{resets:,} rows of this batch are not transitions, and the update must mask them."
        )
    else:
        bullets.append("SAME_STEP mode (like SB3's own vector envs) leaves no reset rows.")
    bullets.append(
        "Batching shares each call's fixed cost (Python, numpy, a policy's forward pass) "
        "over N transitions: that is what it buys."
    )
    learned = None if summary is None else summary[summary["reached"] > 0]
    if learned is not None and per_run is not None and len(learned) >= 2:
        small, large = int(learned["num_envs"].iloc[0]), int(learned["num_envs"].iloc[-1])
        a, b = needed_env_steps(per_run, small), needed_env_steps(per_run, large)
        medians = float(learned["env_steps"].iloc[-1]), float(learned["env_steps"].iloc[0])
        if max(b) < min(a):
            bullets.append(
                f"In your run every seed of NUM_ENVS={large} needed fewer env-steps than every "
                f"seed of NUM_ENVS={small}; with few seeds, train with more before calling it "
                "a rule."
            )
        elif max(a) < min(b):
            bullets.append(
                f"In your run every seed of NUM_ENVS={large} needed more env-steps than every "
                f"seed of NUM_ENVS={small}: batching bought env-steps per second, not "
                "learning per env-step."
            )
        else:
            bullets.append(
                f"In your run the env-steps needed overlapped from seed to seed (medians "
                f"{medians[0]:,.0f} for NUM_ENVS={large}, {medians[1]:,.0f} for {small}): more "
                "envs did not clearly save or cost transitions."
            )
    return bullets
