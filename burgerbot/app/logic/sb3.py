"""Stable-Baselines3 next to Gymnasium's vector API: is SB3 here, the page's settings, its calls.

``stable_baselines3`` (and with it torch) is imported only inside the functions that need
it, through `load_sb3`, so the rest of ``burgerbot`` works without the optional extra
(``pip install -r requirements-sb3.txt``). Everything that needs only gymnasium (the
Gymnasium side of the comparison) runs either way.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, cast

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.sb3_recording import Recording
from burgerbot.app.script_runner import ScriptRun, printed, run_script
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.settings import IntSetting
from burgerbot.app.versions import SB3_MODULE, installed_version, sb3_available
from burgerbot.experiments import random_actions
from burgerbot.factories import burgerbot_factory

__all__ = [
    "ACCEPTS_OPTIONS",
    "GYM_NEXT_STEP",
    "GYM_SAME_STEP",
    "INSTALL_COMMAND",
    "LIBRARIES",
    "SB3",
    "SPECS",
    "SB3Missing",
    "SideBySide",
    "accepts_explanation",
    "accepts_truth",
    "around_first_end",
    "invalid_calls",
    "load_sb3",
    "n_envs_sentence",
    "n_steps_sentence",
    "recorded_agreement",
    "recorded_calls",
    "recorded_output",
    "recorded_scripts",
    "sb3_version",
    "side_by_side",
    "takeaways",
]

SB3_DISTRIBUTION = "stable-baselines3"
INSTALL_COMMAND = "pip install -r requirements-sb3.txt"

SPECS = (
    IntSetting("n", "NUM_ENVS", default=4, low=1, high=16),
    IntSetting("steps", "step() calls", default=30, low=5, high=200),
    IntSetting("seed", "Seed of the random actions", default=0, low=0, high=9999),
)


class SB3Missing(ImportError):
    """stable-baselines3 is not installed (it is an optional extra)."""


def sb3_version() -> str | None:
    """The installed stable-baselines3 version, or ``None`` when it cannot be imported."""
    return installed_version(SB3_DISTRIBUTION) if sb3_available() else None


def load_sb3() -> ModuleType:
    """Import ``stable_baselines3`` (slow the first time: it imports torch).

    Raises `SB3Missing`, whose message says how to install it, when it is absent.
    """
    try:
        return importlib.import_module(SB3_MODULE)
    except ImportError as error:
        raise SB3Missing(
            f"stable-baselines3 is not installed ({error}). Install the optional extra with "
            f"`{INSTALL_COMMAND}`."
        ) from error


RECORDED_ENVS = 4
"""NUM_ENVS of the recorded runs (the lesson's 4)."""
RECORDED_SIDE = (RECORDED_ENVS, 30, 0)
"""NUM_ENVS, step() calls and seed of the recorded side-by-side run (the page's defaults)."""
_CALLS = {
    "n_envs": "sb3.n_envs_wrong",
    "gymnasium_vector": "sb3.gymnasium_vector_wrong",
    "fixed": "sb3.ppo_fixed",
}


def recorded_scripts() -> dict[str, str]:
    """The page's SB3 scripts whose output is recorded for visitors without SB3, by name
    (`burgerbot.app.sb3_recording`)."""
    return {
        _CALLS["n_envs"]: snippets.n_envs_wrong(RECORDED_ENVS),
        _CALLS["gymnasium_vector"]: snippets.gymnasium_vector_wrong(RECORDED_ENVS),
        _CALLS["fixed"]: snippets.ppo_fixed(RECORDED_ENVS),
        "sb3.make_vec_env": snippets.make_vec_env_script(RECORDED_ENVS),
        "sb3.side_by_side": snippets.side_by_side_script(*RECORDED_SIDE),
    }


def recorded_calls(recording: Recording) -> dict[str, ScriptRun] | None:
    """The lesson's calls as `invalid_calls` would give them, from ``recording``; ``None``
    when a script changed since it was recorded (its old output would not be this script's)."""
    scripts = recorded_scripts()
    if not all(recording.has(name, scripts[name]) for name in _CALLS.values()):
        return None
    return {key: recording.run(name) for key, name in _CALLS.items()}


def recorded_output(recording: Recording, name: str) -> str | None:
    """What script ``name`` of `recorded_scripts` printed when recorded (``None`` if it has
    changed since)."""
    code = recorded_scripts()[name]
    return recording.run(name).output if recording.has(name, code) else None


def invalid_calls(num_envs: int = 4) -> dict[str, ScriptRun]:
    """The lesson's two PPO calls and the working one, run on the installed SB3 as shown.

    Keys: ``"n_envs"`` (``PPO(..., n_envs=N)``), ``"gymnasium_vector"`` (a
    ``SyncVectorEnv`` given to PPO) and ``"fixed"`` (``make_vec_env`` then PPO).
    """
    load_sb3()
    return {
        "n_envs": run_script(snippets.n_envs_wrong(num_envs)),
        "gymnasium_vector": run_script(snippets.gymnasium_vector_wrong(num_envs)),
        "fixed": run_script(snippets.ppo_fixed(num_envs)),
    }


# --- The same random actions through SB3 and Gymnasium ---
# The same random actions through SB3's DummyVecEnv and Gymnasium's SyncVectorEnv modes.

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
        name: SyncVectorEnv([burgerbot_factory() for _ in range(num_envs)], autoreset_mode=mode)
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

            sb3_envs = make_vec_env(burgerbot_factory(), n_envs=num_envs, seed=seed)
            sb3_envs.reset()
        for envs in gym_envs.values():
            envs.reset(seed=seed)
        ended_before = dict.fromkeys(modes, np.zeros(num_envs, dtype=np.bool_))
        for t, step_actions in enumerate(actions, start=1):
            sb3_obs = sb3_rewards = dones = None
            if sb3_envs is not None:
                sb3_obs, sb3_rewards, dones, sb3_infos = sb3_envs.step(step_actions)
                sb3_obs = cast(np.ndarray, sb3_obs)  # BurgerBot's observations: one Box
                last = [info.get("terminal_observation") for info in sb3_infos]
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


# --- The prediction, verdicts and takeaways ---

ACCEPTS_OPTIONS = ("Yes: PPO builds a model on it", "No: PPO stops with an error")
"""The answers to "Does PPO accept a Gymnasium SyncVectorEnv?"."""


def accepts_truth(run: ScriptRun) -> str:
    """Which of `ACCEPTS_OPTIONS` the live attempt gave."""
    return ACCEPTS_OPTIONS[1] if run.raised else ACCEPTS_OPTIONS[0]


def accepts_explanation(run: ScriptRun, version: str) -> str:
    """Why, from the live attempt with stable-baselines3 ``version``."""
    if run.error is None:
        return (
            f"stable-baselines3 {version} built a model on the Gymnasium `SyncVectorEnv`: check "
            "`model.n_envs` before you train, SB3 may have taken it as one env."
        )
    return (
        f"stable-baselines3 {version} raised **{run.error.type}**: PPO takes an SB3 `VecEnv` or "
        "one env, never a Gymnasium vector env (never valid, in any release)."
    )


def n_envs_sentence(run: ScriptRun) -> str:
    """What the installed PPO did with ``n_envs=4``."""
    if run.error is None:
        return "PPO accepted `n_envs` here: this SB3 release has such an argument."
    return (
        f"PPO stopped with **{run.error.type}**: its constructor has no `n_envs` parameter, in "
        "this release or any earlier one. The number of envs comes from the `VecEnv` you give it."
    )


def n_steps_sentence(values: Mapping[str, str], lesson_transitions: int = 2048) -> str:
    """What the fix printed about ``n_steps``, against the lesson's "2048 steps in 512 calls".

    ``values``: `printed` output of ``burgerbot.app.scripts.sb3.ppo_fixed``.
    """
    n_envs = int(values["n_envs"])
    n_steps = int(values["n_steps (step() calls per env per update)"])
    transitions = int(values["transitions per update"])
    per_env = lesson_transitions // n_envs
    if transitions == lesson_transitions:
        return (
            f"With PPO's default `n_steps={n_steps}` and {n_envs} envs an update holds "
            f"{transitions:,} transitions: the lesson's numbers, as written."
        )
    return (
        f"`n_steps` counts `step()` calls *per env*: PPO's default `n_steps={n_steps}` with "
        f"{n_envs} envs holds {transitions:,} transitions per update. For the lesson's "
        f"{lesson_transitions:,} in {per_env:,} calls, pass `n_steps={per_env}`."
    )


def recorded_agreement(output: str) -> dict[str, tuple[int, int]]:
    """From the side-by-side script's output: ``{mode: (pairs matching SB3, pairs)}``.

    >>> recorded_agreement("SAME_STEP: same as SB3 on 120 of 120 (step, env) pairs; ...")
    {'SAME_STEP': (120, 120)}
    """
    found = {}
    for mode, value in printed(output).items():
        match = re.match(r"same as SB3 on (\d+) of (\d+)", value)
        if match:
            found[mode] = (int(match[1]), int(match[2]))
    return found


def takeaways(
    calls: Mapping[str, ScriptRun] | None,
    side: SideBySide | None,
    version: str | None,
    recorded_on: str | None = None,
    recorded_agreement: Mapping[str, tuple[int, int]] | None = None,
) -> list[str]:
    """The page's "Key takeaways": those about SB3's behaviour come from this visit's runs, or
    (without SB3, ``recorded_on`` a date) from the recorded ones."""
    bullets = [
        "SB3 trains on its own `VecEnv`: build one with "
        "`make_vec_env(burgerbot_factory(), n_envs=N)`.",
    ]
    when = f" (recorded on {recorded_on})" if recorded_on else ", just now"
    if calls is None:
        bullets.append(
            "`PPO(..., n_envs=4)` and a Gymnasium `SyncVectorEnv` given to PPO never worked in "
            "SB3 (not run here: stable-baselines3 is not installed)."
        )
    else:
        n_envs, vector = calls["n_envs"], calls["gymnasium_vector"]
        said = [
            f"`PPO(..., n_envs=4)` "
            f"{'raised ' + n_envs.error.type if n_envs.error is not None else 'ran'}",
            "a Gymnasium `SyncVectorEnv` "
            + (f"raised {vector.error.type}" if vector.error is not None else "was accepted"),
        ]
        bullets.append(f"On stable-baselines3 {version}: {' and '.join(said)}{when}.")
        values = printed(calls["fixed"].output)
        if "transitions per update" in values:
            bullets.append(
                f"`n_steps` counts `step()` calls per env: {values['n_envs']} envs x "
                f"{values['n_steps (step() calls per env per update)']} = "
                f"{int(values['transitions per update']):,} transitions per update."
            )
    if side is not None and side.with_sb3:
        matched = {"SAME_STEP": side.agree[GYM_SAME_STEP], "NEXT_STEP": side.agree[GYM_NEXT_STEP]}
        bullets.append(_resets_bullet(matched, side.pairs, "here"))
    elif recorded_agreement and {"SAME_STEP", "NEXT_STEP"} <= set(recorded_agreement):
        matched = {mode: recorded_agreement[mode][0] for mode in ("SAME_STEP", "NEXT_STEP")}
        pairs = recorded_agreement["SAME_STEP"][1]
        bullets.append(_resets_bullet(matched, pairs, "in the recorded run"))
    return bullets


def _resets_bullet(matched: Mapping[str, int], pairs: int, where: str) -> str:
    """Which Gymnasium mode SB3 resets like, from the pairs each matched; none when they tie
    (no episode ended: every mode gave SB3's numbers)."""
    same, nxt = matched["SAME_STEP"], matched["NEXT_STEP"]
    if same == nxt:
        return (
            f"SB3 matched SAME_STEP and NEXT_STEP alike ({same} of {pairs} pairs {where}): "
            "this run cannot tell which one it resets like; try more step() calls."
        )
    like = "SAME_STEP" if same > nxt else "NEXT_STEP"
    return (
        f"SB3 resets like Gymnasium's {like} ({max(same, nxt)} of {pairs} pairs matched "
        f'{where}), keeping the last observation in `infos[i]["terminal_observation"]`.'
    )
