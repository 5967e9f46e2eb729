"""The "Batch shapes" page's quiz: read a guessed shape and dtype, and explain the real ones."""

from __future__ import annotations

import re
from dataclasses import dataclass

from gymnasium.vector import VectorEnv

from burgerbot.app.views.batch_shapes import ENVS
from burgerbot.app.views.batch_shapes_run import BatchCall
from burgerbot.app.views.batch_shapes_tables import short_repr

__all__ = ["DTYPE_CHOICES", "GuessResult", "check_guess", "parse_shape"]

DTYPE_CHOICES = ("int64", "int32", "float32", "float64", "bool", "object")
"""The dtypes a learner can pick as a guess."""

_SHAPE_TEXT = re.compile(r"\s*[\(\[]?\s*([0-9]+(?:\s*[,x×]\s*[0-9]+)*)?\s*,?\s*[\)\]]?\s*")


def parse_shape(text: str) -> tuple[int, ...] | None:
    """Read a shape a learner typed: ``(4, 4)``, ``4,4``, ``4x4``, ``(8,)``; None if unreadable.

    Example:
        >>> parse_shape("(8,)"), parse_shape(" 4 x 4 "), parse_shape("four")
        ((8,), (4, 4), None)
    """
    if len(text) > 100:
        return None
    match = _SHAPE_TEXT.fullmatch(text)
    if match is None or match.group(1) is None:
        return None
    return tuple(int(part) for part in re.split(r"\s*[,x×]\s*", match.group(1).strip()))


@dataclass(frozen=True)
class GuessResult:
    """Whether a guess of the observation batch's shape and dtype was right, and why."""

    shape_right: bool
    dtype_right: bool
    explanation: str


def check_guess(
    shape_text: str, dtype_text: str, call: BatchCall, envs: VectorEnv, env: str
) -> GuessResult:
    """Compare a guess with the real observation batch and explain the real shape and dtype."""
    obs = call.observations
    n = len(obs)
    guessed = parse_shape(shape_text)
    shape_right = guessed == obs.shape
    dtype_right = dtype_text.strip() == str(obs.dtype)
    single = envs.single_observation_space
    if ENVS[env].scalar_observation:
        why_shape = (
            f"The shape is `{obs.shape}`: {n} envs on axis 0 and nothing more, because each "
            f"{env} observation is one single number (`single_observation_space` is "
            f"`{short_repr(single)}`, shape `{single.shape}`). Stacking N single numbers "
            "gives a flat batch of shape (N,)."
        )
    else:
        k = obs.shape[1]
        why_shape = (
            f"The shape is `{obs.shape}`: {n} envs on axis 0 (one row per env) and {k} "
            f"observation components on axis 1 ({', '.join(ENVS[env].columns)}). The vector "
            f"env stacks each env's `{single.shape}` observation into one array."
        )
    why_dtype = (
        f"The dtype is `{obs.dtype}`: the single observation space has dtype "
        f"`{single.dtype}`, and batching keeps it."
    )
    if guessed is None:
        verdict = f"I could not read `{shape_text[:40]}` as a shape; try something like `(4, 4)`."
    elif shape_right:
        verdict = "Your shape is right."
    else:
        verdict = f"Your shape `{guessed}` is not it."
    if dtype_right:
        verdict += " Your dtype is right."
    elif not dtype_text.strip():
        verdict += " You did not pick a dtype."
    else:
        verdict += f" Your dtype `{dtype_text}` is not it."
    return GuessResult(shape_right, dtype_right, f"{verdict}\n\n{why_shape}\n\n{why_dtype}")
