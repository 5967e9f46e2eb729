"""Batched spaces and common vector-env mistakes, measured live on the installed gymnasium.

The mistakes are the scripts in ``burgerbot.app.scripts.mistakes``, executed exactly as the
page shows them; this module runs them, captures what they print and the error they
raise, and checks what they leave behind (worker processes).
"""

from __future__ import annotations

import builtins
import contextlib
import difflib
import io
import multiprocessing
import os
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv, VectorEnv
from gymnasium.vector.utils import batch_space

from burgerbot.app.scripts import mistakes as snippets
from burgerbot.app.settings import IntSetting
from burgerbot.app.slots import WorkerBudget
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_env
from burgerbot.vector import BurgerBotVectorEnv

__all__ = [
    "ASYNC_NUM_ENVS",
    "SPECS",
    "BurgerBotDictObservation",
    "CapturedError",
    "Demo",
    "Run",
    "SpaceRow",
    "action_shape_mistake",
    "changed_lines",
    "dtype_exercise",
    "factory_mistake",
    "final_obs_mistake",
    "process_running",
    "returns_frame",
    "run_script",
    "scalar_obs_mistake",
    "short_space",
    "spaces_frame",
    "spaces_table",
    "unclosed_async_mistake",
]

SPECS = (IntSetting("n", "N: number of sub-environments", default=4, low=1, high=64),)
ASYNC_NUM_ENVS = snippets.ASYNC_NUM_ENVS
SCRIPT_NAME = "<script>"
_ROOT = Path(__file__).resolve().parents[3]


class BurgerBotDictObservation(gym.ObservationWrapper):
    """BurgerBot whose observation is a dict, to show how ``Dict`` spaces batch.

    Example:
        >>> env = BurgerBotDictObservation()
        >>> obs, info = env.reset(seed=0)
        >>> obs["cell"].tolist(), obs["heading"], obs["sensor"]
        ([0, 0], 1, 1)
    """

    def __init__(self, env: gym.Env | None = None) -> None:
        super().__init__(BurgerBotEnv() if env is None else env)
        self.observation_space = spaces.Dict(
            {
                "cell": spaces.MultiDiscrete([7, 7]),
                "heading": spaces.Discrete(4),
                "sensor": spaces.Discrete(3),
            }
        )

    def observation(self, observation: np.ndarray) -> dict[str, Any]:
        return {
            "cell": observation[:2].copy(),
            "heading": int(observation[2]),
            "sensor": int(observation[3]),
        }


# --- Batched spaces ----------------------------------------------------------------------


def short_space(space: spaces.Space) -> str:
    """A one-line repr that stays short at large N (a batched Box repr lists every bound)."""
    if isinstance(space, spaces.Box):
        return f"Box(shape={space.shape}, dtype={space.dtype})"
    if isinstance(space, spaces.MultiDiscrete):
        if space.nvec.size <= 8:
            return repr(space)
        text = np.array2string(space.nvec, threshold=6, edgeitems=2)
        return f"MultiDiscrete({text}, shape={space.shape})"
    if isinstance(space, spaces.Dict):
        inner = ", ".join(f"'{key}': {short_space(sub)}" for key, sub in space.spaces.items())
        return f"Dict({inner})"
    if isinstance(space, spaces.Tuple):
        return "Tuple(" + ", ".join(short_space(sub) for sub in space.spaces) + ")"
    return repr(space)


def _shape_and_dtype(batch: Any) -> tuple[Any, Any]:
    if isinstance(batch, dict):
        return (
            {key: tuple(value.shape) for key, value in batch.items()},
            {key: str(value.dtype) for key, value in batch.items()},
        )
    return tuple(batch.shape), str(batch.dtype)


@dataclass(frozen=True)
class SpaceRow:
    """One environment's spaces, batched by ``batch_space`` and by a real vector env."""

    env: str
    vector_env: str
    single_observation_space: str
    batched_observation_space: str  # batch_space(single, N), short form
    batched_observation_repr: str  # the same, full repr
    space_kinds: str  # e.g. "MultiDiscrete → Box"
    obs_shape: Any  # a tuple, or {key: tuple} for Dict observations
    obs_dtype: Any  # a dtype name, or {key: name}
    reward_shape: tuple
    reward_dtype: str
    terminated_dtype: str
    truncated_dtype: str
    single_action_space: str
    batched_action_space: str
    action_shape: tuple
    spaces_agree: bool  # vector env's spaces == batch_space(...), and its obs lie in them


def _measure(name: str, envs: VectorEnv, num_envs: int) -> SpaceRow:
    single_obs, single_act = envs.single_observation_space, envs.single_action_space
    batched_obs = batch_space(single_obs, num_envs)
    batched_act = batch_space(single_act, num_envs)
    obs, _ = envs.reset(seed=0)
    envs.action_space.seed(0)
    actions = envs.action_space.sample()
    next_obs, rewards, terminated, truncated, _ = envs.step(actions)
    agree = (
        envs.observation_space == batched_obs
        and envs.action_space == batched_act
        and batched_obs.contains(obs)
        and batched_obs.contains(next_obs)
        and batched_act.contains(actions)
    )
    obs_shape, obs_dtype = _shape_and_dtype(obs)
    return SpaceRow(
        env=name,
        vector_env=type(envs).__name__,
        single_observation_space=short_space(single_obs),
        batched_observation_space=short_space(batched_obs),
        batched_observation_repr=repr(batched_obs),
        space_kinds=f"{type(single_obs).__name__} → {type(batched_obs).__name__}",
        obs_shape=obs_shape,
        obs_dtype=obs_dtype,
        reward_shape=tuple(rewards.shape),
        reward_dtype=str(rewards.dtype),
        terminated_dtype=str(terminated.dtype),
        truncated_dtype=str(truncated.dtype),
        single_action_space=short_space(single_act),
        batched_action_space=short_space(batched_act),
        action_shape=tuple(np.shape(actions)),
        spaces_agree=bool(agree),
    )


ENV_MAKERS: dict[str, Callable[[], gym.Env]] = {
    "BurgerBot": make_env(),
    "CartPole-v1": lambda: gym.make("CartPole-v1"),
    "FrozenLake-v1": lambda: gym.make("FrozenLake-v1"),
    "BurgerBot, Dict observation": BurgerBotDictObservation,
}
"""The environments of the spaces table, each stacked N times in a SyncVectorEnv."""


def spaces_table(num_envs: int) -> list[SpaceRow]:
    """Batch each env's spaces with ``batch_space`` and with a real vector env of ``num_envs``."""
    rows = []
    for name, make_one in ENV_MAKERS.items():
        envs = SyncVectorEnv([make_one for _ in range(num_envs)])
        try:
            rows.append(_measure(name, envs, num_envs))
        finally:
            envs.close()
    native = BurgerBotVectorEnv(num_envs)
    try:
        rows.append(_measure("BurgerBot", native, num_envs))
    finally:
        native.close()
    return rows


def _describe(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{key} {_describe(sub)}" for key, sub in value.items())
    return str(value)


def returns_frame(rows: Sequence[SpaceRow]) -> pd.DataFrame:
    """What ``reset``/``step`` returned: shapes and dtypes (one row per environment)."""
    return pd.DataFrame(
        {
            "env": [r.env for r in rows],
            "vector env": [r.vector_env for r in rows],
            "obs shape (real reset)": [_describe(r.obs_shape) for r in rows],
            "obs dtype": [_describe(r.obs_dtype) for r in rows],
            "rewards": [f"{r.reward_shape} {r.reward_dtype}" for r in rows],
            "terminated / truncated": [
                f"{r.reward_shape} {r.terminated_dtype} / {r.truncated_dtype}" for r in rows
            ],
            "sampled actions shape": [str(r.action_shape) for r in rows],
        }
    )


def spaces_frame(rows: Sequence[SpaceRow]) -> pd.DataFrame:
    """One env's spaces, batched by ``batch_space``, and whether the vector env agrees."""
    return pd.DataFrame(
        {
            "env": [r.env for r in rows],
            "vector env": [r.vector_env for r in rows],
            "vector env agrees": ["✅ same" if r.spaces_agree else "❌ differs" for r in rows],
            "space type": [r.space_kinds for r in rows],
            "single observation space": [r.single_observation_space for r in rows],
            "batch_space(single, N)": [r.batched_observation_space for r in rows],
            "batched action space": [r.batched_action_space for r in rows],
        }
    )


def changed_lines(before: str, after: str) -> list[int]:
    """Line numbers (from 1) of ``after`` that are new or changed compared with ``before``."""
    matcher = difflib.SequenceMatcher(a=before.splitlines(), b=after.splitlines(), autojunk=False)
    return [
        line + 1
        for tag, _, _, first, last in matcher.get_opcodes()
        if tag in ("replace", "insert")
        for line in range(first, last)
    ]


# --- Running the scripts -----------------------------------------------------------------


@dataclass(frozen=True)
class CapturedError:
    """An exception a script raised, as text (type name, message, where it came from)."""

    type: str
    message: str
    where: str  # the innermost frame: "line 15 of the script" or "gymnasium/..., line 97, in step"
    path: tuple[str, ...]  # every frame from the script inwards, shortened

    @classmethod
    def from_exception(cls, error: BaseException) -> CapturedError:
        frames = traceback.extract_tb(error.__traceback__)
        # Drop run_script's own frame: the path starts in the script.
        frames = [f for f in frames if f.filename != __file__] or frames
        path = tuple(_frame_text(f, short=True) for f in frames)
        where = _frame_text(frames[-1], short=False) if frames else ""
        return cls(type(error).__name__, str(error), where, path)

    @property
    def headline(self) -> str:
        return f"{self.type}: {self.message}"


def _frame_text(frame: traceback.FrameSummary, short: bool) -> str:
    if frame.filename == SCRIPT_NAME:
        return f"script line {frame.lineno}" if short else f"line {frame.lineno} of the script"
    if short:
        return f"{_short_file(frame.filename)}:{frame.lineno} in {frame.name}"
    return f"{_short_file(frame.filename)}, line {frame.lineno}, in {frame.name}"


def _short_file(filename: str) -> str:
    path = Path(filename)
    for marker in ("site-packages", "dist-packages"):
        if marker in path.parts:
            return Path(*path.parts[path.parts.index(marker) + 1 :]).as_posix()
    try:
        return path.resolve().relative_to(_ROOT).as_posix()
    except ValueError:
        return path.name


@dataclass(frozen=True)
class Run:
    """One script as it ran: its code, what it printed, the error it raised (if any)."""

    code: str
    output: str
    error: CapturedError | None
    values: dict[str, Any] = field(default_factory=dict)


def _close_leftovers(namespace: Mapping[str, Any]) -> None:
    for value in list(namespace.values()):
        if isinstance(value, VectorEnv | gym.Env):
            with contextlib.suppress(Exception):  # cleanup goes on for the other envs
                value.close()


def run_script(
    code: str,
    read: Sequence[str] = (),
    inspect_namespace: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
) -> Run:
    """Execute ``code`` like a fresh script; capture its prints and the error it raises.

    ``read`` names variables to copy (as ``str``) from the script's namespace into
    ``values``; ``inspect_namespace`` may look at what the script left behind (before any
    env left open in that namespace is closed) and adds its results to ``values``.
    """
    buffer = io.StringIO()

    def captured_print(*args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("file", buffer)
        builtins.print(*args, **kwargs)

    namespace: dict[str, Any] = {"__name__": "__main__", "print": captured_print}
    error: CapturedError | None = None
    values: dict[str, Any] = {}
    try:
        try:
            exec(compile(code, SCRIPT_NAME, "exec"), namespace)
        except Exception as raised:
            error = CapturedError.from_exception(raised)
            del raised  # its traceback holds the script's frame
        for name in read:
            if name in namespace:
                values[name] = str(namespace[name])
        if inspect_namespace is not None:
            values.update(inspect_namespace(namespace))
    finally:
        _close_leftovers(namespace)
        namespace.clear()
    return Run(code=code, output=buffer.getvalue(), error=error, values=values)


@dataclass(frozen=True)
class Demo:
    """The runs that make up one mistake (wrong, fixed, variants) and facts measured beside."""

    runs: dict[str, Run]
    facts: dict[str, Any] = field(default_factory=dict)


def _read_dtypes(namespace: dict[str, Any]) -> dict[str, Any]:
    return {
        f"{name}.{attr}": str(getattr(namespace[name], attr))
        for name in ("burgerbot_obs", "cartpole_obs")
        if name in namespace
        for attr in ("dtype", "shape")
    }


def dtype_exercise(num_envs: int) -> Run:
    """The lesson's exercise 3: print the batched observation's dtype, BurgerBot vs CartPole."""
    return run_script(snippets.dtype_exercise(num_envs), inspect_namespace=_read_dtypes)


def _read_shapes(*names: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    def read(namespace: dict[str, Any]) -> dict[str, Any]:
        return {
            f"{name}.shape": tuple(np.shape(namespace[name])) for name in names if name in namespace
        }

    return read


def factory_mistake(num_envs: int) -> Demo:
    """Mistake 1: the factory itself in the list instead of the function it returns."""
    return Demo(
        runs={
            "wrong": run_script(snippets.factory_wrong(num_envs)),
            "fixed": run_script(
                snippets.factory_fixed(num_envs), inspect_namespace=_read_shapes("obs")
            ),
            "defaults": run_script(snippets.factory_with_defaults_wrong(num_envs)),
        }
    )


def scalar_obs_mistake(num_envs: int) -> Demo:
    """Mistake 2: one plain int per env gives a batch of shape (N,), not (N, k)."""
    return Demo(
        runs={
            "wrong": run_script(
                snippets.scalar_obs_wrong(num_envs), inspect_namespace=_read_shapes("obs")
            ),
            "fixed": run_script(
                snippets.scalar_obs_fixed(num_envs), inspect_namespace=_read_shapes("obs", "rows")
            ),
        }
    )


def _read_outcomes(namespace: dict[str, Any]) -> dict[str, Any]:
    outcomes = namespace.get("outcomes", {})
    return {
        "outcomes": {
            name: None if error is None else CapturedError.from_exception(error)
            for name, error in outcomes.items()
        }
    }


def action_shape_mistake(num_envs: int) -> Demo:
    """Mistake 3: actions of shape (N, 1), given to Sync BurgerBots, Sync CartPoles, native."""
    return Demo(
        runs={
            "wrong": run_script(
                snippets.action_shape_wrong(num_envs), inspect_namespace=_read_shapes("actions")
            ),
            "fixed": run_script(
                snippets.action_shape_fixed(num_envs),
                inspect_namespace=_read_shapes("actions", "rewards"),
            ),
            "elsewhere": run_script(
                snippets.action_shape_other_envs(num_envs), inspect_namespace=_read_outcomes
            ),
        }
    )


def final_obs_mistake(num_envs: int) -> Demo:
    """Mistake 4: ``infos["final_observation"]`` is gone in gymnasium 1.x, in every mode."""
    return Demo(
        runs={
            "wrong_same_step": run_script(snippets.final_obs_wrong(num_envs, "SAME_STEP")),
            "wrong_next_step": run_script(snippets.final_obs_wrong(num_envs, "NEXT_STEP")),
            "fixed_same_step": run_script(
                snippets.final_obs_fixed_same_step(num_envs), read=("final",)
            ),
            "fixed_next_step": run_script(
                snippets.final_obs_fixed_next_step(num_envs), read=("final",)
            ),
        }
    )


# --- Mistake 5: worker processes ---------------------------------------------------------


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie, read from ``/proc`` (Linux)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


def _alive(processes: Sequence[multiprocessing.process.BaseProcess]) -> list[int]:
    has_proc = os.path.isdir("/proc")
    return [
        p.pid
        for p in processes
        if p.pid is not None and p.is_alive() and (not has_proc or process_running(p.pid))
    ]


def _check_workers(namespace: dict[str, Any]) -> dict[str, Any]:
    """What the script left: its env's worker processes, alive or not; then close it."""
    envs = namespace.get("envs")
    if not isinstance(envs, AsyncVectorEnv):
        return {}
    processes = list(envs.processes)
    facts: dict[str, Any] = {
        "worker_pids": [p.pid for p in processes],
        "closed_by_script": bool(envs.closed),
        "alive_after_script": _alive(processes),
    }
    envs.close()
    facts["alive_after_close"] = _alive(processes)
    return facts


def unclosed_async_mistake(budget: WorkerBudget | None = None) -> Demo:
    """Mistake 5: an AsyncVectorEnv that is not closed keeps its worker processes.

    Runs four scripts one after another, each starting ``ASYNC_NUM_ENVS`` workers, and
    closes whatever a script left open before the next starts. ``budget`` (the app's
    server-wide Async worker budget) is held for the whole demo.
    """
    if budget is not None:
        budget.acquire(ASYNC_NUM_ENVS)
    try:
        runs = {
            "wrong": run_script(snippets.async_wrong(), inspect_namespace=_check_workers),
            "with": run_script(snippets.async_with_statement(), inspect_namespace=_check_workers),
            "fixed_finally": run_script(
                snippets.async_fixed_finally(), inspect_namespace=_check_workers
            ),
            "fixed_closing": run_script(
                snippets.async_fixed_closing(), inspect_namespace=_check_workers
            ),
        }
    finally:
        if budget is not None:
            budget.release(ASYNC_NUM_ENVS)
    facts = {
        "async_has_enter": hasattr(AsyncVectorEnv, "__enter__"),
        "async_has_exit": hasattr(AsyncVectorEnv, "__exit__"),
        "async_has_del": "__del__" in vars(AsyncVectorEnv),
    }
    return Demo(runs=runs, facts=facts)
