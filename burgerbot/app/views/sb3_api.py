"""The two vector-env APIs side by side: Gymnasium's and SB3's answers, measured live."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from gymnasium.vector import SyncVectorEnv

from burgerbot.app.views.sb3 import load_sb3, sb3_available
from burgerbot.factories import make_env

__all__ = ["ApiRow", "api_markdown", "api_rows", "describe"]


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
