"""Where batching pays: transitions per second with and without a policy network choosing actions.

Counted as transitions: rows a learner may train on. A vector env in NEXT_STEP mode returns
one row per sub-environment per `step()` call (env-steps), but the row of an env that is being
reset (its previous call ended an episode) is no transition; about 1 row in 11 with random
actions. Those rows are left out of every rate here, as the plain loop, which makes a
separate `reset()` call, never counts them either.

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
from burgerbot.bench import interleaved_timings
from burgerbot.env import BurgerBotEnv
from burgerbot.factories import make_vector_env

__all__ = [
    "LOOPS",
    "OBS_SCALE",
    "MLPPolicy",
    "Tally",
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
    """``PLAIN_CHUNK`` steps of one BurgerBotEnv in a plain loop, resetting when an episode ends.

    Returns the transitions collected: every `step()` is one (a `reset()` returns no row).
    """
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

    if policy is None:
        return random_chunk
    net = policy  # an MLPPolicy from here on (closures do not keep the narrowing)

    def policy_chunk() -> int:
        nonlocal obs
        for _ in range(PLAIN_CHUNK):
            action = int(net.act(obs[None])[0])  # a batch of one observation
            obs, _, terminated, truncated, _ = step(action)
            if terminated or truncated:
                obs, _ = reset()
        return PLAIN_CHUNK

    return policy_chunk


class Tally:
    """What a vector chunk returned over all its calls: calls, env-steps (rows), reset rows."""

    def __init__(self) -> None:
        self.calls = self.env_steps = self.reset_rows = 0

    @property
    def reset_share(self) -> float:
        """The share of the rows that were auto-reset rows (no transitions)."""
        return self.reset_rows / self.env_steps if self.env_steps else 0.0


def _vector_chunk(
    envs: gym.vector.VectorEnv,
    policy: MLPPolicy | None,
    rng: np.random.Generator,
    tally: Tally | None = None,
) -> Callable[[], int]:
    """One ``envs.step`` call: random actions, or one forward pass for the whole batch.

    Returns the transitions the call collected: N rows minus the auto-reset rows (the envs
    whose previous call ended an episode: NEXT_STEP resets them now and returns no transition).
    ``tally`` adds up calls, rows and reset rows.
    """
    obs, _ = envs.reset(seed=0)
    rows = itertools.cycle(list(rng.integers(0, 4, size=(ACTION_ROWS, envs.num_envs))))
    step, num_envs = envs.step, envs.num_envs
    tally = tally if tally is not None else Tally()
    ended = np.zeros(num_envs, dtype=bool)  # which envs' last call ended an episode

    def count(terminated: np.ndarray, truncated: np.ndarray) -> int:
        nonlocal ended
        resets = int(np.count_nonzero(ended))
        ended = np.logical_or(terminated, truncated)
        tally.calls += 1
        tally.env_steps += num_envs
        tally.reset_rows += resets
        return num_envs - resets

    def random_call() -> int:
        _, _, terminated, truncated, _ = step(next(rows))
        return count(terminated, truncated)

    if policy is None:
        return random_call
    net = policy  # an MLPPolicy from here on (closures do not keep the narrowing)

    def policy_call() -> int:
        nonlocal obs
        obs, _, terminated, truncated, _ = step(net.act(obs))  # auto-reset: no reset call
        return count(terminated, truncated)

    return policy_call


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
    policies: Sequence[bool] = (False, True),
) -> pd.DataFrame:
    """Transitions per second of the plain loop, Sync and native, without and with a policy.

    Every row warms up, then its ``repeats`` timed runs (each until ``seconds`` have passed,
    and at least two chunks) are taken in turns with every other row's
    (`burgerbot.bench.interleaved_timings`), so their spreads can be compared
    (`burgerbot.bench.compare_timings`). The plain loop resets its env when an episode ends
    (part of its cost); the vector envs auto-reset (NEXT_STEP), and their reset rows are not
    counted as transitions. Without a policy the actions are random and drawn beforehand;
    with one, `MLPPolicy` picks every action from the latest observations, and its forward
    passes are part of the time.

    Args:
        sizes: Numbers of environments for Sync and native (the plain loop has one).
        seconds: Timing budget per repeat.
        repeats: Timed runs per row (two or more give a spread to compare).
        seed: Seeds the random actions and the policy.
        policies: Which to measure: stepping alone (False), with the policy (True), or both.

    Returns:
        One row per (loop, num_envs, policy), columns ``loop`` (one of `LOOPS`),
        ``num_envs``, ``policy`` (bool), ``seconds`` and ``transitions`` (of the fastest
        repeat), ``transitions_per_s`` (fastest repeat), ``transitions_per_s_slowest``,
        ``transitions_per_s_median``, ``transition_rates`` (every repeat's, a list),
        ``reset_row_share`` (auto-reset rows over env-steps, over the whole measurement; 0
        for the plain loop), ``env_steps_per_s`` (rows, fastest repeat), ``step_calls`` (of
        the fastest repeat) and ``seconds_per_call``. ``attrs["settings"]`` records the budget
        and the machine.

    Example:
        >>> df = loop_speeds([2], seconds=0.001, repeats=2)
        >>> df[["loop", "num_envs", "policy"]].values.tolist()
        [['plain', 1, False], ['sync', 2, False], ['native', 2, False], ['plain', 1, True], ['sync', 2, True], ['native', 2, True]]
    """  # noqa: E501
    sizes = checks.positive_ints("sizes", sizes)
    seconds, repeats = _check_budget(seconds, repeats)
    rng = np.random.default_rng(checks.seed(seed))
    plans = [
        (loop, num_envs, with_policy)
        for with_policy in dict.fromkeys(bool(p) for p in policies)
        for loop, num_envs in [("plain", 1)]
        + [(loop, n) for loop in ("sync", "native") for n in sizes]
    ]
    networks = {False: None, True: MLPPolicy(seed=seed)}
    opened: list[gym.vector.VectorEnv] = []
    chunks: dict[tuple[str, int, bool], Callable[[], int]] = {}
    tallies: dict[tuple[str, int, bool], Tally] = {}
    try:
        for plan in plans:
            loop, num_envs, with_policy = plan
            policy = networks[with_policy]
            if loop == "plain":
                chunks[plan] = _plain_chunk(policy, rng)
                continue
            envs = make_vector_env(loop, num_envs)
            opened.append(envs)
            tallies[plan] = Tally()
            chunks[plan] = _vector_chunk(envs, policy, rng, tallies[plan])
        # Each timed run makes two chunks or more; the warm-up is one chunk.
        timings = interleaved_timings(chunks, seconds, repeats, min_calls=2)
    finally:
        for envs in opened:
            envs.close()
    rows = []
    for plan in plans:
        loop, num_envs, with_policy = plan
        tally = tallies.get(plan)
        share = tally.reset_share if tally else 0.0
        # step() calls per transition: 1 for the plain loop; 1 / (N x (1 - share)) for vectors
        calls_per_transition = tally.calls / (tally.env_steps - tally.reset_rows) if tally else 1
        rates = [run.rate for run in timings[plan].runs]
        best = timings[plan].best
        step_calls = best.calls * calls_per_transition
        rows.append(
            {
                "loop": loop,
                "num_envs": num_envs,
                "policy": with_policy,
                "seconds": best.seconds,
                "transitions": best.calls,
                "transitions_per_s": best.rate,
                "transitions_per_s_slowest": min(rates),
                "transitions_per_s_median": float(np.median(rates)),
                "transition_rates": rates,
                "reset_row_share": share,
                "env_steps_per_s": best.rate / (1 - share),
                "step_calls": step_calls,
                "seconds_per_call": best.seconds / step_calls,
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

    The batch sizes' timed runs are taken in turns (`burgerbot.bench.interleaved_timings`).

    Returns:
        One row per batch size: ``batch_size``, ``calls``, ``seconds``,
        ``seconds_per_call`` (fastest repeat), ``seconds_per_call_slowest`` (slowest repeat)
        ``observations_per_s`` (fastest repeat) and ``observation_rates`` (observations per
        second of every repeat, a list, for `burgerbot.bench.compare_timings`).

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

    def forward_pass(batch: np.ndarray) -> Callable[[], int]:
        def call() -> int:
            policy.act(batch)
            return 1

        return call

    chunks = {size: forward_pass(np.ascontiguousarray(obs[:size])) for size in sizes}
    every = interleaved_timings(chunks, seconds, repeats, min_calls=2)
    rows = []
    for size in sizes:
        timings = every[size]
        calls, elapsed = timings.best
        rows.append(
            {
                "batch_size": size,
                "calls": calls,
                "seconds": elapsed,
                "seconds_per_call": elapsed / calls,
                "seconds_per_call_slowest": 1.0 / timings.slowest.rate,
                "observations_per_s": calls * size / elapsed,
                "observation_rates": [run.rate * size for run in timings.runs],
            }
        )
    df = pd.DataFrame(rows)
    df.attrs["settings"] = _settings(seconds, repeats, seed)
    return df
