"""Stable-Baselines3 next to Gymnasium's vector API, run live when SB3 is installed.

``stable_baselines3`` (and with it torch) is imported only inside the functions that need
it, through `load_sb3`, so the rest of ``burgerbot`` works without the optional extra
(``pip install -r requirements-sb3.txt``). Everything that needs only gymnasium (the
Gymnasium side of the comparisons) runs either way.
"""

from __future__ import annotations

import builtins
import importlib
import importlib.util
import io
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import metadata
from types import ModuleType
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.settings import IntSetting
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import Progress, random_actions
from burgerbot.factories import make_env

__all__ = [
    "GYM_NEXT_STEP",
    "GYM_SAME_STEP",
    "INSTALL_COMMAND",
    "LIBRARIES",
    "PPO_N_STEPS",
    "SB3",
    "SB3_MODULE",
    "SPECS",
    "ApiRow",
    "CallResult",
    "PPOResult",
    "SB3Missing",
    "SideBySide",
    "api_markdown",
    "api_rows",
    "around_first_end",
    "describe",
    "invalid_calls",
    "load_sb3",
    "run_call",
    "sb3_available",
    "sb3_version",
    "side_by_side",
    "train_ppo",
]

SB3_MODULE = "stable_baselines3"
SB3_DISTRIBUTION = "stable-baselines3"
INSTALL_COMMAND = "pip install -r requirements-sb3.txt"

PPO_N_STEPS = 128
"""``n_steps`` of the page's PPO run: ``step()`` calls per env between two updates."""

SPECS = (
    IntSetting("n", "NUM_ENVS", default=4, low=1, high=16),
    IntSetting("steps", "step() calls", default=30, low=5, high=200),
    IntSetting("seed", "Seed of the random actions", default=0, low=0, high=9999),
    IntSetting("ppo_envs", "n_envs for PPO", default=4, low=1, high=8),
    IntSetting(
        "ppo_steps", "Total env-steps for PPO", default=4096, low=512, high=CAPS.max_ppo_timesteps
    ),
)

SB3 = "SB3 DummyVecEnv"
GYM_SAME_STEP = "Gymnasium SyncVectorEnv, SAME_STEP"
GYM_NEXT_STEP = "Gymnasium SyncVectorEnv, NEXT_STEP (default)"
LIBRARIES = (SB3, GYM_SAME_STEP, GYM_NEXT_STEP)


# --- Is SB3 here? ---------------------------------------------------------------------------


class SB3Missing(ImportError):
    """stable-baselines3 is not installed (it is an optional extra)."""


def sb3_available() -> bool:
    """True when ``stable_baselines3`` can be imported (checked without importing torch)."""
    try:
        return importlib.util.find_spec(SB3_MODULE) is not None
    except (ImportError, ValueError):
        return False


def sb3_version() -> str | None:
    """The installed stable-baselines3 version, or ``None`` when it cannot be imported."""
    if not sb3_available():
        return None
    try:
        return metadata.version(SB3_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


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


# --- Describing what an API call returns -----------------------------------------------------


def describe(value: Any, names: Sequence[str] = ()) -> str:
    """A short, beginner-readable description of a returned value.

    ``names`` label the items of a returned tuple.

    Example:
        >>> describe((np.zeros((4, 4), dtype=np.int64), {}))
        '2 values: array (4, 4) int64, dict {}'
        >>> describe((np.zeros((4, 4), dtype=np.int64), {}), names=["obs", "infos"])
        '2 values: obs array (4, 4) int64, infos dict {}'
    """
    if isinstance(value, np.ndarray):
        return f"array {value.shape} {value.dtype}"
    if isinstance(value, tuple):
        labels = [*names, *[""] * (len(value) - len(names))][: len(value)]
        parts = [
            f"{label} {describe(item)}".strip() for label, item in zip(labels, value, strict=True)
        ]
        return f"{len(value)} values: " + ", ".join(parts)
    if isinstance(value, dict):
        keys = ", ".join(repr(key) for key in value)
        return f"dict {{{keys}}}" if keys else "dict {}"
    if isinstance(value, list):
        kinds = sorted({type(item).__name__ for item in value})
        return f"list of {len(value)} {'/'.join(kinds)}"
    return type(value).__name__


@dataclass(frozen=True)
class ApiRow:
    """One line of the API comparison: what, Gymnasium's answer, SB3's, and which are live."""

    what: str
    gymnasium: str
    sb3: str
    gymnasium_live: bool = False
    sb3_live: bool = False


def _gymnasium_facts(num_envs: int, seed: int) -> dict[str, str]:
    envs = SyncVectorEnv([make_env() for _ in range(num_envs)])
    try:
        reset = envs.reset(seed=seed)
        actions = np.zeros(num_envs, dtype=np.int64)  # forward: a move, no episode ends
        stepped = envs.step(actions)
    finally:
        envs.close()
    return {
        "reset": describe(reset, ["obs", "infos"]),
        "step": describe(stepped, ["obs", "rewards", "terminated", "truncated", "infos"]),
    }


def _sb3_facts(num_envs: int, seed: int) -> dict[str, str]:
    load_sb3()
    from stable_baselines3.common.env_util import make_vec_env

    vec_env = make_vec_env(make_env(), n_envs=num_envs, seed=seed)
    try:
        reset = vec_env.reset()
        stepped = vec_env.step(np.zeros(num_envs, dtype=np.int64))
        class_name = type(vec_env).__name__
    finally:
        vec_env.close()
    return {
        "reset": f"only obs: {describe(reset)}",
        "step": describe(stepped, ["obs", "rewards", "dones", "infos"]),
        "class": class_name,
    }


def api_rows(num_envs: int = 4, seed: int = 0, live_sb3: bool | None = None) -> list[ApiRow]:
    """The comparison table; return types are measured live (SB3's only when it is installed).

    ``live_sb3=None`` means "when installed".
    """
    live_sb3 = sb3_available() if live_sb3 is None else live_sb3
    gym_facts = _gymnasium_facts(num_envs, seed)
    sb3_facts = _sb3_facts(num_envs, seed) if live_sb3 else None
    n = num_envs
    sb3_reset = "only obs: array (N, 4)" if sb3_facts is None else sb3_facts["reset"]
    sb3_step = (
        "4 values: obs array (N, 4), rewards array (N,) float32, dones array (N,) bool, "
        "infos list of N dict"
        if sb3_facts is None
        else sb3_facts["step"]
    )
    return [
        ApiRow(
            "Build N copies",
            f"`SyncVectorEnv([make_env() for _ in range({n})])`",
            f"`make_vec_env(make_env(), n_envs={n})` (gives a "
            f"`{'DummyVecEnv' if sb3_facts is None else sb3_facts['class']}`)",
            sb3_live=sb3_facts is not None,
        ),
        ApiRow(
            "Copies in worker processes",
            "`AsyncVectorEnv` (one process per copy)",
            "`SubprocVecEnv`, or `make_vec_env(..., vec_env_cls=SubprocVecEnv)`",
        ),
        ApiRow(
            "Seeding",
            "`envs.reset(seed=0)`",
            "`make_vec_env(..., seed=0)` or `vec_env.seed(0)` before `vec_env.reset()`",
        ),
        ApiRow("`reset()` returns", gym_facts["reset"], sb3_reset, True, sb3_facts is not None),
        ApiRow(
            "`step(actions)` returns",
            gym_facts["step"],
            sb3_step,
            True,
            sb3_facts is not None,
        ),
        ApiRow(
            "How an episode's end shows",
            "`terminated` and `truncated`, two boolean arrays",
            '`dones` (either one); `infos[i]["TimeLimit.truncated"]` says it was the time limit',
        ),
        ApiRow(
            "`infos`",
            "one dict; each key holds an array with one entry per copy (and a `_key` mask)",
            "a list with one dict per copy",
        ),
        ApiRow(
            "When an ended copy resets",
            "`NEXT_STEP` (default): on the *next* `step()` call, which ignores that copy's "
            "action; `SAME_STEP` and `DISABLED` on request",
            "always on the same `step()` call that ended the episode",
        ),
        ApiRow(
            "The episode's last observation",
            "`NEXT_STEP`: the `obs` returned on the ending step; "
            '`SAME_STEP`: `infos["final_obs"][i]`',
            '`infos[i]["terminal_observation"]` (the returned `obs[i]` is already the new start)',
        ),
        ApiRow(
            "Can SB3's PPO use it?",
            "no: PPO raises an error (see below)",
            "yes: this is the vector env SB3's algorithms are built on",
        ),
    ]


def api_markdown(rows: Sequence[ApiRow]) -> str:
    """The comparison as a Markdown table; cells measured live get a ✓ live mark."""

    def cell(text: str, live: bool) -> str:
        text = text.replace("|", "\\|")
        return f"{text} ✓ *live*" if live else text

    lines = ["| | Gymnasium vector API | Stable-Baselines3 `VecEnv` |", "|---|---|---|"]
    for row in rows:
        lines.append(
            f"| **{row.what}** | {cell(row.gymnasium, row.gymnasium_live)} | "
            f"{cell(row.sb3, row.sb3_live)} |"
        )
    return "\n".join(lines)


# --- Running the lesson's calls ----------------------------------------------------------------


@dataclass(frozen=True)
class CallResult:
    """A script as it ran: its code, what it printed, and the error it raised (if any)."""

    code: str
    output: str
    error_type: str | None = None
    error_message: str | None = None
    where: str | None = None
    """The innermost frame of the error: ``package/file.py:line in function``."""

    @property
    def raised(self) -> bool:
        return self.error_type is not None


def _short_where(error: BaseException) -> str:
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return ""
    frame = frames[-1]
    parts = frame.filename.replace("\\", "/").split("/")
    for anchor in ("stable_baselines3", "gymnasium", "burgerbot"):
        if anchor in parts:
            parts = parts[parts.index(anchor) :]
            break
    else:
        parts = parts[-1:]
    return f"{'/'.join(parts)}:{frame.lineno} in {frame.name}"


def run_call(code: str) -> CallResult:
    """Execute ``code`` as a fresh script; capture what it prints and the error it raises."""
    buffer = io.StringIO()

    def captured_print(*args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("file", buffer)
        builtins.print(*args, **kwargs)

    namespace: dict[str, Any] = {"__name__": "__main__", "print": captured_print}
    try:
        exec(compile(code, "<script>", "exec"), namespace)
    except Exception as error:
        return CallResult(
            code, buffer.getvalue(), type(error).__name__, str(error), _short_where(error)
        )
    finally:
        namespace.clear()
    return CallResult(code, buffer.getvalue())


def invalid_calls(num_envs: int = 4, n_steps: int = PPO_N_STEPS) -> dict[str, CallResult]:
    """The lesson's two invalid PPO calls and the working one, run on the installed SB3.

    Keys: ``"n_envs"`` (``PPO(..., n_envs=N)``), ``"gymnasium_vector"`` (a
    ``SyncVectorEnv`` given to PPO) and ``"fixed"`` (``make_vec_env`` then PPO).
    """
    load_sb3()
    return {
        "n_envs": run_call(snippets.n_envs_wrong(num_envs)),
        "gymnasium_vector": run_call(snippets.gymnasium_vector_wrong(num_envs)),
        "fixed": run_call(snippets.ppo_fixed(num_envs, n_steps)),
    }


# --- SB3 and Gymnasium side by side -------------------------------------------------------------


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


# --- Training PPO --------------------------------------------------------------------------


@dataclass
class PPOResult:
    """A short PPO run on BurgerBot.

    ``episodes``: one row per finished training episode (``env_steps`` when it ended,
    ``episode``, ``return``, ``length``, ``reached_goal``). ``greedy_*``: the trained
    policy followed deterministically once from the start.
    """

    num_envs: int
    n_steps: int
    total_timesteps: int
    transitions_per_update: int
    updates: int
    setup_seconds: float
    train_seconds: float
    episodes: pd.DataFrame
    greedy_return: float
    greedy_reaches_goal: bool
    greedy_steps: int
    versions: dict[str, str] = field(default_factory=dict)


def _greedy_episode(model: Any, max_steps: int = 150) -> tuple[float, bool, int]:
    env = BurgerBotEnv(max_steps=max_steps)
    obs, _ = env.reset(seed=0)
    total, reward, steps = 0.0, 0.0, 0
    for steps in range(1, max_steps + 1):  # noqa: B007 (steps is read after the loop)
        action, _ = model.predict(obs, deterministic=True)
        obs, reward, terminated, truncated, _ = env.step(int(action))
        total += float(reward)
        if terminated or truncated:
            break
    return total, reward == world.GOAL_REWARD, steps


def train_ppo(
    num_envs: int = 4,
    n_steps: int = PPO_N_STEPS,
    total_timesteps: int = 4096,
    seed: int = 0,
    progress: Progress | None = None,
) -> PPOResult:
    """Train SB3's PPO on ``make_vec_env(make_env(), n_envs=num_envs)`` on the CPU.

    ``progress(fraction, message)`` is called from an SB3 callback every few steps
    (raising from it stops training; the vector env is closed either way). torch is
    limited to one thread: the network is tiny and the machine may be shared.
    """
    if not 1 <= total_timesteps <= CAPS.max_ppo_timesteps:
        raise ValueError(
            f"`total_timesteps` must be in 1..{CAPS.max_ppo_timesteps:,}, got {total_timesteps!r}"
        )
    start = time.perf_counter()
    sb3 = load_sb3()
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.env_util import make_vec_env

    torch.set_num_threads(1)
    episodes: list[dict[str, Any]] = []

    class ProgressCallback(BaseCallback):
        """Reports progress and records each finished episode (from SB3's Monitor infos)."""

        def _on_step(self) -> bool:
            for info in self.locals["infos"]:
                episode = info.get("episode")
                if episode is not None:
                    last = info["terminal_observation"]
                    episodes.append(
                        {
                            "env_steps": self.num_timesteps,
                            "episode": len(episodes) + 1,
                            "return": float(episode["r"]),
                            "length": int(episode["l"]),
                            "reached_goal": (int(last[0]), int(last[1])) == world.GOAL,
                        }
                    )
            if progress is not None and self.n_calls % 8 == 0:
                done = min(1.0, self.num_timesteps / total_timesteps)
                progress(done, f"PPO: {self.num_timesteps:,} of {total_timesteps:,} env-steps")
            return True

    vec_env = make_vec_env(make_env(), n_envs=num_envs, seed=seed)
    try:
        model = PPO("MlpPolicy", vec_env, n_steps=n_steps, seed=seed, device="cpu", verbose=0)
        setup_seconds = time.perf_counter() - start
        start = time.perf_counter()
        model.learn(total_timesteps=total_timesteps, callback=ProgressCallback())
        train_seconds = time.perf_counter() - start
    finally:
        vec_env.close()
    if progress is not None:
        progress(1.0, "PPO: done")
    greedy_return, greedy_reaches_goal, greedy_steps = _greedy_episode(model)
    transitions = model.n_steps * model.n_envs
    columns = ["env_steps", "episode", "return", "length", "reached_goal"]
    return PPOResult(
        num_envs=model.n_envs,
        n_steps=model.n_steps,
        total_timesteps=int(model.num_timesteps),
        transitions_per_update=transitions,
        updates=int(model.num_timesteps // transitions),
        setup_seconds=setup_seconds,
        train_seconds=train_seconds,
        episodes=pd.DataFrame(episodes, columns=columns),
        greedy_return=greedy_return,
        greedy_reaches_goal=bool(greedy_reaches_goal),
        greedy_steps=greedy_steps,
        versions={"stable-baselines3": sb3.__version__, "torch": torch.__version__},
    )
