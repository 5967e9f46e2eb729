"""The same random actions through SB3's DummyVecEnv and Gymnasium's SyncVectorEnv modes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.views.sb3 import load_sb3, sb3_available
from burgerbot.experiments import random_actions
from burgerbot.factories import make_env

__all__ = [
    "GYM_NEXT_STEP",
    "GYM_SAME_STEP",
    "LIBRARIES",
    "SB3",
    "SideBySide",
    "around_first_end",
    "side_by_side",
]

SB3 = "SB3 DummyVecEnv"
GYM_SAME_STEP = "Gymnasium SyncVectorEnv, SAME_STEP"
GYM_NEXT_STEP = "Gymnasium SyncVectorEnv, NEXT_STEP (default)"
LIBRARIES = (SB3, GYM_SAME_STEP, GYM_NEXT_STEP)


@dataclass
class SideBySide:
    """The same random actions through SB3's DummyVecEnv and Gymnasium's SyncVectorEnv.

    ``frame`` has one row per (library, step, env): ``library`` (one of `LIBRARIES`),
    ``step``, ``env``, ``action``, ``obs`` (the returned observation as a list),
    ``reward``, ``done`` (SB3's flag; terminated or truncated for Gymnasium),
    ``last_obs`` (the ended episode's last observation, where that library puts it:
    ``None`` on other rows) and ``reset_step`` (NEXT_STEP's reset call: action ignored).
    ``agree[library]``: (step, env) pairs where observation, reward and done match SB3's;
    ``first_difference[library]``: the first (step, env) where they do not, or ``None``.
    Both are empty without SB3.
    """

    num_envs: int
    steps: int
    seed: int
    frame: pd.DataFrame
    with_sb3: bool
    episodes_ended: int
    agree: dict[str, int] = field(default_factory=dict)
    first_difference: dict[str, tuple[int, int] | None] = field(default_factory=dict)

    @property
    def pairs(self) -> int:
        return self.num_envs * self.steps


def _records(
    library: str,
    step: int,
    actions: np.ndarray,
    obs: np.ndarray,
    rewards: np.ndarray,
    done: np.ndarray,
    last_obs: Sequence[Any],
    reset_step: np.ndarray,
) -> list[dict[str, Any]]:
    return [
        {
            "library": library,
            "step": step,
            "env": i,
            "action": int(actions[i]),
            "obs": obs[i].tolist(),
            "reward": float(rewards[i]),
            "done": bool(done[i]),
            "last_obs": None if last_obs[i] is None else np.asarray(last_obs[i]).tolist(),
            "reset_step": bool(reset_step[i]),
        }
        for i in range(len(actions))
    ]


def side_by_side(
    num_envs: int = 4, steps: int = 30, seed: int = 0, with_sb3: bool | None = None
) -> SideBySide:
    """Step SB3's ``DummyVecEnv`` (from ``make_vec_env``) and ``SyncVectorEnv`` in SAME_STEP
    and NEXT_STEP mode with the same random actions (`burgerbot.app.scripts.sb3.side_by_side_script`
    prints the same numbers). ``with_sb3=None`` means "when installed"; without SB3 only the
    two Gymnasium modes run.
    """
    with_sb3 = sb3_available() if with_sb3 is None else with_sb3
    actions = np.concatenate(list(random_actions(seed, num_envs, steps)))
    no_last: list[Any] = [None] * num_envs
    records: list[dict[str, Any]] = []
    modes = {GYM_SAME_STEP: AutoresetMode.SAME_STEP, GYM_NEXT_STEP: AutoresetMode.NEXT_STEP}
    gym_envs = {
        name: SyncVectorEnv([make_env() for _ in range(num_envs)], autoreset_mode=mode)
        for name, mode in modes.items()
    }
    sb3_envs = None
    agree = dict.fromkeys(modes, 0) if with_sb3 else {}
    first_difference: dict[str, tuple[int, int] | None] = dict.fromkeys(agree)
    episodes_ended = 0
    try:
        if with_sb3:
            load_sb3()
            from stable_baselines3.common.env_util import make_vec_env

            sb3_envs = make_vec_env(make_env(), n_envs=num_envs, seed=seed)
            sb3_envs.reset()
        for envs in gym_envs.values():
            envs.reset(seed=seed)
        ended_before = dict.fromkeys(modes, np.zeros(num_envs, dtype=np.bool_))
        for t, step_actions in enumerate(actions, start=1):
            sb3_obs = sb3_rewards = dones = None
            if sb3_envs is not None:
                sb3_obs, sb3_rewards, dones, infos = sb3_envs.step(step_actions)
                last = [info.get("terminal_observation") for info in infos]
                records += _records(
                    SB3, t, step_actions, sb3_obs, sb3_rewards, dones, last, np.zeros_like(dones)
                )
            for name, envs in gym_envs.items():
                obs, rewards, terminated, truncated, infos = envs.step(step_actions)
                done = terminated | truncated
                if modes[name] == AutoresetMode.SAME_STEP:
                    last = list(infos["final_obs"]) if "final_obs" in infos else no_last
                    episodes_ended += int(done.sum())
                else:
                    last = [obs[i] if done[i] else None for i in range(num_envs)]
                records += _records(
                    name, t, step_actions, obs, rewards, done, last, ended_before[name]
                )
                ended_before[name] = done
                if sb3_obs is not None:
                    # SB3 keeps rewards as float32: compare at that precision.
                    same_reward = rewards.astype(np.float32) == sb3_rewards
                    same = (obs == sb3_obs).all(axis=1) & same_reward & (done == dones)
                    agree[name] += int(same.sum())
                    if first_difference[name] is None and not same.all():
                        first_difference[name] = (t, int(np.flatnonzero(~same)[0]))
    finally:
        if sb3_envs is not None:
            sb3_envs.close()
        for envs in gym_envs.values():
            envs.close()
    return SideBySide(
        num_envs=num_envs,
        steps=steps,
        seed=seed,
        frame=pd.DataFrame(records),
        with_sb3=with_sb3,
        episodes_ended=episodes_ended,
        agree=agree,
        first_difference=first_difference,
    )


def around_first_end(
    result: SideBySide, before: int = 1, after: int = 2
) -> tuple[int, int, dict[str, pd.DataFrame]] | None:
    """The first episode end (by SAME_STEP, identical to SB3's) and each library's rows of
    that env from ``before`` steps before it to ``after`` steps after it.

    Returns ``(step, env, {library: table})`` or ``None`` when no episode ended.
    """
    frame = result.frame
    same_step = frame[frame["library"] == GYM_SAME_STEP]
    ended = same_step[same_step["done"]]
    if ended.empty:
        return None
    first = ended.iloc[0]
    step, env = int(first["step"]), int(first["env"])
    window = frame[(frame["env"] == env) & frame["step"].between(step - before, step + after)]
    tables = {}
    for library in LIBRARIES:
        rows = window[window["library"] == library]
        if rows.empty:
            continue
        table = pd.DataFrame(
            {
                "step": rows["step"].to_numpy(),
                "action": [world.ACTION_NAMES[a] for a in rows["action"]],
                "obs": [str(o) for o in rows["obs"]],
                "reward": rows["reward"].to_numpy(),
                "done": rows["done"].to_numpy(),
                "last obs": ["" if o is None else str(o) for o in rows["last_obs"]],
            }
        )
        if library == GYM_NEXT_STEP:
            table["note"] = ["reset: action ignored" if flag else "" for flag in rows["reset_step"]]
        tables[library] = table
    return step, env, tables
