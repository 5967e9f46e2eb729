"""Stable-Baselines3 next to Gymnasium's vector API: is SB3 here, the page's settings, its calls.

``stable_baselines3`` (and with it torch) is imported only inside the functions that need
it, through `load_sb3`, so the rest of ``burgerbot`` works without the optional extra
(``pip install -r requirements-sb3.txt``). Everything that needs only gymnasium (the
Gymnasium side of the comparisons) runs either way. The API table, the side-by-side run and
the PPO run follow, each in its own section below.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import altair as alt
import numpy as np
import pandas as pd
from gymnasium.vector import AutoresetMode, SyncVectorEnv

from burgerbot import world
from burgerbot.app.caps import CAPS
from burgerbot.app.palette import OKABE_ITO
from burgerbot.app.sb3_recording import Recording
from burgerbot.app.script_runner import ScriptRun, printed, run_script
from burgerbot.app.scripts import sb3 as snippets
from burgerbot.app.settings import IntSetting
from burgerbot.app.versions import SB3_MODULE, installed_version, sb3_available
from burgerbot.env import BurgerBotEnv
from burgerbot.experiments import Progress, random_actions
from burgerbot.factories import burgerbot_factory

__all__ = [
    "ACCEPTS_OPTIONS",
    "GYM_NEXT_STEP",
    "GYM_SAME_STEP",
    "INSTALL_COMMAND",
    "LIBRARIES",
    "PPO_N_STEPS",
    "SB3",
    "SPECS",
    "ApiRow",
    "PPOResult",
    "SB3Missing",
    "SideBySide",
    "accepts_explanation",
    "accepts_truth",
    "api_markdown",
    "api_rows",
    "around_first_end",
    "describe",
    "invalid_calls",
    "load_sb3",
    "n_envs_sentence",
    "n_steps_sentence",
    "ppo_episode_chart",
    "recorded_agreement",
    "recorded_calls",
    "recorded_output",
    "recorded_scripts",
    "sb3_version",
    "side_by_side",
    "takeaways",
    "train_ppo",
]

SB3_DISTRIBUTION = "stable-baselines3"
INSTALL_COMMAND = "pip install -r requirements-sb3.txt"

PPO_N_STEPS = 128
"""``n_steps`` of the page's PPO run: ``step()`` calls per env between two updates."""

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
"""n_envs, n_steps, total env-steps and seed of the recorded PPO run (the page's defaults)."""
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


# --- The two vector-env APIs, measured live ---
# The two vector-env APIs side by side: Gymnasium's and SB3's answers, measured live.


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
    envs = SyncVectorEnv([burgerbot_factory() for _ in range(num_envs)])
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

    vec_env = make_vec_env(burgerbot_factory(), n_envs=num_envs, seed=seed)
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
            f"`SyncVectorEnv([burgerbot_factory() for _ in range({n})])`",
            f"`make_vec_env(burgerbot_factory(), n_envs={n})` (gives a "
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
            "`NEXT_STEP` (the default since gymnasium 1.0): on the *next* `step()` call, which "
            "ignores that copy's action; `SAME_STEP` and `DISABLED` on request",
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
            "no: SB3 refuses it (section 1)",
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


# --- A short PPO run on BurgerBot ---
# A short PPO run of Stable-Baselines3 on BurgerBot, with progress and its episodes.


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
    """Train SB3's PPO on ``make_vec_env(burgerbot_factory(), n_envs=num_envs)`` on the CPU.

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

    vec_env = make_vec_env(burgerbot_factory(), n_envs=num_envs, seed=seed)
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


# --- The chart of a PPO run's episodes (the only one this page draws) ---

_ORANGE, _SKY, _GREEN, _BLUE, _VERMILLION, _PURPLE, _YELLOW, _BLACK = OKABE_ITO


def ppo_episode_chart(episodes: pd.DataFrame, window: int = 20) -> alt.LayerChart:
    """PPO's training episodes: each episode's return (dots) and a moving average (line).

    ``episodes`` has columns ``env_steps``, ``episode``, ``return``, ``reached_goal``
    (`PPOResult.episodes`).
    """
    data = episodes.copy()
    data["average"] = data["return"].rolling(window, min_periods=1).mean()
    data["outcome"] = data["reached_goal"].map({True: "reached the goal", False: "did not"})
    base = alt.Chart(data).encode(
        x=alt.X("env_steps:Q", title="env-steps collected when the episode ended")
    )
    outcomes = ["did not", "reached the goal"]
    dots = base.mark_point(size=24, opacity=0.6, filled=True).encode(
        y=alt.Y("return:Q", title="episode return"),
        # Colour and shape both tell the outcomes apart.
        color=alt.Color(
            "outcome:N", title="Episode", scale=alt.Scale(domain=outcomes, range=[_SKY, _ORANGE])
        ),
        shape=alt.Shape(
            "outcome:N",
            title="Episode",
            scale=alt.Scale(domain=outcomes, range=["circle", "triangle-up"]),
        ),
        tooltip=["episode:Q", "env_steps:Q", "return:Q", "length:Q", "outcome:N"],
    )
    line = base.mark_line(color=_BLACK, strokeWidth=2).encode(
        y="average:Q", tooltip=[alt.Tooltip("average:Q", title=f"mean of last {window}")]
    )
    return alt.layer(dots, line).properties(height=280)


# --- The prediction, the verdicts and the takeaways ---
# The SB3 page's prediction, its verdict sentences and its takeaways, computed from its runs.

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
            f"`PPO(..., n_envs=4)` {'raised ' + n_envs.error.type if n_envs.raised else 'ran'}",
            "a Gymnasium `SyncVectorEnv` "
            + (f"raised {vector.error.type}" if vector.raised else "was accepted"),
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
        same, nxt = side.agree[GYM_SAME_STEP], side.agree[GYM_NEXT_STEP]
        like = "SAME_STEP" if same >= nxt else "NEXT_STEP"
        bullets.append(
            f"SB3 resets like Gymnasium's {like} ({max(same, nxt)} of {side.pairs} pairs matched "
            'here), keeping the last observation in `infos[i]["terminal_observation"]`.'
        )
    elif recorded_agreement and {"SAME_STEP", "NEXT_STEP"} <= set(recorded_agreement):
        like = max(("SAME_STEP", "NEXT_STEP"), key=lambda mode: recorded_agreement[mode][0])
        same, pairs = recorded_agreement[like]
        bullets.append(
            f"SB3 resets like Gymnasium's {like} ({same} of {pairs} pairs matched in the "
            f'recorded run), keeping the last observation in `infos[i]["terminal_observation"]`.'
        )
    return bullets
