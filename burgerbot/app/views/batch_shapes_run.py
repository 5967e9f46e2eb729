"""The "Batch shapes" page's live run: reset and step a vector env, keep each call's batches."""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv

from burgerbot.app.caps import CAPS
from burgerbot.app.views.batch_shapes import BatchSettings, build_vector_env

__all__ = ["HISTORY_LENGTH", "BatchCall", "BatchRun", "run_calls"]

HISTORY_LENGTH = 50
"""Calls kept in a run's history (older ones are dropped)."""


@dataclass
class BatchCall:
    """What one ``reset`` or ``step`` call of a vector env returned (copies, not views)."""

    number: int
    """0 for the reset, then 1, 2, ... for each step since it."""
    observations: np.ndarray
    infos: dict[str, Any]
    actions: np.ndarray | None = None
    rewards: np.ndarray | None = None
    terminated: np.ndarray | None = None
    truncated: np.ndarray | None = None

    @property
    def kind(self) -> str:
        return "reset" if self.number == 0 else "step"


@dataclass
class BatchRun:
    """A vector env's calls since its last reset, with seeded random actions.

    The action space is seeded with the reset seed, so a script that does the same
    (``reset(seed=s)``, ``action_space.seed(s)``, then ``sample()`` before each step)
    sees exactly the same batches.

    Example:
        >>> from burgerbot import BurgerBotVectorEnv
        >>> run = BatchRun(BurgerBotVectorEnv(3), seed=0)
        >>> run.reset().observations.shape
        (3, 4)
        >>> run.step(2).number, len(run.history)
        (2, 3)
        >>> run.envs.close()
    """

    envs: VectorEnv
    seed: int
    history_length: int = HISTORY_LENGTH
    steps: int = 0
    history: deque[BatchCall] = field(init=False)
    prepared: BatchCall | None = None
    """The next step's call, taken ahead of the click that shows it (`prepare`)."""

    def __post_init__(self) -> None:
        self.history = deque(maxlen=self.history_length)

    @property
    def latest(self) -> BatchCall | None:
        return self.history[-1] if self.history else None

    def reset(self) -> BatchCall:
        """``reset(seed=seed)`` and re-seed the action space: the run starts over."""
        observations, infos = self.envs.reset(seed=self.seed)
        self.envs.action_space.seed(self.seed)
        self.steps = 0
        self.prepared = None
        self.history.clear()
        call = BatchCall(0, np.array(observations), _copy_infos(infos))
        self.history.append(call)
        return call

    def step(self, times: int = 1) -> BatchCall:
        """Step ``times`` times with random actions; returns the last call."""
        if self.latest is None:
            self.reset()
        times = max(1, min(int(times), CAPS.max_steps_per_run))
        for _ in range(times):
            call = self.prepared or self._take_step()
            self.prepared = None
            self.steps = call.number
            self.history.append(call)
        return self.history[-1]

    def prepare(self) -> BatchCall:
        """Take the next step now, without showing it: the call the next `step` returns.

        The page hands it to the browser ahead of the click, so that Step once shows it at
        once. The env and its seeded actions go on exactly as if the step waited for the
        click: the learner sees the same calls in the same order.
        """
        if self.latest is None:
            self.reset()
        if self.prepared is None:
            self.prepared = self._take_step()
        return self.prepared

    def _take_step(self) -> BatchCall:
        actions = self.envs.action_space.sample()
        observations, rewards, terminated, truncated, infos = self.envs.step(actions)
        return BatchCall(
            self.steps + 1,
            np.array(observations),
            _copy_infos(infos),
            np.array(actions),
            np.array(rewards),
            np.array(terminated),
            np.array(truncated),
        )


def _copy_infos(infos: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: np.array(value) if isinstance(value, np.ndarray) else value
        for key, value in infos.items()
    }


def run_calls(settings: BatchSettings, steps: int) -> BatchCall:
    """Build the env, reset it with the seed, take ``steps`` random steps, close it.

    This is what the page shows after that many steps, and what the page's script prints.
    """
    envs = build_vector_env(settings)
    try:
        run = BatchRun(envs, settings.seed)
        call = run.reset()
        for _ in range(steps):
            call = run.step(1)
        return call
    finally:
        envs.close()
