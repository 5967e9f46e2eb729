"""PPO's rollout buffer: one batch of transitions collected by N envs, laid out (steps, envs)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd
from gymnasium.vector import AutoresetMode

from burgerbot import checks
from burgerbot.experiments import rollout

__all__ = ["DEFAULT_BATCH_SIZE", "BufferLayout", "buffer_layout", "rollout_buffer"]

DEFAULT_BATCH_SIZE = 2048
"""Transitions PPO collects per update in the usual defaults (the lesson's figure)."""


@dataclass(frozen=True)
class BufferLayout:
    """How a batch of ``batch_size`` transitions is collected with ``num_envs`` envs."""

    batch_size: int
    num_envs: int
    step_calls: int
    """``step()`` calls needed: ``ceil(batch_size / num_envs)``."""
    collected: int
    """Transitions those calls collect: ``step_calls * num_envs`` (at least ``batch_size``)."""

    @property
    def exact(self) -> bool:
        """True when ``num_envs`` divides the batch, so no transition is collected in excess."""
        return self.collected == self.batch_size


def buffer_layout(batch_size: int, num_envs: int) -> BufferLayout:
    """How many ``step()`` calls fill the batch, and how many transitions they collect.

    Example:
        >>> layout = buffer_layout(2048, 4)
        >>> layout.step_calls, layout.collected, layout.exact
        (512, 2048, True)
        >>> buffer_layout(2048, 3).step_calls, buffer_layout(2048, 3).collected
        (683, 2049)
    """
    batch_size = checks.positive_int("batch_size", batch_size)
    num_envs = checks.positive_int("num_envs", num_envs)
    step_calls = math.ceil(batch_size / num_envs)
    return BufferLayout(
        batch_size=batch_size,
        num_envs=num_envs,
        step_calls=step_calls,
        collected=step_calls * num_envs,
    )


def rollout_buffer(
    batch_size: int = DEFAULT_BATCH_SIZE,
    num_envs: int = 4,
    seed: int = 0,
    autoreset_mode: AutoresetMode | str = "NEXT_STEP",
) -> pd.DataFrame:
    """Fill one batch with a random agent on the native vector env: one row per transition.

    The frame is `burgerbot.experiments.rollout` for ``ceil(batch_size / num_envs)``
    ``step()`` calls (columns ``step``, ``env``, ``reward``, ``event``, ``episode``, ...)
    plus ``ends_episode`` (terminated or truncated: the episode boundary lies right after
    this transition). ``step`` is the row of the ``(steps, envs)`` buffer, ``env`` its column.

    Example:
        >>> frame = rollout_buffer(batch_size=8, num_envs=4)
        >>> len(frame), int(frame["step"].max())
        (8, 2)
    """
    layout = buffer_layout(batch_size, num_envs)
    mode = checks.autoreset_mode(autoreset_mode)
    frame = rollout("native", num_envs, layout.step_calls, seed, mode)
    frame["ends_episode"] = frame["terminated"] | frame["truncated"]
    return frame
