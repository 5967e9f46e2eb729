"""Experiments with a random BurgerBot agent: pure functions that return tidy pandas DataFrames."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any

import numpy as np
import pandas as pd
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, VectorEnv

from burgerbot import checks, world
from burgerbot.bench import Stopwatch
from burgerbot.env import check_max_steps
from burgerbot.factories import BACKENDS, check_backend, make_vector_env
from burgerbot.wrappers import WORK_KINDS, check_work

__all__ = [
    "ACTION_CHUNK_STEPS",
    "EVENTS",
    "MAX_ROLLOUT_ROWS",
    "WORK_KINDS",
    "Progress",
    "goal_scaling",
    "random_actions",
    "rollout",
    "time_backends",
]

Progress = Callable[[float, str], Any]
"""A progress callback: ``progress(fraction_done, message)``. Raising from it stops the run."""

ACTION_CHUNK_STEPS = 1_000
"""Random actions are drawn (and progress is reported) this many steps at a time."""

MAX_ROLLOUT_ROWS = 200_000
"""`rollout` is for looking at: it refuses to build more rows than this."""

EVENTS = ("move", "turn_or_stop", "hit", "goal", "truncated", "reset")
"""What a step did to one sub-environment (the categories of `rollout`'s ``event`` column)."""


# Chunks of actions stay below about 8 MB however many envs there are.
_MAX_CHUNK_VALUES = 1_000_000


def _chunk_steps(num_envs: int) -> int:
    return max(1, min(ACTION_CHUNK_STEPS, _MAX_CHUNK_VALUES // num_envs))


def random_actions(seed: int, num_envs: int, steps: int) -> Iterator[np.ndarray]:
    """Yield a uniformly random agent's actions in chunks: int64 arrays of shape (chunk, num_envs).

    Row ``t`` of the concatenated chunks holds the actions of ``step()`` call ``t + 1``.
    They depend only on ``(seed, num_envs, steps)``, never on the backend, so every
    backend sees exactly the same actions; a longer run starts with the actions of a
    shorter one. Chunks (at most 1,000 steps) keep memory flat for very long runs.

    Example:
        >>> chunks = list(random_actions(seed=0, num_envs=4, steps=2500))
        >>> [chunk.shape for chunk in chunks]
        [(1000, 4), (1000, 4), (500, 4)]
        >>> chunks[0].dtype
        dtype('int64')
    """
    seed = checks.seed(seed)
    num_envs = checks.positive_int("num_envs", num_envs)
    steps = checks.positive_int("steps", steps)
    rng = np.random.default_rng(seed)
    chunk = _chunk_steps(num_envs)
    for start in range(0, steps, chunk):
        size = (min(chunk, steps - start), num_envs)
        yield rng.integers(0, world.NUM_ACTIONS, size=size, dtype=np.int64)


@contextmanager
def _closing(envs: VectorEnv) -> Iterator[VectorEnv]:
    """Close ``envs`` however the block ends (closing twice is harmless)."""
    try:
        yield envs
    except BaseException:
        # Interrupted: do not wait on workers that may be stuck mid-step, end them.
        if isinstance(envs, AsyncVectorEnv):
            envs.close(terminate=True)
        raise
    finally:
        envs.close()


def _reset_ended(
    envs: VectorEnv, terminated: np.ndarray, truncated: np.ndarray
) -> np.ndarray | None:
    """In DISABLED mode nothing resets by itself: reset the sub-environments that ended."""
    ended = terminated | truncated
    if not ended.any():
        return None
    envs.reset(options={"reset_mask": ended})
    return ended


def _report(progress: Progress | None, fraction: float, message: str) -> None:
    if progress is not None:
        progress(min(1.0, max(0.0, fraction)), message)


def rollout(
    backend: str = "sync",
    num_envs: int = 4,
    steps: int = 100,
    seed: int = 0,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    max_steps: int = 150,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Run a random agent and record every step of every sub-environment, one row each.

    Rows are ordered by ``step`` then ``env``; there are ``steps * num_envs`` of them
    (at most ``MAX_ROLLOUT_ROWS``). Every episode starts at ``[0, 0, 1, 1]`` (no row is
    recorded for the initial ``reset``). Columns:

    - ``step`` (1-based ``step()`` call), ``env``, ``action``: what was sent.
    - ``row``, ``col``, ``heading``, ``sensor``, ``reward``, ``terminated``,
      ``truncated``: what ``step()`` returned for that env.
    - ``event``: ``"move"``, ``"turn_or_stop"``, ``"hit"`` (reward -10 and terminated),
      ``"goal"`` (reward 50), ``"truncated"`` (truncated without terminating), or
      ``"reset"``: in NEXT_STEP mode, the call after an episode ended, which resets
      that env, ignores its action and returns reward 0.0 and both flags False.
    - ``episode``: per env, 0-based index of the episode the row belongs to. A row
      that ends an episode belongs to it; the rows after it to the next one. So in
      NEXT_STEP mode the ``"reset"`` row is the first row of the new episode.
    - ``autoreset``: this ``step()`` call auto-reset that env: NEXT_STEP on the
      ``"reset"`` row; SAME_STEP on the ending row itself (its observation is already
      the new start, ``[0, 0, 1, 1]``); never in DISABLED mode.
    - ``manual_reset``: DISABLED mode only: right after this step the rollout called
      ``envs.reset(options={"reset_mask": ended})`` with this env in the mask.
    - ``final_row``, ``final_col``, ``final_heading``, ``final_sensor`` (nullable
      ``Int64``): on a row that ends an episode, the episode's last observation; in
      SAME_STEP mode it comes from ``infos["final_obs"]``, otherwise it is the
      observation returned on that row. Missing on other rows.

    The same ``(seed, num_envs, steps, autoreset_mode, max_steps)`` gives the same
    frame on every backend.

    Example:
        >>> frame = rollout("native", num_envs=2, steps=3, seed=0)
        >>> frame.shape
        (6, 18)
        >>> frame["event"].tolist()
        ['turn_or_stop', 'turn_or_stop', 'turn_or_stop', 'turn_or_stop', 'turn_or_stop', 'move']
    """
    backend = check_backend(backend)
    mode = AutoresetMode(autoreset_mode)
    num_envs = checks.positive_int("num_envs", num_envs)
    steps = checks.positive_int("steps", steps)
    seed = checks.seed(seed)
    max_steps = check_max_steps(max_steps)
    if steps * num_envs > MAX_ROLLOUT_ROWS:
        raise ValueError(
            f"a rollout of `steps`={steps:,} x `num_envs`={num_envs:,} would have "
            f"{steps * num_envs:,} rows; keep it to at most {MAX_ROLLOUT_ROWS:,} "
            "(goal_scaling counts long runs without recording every step)"
        )
    shape = (steps, num_envs)
    actions = np.empty(shape, dtype=np.int64)
    observations = np.empty((*shape, 4), dtype=np.int64)
    rewards = np.empty(shape, dtype=np.float64)
    terminated = np.empty(shape, dtype=np.bool_)
    truncated = np.empty(shape, dtype=np.bool_)
    final = np.zeros((*shape, 4), dtype=np.int64)
    manual_reset = np.zeros(shape, dtype=np.bool_)

    with _closing(make_vector_env(backend, num_envs, mode, max_steps)) as envs:
        envs.reset(seed=seed)
        t = 0
        for chunk in random_actions(seed, num_envs, steps):
            for step_actions in chunk:
                actions[t] = step_actions
                obs, rew, term, trunc, infos = envs.step(step_actions)
                observations[t], rewards[t], terminated[t], truncated[t] = obs, rew, term, trunc
                if mode == AutoresetMode.SAME_STEP:
                    # The returned obs already starts the next episode; the last one is here.
                    for i in np.flatnonzero(infos.get("_final_obs", ())):
                        final[t, i] = infos["final_obs"][i]
                else:
                    ended = term | trunc
                    final[t, ended] = obs[ended]
                if mode == AutoresetMode.DISABLED:
                    reset = _reset_ended(envs, term, trunc)
                    if reset is not None:
                        manual_reset[t] = reset
                t += 1
            _report(progress, t / steps, f"{t:,} of {steps:,} steps")

    ended = terminated | truncated
    # NEXT_STEP resets on the call after an episode ends, SAME_STEP on the ending call.
    reset_step = np.zeros(shape, dtype=np.bool_)
    if mode == AutoresetMode.NEXT_STEP:
        reset_step[1:] = ended[:-1]
    autoreset = ended.copy() if mode == AutoresetMode.SAME_STEP else reset_step
    episode: np.ndarray = np.cumsum(ended, axis=0) - ended
    codes = np.select(
        [
            reset_step,
            rewards == world.GOAL_REWARD,
            (rewards == world.HIT_REWARD) & terminated,
            truncated & ~terminated,
            rewards == world.MOVE_REWARD,
        ],
        [EVENTS.index(name) for name in ("reset", "goal", "hit", "truncated", "move")],
        default=EVENTS.index("turn_or_stop"),
    )
    columns: dict[str, Any] = {
        "step": np.repeat(np.arange(1, steps + 1, dtype=np.int64), num_envs),
        "env": np.tile(np.arange(num_envs, dtype=np.int64), steps),
        "action": actions.ravel(),
    }
    for k, name in enumerate(world.OBSERVATION_FIELDS):
        columns[name] = observations[..., k].ravel()
    columns |= {
        "reward": rewards.ravel(),
        "terminated": terminated.ravel(),
        "truncated": truncated.ravel(),
        "event": pd.Categorical.from_codes(codes.ravel(), categories=pd.Index(list(EVENTS))),
        "episode": episode.ravel().astype(np.int64),
        "autoreset": autoreset.ravel(),
        "manual_reset": manual_reset.ravel(),
    }
    missing = ~ended.ravel()
    for k, name in enumerate(world.OBSERVATION_FIELDS):
        columns[f"final_{name}"] = pd.arrays.IntegerArray(final[..., k].ravel(), missing)
    return pd.DataFrame(columns)


def _count_run(
    envs: VectorEnv,
    mode: AutoresetMode,
    seed: int,
    num_envs: int,
    steps: int,
    on_chunk: Callable[[int], None],
) -> dict[str, Any]:
    """Step a random agent and count outcomes with a few whole-batch numpy operations."""
    count = np.count_nonzero
    disabled = mode == AutoresetMode.DISABLED
    goals = hits = terminations = truncations = 0
    watch = Stopwatch()  # the reset and the step() calls, not drawing actions or reporting
    done = 0
    with watch:
        envs.reset(seed=seed)
    for chunk in random_actions(seed, num_envs, steps):
        with watch:
            for actions in chunk:
                _, rewards, terminated, truncated, _ = envs.step(actions)
                goals += int(count(rewards == world.GOAL_REWARD))
                # -10 is only ever given for a hit, which always terminates.
                hits += int(count(rewards == world.HIT_REWARD))
                terminations += int(count(terminated))
                if truncated.any():  # rare: only when an episode reaches max_steps
                    truncations += int(count(truncated & ~terminated))
                if disabled:
                    _reset_ended(envs, terminated, truncated)
        done += len(chunk)
        on_chunk(done)
    return {
        "goals": goals,
        "hits": hits,
        "truncations": truncations,
        "episodes": terminations + truncations,
        "seconds": watch.seconds,
    }


def goal_scaling(
    num_envs_list: Sequence[int],
    steps_per_env: int | None = None,
    seeds: Sequence[int] = (0,),
    backend: str = "sync",
    *,
    total_env_steps: int | None = None,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    max_steps: int = 150,
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Count what a random agent achieves for each NUM_ENVS and seed: one row per run.

    Give either ``steps_per_env`` (every run makes that many ``step()`` calls, so more
    envs collect more env-steps) or ``total_env_steps`` (the same budget for every N:
    ``total_env_steps // num_envs`` calls each).

    Columns: ``backend``, ``num_envs``, ``seed``, ``steps_per_env``, ``env_steps``
    (``num_envs * steps_per_env``, including NEXT_STEP's reset steps), ``goals``
    (reward 50), ``hits`` (reward -10), ``truncations`` (truncated without
    terminating), ``episodes`` (finished: terminated or truncated, so it equals
    ``goals + hits + truncations``) and ``seconds`` (the ``reset`` and ``step()``
    calls only: creating and closing the vector env are not counted).

    "sync" and "native" give identical counts for the same seeds. ``progress`` is
    called about every 1,000 steps; raising from it stops the run (every env is closed).

    Example:
        >>> frame = goal_scaling([1, 4], steps_per_env=500, seeds=[0, 1], backend="native")
        >>> frame[["num_envs", "seed", "env_steps"]].values.tolist()
        [[1, 0, 500], [1, 1, 500], [4, 0, 2000], [4, 1, 2000]]
    """
    backend = check_backend(backend)
    mode = AutoresetMode(autoreset_mode)
    sizes = checks.positive_ints("num_envs_list", num_envs_list)
    seeds = checks.seeds(seeds)
    max_steps = check_max_steps(max_steps)
    if (steps_per_env is None) == (total_env_steps is None):
        raise ValueError(
            "give exactly one of `steps_per_env` and `total_env_steps`, got "
            f"steps_per_env={steps_per_env!r}, total_env_steps={total_env_steps!r}"
        )
    if total_env_steps is not None:
        total = checks.positive_int("total_env_steps", total_env_steps)
        if total < max(sizes):
            raise ValueError(
                f"`total_env_steps`={total:,} leaves no step for num_envs={max(sizes):,}: "
                "it must be at least the largest NUM_ENVS"
            )
        steps_for = {n: total // n for n in sizes}
    else:
        steps = checks.positive_int("steps_per_env", steps_per_env)
        steps_for = {n: steps for n in sizes}

    planned = sum(n * steps_for[n] for n in sizes) * len(seeds)

    def report(done_before: int, num_envs: int, message: str, done_steps: int) -> None:
        _report(progress, (done_before + done_steps * num_envs) / planned, message)

    done_before = 0
    rows = []
    for n in sizes:
        steps = steps_for[n]
        with _closing(make_vector_env(backend, n, mode, max_steps)) as envs:
            for seed in seeds:
                on_chunk = partial(report, done_before, n, f"NUM_ENVS={n:,}, seed {seed}")
                counts = _count_run(envs, mode, seed, n, steps, on_chunk)
                rows.append(
                    {
                        "backend": backend,
                        "num_envs": n,
                        "seed": seed,
                        "steps_per_env": steps,
                        "env_steps": n * steps,
                        **counts,
                    }
                )
                done_before += n * steps
    _report(progress, 1.0, "done")
    return pd.DataFrame(rows)


def time_backends(
    backends: Sequence[str] = BACKENDS,
    num_envs_list: Sequence[int] = (1, 4),
    steps: int | Sequence[int] = 1_000,
    seed: int = 0,
    *,
    autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    max_steps: int = 150,
    work_seconds: float = 0.0,
    work_kind: str = "busy",
    progress: Progress | None = None,
) -> pd.DataFrame:
    """Time creating, resetting, stepping and closing each backend: one row per combination.

    Every backend gets the same random actions for the same ``(seed, num_envs, steps)``.
    ``work_seconds > 0`` wraps each sub-environment in `StepCostWrapper` to model a
    heavier simulator ("sync" and "async" only), which shows where running the
    sub-environments in parallel processes starts to pay off.

    Columns: ``backend``, ``num_envs``, ``steps``, ``work_seconds``, ``create_s``,
    ``reset_s``, ``step_s`` (all ``step()`` calls, not drawing the actions), ``close_s``,
    ``env_steps`` (``num_envs * steps``) and ``env_steps_per_s`` (``env_steps / step_s``).

    Example:
        >>> frame = time_backends(["sync", "native"], num_envs_list=[4], steps=100)
        >>> frame[["backend", "num_envs", "env_steps"]].values.tolist()
        [['sync', 4, 400], ['native', 4, 400]]
    """
    backends = list(backends) if not isinstance(backends, str) else [backends]
    if not backends:
        raise ValueError(f"`backends` must name at least one backend, got {backends!r}")
    backends = [check_backend(backend) for backend in backends]
    sizes = checks.positive_ints("num_envs_list", num_envs_list)
    step_counts = checks.positive_ints("steps", steps)
    seed = checks.seed(seed)
    mode = AutoresetMode(autoreset_mode)
    max_steps = check_max_steps(max_steps)
    work_seconds, work_kind = check_work(work_seconds, work_kind)
    if work_seconds > 0 and "native" in backends:
        raise ValueError(
            "`work_seconds` only applies to the 'sync' and 'async' backends (the native env "
            f"has no sub-environments to slow down), got backends {backends!r}"
        )

    combos = [(b, n, s) for b in backends for n in sizes for s in step_counts]
    rows = []
    for index, (backend, n, count) in enumerate(combos):
        message = f"{backend}, NUM_ENVS={n:,}, {count:,} steps"
        _report(progress, index / len(combos), message)
        create, reset, step, close = Stopwatch(), Stopwatch(), Stopwatch(), Stopwatch()
        with create:
            envs = make_vector_env(backend, n, mode, max_steps, None, work_seconds, work_kind)
        with _closing(envs):
            with reset:
                envs.reset(seed=seed)
            done = 0
            for chunk in random_actions(seed, n, count):
                with step:
                    for actions in chunk:
                        _, _, terminated, truncated, _ = envs.step(actions)
                        if mode == AutoresetMode.DISABLED:
                            _reset_ended(envs, terminated, truncated)
                done += len(chunk)
                _report(progress, (index + done / count) / len(combos), message)
            with close:
                envs.close()
        create_s, reset_s, step_s, close_s = (
            watch.seconds for watch in (create, reset, step, close)
        )
        rows.append(
            {
                "backend": backend,
                "num_envs": n,
                "steps": count,
                "work_seconds": work_seconds,
                "create_s": create_s,
                "reset_s": reset_s,
                "step_s": step_s,
                "close_s": close_s,
                "env_steps": n * count,
                "env_steps_per_s": n * count / step_s if step_s > 0 else math.inf,
            }
        )
    _report(progress, 1.0, "done")
    return pd.DataFrame(rows)
