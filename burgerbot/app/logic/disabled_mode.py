"""The "DISABLED mode" page's Streamlit-free logic: an ended robot stepped again, the error,
and the fix with ``reset(options={"reset_mask": ...})``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.settings import IntSetting, parse_values
from burgerbot.checks import MAX_SEED
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import random_actions, rollout
from burgerbot.factories import burgerbot_factory
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "COUNT_STEPS",
    "OPTIONS",
    "RAISES",
    "SPECS",
    "START_OBS",
    "DisabledDemo",
    "by_hand_sentence",
    "disabled_demo",
    "disabled_demo_table",
    "envs_text",
    "finished_by_hand_and_same_step",
    "masked_reset_sentence",
    "obs_text",
    "prediction_truth",
    "resolve_settings",
    "takeaway_bullets",
]

SPECS = (
    IntSetting("n", "NUM_ENVS", 4, 1, min(16, CAPS.max_envs)),
    IntSetting("seed", "Seed", 0, 0, MAX_SEED),
)

START_OBS = world.START_OBSERVATION
"""Every BurgerBot episode starts with this observation: [0, 0, 1, 1]."""


def resolve_settings(values: Mapping[str, Any]) -> tuple[dict[str, int], list[str]]:
    """The page's settings (``n``, ``seed``) from its widgets' or URL's values, with notes.

    Example:
        >>> resolve_settings({"n": "99", "seed": "3"})[0]
        {'n': 16, 'seed': 3}
    """
    return parse_values(SPECS, values)


def envs_text(envs: tuple[int, ...]) -> str:
    """'env 0', 'envs 0, 2'.

    >>> envs_text((0,)), envs_text((0, 2))
    ('env 0', 'envs 0, 2')
    """
    return ("envs " if len(envs) > 1 else "env ") + ", ".join(str(i) for i in envs)


def masked_reset_sentence(demo: DisabledDemo) -> str:
    """What the masked reset did, from the observations before and after it: which envs went
    back to the start, and whether the others (when there are any) kept their place."""
    if demo.obs_after_reset is None:
        return ""
    after, before = np.asarray(demo.obs_after_reset), np.asarray(demo.obs_at_end)
    back = tuple(i for i in range(demo.num_envs) if np.array_equal(after[i], START_OBS))
    others = tuple(i for i in range(demo.num_envs) if i not in demo.ended)
    kept = all(np.array_equal(after[i], before[i]) for i in others)
    start = f"`{obs_text(START_OBS)}`"
    text = f"After the masked reset, step {demo.end_step + 1} worked. "
    if not others:  # one env, or every env ended on the same step
        return text + f"{envs_text(back).capitalize()} went back to {start}."
    text += f"Only {envs_text(back)} went back to {start}; "
    if not kept:
        return text + "some of the others moved too."
    return text + ("the other kept its place." if len(others) == 1 else "the others kept theirs.")


def obs_text(values: Any) -> str:
    """An observation as learners see it printed: ``[0, 2, 1, 0]``.

    Example:
        >>> obs_text(START_OBS)
        '[0, 0, 1, 1]'
    """
    return "[" + ", ".join(str(int(v)) for v in values) + "]"


@dataclass(frozen=True)
class DisabledDemo:
    """A live DISABLED-mode run: an episode ends, the next step fails, reset_mask fixes it."""

    num_envs: int
    seed: int
    end_step: int
    """The step on which the first episode(s) ended (0 if none ended within the budget)."""
    ended: tuple[int, ...]
    obs_at_end: np.ndarray
    sync_error: str | None
    """``"AssertionError: ..."`` from SyncVectorEnv over BurgerBotEnv (None: no error)."""
    stepped_before_error: tuple[int, ...]
    """Envs that SyncVectorEnv had already stepped when its check failed (measured)."""
    native_error: str | None
    """The same step on ``BurgerBotVectorEnv`` (its message says what to do)."""
    native_stepped_before_error: bool
    """Whether BurgerBotVectorEnv's robots moved in its failed call (they should not)."""
    obs_after_reset: np.ndarray | None
    step_after_fix: dict[str, np.ndarray] | None
    """obs, rewards, terminated, truncated of the step after the fix."""


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _disabled_sync(num_envs: int) -> SyncVectorEnv:
    return SyncVectorEnv(
        [burgerbot_factory() for _ in range(num_envs)], autoreset_mode=AutoresetMode.DISABLED
    )


def _episode_steps(envs: SyncVectorEnv) -> list[int]:
    """Each BurgerBot's step count in its current episode (it grows on every real step)."""
    # `burgerbot_factory`'s envs: each unwraps to a BurgerBotEnv.
    return [cast(BurgerBotEnv, env.unwrapped)._steps for env in envs.envs]


def _try_step(envs: Any, actions: np.ndarray) -> str | None:
    try:
        envs.step(actions)
    except Exception as exc:  # the point of the demo: show what is raised
        return _error_text(exc)
    return None


def disabled_demo(
    num_envs: int, seed: int, max_calls: int = CAPS.max_steps_per_run
) -> DisabledDemo:
    """Step the page's random actions in DISABLED mode until an episode ends, then go on.

    The step after the end is tried, without a reset, on ``SyncVectorEnv`` (over
    ``BurgerBotEnv``) and on ``BurgerBotVectorEnv``; both raise. SyncVectorEnv checks
    env by env, so the envs before the ended one have already taken that step when it
    raises: the demo measures which. The fix then runs on a fresh SyncVectorEnv with the
    same actions: ``reset(options={"reset_mask": ended})`` right after the end, then the
    next step.
    """
    actions = np.concatenate(list(random_actions(seed, num_envs, max_calls + 1)))
    sync, native, fixed = _disabled_sync(num_envs), None, None
    try:
        native = BurgerBotVectorEnv(num_envs, autoreset_mode=AutoresetMode.DISABLED)
        sync.reset(seed=seed)
        native.reset(seed=seed)
        end_step = 0
        for t in range(1, max_calls + 1):
            obs, _, terminated, truncated, _ = sync.step(actions[t - 1])
            native.step(actions[t - 1])
            ended = terminated | truncated
            if ended.any():
                end_step = t
                break
        if end_step == 0:
            return DisabledDemo(num_envs, seed, 0, (), obs, None, (), None, False, None, None)
        retry = actions[end_step]

        before = _episode_steps(sync)
        sync_error = _try_step(sync, retry)
        after = _episode_steps(sync)
        stepped = tuple(i for i in range(num_envs) if after[i] != before[i])
        robots = native.robots.copy()
        native_error = _try_step(native, retry)
        native_moved = not np.array_equal(robots, native.robots)

        # The failed call changed some of `sync`'s envs: show the fix on a clean replay.
        fixed = _disabled_sync(num_envs)
        fixed.reset(seed=seed)
        for t in range(1, end_step + 1):
            fixed.step(actions[t - 1])
        obs_after, _ = fixed.reset(options={"reset_mask": ended})
        obs_next, rewards, terminated_next, truncated_next, _ = fixed.step(retry)
        return DisabledDemo(
            num_envs=num_envs,
            seed=seed,
            end_step=end_step,
            ended=tuple(int(i) for i in np.flatnonzero(ended)),
            obs_at_end=obs.copy(),
            sync_error=sync_error,
            stepped_before_error=stepped,
            native_error=native_error,
            native_stepped_before_error=native_moved,
            obs_after_reset=obs_after.copy(),
            step_after_fix={
                "obs": obs_next.copy(),
                "rewards": rewards.copy(),
                "terminated": terminated_next.copy(),
                "truncated": truncated_next.copy(),
            },
        )
    finally:
        for envs in (sync, native, fixed):
            if envs is not None:
                envs.close()


def disabled_demo_table(demo: DisabledDemo) -> pd.DataFrame:
    """Per env: obs at the end step, in the mask?, obs from the masked reset, the retried step."""
    if demo.obs_after_reset is None or demo.step_after_fix is None:
        return pd.DataFrame()
    fix = demo.step_after_fix
    return pd.DataFrame(
        {
            "env": range(demo.num_envs),
            f"obs after step {demo.end_step}": [obs_text(v) for v in demo.obs_at_end],
            "in reset_mask": [i in demo.ended for i in range(demo.num_envs)],
            "obs returned by reset(reset_mask)": [obs_text(v) for v in demo.obs_after_reset],
            f"step {demo.end_step + 1} obs": [obs_text(v) for v in fix["obs"]],
            f"step {demo.end_step + 1} reward": fix["rewards"],
        }
    )


# --- The prediction: what stepping an ended robot again does ------------------------------

RAISES = "step() raises an error"
RESTARTS = "the ended robot restarts by itself"
STAYS = "the ended robot stays put and returns its final observation again"
MOVES_ON = "the ended robot moves on from where its episode ended"
OPTIONS = (RESTARTS, STAYS, MOVES_ON, RAISES)
"""The answers offered, in the order shown."""


def prediction_truth(demo: DisabledDemo) -> str | None:
    """What the live demo saw when it stepped an ended robot again; None if none ended.

    Example:
        >>> prediction_truth(disabled_demo(2, 0)) == RAISES
        True
    """
    if demo.end_step == 0:
        return None
    return RAISES if demo.sync_error else MOVES_ON


def takeaway_bullets(demo: DisabledDemo) -> list[str]:
    """The page's key takeaways, each from what the live demo did."""
    raised = (demo.sync_error or "").split(":")[0]
    bullets = [
        "DISABLED: no sub-environment restarts by itself; you reset the ones that ended.",
        'Call `envs.reset(options={"reset_mask": ended})` before the next `step()`, '
        + (f"or `step()` raises {raised}." if raised else "or stepping an ended env fails."),
        "A masked reset returns the start observation for the masked envs and leaves the "
        "others where they are.",
    ]
    if demo.stepped_before_error:
        bullets.append(
            "SyncVectorEnv steps the envs before the ended one before it raises: after such an "
            "error, reset every env rather than go on."
        )
    return bullets


# --- Reset by hand against SAME_STEP: the lesson's count --------------------------------------

COUNT_STEPS = 200
"""The lesson's example: 200 random steps."""


def finished_by_hand_and_same_step(num_envs: int, seed: int, steps: int = COUNT_STEPS):
    """Finished episodes per env in DISABLED mode (reset by hand with a mask right after each
    end, as ``experiments.rollout`` does) and in SAME_STEP mode, with the same actions.

    Example:
        >>> table = finished_by_hand_and_same_step(2, 0)
        >>> list(table.columns)
        ['env', 'DISABLED (reset by hand)', 'SAME_STEP']
    """
    counts = {}
    for mode in (AutoresetMode.DISABLED, AutoresetMode.SAME_STEP):
        frame = rollout("native", num_envs, steps, seed, mode)
        ended = frame["terminated"] | frame["truncated"]
        per_env = ended.groupby(frame["env"]).sum().reindex(range(num_envs), fill_value=0)
        counts[mode] = per_env.astype(int).tolist()
    return pd.DataFrame(
        {
            "env": range(num_envs),
            "DISABLED (reset by hand)": counts[AutoresetMode.DISABLED],
            "SAME_STEP": counts[AutoresetMode.SAME_STEP],
        }
    )


def by_hand_sentence(table: pd.DataFrame, steps: int = COUNT_STEPS) -> str:
    """What the count shows: whether resetting by hand finished the same episodes as SAME_STEP.

    Example:
        >>> by_hand_sentence(pd.DataFrame({"env": [0], "DISABLED (reset by hand)": [3],
        ...                                "SAME_STEP": [3]}))[:43]
        'In 200 calls, resetting by hand right after'
    """
    by_hand, same = table["DISABLED (reset by hand)"], table["SAME_STEP"]
    if by_hand.equals(same):
        return (
            f"In {steps:,} calls, resetting by hand right after each end finished the very same "
            f"episodes as SAME_STEP in every env ({int(same.sum()):,} in all): no call is "
            "spent on a reset, as in SAME_STEP."
        )
    return (
        f"In {steps:,} calls, resetting by hand finished {int(by_hand.sum()):,} episodes "
        f"against SAME_STEP's {int(same.sum()):,}: not the same episodes."
    )
