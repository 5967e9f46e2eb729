"""Where batching pays: transitions per second with and without a policy network choosing actions.

A plain Python loop over one `BurgerBotEnv` is the baseline. `SyncVectorEnv` (Gymnasium's) and
`BurgerBotVectorEnv` (this project's) are timed against it at a few numbers of environments,
first with random actions (the environment's cost alone), then with `MLPPolicy`, a small numpy
network, choosing every action: one forward pass per step for the plain loop, one forward pass
for the whole batch per `step()` call for the vector envs.
"""

from __future__ import annotations

import itertools
import os
import platform
from collections.abc import Callable, Sequence

import gymnasium as gym
import numpy as np
import pandas as pd

from burgerbot import checks
from burgerbot.bench import repeat_timings
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_vector_env

__all__ = [
    "LOOPS",
    "OBS_SCALE",
    "MLPPolicy",
    "forward_speeds",
    "loop_speeds",
]

LOOPS = ("plain", "sync", "native")
"""What steps the robots: a plain loop over one BurgerBotEnv, SyncVectorEnv, BurgerBotVectorEnv."""

OBS_SCALE = np.array([6.0, 6.0, 3.0, 2.0], dtype=np.float32)
"""The largest value of each observation entry (row, col, heading, sensor): inputs become 0..1."""

# The plain loop checks the clock once per this many steps, so timing costs next to nothing.
PLAIN_CHUNK = 64
# Pre-generated random actions, cycled (drawing them is not the environment's cost).
ACTION_ROWS = 256


class MLPPolicy:
    """A small policy network in numpy: observation -> 64 tanh -> 64 tanh -> 4 action logits.

    ``hidden`` gives the hidden layers' sizes; the input is BurgerBot's observation
    ``[row, col, heading, sensor]`` scaled to 0..1 (`OBS_SCALE`), the output one logit per
    action.

    Its weights are random (it is not trained): it costs what a real policy of this size
    costs, which is what the timings need. `act` takes a batch of observations, shape
    ``(N, 4)``, and samples one action per row from the softmax of its logits.

    Example:
        >>> policy = MLPPolicy(seed=0)
        >>> policy.logits(np.zeros((3, 4), dtype=np.int64)).shape
        (3, 4)
        >>> actions = policy.act(np.array([[0, 0, 1, 1], [6, 5, 0, 2]]))
        >>> actions.shape, actions.dtype, bool(((0 <= actions) & (actions < 4)).all())
        ((2,), dtype('int64'), True)
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]

    def __init__(self, hidden: Sequence[int] = (64, 64), seed: int = 0) -> None:
        hidden = checks.positive_ints("hidden", hidden)
        rng = np.random.default_rng(checks.seed(seed))
        pairs = list(itertools.pairwise([len(OBS_SCALE), *hidden, 4]))
        self.weights = [
            rng.normal(0.0, 1.0 / np.sqrt(fan_in), (fan_in, fan_out)).astype(np.float32)
            for fan_in, fan_out in pairs
        ]
        self.biases = [np.zeros(fan_out, dtype=np.float32) for _, fan_out in pairs]
        self.rng = rng

    @property
    def sizes(self) -> tuple[int, ...]:
        """Units per layer, input first."""
        return (self.weights[0].shape[0], *(w.shape[1] for w in self.weights))

    def logits(self, obs: np.ndarray) -> np.ndarray:
        """One forward pass: action logits, shape ``(N, actions)``, for observations ``(N, 4)``."""
        obs = np.asarray(obs)
        if obs.ndim != 2 or obs.shape[1] != len(OBS_SCALE):
            raise ValueError(
                f"`obs` must have shape (N, 4) (a batch, one row per env), got {obs.shape}"
            )
        x = obs.astype(np.float32) / OBS_SCALE
        for weight, bias in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = np.tanh(x @ weight + bias)
        return x @ self.weights[-1] + self.biases[-1]

    def act(self, obs: np.ndarray) -> np.ndarray:
        """One sampled action per observation row, shape ``(N,)``, dtype int64.

        Sampling uses the Gumbel-max trick: the argmax of the logits plus independent Gumbel
        noise is distributed as the softmax of the logits, for the whole batch at once.
        """
        logits = self.logits(obs)
        noise = self.rng.gumbel(size=logits.shape)
        return np.argmax(logits + noise, axis=1).astype(np.int64)


def _plain_chunk(policy: MLPPolicy | None, rng: np.random.Generator) -> Callable[[], int]:
    """``PLAIN_CHUNK`` steps of one BurgerBotEnv in a plain loop, resetting when an episode ends."""
    env = BurgerBotEnv()
    obs, _ = env.reset(seed=0)
    actions = itertools.cycle(rng.integers(0, 4, size=ACTION_ROWS * 4).tolist())
    step, reset = env.step, env.reset

    def random_chunk() -> int:
        for _ in range(PLAIN_CHUNK):
            _, _, terminated, truncated, _ = step(next(actions))
            if terminated or truncated:
                reset()
        return PLAIN_CHUNK

    def policy_chunk() -> int:
        nonlocal obs
        for _ in range(PLAIN_CHUNK):
            action = int(policy.act(obs[None])[0])  # a batch of one observation
            obs, _, terminated, truncated, _ = step(action)
            if terminated or truncated:
                obs, _ = reset()
        return PLAIN_CHUNK

    return random_chunk if policy is None else policy_chunk


def _vector_chunk(
    envs: gym.vector.VectorEnv, policy: MLPPolicy | None, rng: np.random.Generator
) -> Callable[[], int]:
    """One ``envs.step`` call: random actions, or one forward pass for the whole batch."""
    obs, _ = envs.reset(seed=0)
    rows = itertools.cycle(list(rng.integers(0, 4, size=(ACTION_ROWS, envs.num_envs))))
    step = envs.step

    def random_call() -> int:
        step(next(rows))
        return 1

    def policy_call() -> int:
        nonlocal obs
        obs, _, _, _, _ = step(policy.act(obs))  # auto-reset: no reset call needed
        return 1

    return random_call if policy is None else policy_call


def _check_budget(seconds: float, repeats: int) -> tuple[float, int]:
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or not seconds > 0:
        raise ValueError(f"`seconds` must be a positive number, got {seconds!r}")
    return float(seconds), checks.positive_int("repeats", repeats)


def _settings(seconds: float, repeats: int, seed: int) -> dict:
    return {
        "seconds": seconds,
        "repeats": repeats,
        "seed": seed,
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "gymnasium": gym.__version__,
    }


def loop_speeds(
    sizes: Sequence[int] = (1, 4, 16, 64),
    *,
    seconds: float = 0.01,
    repeats: int = 3,
    seed: int = 0,
) -> pd.DataFrame:
    """Transitions per second of the plain loop, Sync and native, without and with a policy.

    Each row warms up, then steps until ``seconds`` have passed (and at least two chunks),
    ``repeats`` times, and keeps the fastest run. The plain loop resets its env when an
    episode ends (part of its cost); the vector envs auto-reset (NEXT_STEP). Without a policy
    the actions are random and drawn beforehand; with one, `MLPPolicy` picks every action
    from the latest observations, and its forward passes are part of the time.

    Args:
        sizes: Numbers of environments for Sync and native (the plain loop has one).
        seconds: Timing budget per repeat.
        repeats: Timed runs per row; the fastest is kept.
        seed: Seeds the random actions and the policy.

    Returns:
        One row per (loop, num_envs, policy), columns ``loop`` (one of `LOOPS`),
        ``num_envs``, ``policy`` (bool), ``step_calls``, ``seconds``, ``transitions`` (of the
        fastest repeat), ``transitions_per_s`` (fastest repeat),
        ``transitions_per_s_slowest`` (slowest repeat: the spread) and ``seconds_per_call``.
        ``attrs["settings"]`` records the budget and the machine.

    Example:
        >>> df = loop_speeds([2], seconds=0.001, repeats=1)
        >>> df[["loop", "num_envs", "policy"]].values.tolist()
        [['plain', 1, False], ['sync', 2, False], ['native', 2, False], ['plain', 1, True], ['sync', 2, True], ['native', 2, True]]
    """  # noqa: E501
    sizes = checks.positive_ints("sizes", sizes)
    seconds, repeats = _check_budget(seconds, repeats)
    rng = np.random.default_rng(checks.seed(seed))
    rows = []
    for with_policy in (False, True):
        policy = MLPPolicy(seed=seed) if with_policy else None
        plans = [("plain", 1)] + [(loop, n) for loop in ("sync", "native") for n in sizes]
        for loop, num_envs in plans:
            envs = None if loop == "plain" else make_vector_env(loop, num_envs)
            try:
                chunk = (
                    _plain_chunk(policy, rng) if envs is None else _vector_chunk(envs, policy, rng)
                )
                # Each timed run makes two step() calls or more; the warm-up is one chunk.
                timings = repeat_timings(chunk, seconds, repeats, min_calls=2)
            finally:
                if envs is not None:
                    envs.close()
            calls, elapsed = timings.best
            transitions = calls * num_envs
            rows.append(
                {
                    "loop": loop,
                    "num_envs": num_envs,
                    "policy": with_policy,
                    "step_calls": calls,
                    "seconds": elapsed,
                    "transitions": transitions,
                    "transitions_per_s": transitions / elapsed,
                    "transitions_per_s_slowest": timings.slowest.rate * num_envs,
                    "seconds_per_call": elapsed / calls,
                }
            )
    df = pd.DataFrame(rows)
    df.attrs["settings"] = _settings(seconds, repeats, seed)
    return df


def forward_speeds(
    sizes: Sequence[int] = (1, 4, 16, 64),
    *,
    seconds: float = 0.01,
    repeats: int = 3,
    seed: int = 0,
) -> pd.DataFrame:
    """Seconds per `MLPPolicy.act` call for a batch of 1 observation and of N, no env involved.

    Returns:
        One row per batch size: ``batch_size``, ``calls``, ``seconds``,
        ``seconds_per_call`` (fastest repeat), ``seconds_per_call_slowest`` (slowest repeat)
        and ``observations_per_s`` (fastest repeat).

    Example:
        >>> forward_speeds([1, 8], seconds=0.001, repeats=1)["batch_size"].tolist()
        [1, 8]
    """
    sizes = checks.positive_ints("sizes", sizes)
    seconds, repeats = _check_budget(seconds, repeats)
    policy = MLPPolicy(seed=seed)
    envs = make_vector_env("native", max(sizes))
    try:
        # Real observations, taken after a few random steps so the rows differ.
        envs.reset(seed=seed)
        rng = np.random.default_rng(checks.seed(seed))
        for _ in range(5):
            obs, *_ = envs.step(rng.integers(0, 4, size=envs.num_envs))
    finally:
        envs.close()
    rows = []
    for size in sizes:
        batch = np.ascontiguousarray(obs[:size])

        def call(batch: np.ndarray = batch) -> int:
            policy.act(batch)
            return 1

        timings = repeat_timings(call, seconds, repeats, min_calls=2)
        calls, elapsed = timings.best
        rows.append(
            {
                "batch_size": size,
                "calls": calls,
                "seconds": elapsed,
                "seconds_per_call": elapsed / calls,
                "seconds_per_call_slowest": 1.0 / timings.slowest.rate,
                "observations_per_s": calls * size / elapsed,
            }
        )
    df = pd.DataFrame(rows)
    df.attrs["settings"] = _settings(seconds, repeats, seed)
    return df
