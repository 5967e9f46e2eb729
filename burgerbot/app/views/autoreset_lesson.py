"""The "Auto-reset" page's comparison: one episode end in gymnasium 0.29 and today."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot.app.views.autoreset import OBS_COLUMNS, START_OBS, mode_of, obs_text
from burgerbot.experiments import random_actions
from burgerbot.factories import make_env

__all__ = [
    "InfosCheck",
    "check_infos_live",
    "default_autoreset_mode",
    "lesson_vs_installed",
    "pick_episode_end",
    "same_step_end_keys",
]


def pick_episode_end(events: pd.DataFrame, steps: int) -> dict[str, Any] | None:
    """The episode end the comparison uses: the first one that still has a step after it."""
    if events.empty:
        return None
    followed = events[events["step"] < steps]
    chosen = followed if not followed.empty else events
    return chosen.sort_values(["step", "env"]).iloc[0].to_dict()


@dataclass(frozen=True)
class InfosCheck:
    """What ``infos`` held, live, on the step where an episode ended."""

    step: int
    env: int
    keys: tuple[str, ...]
    has_final_observation: bool
    """``"final_observation" in infos``: the key the lesson reads (gymnasium 0.29)."""
    has_final_obs: bool
    """``"final_obs" in infos``: the key SAME_STEP uses today."""
    default_mode: str
    """The auto-reset mode a ``SyncVectorEnv`` gets when none is given."""


def _step_sync(
    num_envs: int, seed: int, mode: AutoresetMode, steps: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """Replay the page's random actions on a SyncVectorEnv; return the last step's result."""
    envs = SyncVectorEnv([make_env() for _ in range(num_envs)], autoreset_mode=mode)
    try:
        envs.reset(seed=seed)
        actions = np.concatenate(list(random_actions(seed, num_envs, steps)))
        for t, step_actions in enumerate(actions, start=1):
            result = envs.step(step_actions)
            ended = result[2] | result[3]
            if mode == AutoresetMode.DISABLED and ended.any() and t < steps:
                envs.reset(options={"reset_mask": ended})
        return result
    finally:
        envs.close()


def default_autoreset_mode() -> str:
    """The auto-reset mode a new ``SyncVectorEnv`` gets when none is given: ``"NEXT_STEP"``."""
    envs = SyncVectorEnv([make_env()])
    try:
        return AutoresetMode(envs.metadata["autoreset_mode"]).name
    finally:
        envs.close()


def same_step_end_keys() -> tuple[str, ...]:
    """The ``infos`` keys on an episode end in SAME_STEP mode, checked live (sorted).

    One BurgerBot drives forward from the start, east, until it hits the obstacle at
    (0, 3) on its third step.

    Example:
        >>> same_step_end_keys()
        ('_final_info', '_final_obs', 'final_info', 'final_obs')
    """
    envs = SyncVectorEnv([make_env()], autoreset_mode=AutoresetMode.SAME_STEP)
    try:
        envs.reset(seed=0)
        for _ in range(3):
            _, _, terminated, truncated, infos = envs.step(np.array([0]))
    finally:
        envs.close()
    if not (terminated[0] or truncated[0]):
        raise RuntimeError("three steps forward from the start should hit the obstacle at (0, 3)")
    return tuple(sorted(infos))


def check_infos_live(num_envs: int, seed: int, mode: str, step: int, env: int) -> InfosCheck:
    """Run the page's actions on a fresh SyncVectorEnv up to ``step`` and look at ``infos``."""
    _, _, _, _, infos = _step_sync(num_envs, seed, mode_of(mode), step)
    default_mode = default_autoreset_mode()
    return InfosCheck(
        step=step,
        env=env,
        keys=tuple(sorted(infos)),
        has_final_observation="final_observation" in infos,
        has_final_obs="final_obs" in infos,
        default_mode=default_mode,
    )


def _next_step_text(after: Mapping[str, Any], mode: str) -> str:
    """What the installed gymnasium did on the call after the episode end, in words."""
    action = int(after["action"])
    after_obs = obs_text(after[name] for name in OBS_COLUMNS)
    after_reward = str(float(after["reward"]))
    if mode == "NEXT_STEP":
        return (
            f"the reset step: action {action} was ignored; obs {after_obs}, reward "
            f"{after_reward}, both flags False"
        )
    if mode == "SAME_STEP":
        return (
            f"an ordinary step of the new episode: action {action} is used, obs {after_obs}, "
            f"reward {after_reward}"
        )
    return (
        f"after the manual `reset(options={{'reset_mask': mask}})`, an ordinary step: "
        f"action {action} is used, obs {after_obs}, reward {after_reward} (without that "
        "reset, step() raises an AssertionError)"
    )


def lesson_vs_installed(
    frame: pd.DataFrame, end: Mapping[str, Any], mode: str, check: InfosCheck, version: str
) -> pd.DataFrame:
    """For one episode end of the run: what gymnasium 0.29 would hand back, and what we got.

    Three columns: ``you look at``, ``lesson (gymnasium 0.29)`` (derived from the run:
    the start observation on the ending step, the real final observation in
    ``infos["final_observation"]``) and ``installed gymnasium <version>, <mode>`` (the
    values this run really returned).
    """
    step, env = int(end["step"]), int(end["env"])
    steps = int(frame["step"].max())
    by_step_env = frame.set_index(["step", "env"])
    here = by_step_env.loc[(step, env)]
    final = end["final obs"]
    start = obs_text(START_OBS)
    reward = str(float(here["reward"]))
    flags = f"terminated={bool(here['terminated'])}, truncated={bool(here['truncated'])}"
    installed = f"installed gymnasium {version}, {mode}"

    rows: list[tuple[str, str, str]] = [
        (
            f"`obs[{env}]` from step {step}",
            f"{start}: already the next episode's first observation",
            obs_text(here[name] for name in OBS_COLUMNS)
            + (
                ": already the next episode's first observation"
                if mode == "SAME_STEP"
                else ": the episode's final observation"
            ),
        ),
        (f"`rewards[{env}]`, flags at step {step}", f"{reward}, {flags}", f"{reward}, {flags}"),
        (
            "the final observation",
            f'{final} in `infos["final_observation"][{env}]`',
            f'{final} in `infos["final_obs"][{env}]`'
            if mode == "SAME_STEP"
            else f"{final}: it is `obs[{env}]` itself",
        ),
        (
            f"`infos` keys at step {step}",
            '"final_observation", "_final_observation", "final_info", "_final_info"',
            ", ".join(f'"{key}"' for key in check.keys) or "none: `infos` is `{}`",
        ),
        (
            '`"final_observation" in infos`',
            "True",
            f"{check.has_final_observation} (checked live)",
        ),
    ]
    if step < steps:
        after = by_step_env.loc[(step + 1, env)]
        rows.append(
            (
                f"env {env} at step {step + 1}",
                f"an ordinary step of the new episode: action {int(after['action'])} is used",
                _next_step_text(after, mode),
            )
        )
    return pd.DataFrame(rows, columns=["you look at", "lesson (gymnasium 0.29)", installed])
